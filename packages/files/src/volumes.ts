/**
 * The Files API over Unity Catalog volumes. `/Volumes/<catalog>/<schema>/<volume>/<rest>` maps to the
 * volume's own directory, which the unity-catalog service owns (so SQL and jobs see the same bytes). Other
 * top-level roots belong to the services that mount them (`/WorkspaceInternal` and `/Models`: mlflow's run
 * artifacts and model versions, see FileRoot). Uploads stream to a temp file under `<dataDir>/files/tmp` and
 * are renamed into place.
 */
import type { Stats } from 'node:fs';
import { mkdir, readdir, rm, rmdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { keysetPage, Mutex, resolveUnderReal, uuid, type FileRoot } from '@minilake/core';
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import {
  directoryNotEmpty,
  volumeRootNotDeletable,
  directoryNotFound,
  fileExists,
  fileNotFound,
  notAVolumePath,
  pathIsDirectory,
  pathIsFile,
  volumesUnavailable,
} from './errors.js';
import {
  errno,
  makeDirs,
  openForRead,
  Reclaimer,
  statOrUndefined,
  UPLOAD_PREFIX,
  writeAtomically,
} from './fsutil.js';

/**
 * The one thing the Files API needs from the unity-catalog service: a volume's directory, or a 404
 * DatabricksError when the volume does not exist. Any object with that method works (tests use a fake).
 */
export type VolumeResolver = Pick<UnityCatalogApi, 'volumeDirectory'>;

export interface DirectoryEntry {
  path: string;
  is_directory: boolean;
  file_size?: number;
  last_modified: number;
  name: string;
}

export interface FileMeta {
  size: number;
  mtimeMs: number;
}

/**
 * Downloads read the file in pieces this large: one read and one socket write per MiB, instead of per
 * 64 KiB (the default) — fewer syscalls and stream turns for the same bytes, and still bounded per request.
 */
const READ_CHUNK = 1024 * 1024;

export interface VolumeFilesOptions {
  /** Uploads stream here first, outside every volume, so SQL globs never see a half-written file. */
  tmpDir: string;
  /** The roots other services mount, by their first path segment (read on each request). */
  roots?: () => Readonly<Record<string, FileRoot>> | undefined;
  /** fsync each upload before it is moved into place (a persistent server; see WriteOptions.durable). */
  durable?: boolean;
}

export class VolumeFiles {
  readonly tmpDir: string;
  private readonly durable: boolean;
  private readonly roots: () => Readonly<Record<string, FileRoot>> | undefined;
  /** Frees the files overwrites replace, after the upload has answered. */
  readonly reclaim = new Reclaimer();
  /**
   * Serializes what changes the volumes' trees (folders made and deleted, files deleted, the last step of
   * an upload): each checks, then acts, and a concurrent delete in between was a 500 (ENOENT).
   */
  private readonly namespace = new Mutex();

  constructor(
    private readonly resolver: () => VolumeResolver | undefined,
    opts: VolumeFilesOptions,
  ) {
    this.tmpDir = opts.tmpDir;
    this.durable = opts.durable ?? false;
    this.roots = opts.roots ?? (() => undefined);
  }

  /** The directory a client path starts in (a volume's, or a mounted root's) and the segments below it. */
  private async locate(p: string, access: 'read' | 'write'): Promise<{ dir: string; rest: string[] }> {
    const segments = p.split('/').filter(Boolean);
    const [first, ...after] = segments;
    if (first !== 'Volumes') {
      const root = first !== undefined ? this.roots()?.[first] : undefined;
      if (!root) throw notAVolumePath(p);
      return root.locate(after, access);
    }
    if (segments.length < 4) throw notAVolumePath(p);
    const [catalog, schema, volume, ...rest] = after as [string, string, string, ...string[]];
    const r = this.resolver();
    if (!r) throw volumesUnavailable();
    // Unity Catalog checks READ VOLUME / WRITE VOLUME for the caller (MINILAKE_ENFORCE=1).
    return { dir: await r.volumeDirectory(catalog, schema, volume, access), rest };
  }

  /** The disk path of a client path; the volume (or the root's object) must exist. */
  async resolve(p: string, access: 'read' | 'write' = 'read'): Promise<string> {
    const { dir, rest } = await this.locate(p, access);
    return resolveUnderReal(dir, rest.join('/'));
  }

  /** The upload's target checked (no folder there; free, or overwrite given) and its parent folders made. */
  private async prepareUpload(p: string, overwrite: boolean): Promise<string> {
    const disk = await this.resolve(p, 'write');
    const st = await statOrUndefined(disk);
    if (st?.isDirectory()) throw pathIsDirectory(p);
    if (st && !overwrite) throw fileExists(p);
    await makeDirs(path.dirname(disk), () => pathIsFile(path.posix.dirname(p)));
    return disk;
  }

  async upload(p: string, body: Readable, overwrite: boolean): Promise<number> {
    // Checked before the body is read (a conflict answers at once), and again with the move.
    const prepare = () => this.prepareUpload(p, overwrite);
    const disk = await this.namespace.run(prepare);
    await mkdir(this.tmpDir, { recursive: true });
    return writeAtomically(body, path.join(this.tmpDir, uuid()), disk, overwrite, () => fileExists(p), {
      durable: this.durable,
      reclaim: this.reclaim,
      place: { lock: this.namespace, prepare },
    });
  }

  async fileStat(p: string): Promise<{ disk: string; st: Stats }> {
    const disk = await this.resolve(p);
    const st = await statOrUndefined(disk);
    if (!st || st.isDirectory()) throw fileNotFound(p);
    return { disk, st };
  }

  /**
   * The file opened for a download, its size and time read from the open descriptor: a delete or an
   * overwrite from here on cannot cut the response short (the opened bytes stay readable until closed).
   * The caller streams it with readRange or closes it.
   */
  async openFile(p: string): Promise<{ file: FileHandle; st: Stats }> {
    const disk = await this.resolve(p);
    const file = await openForRead(disk, () => fileNotFound(p));
    try {
      const st = await file.stat();
      if (st.isDirectory()) throw fileNotFound(p);
      return { file, st };
    } catch (e) {
      await file.close();
      throw e;
    }
  }

  /** A stream of the bytes in [start, end] (inclusive) as the client consumes them; it closes the file. */
  readRange(file: FileHandle, start: number, end: number): Readable {
    return file.createReadStream({ start, end, highWaterMark: READ_CHUNK });
  }

  async deleteFile(p: string): Promise<void> {
    return this.namespace.run(async () => {
      const disk = await this.resolve(p, 'write');
      const st = await statOrUndefined(disk);
      if (!st || st.isDirectory()) throw fileNotFound(p);
      await rm(disk, { force: true });
    });
  }

  async createDirectory(p: string): Promise<void> {
    return this.namespace.run(async () => {
      await makeDirs(await this.resolve(p, 'write'), () => pathIsFile(p));
    });
  }

  private async dirStat(p: string, access: 'read' | 'write' = 'read'): Promise<string> {
    const disk = await this.resolve(p, access);
    const st = await statOrUndefined(disk);
    if (!st?.isDirectory()) throw directoryNotFound(p);
    return disk;
  }

  async headDirectory(p: string): Promise<void> {
    await this.dirStat(p);
  }

  async deleteDirectory(p: string): Promise<void> {
    return this.namespace.run(() => this.removeDirectory(p));
  }

  private async removeDirectory(p: string): Promise<void> {
    const disk = await this.dirStat(p, 'write');
    // A volume's (or a mounted root object's) own directory stays: it goes with its object.
    if ((await this.locate(p, 'write')).rest.length === 0) throw volumeRootNotDeletable(p);
    const entries = (await readdir(disk)).filter((n) => !n.startsWith(UPLOAD_PREFIX));
    if (entries.length > 0) throw directoryNotEmpty(p);
    try {
      await rmdir(disk);
    } catch (e) {
      if (errno(e) === 'ENOTEMPTY') throw directoryNotEmpty(p);
      throw e;
    }
  }

  async list(
    p: string,
    pageSize: number | undefined,
    pageToken: string | undefined,
  ): Promise<{ contents: DirectoryEntry[]; next_page_token?: string }> {
    const disk = await this.dirStat(p);
    const base = p.replace(/\/+$/, '');
    const names = (await readdir(disk)).filter((n) => !n.startsWith(UPLOAD_PREFIX)).sort();
    const page = keysetPage(names, (n) => n, Math.min(Math.max(pageSize ?? 1000, 1), 1000), pageToken);
    const contents: DirectoryEntry[] = [];
    for (const name of page.items) {
      const st = await statOrUndefined(path.join(disk, name));
      if (!st) continue;
      const entry: DirectoryEntry = {
        path: st.isDirectory() ? `${base}/${name}/` : `${base}/${name}`,
        is_directory: st.isDirectory(),
        last_modified: Math.floor(st.mtimeMs),
        name,
      };
      if (!st.isDirectory()) entry.file_size = st.size;
      contents.push(entry);
    }
    return page.nextPageToken ? { contents, next_page_token: page.nextPageToken } : { contents };
  }
}
