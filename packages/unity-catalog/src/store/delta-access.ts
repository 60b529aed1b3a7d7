/**
 * A Delta folder named by path in SQL (`delta.\`/path\``): a `/Volumes/c/s/v/...` path maps into that
 * volume's folder (as read_* do); any other path must be absolute, local and outside MiniLake's data
 * directory. The answer is a descriptor like a registered table's, so the table layer reads both alike.
 */
import path from 'node:path';
import { invalidParameter, realpathOfExisting } from '@minilake/core';
import { DeltaError } from '@minilake/delta';
import { localPath, type TableDescriptor } from '@minilake/tables';
import type { UcContext } from './context.js';

export async function deltaPathDescriptor(
  ctx: UcContext,
  p: string,
  volumeDirectory: (catalog: string, schema: string, volume: string) => Promise<string>,
): Promise<TableDescriptor> {
  const root = await pathRoot(ctx, p, volumeDirectory);
  if (!ctx.formats.delta.isDelta(root))
    throw new DeltaError('DELTA_MISSING_DELTA_TABLE', `\`delta\`.\`${p}\` is not a Delta table.`);
  return {
    fullName: null,
    tableType: 'EXTERNAL',
    dataSourceFormat: 'DELTA',
    storage: 'delta',
    location: `file:${root}`,
    root,
  };
}

/** The folder a `delta.\`...\`` path names, checked. */
async function pathRoot(
  ctx: UcContext,
  p: string,
  volumeDirectory: (catalog: string, schema: string, volume: string) => Promise<string>,
): Promise<string> {
  if (p.includes('\0')) throw invalidParameter('A Delta path must not contain NUL bytes.');
  const raw = p.replace(/^dbfs:/, '');
  const segs = raw.split('/');
  if (raw.startsWith('/Volumes/')) {
    const [cat, sch, vol, ...rest] = segs.slice(2);
    if (!cat || !sch || !vol)
      throw invalidParameter(
        `The path '${p}' does not name a volume: expected /Volumes/<catalog>/<schema>/<volume>/<path>.`,
      );
    if (rest.includes('..'))
      throw invalidParameter(`The path '${p}' leaves the volume \`${cat}\`.\`${sch}\`.\`${vol}\`.`);
    const dir = await volumeDirectory(cat, sch, vol);
    return path.join(dir, ...rest.filter((s) => s !== '' && s !== '.'));
  }
  const local = raw.startsWith('file:') ? localPath(raw) : raw;
  if (!local || !local.startsWith('/') || segs.includes('..'))
    throw invalidParameter(`A Delta path must be absolute and local, without '..': ${JSON.stringify(p)}`);
  const abs = path.resolve(local);
  const dataDir = ctx.dataDir;
  for (const d of new Set([dataDir, await realpathOfExisting(dataDir)]))
    for (const x of new Set([abs, await realpathOfExisting(abs)]))
      if (x === d || x.startsWith(d.endsWith(path.sep) ? d : d + path.sep) || d.startsWith(x + path.sep))
        throw invalidParameter(
          `The path ${JSON.stringify(p)} is inside MiniLake's managed storage; name a volume path (/Volumes/...) or a folder outside the data directory.`,
        );
  return abs;
}
