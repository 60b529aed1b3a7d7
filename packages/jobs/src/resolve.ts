/**
 * Where a task's code lives on this machine. Each path family belongs to another service, reached through
 * its peer api: the workspace (`/Workspace/...`, `/Users/...`), DBFS (`dbfs:/`) and Unity Catalog volumes
 * (`/Volumes/...`). Workspace objects are copied into the task's work folder, because the engine wants a file.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveUnder, safeSegments } from '@minilake/core';
import type { FilesApi } from '@minilake/files';
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import type { WorkspaceApi } from '@minilake/workspace';

export class TaskFileError extends Error {}

/**
 * A SQL-language notebook in the Python source layout the engine runs: each cell becomes a `%sql` magic cell
 * (cells that already carry a magic, `-- MAGIC %python`, keep it). The SQL text itself is not touched.
 */
export function sqlNotebookAsPython(source: string): string {
  const body = source.replace(/^-- Databricks notebook source\r?\n/, '');
  const cells = body.split(/^-- COMMAND ----------\r?$/m).map((c) => c.replace(/^\r?\n+|\s+$/g, ''));
  const out = cells
    .filter((c) => c !== '')
    .map((cell) => {
      const lines = cell.split(/\r?\n/);
      if (lines.every((l) => l.startsWith('-- MAGIC') || l === '')) {
        return lines.map((l) => l.replace(/^-- MAGIC ?/, '# MAGIC ')).join('\n');
      }
      return ['# MAGIC %sql', ...lines.map((l) => `# MAGIC ${l}`)].join('\n');
    });
  return `# Databricks notebook source\n${out.join('\n\n# COMMAND ----------\n\n')}\n`;
}

/** The peers that own each path family (each optional: a path of a service that is off fails the task). */
export interface FileResolverOptions {
  workspace?: WorkspaceApi | undefined;
  files?: FilesApi | undefined;
  volumes?: UnityCatalogApi | undefined;
}

const WORKSPACE_ROOTS = ['/Workspace/', '/Users/', '/Shared/', '/Repos/'];

export class FileResolver {
  constructor(private readonly peers: FileResolverOptions) {}

  /** Where dbfs:/ lives on disk (the files service's folder), for Spark's dbfs:/ file system. */
  get dbfsRoot(): string | undefined {
    return this.peers.files?.dbfsRoot;
  }

  isWorkspacePath(p: string): boolean {
    return WORKSPACE_ROOTS.some((r) => p.startsWith(r));
  }

  /** The local file for `p`, copying a workspace object into `workDir` first. */
  async localFile(p: string, workDir: string): Promise<string> {
    if (p.startsWith('dbfs:/')) {
      if (!this.peers.files) throw new TaskFileError(`Cannot read ${p}: the files service is not enabled.`);
      const full = resolveUnder(this.peers.files.dbfsRoot, p.slice('dbfs:'.length));
      if (!existsSync(full)) throw new TaskFileError(`File ${p} does not exist.`);
      return full;
    }
    if (p.startsWith('/Volumes/')) {
      const [catalog, schema, volume, ...rest] = safeSegments(p.slice('/Volumes/'.length));
      if (!catalog || !schema || !volume) throw new TaskFileError(`Invalid volume path ${p}.`);
      if (!this.peers.volumes) throw new TaskFileError(`Cannot read ${p}: Unity Catalog is not enabled.`);
      let dir: string;
      try {
        dir = await this.peers.volumes.volumeDirectory(catalog, schema, volume);
      } catch (e) {
        throw new TaskFileError(`Cannot read ${p}: ${(e as Error).message}`);
      }
      const full = resolveUnder(dir, rest.join('/'));
      if (!existsSync(full)) throw new TaskFileError(`File ${p} does not exist.`);
      return full;
    }
    if (this.isWorkspacePath(p)) {
      const content = await this.workspaceContent(p);
      await mkdir(workDir, { recursive: true });
      const target = path.join(workDir, path.basename(p));
      await writeFile(target, content);
      return target;
    }
    const local = p.startsWith('file:') ? p.slice('file:'.length).replace(/^\/\/(?=\/)/, '') : p;
    if (!path.isAbsolute(local)) {
      throw new TaskFileError(`Relative path ${p} needs the job's git_source.`);
    }
    if (!existsSync(local)) throw new TaskFileError(`File ${p} does not exist.`);
    return local;
  }

  async workspaceContent(p: string): Promise<Buffer> {
    if (!this.peers.workspace)
      throw new TaskFileError(`Cannot read ${p}: the workspace service is not enabled.`);
    try {
      return await this.peers.workspace.read(p);
    } catch (e) {
      throw new TaskFileError(`Cannot read ${p} from the workspace: ${(e as Error).message}`);
    }
  }

  /** A workspace folder copied to a local one (notebooks as SOURCE files with their extension). */
  async copyFolder(p: string, dest: string): Promise<void> {
    if (!this.peers.workspace)
      throw new TaskFileError(`Cannot read ${p}: the workspace service is not enabled.`);
    try {
      await this.peers.workspace.copyTree(p, dest);
    } catch (e) {
      throw new TaskFileError(`Cannot read ${p} from the workspace: ${(e as Error).message}`);
    }
  }

  /** A text file's content (a workspace file is read in place, not copied). */
  async localFileText(p: string, workDir: string): Promise<string> {
    if (this.isWorkspacePath(p)) return (await this.workspaceContent(p)).toString('utf8');
    const { readFile } = await import('node:fs/promises');
    return readFile(await this.localFile(p, workDir), 'utf8');
  }

  /** A notebook from the workspace, written as a source file; returns its path and language. */
  async notebook(p: string, workDir: string): Promise<{ file: string; source: string; language: string }> {
    const content = await this.workspaceContent(p);
    let language = 'PYTHON';
    try {
      const st = this.peers.workspace!.getStatus(p) as { language?: string };
      language = st.language ?? 'PYTHON';
    } catch {
      // a file (not a notebook) at that path: its extension says what it is
    }
    // On Databricks a notebook runs in its workspace folder, next to the files it imports (the default-python
    // template's notebook appends `../src` to sys.path): the folder is copied and the notebook runs there.
    const ws = this.peers.workspace!;
    const folder = path.posix.dirname(ws.canonicalPath(p));
    const dir = path.join(workDir, 'workspace', ...folder.split('/').filter(Boolean));
    const copied = await ws
      .copyTree(folder, dir)
      .then(() => true)
      .catch(() => false);
    return this.writeNotebook(p, content, language, copied ? dir : workDir);
  }

  /** A notebook file on this machine (a checkout of the job's git_source): its extension says its language. */
  async localNotebook(file: string, workDir: string) {
    const { readFile } = await import('node:fs/promises');
    const language = /\.sql$/i.test(file) ? 'SQL' : 'PYTHON';
    return this.writeNotebook(file, await readFile(file), language, workDir);
  }

  private async writeNotebook(p: string, content: Buffer, language: string, workDir: string) {
    const text = content.toString('utf8');
    const sql = language === 'SQL' || text.startsWith('-- Databricks notebook source');
    const ext = !sql && (p.endsWith('.ipynb') || text.trimStart().startsWith('{')) ? '.ipynb' : '.py';
    await mkdir(workDir, { recursive: true });
    const file = path.join(workDir, path.basename(p).replace(/\.(py|ipynb|sql)$/, '') + ext);
    await writeFile(file, sql ? sqlNotebookAsPython(text) : content);
    return { file, source: content.toString('utf8'), language };
  }
}
