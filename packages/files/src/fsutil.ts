/** File-system pieces both APIs share: atomic writes from a stream, and errno -> Databricks error mapping. */
import { createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { copyFile, link, rename, rm, stat, unlink } from 'node:fs/promises';
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
 * Writes `source` to `tmp`, then moves it to `target`: with overwrite a rename (atomic replace), without it a
 * hard link, which fails if another writer got there first, so create-if-absent holds under races too.
 * The bytes stream through; nothing is held in memory.
 */
export async function writeAtomically(
  source: Readable | Buffer,
  tmp: string,
  target: string,
  overwrite: boolean,
  onExists: () => Error,
): Promise<number> {
  let bytes = 0;
  try {
    const input = Buffer.isBuffer(source) ? Readable.from([source]) : source;
    input.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await pipeline(input, createWriteStream(tmp, { flags: 'wx' }));
    await moveIntoPlace(tmp, target, overwrite, onExists);
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
