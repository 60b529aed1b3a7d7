/** File-system pieces both APIs share: atomic writes from a stream, and errno -> Databricks error mapping. */
import { createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { copyFile, link, open, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Stats } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Hidden name of a temp file placed next to its target (filtered out of listings). */
export const UPLOAD_PREFIX = '.minilake-upload-';

export const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

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

export interface WriteOptions {
  /**
   * fsync the file once, after its last byte and before it is moved into place, so an acknowledged upload
   * survives a crash. Only a persistent server needs it: without persistence the data dir does not outlive
   * the process, and an fsync of a large file costs more than writing it (it waits for the disk).
   */
  durable?: boolean;
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
    await moveIntoPlace(tmp, target, overwrite, onExists);
    const bytes = out.bytesWritten;
    return bytes;
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/**
 * rename (overwrite) or link + unlink (create-if-absent). A temp file on another file system (an external
 * volume elsewhere) is first copied to a hidden name next to the target, so the final step stays atomic.
 */
async function moveIntoPlace(tmp: string, target: string, overwrite: boolean, onExists: () => Error) {
  try {
    if (overwrite) await rename(tmp, target);
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
      await moveIntoPlace(near, target, overwrite, onExists);
    } finally {
      await rm(near, { force: true });
      await rm(tmp, { force: true });
    }
  }
}
