import { invalidParameter, safeSegments } from '@minilake/core';

export { parentOf, pathFromUrl } from '@minilake/core';

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

export const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
