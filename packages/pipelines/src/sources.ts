/**
 * A pipeline's sources, from the workspace to a folder the engine reads: `libraries` (`glob.include` with
 * `**` and `*`, `file.path`, `notebook.path`) resolved against the workspace as it is when the update
 * starts, each copied to `<dir>/src/<workspace path>` so errors can be mapped back to the path the user
 * knows. `root_path` (for Python imports) is copied whole. Jars, wheels and Maven libraries are Databricks'
 * legacy cluster libraries: refused by name.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { invalidParameter, isDatabricksError } from '@minilake/core';
import type { WorkspaceApi } from '@minilake/workspace';
import type { Library } from './settings.js';

export interface Source {
  /** The local copy. */
  local: string;
  /** `/Workspace/...` */
  workspace: string;
  language: 'PYTHON' | 'SQL';
  kind: 'FILE' | 'NOTEBOOK';
}

type Workspace = Pick<WorkspaceApi, 'read' | 'getStatus' | 'list'>;
type Info = ReturnType<Workspace['getStatus']>;

/** `/Workspace/Users/x` and `/Users/x` name one object. */
const canonical = (p: string) =>
  p === '/Workspace' ? '/' : p.startsWith('/Workspace/') ? p.slice('/Workspace'.length) : p;
const display = (p: string) => `/Workspace${p}`;

const HAS_MAGIC = /[*?[]/;

function globRe(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      // `**` spans folders; `a/**` also matches what is directly in a
      re += '.*';
      i++;
      if (pattern[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function languageOf(info: Info): 'PYTHON' | 'SQL' | undefined {
  if (info.object_type === 'NOTEBOOK') {
    const l = (info as { language?: string }).language;
    return l === 'PYTHON' || l === 'SQL' ? l : undefined;
  }
  if (info.path.endsWith('.py')) return 'PYTHON';
  if (info.path.endsWith('.sql')) return 'SQL';
  return undefined;
}

export class SourceResolver {
  constructor(private readonly ws: Workspace) {}

  private status(p: string): Info | undefined {
    try {
      return this.ws.getStatus(p);
    } catch (e) {
      if (isDatabricksError(e) && e.status === 404) return undefined;
      throw e;
    }
  }

  /** Every file and notebook under a folder, depth first, in path order. */
  private walk(dir: string): Info[] {
    const out: Info[] = [];
    for (const o of this.ws.list(dir)) {
      if (o.object_type === 'DIRECTORY') out.push(...this.walk(o.path));
      else if (o.object_type === 'FILE' || o.object_type === 'NOTEBOOK') out.push(o);
    }
    return out;
  }

  private glob(include: string): Info[] {
    const pattern = canonical(include);
    if (!HAS_MAGIC.test(pattern)) {
      const st = this.status(pattern);
      if (!st)
        throw invalidParameter(
          `The library glob ${include} matches nothing: ${display(pattern)} does not exist.`,
        );
      return st.object_type === 'DIRECTORY' ? this.walk(st.path) : [st];
    }
    const segs = pattern.split('/');
    const fixed =
      segs
        .slice(
          0,
          segs.findIndex((s) => HAS_MAGIC.test(s)),
        )
        .join('/') || '/';
    const base = this.status(fixed);
    if (!base || base.object_type !== 'DIRECTORY') return [];
    const re = globRe(pattern);
    return this.walk(base.path).filter((o) => re.test(o.path));
  }

  /** The sources of `libraries`, in order, without duplicates. */
  resolve(libraries: Library[]): { infos: Info[]; explicit: Set<string> } {
    const seen = new Map<string, Info>();
    const explicit = new Set<string>();
    for (const [i, lib] of libraries.entries()) {
      if (lib.jar !== undefined || lib.whl !== undefined || lib.maven !== undefined)
        throw invalidParameter(
          `libraries[${i}]: jar, whl and maven libraries are not supported by MiniLake's pipelines (use environment.dependencies for Python packages).`,
        );
      const p = lib.file?.path ?? lib.notebook?.path;
      if (p !== undefined) {
        const st = this.status(canonical(p));
        if (!st) throw invalidParameter(`libraries[${i}]: ${p} does not exist in the workspace.`);
        if (st.object_type === 'DIRECTORY')
          throw invalidParameter(`libraries[${i}]: ${p} is a folder; use a glob to include a folder.`);
        explicit.add(st.path);
        seen.set(st.path, st);
        continue;
      }
      for (const o of this.glob(lib.glob!.include!)) if (!seen.has(o.path)) seen.set(o.path, o);
    }
    return { infos: [...seen.values()], explicit };
  }

  /**
   * `environment.dependencies` with workspace paths in them (`--editable ${workspace.file_path}`, a wheel
   * the bundle uploaded): each path is copied to a stable local folder under `root` (the same path every
   * update, so the engine's per-requirements venv cache keeps hitting) and named by its local path.
   */
  async localDependencies(deps: string[], root: string): Promise<string[]> {
    const out: string[] = [];
    for (const dep of deps) {
      const parts: string[] = [];
      for (const tok of dep.split(/(\s+)/)) {
        if (!/^\/(Workspace|Users|Shared|Repos)\//.test(tok)) {
          parts.push(tok);
          continue;
        }
        const st = this.status(canonical(tok));
        if (!st) throw invalidParameter(`environment.dependencies: ${tok} does not exist in the workspace.`);
        const local = path.join(root, ...st.path.split('/').filter(Boolean));
        const files = st.object_type === 'DIRECTORY' ? this.walk(st.path) : [st];
        for (const o of files) {
          const dest = path.join(root, ...o.path.split('/').filter(Boolean));
          await mkdir(path.dirname(dest), { recursive: true });
          await writeFile(dest, await this.ws.read(o.path));
        }
        parts.push(local);
      }
      // Each entry is one pip argument: an option line (`--editable <path>`, `-r <file>`) is two.
      const line = parts.join('').trim();
      const m = /^(-\S+)\s+(.+)$/.exec(line);
      if (m) out.push(m[1]!, m[2]!);
      else out.push(line);
    }
    return out;
  }

  /** Copies the sources (and the root_path tree) into `<dir>/src`. */
  async materialize(
    libraries: Library[],
    rootPath: string | undefined,
    dir: string,
  ): Promise<{ sources: Source[]; srcDir: string; pythonPath: string[] }> {
    const srcDir = path.join(dir, 'src');
    const { infos, explicit } = this.resolve(libraries);
    const sources: Source[] = [];
    const copy = async (o: Info) => {
      const lang = languageOf(o);
      // A notebook's copy keeps its language's extension, so tracebacks name a file a user recognizes.
      const ext =
        o.object_type === 'NOTEBOOK' && lang && !/\.(py|sql)$/.test(o.path)
          ? lang === 'SQL'
            ? '.sql'
            : '.py'
          : '';
      const local = path.join(srcDir, 'Workspace', ...o.path.split('/').filter(Boolean)) + ext;
      await mkdir(path.dirname(local), { recursive: true });
      await writeFile(local, await this.ws.read(o.path));
      return { local, lang };
    };
    for (const o of infos) {
      const { local, lang } = await copy(o);
      if (!lang) {
        if (explicit.has(o.path))
          throw invalidParameter(
            `${display(o.path)} is not a Python or SQL source (pipelines run .py and .sql files and notebooks).`,
          );
        continue; // a README or data file beside the sources
      }
      sources.push({
        local,
        workspace: display(o.path),
        language: lang,
        kind: o.object_type as 'FILE' | 'NOTEBOOK',
      });
    }
    const pythonPath: string[] = [];
    if (rootPath) {
      const root = canonical(rootPath);
      const st = this.status(root);
      if (st?.object_type === 'DIRECTORY') {
        const done = new Set(infos.map((o) => o.path));
        for (const o of this.walk(root)) if (!done.has(o.path)) await copy(o);
        pythonPath.push(path.join(srcDir, 'Workspace', ...root.split('/').filter(Boolean)));
      }
    }
    for (const s of sources) {
      const d = path.dirname(s.local);
      if (!pythonPath.includes(d)) pythonPath.push(d);
    }
    return { sources, srcDir, pythonPath };
  }
}
