import { invalidParameter, safeSegments } from '@minilake/core';

export { parentOf, pathFromUrl } from '@minilake/core';

/** A DBFS path (`dbfs:/x` or `/x`) in canonical form `/x`. */
export function dbfsPath(p: string | undefined): string {
  if (p === undefined || p === '') throw invalidParameter("Path is required: 'path' must not be empty");
  const rest = p.startsWith('dbfs:') ? p.slice('dbfs:'.length) : p;
  if (!rest.startsWith('/')) throw invalidParameter(`Path ${p} must be absolute (start with / or dbfs:/).`);
  return '/' + safeSegments(rest).join('/');
}
