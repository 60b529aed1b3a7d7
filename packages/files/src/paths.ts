import { invalidParameter, safeSegments } from '@minilake/core';

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

/** A DBFS path (`dbfs:/x` or `/x`) in canonical form `/x`. */
export function dbfsPath(p: string | undefined): string {
  if (p === undefined || p === '') throw invalidParameter("Path is required: 'path' must not be empty");
  const rest = p.startsWith('dbfs:') ? p.slice('dbfs:'.length) : p;
  if (!rest.startsWith('/')) throw invalidParameter(`Path ${p} must be absolute (start with / or dbfs:/).`);
  return '/' + safeSegments(rest).join('/');
}

export const parentOf = (p: string): string => {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
};
