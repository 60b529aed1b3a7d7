/**
 * Named snapshots of a whole MiniLake (every enabled service's records and the files it owns: catalog
 * databases, volumes, workspace files, DBFS), so an agent or a test can try something and go back. A
 * snapshot is a folder under `<dataDir>/snapshots/<name>/`: `meta.json`, `state.json` (each state module's
 * own snapshot) and `files/<folder>` (copies of the owned data folders, cloned copy-on-write where the file
 * system can). EXTERNAL locations are the user's files outside the data dir and are not part of it.
 */
import { constants } from 'node:fs';
import { copyFile, cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  alreadyExists,
  invalidParameter,
  notFound,
  type ServiceInstance,
  type SharedResource,
  type StateDb,
} from '@minilake/core';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface SnapshotInfo {
  name: string;
  created_at: number;
  size_bytes: number;
  services: string[];
}

interface StateFile {
  format: 1;
  modules: Record<string, { version: number; snapshot: unknown }>;
}

export interface SnapshotsOptions {
  /** `<dataDir>/snapshots`. */
  root: string;
  dataDir: string;
  /** Owned data folders to copy (relative to dataDir), without the state and snapshot folders. */
  folders: () => string[];
  instances: Map<string, ServiceInstance>;
  sharedResources: Map<string, Promise<SharedResource>>;
  state: StateDb;
  /** Empties every service and shared resource (their beforeReset hooks first), as a reset does. */
  empty: () => Promise<void>;
  /**
   * The services' afterRestore hooks (re-arm schedules, recover runs, accept work again): called once the
   * state is back, and also when the restore failed midway, so no service stays stopped.
   */
  restored: () => Promise<void>;
  gate: WriteGate;
  now: () => number;
}

export class Snapshots {
  constructor(private readonly o: SnapshotsOptions) {}

  async list(): Promise<SnapshotInfo[]> {
    const names = await readdir(this.o.root).catch(() => [] as string[]);
    const infos = await Promise.all(names.map((n) => this.info(n).catch(() => undefined)));
    return infos.filter((i): i is SnapshotInfo => !!i).sort((a, b) => a.created_at - b.created_at);
  }

  async get(name: string): Promise<SnapshotInfo> {
    this.check(name);
    return this.info(name).catch(() => {
      throw notFound(`Snapshot '${name}' does not exist.`);
    });
  }

  async create(name: string): Promise<SnapshotInfo> {
    this.check(name);
    return this.o.gate.exclusive(async () => {
      const dir = path.join(this.o.root, name);
      if (await exists(dir)) throw alreadyExists(`Snapshot '${name}' already exists.`);
      // Built under a temporary name and renamed at the end: a crash never leaves a half snapshot.
      const tmp = path.join(this.o.root, `.${name}.${process.pid}.tmp`);
      await rm(tmp, { recursive: true, force: true });
      await mkdir(path.join(tmp, 'files'), { recursive: true });
      try {
        // Engines write their files through first (DuckDB: CHECKPOINT), so a file copy is the database.
        for (const r of this.o.sharedResources.values()) await (await r).checkpoint?.();
        const modules: StateFile['modules'] = {};
        for (const instance of this.o.instances.values())
          for (const m of instance.state) modules[m.name] = { version: m.version, snapshot: m.snapshot() };
        await writeFile(
          path.join(tmp, 'state.json'),
          JSON.stringify({ format: 1, modules } satisfies StateFile),
        );
        let size = 0;
        for (const folder of this.o.folders()) {
          const src = path.join(this.o.dataDir, folder);
          if (!(await exists(src))) continue;
          size += await copyTree(src, path.join(tmp, 'files', folder));
        }
        const info: SnapshotInfo = {
          name,
          created_at: this.o.now(),
          size_bytes: size,
          services: [...this.o.instances.keys()],
        };
        await writeFile(path.join(tmp, 'meta.json'), JSON.stringify(info));
        await rename(tmp, dir);
        return info;
      } catch (e) {
        await rm(tmp, { recursive: true, force: true });
        throw e;
      }
    });
  }

  /**
   * Puts every enabled service back as it was when the snapshot was taken. Checked before anything changes:
   * a module whose persisted shape changed since refuses the restore. Services enabled now but not then
   * are emptied.
   */
  async restore(name: string): Promise<SnapshotInfo> {
    const info = await this.get(name);
    const dir = path.join(this.o.root, name);
    const saved = JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as StateFile;
    for (const instance of this.o.instances.values())
      for (const m of instance.state) {
        const s = saved.modules[m.name];
        if (s && s.version !== m.version)
          throw invalidParameter(
            `Snapshot '${name}' holds state version ${s.version} of '${m.name}'; this MiniLake reads version ${m.version}.`,
          );
      }
    return this.o.gate.exclusive(async () => {
      await this.o.empty();
      try {
        await this.copyBack(dir, saved);
      } finally {
        await this.o.restored();
      }
      await this.o.state.flush();
      return info;
    });
  }

  /** The owned folders and every state module as the snapshot holds them. */
  private async copyBack(dir: string, saved: StateFile): Promise<void> {
    for (const folder of this.o.folders()) {
      const src = path.join(dir, 'files', folder);
      if (!(await exists(src))) continue;
      const dst = path.join(this.o.dataDir, folder);
      await rm(dst, { recursive: true, force: true });
      await cp(src, dst, { recursive: true, mode: constants.COPYFILE_FICLONE });
    }
    // In start order: a service finds the ones it uses already back (Unity Catalog re-attaches catalogs).
    for (const instance of this.o.instances.values())
      for (const m of instance.state) {
        const s = saved.modules[m.name];
        if (s) await m.restore(s.snapshot);
      }
  }

  async delete(name: string): Promise<void> {
    await this.get(name);
    await rm(path.join(this.o.root, name), { recursive: true, force: true });
  }

  private check(name: string): void {
    if (!NAME.test(name))
      throw invalidParameter(
        `Invalid snapshot name '${name}': use 1 to 64 letters, digits, '_', '-' or '.', starting with a letter or digit.`,
      );
  }

  private async info(name: string): Promise<SnapshotInfo> {
    return JSON.parse(await readFile(path.join(this.o.root, name, 'meta.json'), 'utf8')) as SnapshotInfo;
  }
}

/**
 * Keeps writes and snapshots apart: each mutating request holds the gate shared, a snapshot or restore holds
 * it alone, so neither sees a half-done write. Readers are preferred (a waiting snapshot does not block new
 * writes), which cannot deadlock a request that calls the host's routes again from inside itself.
 */
export class WriteGate {
  private active = 0;
  private exclusiveHeld = false;
  private waiters: (() => void)[] = [];

  async shared<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusiveHeld) await this.wait();
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.wake();
    }
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusiveHeld || this.active > 0) await this.wait();
    this.exclusiveHeld = true;
    try {
      return await fn();
    } finally {
      this.exclusiveHeld = false;
      this.wake();
    }
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/**
 * Copies a folder (copy-on-write where the file system can) and answers the bytes copied. The writers a
 * snapshot cannot hold still (an engine's scratch and spill files, a journal SQLite keeps beside its file, a
 * temp file being renamed into place) may remove an entry between the listing and its copy: such an entry was
 * on its way out and is not part of the state, so it is skipped instead of failing the snapshot (fs.cp stops
 * at the first ENOENT). Sockets and pipes are not data and are skipped too (fs.cp refuses them).
 */
async function copyTree(src: string, dst: string): Promise<number> {
  const entries = await readdir(src, { withFileTypes: true }).catch(ignoreGone);
  if (!entries) return 0;
  await mkdir(dst, { recursive: true });
  let size = 0;
  for (const e of entries) {
    const from = path.join(src, e.name);
    const to = path.join(dst, e.name);
    if (e.isDirectory()) size += await copyTree(from, to);
    else if (e.isSymbolicLink()) await cp(from, to, { verbatimSymlinks: true }).catch(ignoreGone);
    else if (e.isFile()) {
      const copied = await copyFile(from, to, constants.COPYFILE_FICLONE).then(() => true, ignoreGone);
      if (copied) size += (await stat(to)).size;
    }
  }
  return size;
}

/** Swallows ENOENT (the entry was removed meanwhile) and rethrows anything else. */
function ignoreGone(e: NodeJS.ErrnoException): undefined {
  if (e.code === 'ENOENT') return undefined;
  throw e;
}
