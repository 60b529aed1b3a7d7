import { invalidParameter, safeSegments } from '@minilake/core';

/**
 * A client path in canonical form: absolute, no trailing slash, and without the `/Workspace` prefix
 * (`/Workspace/Users/x` and `/Users/x` are the same object in Databricks).
 */
export function canonicalPath(p: string | undefined): string {
  if (p === undefined || p === '') throw invalidParameter("Path is required: 'path' must not be empty");
  if (!p.startsWith('/')) throw invalidParameter(`Path (${p}) must be absolute.`);
  const segments = safeSegments(p);
  if (segments[0] === 'Workspace') segments.shift();
  return '/' + segments.join('/');
}

export const parentOf = (p: string): string => {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
};

export const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/**
 * The path that follows `prefix` in a request URL, decoded one segment at a time so an encoded slash, a NUL
 * byte or a dot segment cannot sneak past routing. Returns an absolute path.
 */
export function pathFromUrl(url: string, prefix: string): string {
  const pathname = new URL(url).pathname;
  const rest = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '';
  const out: string[] = [];
  for (const raw of rest.split('/')) {
    if (raw === '') continue;
    let s: string;
    try {
      s = decodeURIComponent(raw);
    } catch {
      throw invalidParameter(`Invalid percent-encoding in path segment ${JSON.stringify(raw)}`);
    }
    if (s.includes('/') || s.includes('\\'))
      throw invalidParameter(`Path segment ${JSON.stringify(s)} must not contain a slash`);
    if (s.includes('\0')) throw invalidParameter('Path must not contain NUL bytes');
    if (s === '..' || s === '.') throw invalidParameter(`Path must not contain '${s}' segments`);
    out.push(s);
  }
  return '/' + out.join('/');
}
