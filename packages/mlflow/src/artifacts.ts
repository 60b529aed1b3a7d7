/**
 * Run artifacts and logged models' files as real files. Every experiment's artifact root is
 * `dbfs:/databricks/mlflow-tracking/<experiment id>` (the MLflow server is started with it), and what is under
 * it lives under `<service folder>/artifacts/`: a run's at `<exp>/<run id>/artifacts/...`, a logged model's at
 * `<exp>/logged_models/<model id>/artifacts/...`. Clients reach them three ways, all served here:
 * - the Files API at `/WorkspaceInternal/Mlflow/Artifacts/<exp>/Runs/<run>/...` and `.../LoggedModels/<id>/...`
 *   (what the mlflow client for a `databricks` URI uses first; the files service mounts `locateFiles`);
 * - signed links from `artifacts/credentials-for-write|read` and the logged-model credential calls (its
 *   fallback), which need no Authorization header, name one file and one method, and expire;
 * - `artifacts/list` and the web UI's `get-artifact`.
 * Paths never leave their root: `..`, `.`, backslashes and NUL bytes are 400s, and symlinks are not followed
 * out of the data dir.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { notFound, resolveUnderReal, safeSegments, uuid } from '@minilake/core';
import { artifactNotFound, artifactPathEscapes, badLink, runNotActive, runNotFound } from './errors.js';
import { ARTIFACT_ROOT, type MlflowServer } from './server.js';

/**
 * The MLflow server puts a logged model's files at `<experiment root>/models/<id>/artifacts`; Databricks at
 * `<experiment root>/logged_models/<id>/artifacts`, which is what the `databricks` client maps to its
 * repository for logged models (the OSS form would be taken for a run named `models`). Answers about logged
 * models are given the Databricks form.
 */
export function databricksModelUris(text: string): string {
  return text.replace(
    /(dbfs:\/databricks\/mlflow-tracking\/[A-Za-z0-9_-]+)\/models\/(m-[A-Za-z0-9]+)/g,
    '$1/logged_models/$2',
  );
}

/** How long a signed artifact link works. */
const LINK_TTL_MS = 15 * 60_000;
const ID = /^[A-Za-z0-9_-]{1,128}$/;

export type OwnerKind = 'runs' | 'logged_models';

export type { Owner };

export interface FileInfo {
  path: string;
  is_dir: boolean;
  file_size?: number;
}

/** What a run or logged model is, as far as its files are concerned. */
interface Owner {
  kind: OwnerKind;
  id: string;
  experimentId: string;
  /** Its artifact folder on disk (what its artifact_uri maps to). */
  dir: string;
  /** Its artifact_uri. */
  uri: string;
  active: boolean;
}

export class Artifacts {
  private readonly key = randomBytes(32);
  readonly tmp: string;
  /**
   * What the MLflow server said about a run or logged model: its experiment and artifact URI never change, so
   * every Files API request of a model upload (a dozen files) need not ask again. Whether a run is deleted
   * does change: the tracking app forgets a run on runs/delete and runs/restore, and everything on an
   * experiment's delete or restore and when the server stops.
   */
  private readonly owners = new Map<string, Owner>();
  private ownersGeneration = 0;

  constructor(
    private readonly server: MlflowServer,
    /** `<service folder>/artifacts`. */
    readonly root: string,
  ) {
    this.tmp = path.join(root, '.tmp');
  }

  /** Checks a client's relative artifact path and returns its segments ('' is the root). */
  segments(p: string | undefined): string[] {
    if (p === undefined || p === '' || p === '/') return [];
    if (p.includes('\\') || p.includes('\0')) throw artifactPathEscapes(p);
    try {
      return safeSegments(p.replace(/^\/+/, ''));
    } catch {
      throw artifactPathEscapes(p);
    }
  }

  /** The folder an `dbfs:/databricks/mlflow-tracking/...` artifact URI maps to, if it is one. */
  private uriDir(uri: string): string | undefined {
    const prefix = `${ARTIFACT_ROOT}/`;
    if (!uri.startsWith(prefix)) return undefined;
    const rest = safeSegments(uri.slice(prefix.length));
    return path.join(this.root, ...rest);
  }

  /** Forgets what is known of one run (`id`) or of everything. */
  forget(id?: string): void {
    if (id === undefined) this.owners.clear();
    else this.owners.delete(`runs/${id}`);
  }

  /** A run's or logged model's artifact folder, from the MLflow server's record of it. */
  async owner(kind: OwnerKind, id: string): Promise<Owner> {
    if (!ID.test(id)) throw kind === 'runs' ? runNotFound(id) : notFound(`Logged model ${id} not found`);
    if (this.ownersGeneration !== this.server.generation) {
      this.owners.clear();
      this.ownersGeneration = this.server.generation;
    }
    const key = `${kind}/${id}`;
    const known = this.owners.get(key);
    if (known) return known;
    const found = await this.lookup(kind, id);
    this.owners.set(key, found);
    return found;
  }

  private async lookup(kind: OwnerKind, id: string): Promise<Owner> {
    if (kind === 'runs') {
      const r = await this.server.call<{
        run: { info: { experiment_id: string; artifact_uri: string; lifecycle_stage: string } };
      }>('GET', 'runs/get', { run_id: id });
      const dir = this.uriDir(r.run.info.artifact_uri);
      if (!dir)
        throw notFound(
          `Run ${id} keeps its artifacts at ${r.run.info.artifact_uri}, which MiniLake does not serve here.`,
        );
      return {
        kind,
        id,
        experimentId: r.run.info.experiment_id,
        dir,
        uri: r.run.info.artifact_uri,
        active: r.run.info.lifecycle_stage !== 'deleted',
      };
    }
    const r = await this.server.call<{ model: { info: { experiment_id: string; artifact_uri: string } } }>(
      'GET',
      `logged-models/${id}`,
    );
    const uri = databricksModelUris(r.model.info.artifact_uri);
    const dir = this.uriDir(uri);
    if (!dir)
      throw notFound(`Logged model ${id} keeps its files at ${uri}, which MiniLake does not serve here.`);
    return { kind, id, experimentId: r.model.info.experiment_id, dir, uri, active: true };
  }

  /** The disk path of one artifact (the owner must exist; writes need an active one). */
  async file(o: Owner, rel: string, access: 'read' | 'write'): Promise<string> {
    if (access === 'write' && !o.active) throw runNotActive(o.id);
    const segs = this.segments(rel);
    if (access === 'write') await mkdir(o.dir, { recursive: true });
    return resolveUnderReal(o.dir, segs.join('/'));
  }

  /** artifacts/list: the entries right under `rel`, paths relative to the artifact root. */
  async list(o: Owner, rel: string | undefined): Promise<FileInfo[]> {
    const segs = this.segments(rel);
    const dir = await resolveUnderReal(o.dir, segs.join('/')).catch(() => undefined);
    if (!dir) return [];
    const names = await readdir(dir).catch(() => [] as string[]);
    const out: FileInfo[] = [];
    for (const name of names.sort()) {
      const st = await stat(path.join(dir, name)).catch(() => undefined);
      if (!st) continue;
      const p = [...segs, name].join('/');
      out.push(st.isDirectory() ? { path: p, is_dir: true } : { path: p, is_dir: false, file_size: st.size });
    }
    return out;
  }

  /** Writes a body to an artifact: streamed to a temp file, renamed into place (readers never see half). */
  async write(o: Owner, rel: string, body: Readable): Promise<void> {
    const target = await this.file(o, rel, 'write');
    await mkdir(path.dirname(target), { recursive: true });
    await mkdir(this.tmp, { recursive: true });
    const tmp = path.join(this.tmp, uuid());
    try {
      await pipeline(body, createWriteStream(tmp));
      await rename(tmp, target);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  /** An existing artifact file (404 for a folder or nothing). */
  async existing(o: Owner, rel: string): Promise<{ disk: string; size: number; mtimeMs: number }> {
    const disk = await this.file(o, rel, 'read').catch((e) => {
      if ((e as { status?: number }).status === 400) throw e;
      throw artifactNotFound(rel);
    });
    const st = await stat(disk).catch(() => undefined);
    if (!st || st.isDirectory()) throw artifactNotFound(rel);
    return { disk, size: st.size, mtimeMs: st.mtimeMs };
  }

  // ---- signed links ----

  private sign(kind: OwnerKind, id: string, rel: string, method: string, expires: number): string {
    return createHmac('sha256', this.key)
      .update(`${kind}\n${id}\n${rel}\n${method}\n${expires}`)
      .digest('base64url');
  }

  /** A link on `base` (this server's origin) that lets its bearer GET or PUT one artifact until it expires. */
  link(base: string, o: Owner, rel: string, method: 'GET' | 'PUT', now: number): string {
    const segs = this.segments(rel);
    const expires = now + LINK_TTL_MS;
    const p = segs.map(encodeURIComponent).join('/');
    const sig = this.sign(o.kind, o.id, segs.join('/'), method, expires);
    return `${base}/_minilake/mlflow/artifacts/${o.kind}/${encodeURIComponent(o.id)}/${p}?expires=${expires}&sig=${sig}`;
  }

  /** Checks a signed link's signature and expiry; throws 403 otherwise. */
  verify(
    kind: OwnerKind,
    id: string,
    rel: string,
    method: string,
    expires: number,
    sig: string,
    now: number,
  ): void {
    const want = Buffer.from(this.sign(kind, id, this.segments(rel).join('/'), method, expires));
    const got = Buffer.from(sig);
    if (expires < now || want.length !== got.length || !timingSafeEqual(want, got)) throw badLink();
  }
}
