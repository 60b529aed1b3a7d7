/**
 * What SQL asks of EXTERNAL Delta tables beyond a plain scan: `delta.\`/path\`` access, time travel by
 * timestamp, DESCRIBE HISTORY and DESCRIBE DETAIL. A table is named by its full name (an EXTERNAL Delta table
 * registered here) or by a path: a `/Volumes/c/s/v/...` path maps into that volume's folder (as read_* do);
 * any other path must be absolute and outside MiniLake's data directory.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { invalidParameter, realpathOfExisting } from '@minilake/core';
import { DeltaError, type DeltaReader, type DetailRow, type HistoryRow, LOG_DIR } from '@minilake/delta';
import type { UcContext } from './context.js';
import { localPath, snapshotScan } from './delta-source.js';
import type { TableScan } from './table-sources.js';

/** A table by full name, or a folder by path (`delta.\`/path\``). */
export type DeltaRef = string | { path: string };
/** Time travel: a version, or a commit time in ms since the epoch. */
export type DeltaAsOf = number | { version?: number; timestamp?: number };

interface Located {
  root: string;
  /** The name DESCRIBE DETAIL shows (null for a path). */
  name: string | null;
  location: string;
}

export interface DeltaAccessDeps {
  ctx: UcContext;
  reader: DeltaReader;
  /** The table record of a full name, when it is a registered table. */
  record(
    fullName: string,
  ): Promise<{ table_type?: string; data_source_format?: string; storage_location?: string } | undefined>;
  volumeDirectory(catalog: string, schema: string, volume: string): Promise<string>;
}

export class DeltaAccess {
  constructor(private readonly d: DeltaAccessDeps) {}

  /** The Delta folder of a ref; undefined when a full name is not an EXTERNAL Delta table. */
  async locate(ref: DeltaRef): Promise<Located | undefined> {
    if (typeof ref === 'string') {
      const r = await this.d.record(ref).catch(() => undefined);
      // EXTERNAL Delta tables and MANAGED ones kept as Delta folders (the record callback gives only those
      // without an engine object, so a MANAGED DuckDB table never gets here).
      if (!r || r.table_type === 'VIEW' || r.data_source_format !== 'DELTA') return undefined;
      const dir = localPath(r.storage_location);
      if (!dir) return undefined;
      return { root: dir, name: ref, location: r.storage_location! };
    }
    const root = await this.pathRoot(ref.path);
    if (!existsSync(path.join(root, LOG_DIR)))
      throw new DeltaError('DELTA_MISSING_DELTA_TABLE', `\`delta\`.\`${ref.path}\` is not a Delta table.`);
    return { root, name: null, location: `file:${root}` };
  }

  /** The folder a `delta.\`...\`` path names, checked. */
  private async pathRoot(p: string): Promise<string> {
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
      const dir = await this.d.volumeDirectory(cat, sch, vol);
      return path.join(dir, ...rest.filter((s) => s !== '' && s !== '.'));
    }
    const local = raw.startsWith('file:') ? localPath(raw) : raw;
    if (!local || !local.startsWith('/') || segs.includes('..'))
      throw invalidParameter(`A Delta path must be absolute and local, without '..': ${JSON.stringify(p)}`);
    const abs = path.resolve(local);
    const dataDir = this.d.ctx.dataDir;
    for (const d of new Set([dataDir, await realpathOfExisting(dataDir)]))
      for (const x of new Set([abs, await realpathOfExisting(abs)]))
        if (x === d || x.startsWith(d.endsWith(path.sep) ? d : d + path.sep) || d.startsWith(x + path.sep))
          throw invalidParameter(
            `The path ${JSON.stringify(p)} is inside MiniLake's managed storage; name a volume path (/Volumes/...) or a folder outside the data directory.`,
          );
    return abs;
  }

  /** The version a time-travel spec names (undefined: latest). */
  private async version(root: string, at: DeltaAsOf | undefined): Promise<number | undefined> {
    if (at === undefined || typeof at === 'number') return at;
    if (at.timestamp !== undefined) return this.d.reader.commitLog.versionAt(root, at.timestamp);
    return at.version;
  }

  /** The resolved version for a ref (for scans of full names, which go through the table sources). */
  async versionOf(ref: DeltaRef, at: DeltaAsOf | undefined): Promise<number | undefined> {
    const loc = await this.locate(ref);
    return loc ? this.version(loc.root, at) : undefined;
  }

  async scan(ref: DeltaRef, at?: DeltaAsOf): Promise<TableScan | undefined> {
    const loc = await this.locate(ref);
    if (!loc) return undefined;
    return snapshotScan(
      this.d.reader,
      await this.d.reader.snapshot(loc.root, await this.version(loc.root, at)),
    );
  }

  async history(ref: DeltaRef, limit?: number): Promise<HistoryRow[] | undefined> {
    const loc = await this.locate(ref);
    return loc ? this.d.reader.history(loc.root, limit) : undefined;
  }

  async detail(ref: DeltaRef): Promise<DetailRow | undefined> {
    const loc = await this.locate(ref);
    return loc ? this.d.reader.detail(loc.root, { name: loc.name, location: loc.location }) : undefined;
  }
}
