/** File-system pieces both APIs share: atomic writes from a stream, and errno -> Databricks error mapping. */
import { createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import {
  copyFile,
  link,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  stat,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import path from 'node:path';
import type { Stats } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Mutex } from '@minilake/core';

/** Hidden name of a temp file placed next to its target (filtered out of listings). */
export const UPLOAD_PREFIX = '.minilake-upload-';

export const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** mkdir -p; a file where a folder should be throws `fileInTheWay()` instead of EEXIST / ENOTDIR. */
export async function makeDirs(dir: string, fileInTheWay: () => Error): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    if (errno(e) === 'EEXIST' || errno(e) === 'ENOTDIR') throw fileInTheWay();
    throw e;
  }
}

/** Opens a file to read; a missing file (or parent) throws `notFound()` instead of ENOENT. */
export async function openForRead(file: string, notFound: () => Error): Promise<FileHandle> {
  try {
    return await open(file, 'r');
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') throw notFound();
    throw e;
  }
}

export async function statOrUndefined(p: string): Promise<Stats | undefined> {
  try {
    return await stat(p);
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return undefined;
    throw e;
  }
}

/**
 * How much an upload may buffer in memory while the previous write is on disk. Socket chunks are 64 KiB;
 * a write stream with the default 16 KiB mark writes them one by one, while with a few MiB it gathers what
 * arrived during the last write into one `writev`, so the disk sees large writes and the socket keeps
 * flowing. Bounded: the stream stops reading the socket above it.
 */
const WRITE_BUFFER = 4 * 1024 * 1024;

/** Suffix of the hard link that keeps a replaced file alive until its reclaim (see Reclaimer). */
export const REPLACED_SUFFIX = '.minilake-replaced';

/**
 * Frees replaced files after the request that replaced them has answered. Renaming over a file drops its
 * last link inside the rename, and the kernel then frees the old file's pages and blocks right there; for
 * a file whose writeback is still running (the previous upload of the same path) it also waits for that
 * writeback to finish. That cost 150-400 ms per 200 MB overwrite here, measured (bench/README.md, "Files
 * API"), on the client's clock. A hard link taken just before the rename keeps the old inode alive, so
 * the rename stays atomic and cheap, and the link is unlinked here in the background.
 */
export class Reclaimer {
  private readonly pending = new Set<Promise<void>>();

  /** Unlinks `file` in the background; errors are ignored (a reset may already have removed it). */
  defer(file: string): void {
    const p: Promise<void> = unlink(file)
      .catch(() => undefined)
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Resolves once every deferred unlink has run (close, tests). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /** Removes links a crash left behind in `dir` (the directory temp files and their links live in). */
  async sweep(dir: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    for (const n of names) if (n.endsWith(REPLACED_SUFFIX)) this.defer(path.join(dir, n));
    await this.settled();
  }
}

export interface WriteOptions {
  /**
   * Keep a file this write replaces alive until after the rename and free it in the background, off the
   * request's path (see Reclaimer). Without it the rename frees the old file itself.
   */
  reclaim?: Reclaimer;
  /**
   * fsync the file once, after its last byte and before it is moved into place, so an acknowledged upload
   * survives a crash. Only a persistent server needs it: without persistence the data dir does not outlive
   * the process, and an fsync of a large file costs more than writing it (it waits for the disk).
   */
  durable?: boolean;
  /**
   * The store's namespace lock and its check of the target (still writable, parent folder present), run
   * together with the final move. The body streams into its temp file unlocked; only the move is serialized
   * with the store's other changes, so it never lands in a folder another request deleted meanwhile.
   */
  place?: { lock: Mutex; prepare: () => Promise<unknown> };
}

/** fsyncs a finished file (see WriteOptions.durable). */
export async function syncFile(file: string): Promise<void> {
  const fh = await open(file, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Writes `source` to `tmp`, then moves it to `target`: with overwrite a rename (atomic replace), without it a
 * hard link, which fails if another writer got there first, so create-if-absent holds under races too.
 * The bytes stream through; at most WRITE_BUFFER is held in memory.
 */
export async function writeAtomically(
  source: Readable | Buffer,
  tmp: string,
  target: string,
  overwrite: boolean,
  onExists: () => Error,
  opts: WriteOptions = {},
): Promise<number> {
  try {
    const out = createWriteStream(tmp, {
      flags: 'wx',
      highWaterMark: WRITE_BUFFER,
      // Node's `flush` fsyncs the descriptor before closing it: once, after the last write.
      flush: opts.durable ?? false,
    });
    await pipeline(Buffer.isBuffer(source) ? Readable.from([source]) : source, out);
    const move = () => moveIntoPlace(tmp, target, overwrite, onExists, opts.reclaim);
    const place = opts.place;
    await (place ? place.lock.run(() => place.prepare().then(move)) : move());
    return out.bytesWritten;
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/**
 * rename (overwrite) or link + unlink (create-if-absent). A temp file on another file system (an external
 * volume elsewhere) is first copied to a hidden name next to the target, so the final step stays atomic.
 */
export async function moveIntoPlace(
  tmp: string,
  target: string,
  overwrite: boolean,
  onExists: () => Error,
  reclaim?: Reclaimer,
): Promise<void> {
  try {
    if (overwrite) await replace(tmp, target, reclaim);
    else {
      try {
        await link(tmp, target);
      } catch (e) {
        if (errno(e) === 'EEXIST') throw onExists();
        throw e;
      }
      await unlink(tmp);
    }
  } catch (e) {
    if (errno(e) !== 'EXDEV') throw e;
    const near = path.join(path.dirname(target), `${UPLOAD_PREFIX}${randomUUID()}`);
    try {
      await copyFile(tmp, near);
      await moveIntoPlace(near, target, overwrite, onExists, reclaim);
    } finally {
      await rm(near, { force: true });
      await rm(tmp, { force: true });
    }
  }
}

/** rename(tmp, target); with a reclaimer, the file it replaces is freed later (see Reclaimer). */
async function replace(tmp: string, target: string, reclaim: Reclaimer | undefined): Promise<void> {
  if (!reclaim) return rename(tmp, target);
  const keep = `${tmp}${REPLACED_SUFFIX}`;
  let kept = false;
  try {
    await link(target, keep);
    kept = true;
  } catch {
    // No file to replace (ENOENT), or one that cannot be linked from here (a directory, another file
    // system): the rename below decides, and frees what it replaces itself.
  }
  try {
    await rename(tmp, target);
  } finally {
    if (kept) reclaim.defer(keep);
  }
}
