/**
 * DBFS: files under `<dataDir>/dbfs/root`. Metadata is the file system itself (size, mtime, is_dir); the only
 * state is the set of open upload handles (create / add-block / close), kept in a collection and freed after
 * an idle timeout on the injected clock, as Databricks does.
 */
import { mkdirSync, type Stats } from 'node:fs';
import { appendFile, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  CollectionStore,
  invalidParameter,
  Mutex,
  numericId,
  resolveUnderReal,
  uuid,
  type Clock,
  type Collection,
  type StateDb,
} from '@minilake/core';
import {
  dbfsExists,
  dbfsMoveIntoItself,
  dbfsIsDirectory,
  dbfsNotEmpty,
  dbfsNotFound,
  dbfsParentIsFile,
  handleNotFound,
  maxBlockExceeded,
  maxReadExceeded,
} from './errors.js';
import {
  makeDirs,
  moveIntoPlace,
  openForRead,
  Reclaimer,
  statOrUndefined,
  syncFile,
  writeAtomically,
} from './fsutil.js';
import { parentOf } from './paths.js';

export const MAX_READ = 1024 * 1024;
export const DEFAULT_READ = 512 * 1024;
export const MAX_BLOCK = 1024 * 1024;
/** An upload handle nobody touches for this long is closed and its partial data dropped. */
export const HANDLE_IDLE_MS = 10 * 60 * 1000;

export interface FileInfo {
  path: string;
  is_dir: boolean;
  file_size: number;
  modification_time: number;
}

interface HandleRecord {
  handle: number;
  path: string;
  overwrite: boolean;
  tmp: string;
  touched_at: number;
}

export class DbfsStore extends CollectionStore {
  private readonly handles: Collection<HandleRecord>;
  private readonly timers = new Map<number, () => void>();
  readonly root: string;
  readonly tmp: string;

  private readonly clock: Clock;
  private readonly idleMs: number;
  /** fsync uploads before they are moved into place: only a persistent server's files outlive it. */
  private readonly durable: boolean;
  /** Frees the files overwrites replace, after the request has answered. */
  readonly reclaim = new Reclaimer();
  /**
   * Serializes what changes the tree (mkdirs, delete, move, the last step of a write): each checks, then
   * acts, and a concurrent delete of a parent between the two was a 500 (ENOENT, ENOTEMPTY).
   */
  private readonly namespace = new Mutex();

  constructor(
    db: StateDb,
    opts: { clock: Clock; /** DBFS's folder (`<dataDir>/dbfs`). */ dir: string; idleMs?: number },
  ) {
    super('dbfs', 1, db);
    this.clock = opts.clock;
    this.idleMs = opts.idleMs ?? HANDLE_IDLE_MS;
    this.durable = db.persistent;
    this.handles = this.collection('handles');
    this.root = path.join(opts.dir, 'root');
    this.tmp = path.join(opts.dir, 'tmp');
    mkdirSync(this.root, { recursive: true });
    mkdirSync(this.tmp, { recursive: true });
    for (const h of this.handles.values()) this.arm(h);
  }

  protected override async onReset(): Promise<void> {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    await rm(this.root, { recursive: true, force: true });
    await rm(this.tmp, { recursive: true, force: true });
    await mkdir(this.root, { recursive: true });
    await mkdir(this.tmp, { recursive: true });
  }

  async close(): Promise<void> {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    await this.reclaim.settled();
  }

  private disk(p: string): Promise<string> {
    return resolveUnderReal(this.root, p);
  }

  private info(p: string, st: Stats): FileInfo {
    return {
      path: p,
      is_dir: st.isDirectory(),
      file_size: st.isDirectory() ? 0 : st.size,
      modification_time: Math.floor(st.mtimeMs),
    };
  }

  private async statOf(p: string): Promise<Stats> {
    const st = await statOrUndefined(await this.disk(p));
    if (!st) throw dbfsNotFound(p);
    return st;
  }

  async getStatus(p: string): Promise<FileInfo> {
    return this.info(p, await this.statOf(p));
  }

  async list(p: string): Promise<FileInfo[]> {
    const st = await this.statOf(p);
    if (!st.isDirectory()) return [this.info(p, st)];
    const dir = await this.disk(p);
    const names = (await readdir(dir)).sort();
    const out: FileInfo[] = [];
    for (const name of names) {
      const child = p === '/' ? `/${name}` : `${p}/${name}`;
      const cst = await statOrUndefined(path.join(dir, name));
      if (cst) out.push(this.info(child, cst));
    }
    return out;
  }

  async mkdirs(p: string): Promise<void> {
    return this.namespace.run(() => this.makeDirs(p));
  }

  private async makeDirs(p: string): Promise<void> {
    await makeDirs(await this.disk(p), () => dbfsParentIsFile(p));
  }

  async delete(p: string, recursive: boolean): Promise<void> {
    return this.namespace.run(() => this.remove(p, recursive));
  }

  private async remove(p: string, recursive: boolean): Promise<void> {
    const disk = await this.disk(p);
    const st = await statOrUndefined(disk);
    if (!st) return; // deleting a missing path succeeds, as on Databricks
    if (st.isDirectory()) {
      if (p === '/' && !recursive) throw dbfsNotEmpty(p);
      if (!recursive && (await readdir(disk)).length > 0) throw dbfsNotEmpty(p);
      if (p === '/') {
        for (const name of await readdir(disk))
          await rm(path.join(disk, name), { recursive: true, force: true });
        return;
      }
    }
    await rm(disk, { recursive: true, force: true });
  }

  async move(src: string, dst: string): Promise<void> {
    // A directory cannot go inside itself (rename would fail with EINVAL); refuse before creating any parent.
    if (src === '/' || dst.startsWith(src + '/')) throw dbfsMoveIntoItself(src, dst);
    return this.namespace.run(async () => {
      const from = await this.disk(src);
      await this.statOf(src);
      const to = await this.disk(dst);
      if (await statOrUndefined(to)) throw dbfsExists(dst);
      await this.makeDirs(parentOf(dst));
      await rename(from, to);
    });
  }

  /** The target must be free (or overwrite given) and must not be a directory. */
  private async checkWritable(p: string, overwrite: boolean): Promise<string> {
    const disk = await this.disk(p);
    const st = await statOrUndefined(disk);
    if (st && (st.isDirectory() || !overwrite)) throw dbfsExists(p);
    return disk;
  }

  /** checkWritable, then the parent folders: what a write needs right before its move (under the lock). */
  private async prepareWrite(p: string, overwrite: boolean): Promise<string> {
    const disk = await this.checkWritable(p, overwrite);
    await this.makeDirs(parentOf(p));
    return disk;
  }

  async put(p: string, content: Buffer | Readable, overwrite: boolean): Promise<void> {
    // Checked before the body is read (a conflict answers at once), and again with the move.
    const prepare = () => this.prepareWrite(p, overwrite);
    const disk = await this.namespace.run(prepare);
    await writeAtomically(content, path.join(this.tmp, uuid()), disk, overwrite, () => dbfsExists(p), {
      durable: this.durable,
      reclaim: this.reclaim,
      place: { lock: this.namespace, prepare },
    });
  }

  async read(p: string, offset = 0, length = DEFAULT_READ): Promise<{ bytes_read: number; data: string }> {
    if (length > MAX_READ) throw maxReadExceeded();
    if (offset < 0 || length < 0) throw invalidParameter('offset and length must not be negative.');
    // Opened first and sized from the descriptor, so a concurrent delete is a 404, not a failed open.
    const fh = await openForRead(await this.disk(p), () => dbfsNotFound(p));
    try {
      const st = await fh.stat();
      if (st.isDirectory()) throw dbfsIsDirectory(p);
      const want = Math.max(0, Math.min(length, st.size - offset));
      if (want === 0) return { bytes_read: 0, data: '' };
      const buf = Buffer.alloc(want);
      const { bytesRead } = await fh.read(buf, 0, want, offset);
      return { bytes_read: bytesRead, data: buf.subarray(0, bytesRead).toString('base64') };
    } finally {
      await fh.close();
    }
  }

  async create(p: string, overwrite: boolean): Promise<number> {
    await this.checkWritable(p, overwrite);
    const handle = numericId();
    const rec: HandleRecord = {
      handle,
      path: p,
      overwrite,
      tmp: path.join(this.tmp, `h-${handle}`),
      touched_at: this.clock.now(),
    };
    await writeFile(rec.tmp, Buffer.alloc(0));
    this.handles.set(String(handle), rec);
    this.arm(rec);
    return handle;
  }

  private arm(rec: HandleRecord): void {
    this.timers.get(rec.handle)?.();
    const due = Math.max(0, rec.touched_at + this.idleMs - this.clock.now());
    this.timers.set(
      rec.handle,
      this.clock.setTimeout(() => {
        this.timers.delete(rec.handle);
        if (this.handles.delete(String(rec.handle))) void rm(rec.tmp, { force: true });
      }, due),
    );
  }

  private handle(h: number): HandleRecord {
    const rec = this.handles.get(String(h));
    if (!rec) throw handleNotFound(h);
    return rec;
  }

  async addBlock(h: number, data: Buffer): Promise<void> {
    if (data.length > MAX_BLOCK) throw maxBlockExceeded();
    const rec = this.handle(h);
    rec.touched_at = this.clock.now();
    this.handles.set(String(h), rec);
    this.arm(rec);
    await appendFile(rec.tmp, data);
  }

  async closeHandle(h: number): Promise<void> {
    const rec = this.handle(h);
    this.handles.delete(String(h));
    this.timers.get(h)?.();
    this.timers.delete(h);
    await this.commitTemp(rec.path, rec.tmp, rec.overwrite);
  }

  /** A fresh temp file name for a streamed upload (multipart put). */
  tempPath(): string {
    return path.join(this.tmp, uuid());
  }

  /** Moves an uploaded temp file to `p` (create-if-absent without overwrite); the temp file is always gone after. */
  async commitTemp(p: string, tmp: string, overwrite: boolean): Promise<void> {
    try {
      if (this.durable) await syncFile(tmp);
      await this.namespace.run(async () => {
        const disk = await this.prepareWrite(p, overwrite);
        await moveIntoPlace(tmp, disk, overwrite, () => dbfsExists(p), this.reclaim);
      });
    } finally {
      await rm(tmp, { force: true });
    }
  }
}
