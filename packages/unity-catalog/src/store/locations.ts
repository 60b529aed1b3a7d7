/**
 * Where EXTERNAL tables and volumes may point. Locations must be absolute local paths (file:///x, file:/x
 * or /x) that neither equal, contain nor sit inside MiniLake's own data folder (compared after resolving
 * symlinks), and, like Databricks, must not overlap another external volume or table. EXTERNAL tables may
 * keep cloud URIs as metadata only (nothing is ever read from them).
 */
import path from 'node:path';
import { invalidParameter, realpathOfExisting } from '@minilake/core';
import type { UcContext } from './context.js';

/** Cloud schemes an EXTERNAL table may name as metadata only. */
const REMOTE_SCHEMES = new Set(['s3', 's3a', 's3n', 'gs', 'abfs', 'abfss', 'wasb', 'wasbs', 'dbfs']);

/** True when one path equals or contains the other. */
function overlaps(a: string, b: string): boolean {
  return (
    a === b ||
    a.startsWith(b.endsWith(path.sep) ? b : b + path.sep) ||
    b.startsWith(a.endsWith(path.sep) ? a : a + path.sep)
  );
}

/** The real path of `p`: symlinks resolved on its longest existing prefix, the rest appended. */
const realish = realpathOfExisting;

/** Checks an EXTERNAL location and returns it as `file://<absolute path>` (or the remote URI as given). */
export async function externalLocation(
  ctx: UcContext,
  loc: string | null | undefined,
  what: 'volume' | 'table',
  self?: string,
): Promise<string> {
  if (!loc) throw invalidParameter(`storage_location is required for an EXTERNAL ${what}.`);
  if (loc.includes('\0')) throw invalidParameter('storage_location must not contain NUL bytes.');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(loc)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'file') {
    if (what === 'table' && REMOTE_SCHEMES.has(scheme) && !loc.split('/').includes('..')) return loc;
    throw invalidParameter(
      `storage_location ${JSON.stringify(loc)} uses the unsupported scheme '${scheme}:'; MiniLake serves only local file: locations.`,
    );
  }
  const p = loc.startsWith('file://')
    ? loc.slice('file://'.length)
    : loc.startsWith('file:')
      ? loc.slice(5)
      : loc;
  if (!p.startsWith('/') || p.split('/').includes('..'))
    throw invalidParameter(
      `storage_location must be an absolute file: location without '..': ${JSON.stringify(loc)}`,
    );
  const abs = path.resolve(p);
  const real = await realish(abs);
  const dataDir = ctx.dataDir;
  for (const d of new Set([dataDir, await realish(dataDir)]))
    for (const x of new Set([abs, real]))
      if (overlaps(x, d))
        throw invalidParameter(
          `storage_location ${JSON.stringify(loc)} overlaps MiniLake's managed storage; choose a folder outside the data directory.`,
        );
  const others: [string, string][] = [];
  for (const [k, v] of ctx.c.volumes.entries())
    if (v.volume_type === 'EXTERNAL') others.push([k, v.storage_location]);
  for (const [k, t] of ctx.c.tables.entries())
    if (t.table_type === 'EXTERNAL' && t.storage_location) others.push([k, t.storage_location]);
  for (const [k, other] of others) {
    if (k === self || !/^(file:|\/)/.test(other)) continue;
    const o = path.resolve(other.replace(/^file:(\/\/)?/, ''));
    if (overlaps(abs, o) || overlaps(real, await realish(o)))
      throw invalidParameter(
        `Input path ${JSON.stringify(loc)} overlaps with other external tables or volumes (${k}).`,
      );
  }
  return `file://${abs}`;
}
