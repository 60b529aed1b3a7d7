/**
 * Every user-supplied path is resolved under a root and can never leave it: no `..` segments, no NUL bytes,
 * no encoded slashes sneaking past, and no symlink planted in the data dir pointing out of it.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { invalidParameter } from './errors.js';

/**
 * The longest name and path the local file system stores (Linux NAME_MAX and PATH_MAX less its NUL; macOS
 * allows the same name). Databricks' object stores take longer keys; a path beyond these is refused up
 * front (400) instead of failing half-way with ENAMETOOLONG.
 */
export const MAX_NAME_BYTES = 255;
export const MAX_PATH_BYTES = 4095;

/** Splits a client path into clean segments, rejecting anything that could escape or not be stored. */
export function safeSegments(userPath: string): string[] {
  if (userPath.includes('\0')) throw invalidParameter('Path must not contain NUL bytes');
  if (userPath.includes('\\')) throw invalidParameter(`Invalid path: ${JSON.stringify(userPath)}`);
  const segments = userPath.split('/').filter((s) => s !== '' && s !== '.');
  for (const s of segments) {
    if (s === '..') throw invalidParameter(`Path must not contain '..': ${JSON.stringify(userPath)}`);
    // Byte length is at most 3 per UTF-16 unit, so only long names pay for counting it.
    if (s.length * 3 > MAX_NAME_BYTES && Buffer.byteLength(s) > MAX_NAME_BYTES)
      throw invalidParameter(
        `Path component is longer than ${MAX_NAME_BYTES} bytes: ${JSON.stringify(s.slice(0, 40) + '...')}`,
      );
  }
  return segments;
}

/** The absolute file-system path for `userPath` under `root`; lexical checks only (see resolveUnderReal). */
export function resolveUnder(root: string, userPath: string): string {
  const resolvedRoot = path.resolve(root);
  const full = path.resolve(resolvedRoot, ...safeSegments(userPath));
  if (full !== resolvedRoot && !full.startsWith(resolvedRoot + path.sep)) {
    throw invalidParameter(`Path escapes its root: ${JSON.stringify(userPath)}`);
  }
  if (full.length * 3 > MAX_PATH_BYTES && Buffer.byteLength(full) > MAX_PATH_BYTES)
    throw invalidParameter(`Path is too long to store here: ${Buffer.byteLength(userPath)} bytes`);
  return full;
}

/**
 * The real path of `p`: symlinks resolved on its longest existing prefix, the rest appended as written. The
 * one way to check where a path that may not exist yet really lands (path safety, overlapping locations).
 */
export async function realpathOfExisting(p: string): Promise<string> {
  let head = p;
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(head), ...tail.reverse());
    } catch {
      const up = path.dirname(head);
      if (up === head) return p;
      tail.push(path.basename(head));
      head = up;
    }
  }
}

/** Like resolveUnder, and also follows symlinks on the existing part of the path to check it stays inside. */
export async function resolveUnderReal(root: string, userPath: string): Promise<string> {
  const full = resolveUnder(root, userPath);
  const realRoot = await realpathOfExisting(path.resolve(root));
  const realFull = await realpathOfExisting(full);
  if (realFull !== realRoot && !realFull.startsWith(realRoot + path.sep)) {
    throw invalidParameter(`Path escapes its root: ${JSON.stringify(userPath)}`);
  }
  return full;
}

/**
 * The path that follows `prefix` in a request URL, decoded one segment at a time. An encoded slash (`%2F`) is
 * a separator, as Databricks treats it: the real CLI sends a whole workspace path as one escaped segment
 * (`import-file/Users%2Fdev%40x%2F.bundle%2Fdatabricks.yml`). The escape checks run on the decoded parts, so
 * an encoded `..`, `.`, NUL or backslash still never gets through. Returns an absolute path.
 */
export function pathFromUrl(url: string, prefix: string): string {
  const pathname = new URL(url).pathname;
  const rest = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '';
  const out: string[] = [];
  for (const raw of rest.split('/')) {
    if (raw === '') continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      throw invalidParameter(`Invalid percent-encoding in path segment ${JSON.stringify(raw)}`);
    }
    if (decoded.includes('\\')) throw invalidParameter(`Invalid path segment ${JSON.stringify(decoded)}`);
    if (decoded.includes('\0')) throw invalidParameter('Path must not contain NUL bytes');
    for (const s of decoded.split('/')) {
      if (s === '') continue;
      if (s === '..' || s === '.') throw invalidParameter(`Path must not contain '${s}' segments`);
      out.push(s);
    }
  }
  return '/' + out.join('/');
}

/** The parent of a canonical absolute client path (`/a/b` -> `/a`, `/a` -> `/`). */
export const parentOf = (p: string): string => {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
};

/**
 * A top-level Files API root a service owns (mlflow's `/Models` and `/WorkspaceInternal`), which the files
 * service mounts: given the path segments after the root's name, the directory on disk they start in and the
 * segments left below it (resolved under it with resolveUnderReal), or the owner's error (404 for an object
 * that does not exist, 403 for a write it refuses). The directory itself is never deleted through the API.
 */
export interface FileRoot {
  locate(rest: string[], access: 'read' | 'write'): Promise<{ dir: string; rest: string[] }>;
}
