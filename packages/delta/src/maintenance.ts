/**
 * VACUUM: deletes the data files under a table root that the current version does not reference and that
 * were removed (or, never referenced, written) longer ago than the retention, as Delta does. Tombstones come
 * from the remove actions of the commits still in the log (and of a checkpoint, when Spark wrote one with
 * them); a file a reader of a recent version may still need is kept.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { DeltaError } from './errors.js';
import { LOG_DIR, listLog, readCheckpoint, readCommit, type SqlRunner } from './log.js';
import type { DeltaReader } from './snapshot.js';

const HOUR = 3_600_000;

/** delta.deletedFileRetentionDuration (`interval 7 days`, `interval 168 hours`), in hours. */
export function retentionHours(configuration: Record<string, string> | null | undefined): number {
  const v = configuration?.['delta.deletedFileRetentionDuration'];
  const m = v ? /^\s*interval\s+(\d+(?:\.\d+)?)\s+(week|day|hour|minute|second)s?\s*$/i.exec(v) : null;
  if (!m) return 168;
  const per: Record<string, number> = { week: 168, day: 24, hour: 1, minute: 1 / 60, second: 1 / 3600 };
  return Number(m[1]) * per[m[2]!.toLowerCase()]!;
}

export interface VacuumOptions {
  sql: SqlRunner;
  reader: DeltaReader;
  root: string;
  /** RETAIN n HOURS; the table's delta.deletedFileRetentionDuration (7 days) when absent. */
  retainHours?: number;
  dryRun?: boolean;
  /** spark.databricks.delta.retentionDurationCheck.enabled (default true): refuse less than the table's retention. */
  retentionCheck?: boolean;
  now?: () => number;
}

/** Files (absolute paths) deleted, or that would be deleted on a DRY RUN. */
export async function vacuum(o: VacuumOptions): Promise<{ files: string[]; bytes: number }> {
  const root = path.resolve(o.root);
  const snap = await o.reader.snapshot(root);
  const tableRetention = retentionHours(snap.metadata.configuration);
  const hours = o.retainHours ?? tableRetention;
  if (hours < 0) throw new DeltaError('DELTA_ILLEGAL_USAGE', 'The retention period must not be negative');
  if (o.retentionCheck !== false && hours < tableRetention) {
    throw new DeltaError(
      'DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT',
      `Are you sure you would like to vacuum files with such a low retention period (${hours} hours)? The table's retention is ${tableRetention} hours: ` +
        'a running reader or writer may still need the files. If you are certain, set spark.databricks.delta.retentionDurationCheck.enabled = false.',
    );
  }
  const cutoff = (o.now ?? Date.now)() - hours * HOUR;
  const live = new Set(snap.files.map((f) => snap.filePath(f)));
  // Files removed after the cutoff stay: a reader of a version inside the retention still reads them.
  const recent = new Set<string>();
  const listing = await listLog(root);
  const tombstone = (p: string, ts: number | null | undefined) => {
    if ((ts ?? 0) > cutoff) recent.add(path.join(root, safeDecode(p)));
  };
  const cps = [...listing.checkpoints.keys()];
  if (cps.length) {
    const newest = Math.max(...cps);
    for (const a of await readCheckpoint(o.sql, root, listing.checkpoints.get(newest)!))
      if (a.remove) tombstone(a.remove.path, a.remove.deletionTimestamp);
  }
  for (const v of listing.commits)
    for (const a of await readCommit(root, v))
      if (a.remove) tombstone(a.remove.path, a.remove.deletionTimestamp);
  const doomed: string[] = [];
  let bytes = 0;
  for (const file of await dataFiles(root)) {
    if (live.has(file) || recent.has(file)) continue;
    const st = await stat(file);
    if (st.mtimeMs > cutoff) continue;
    doomed.push(file);
    bytes += st.size;
  }
  doomed.sort();
  if (!o.dryRun) await Promise.all(doomed.map((f) => rm(f, { force: true })));
  return { files: doomed, bytes };
}

/** Every file under the root except the log and hidden entries (`_` or `.` prefixed, as Delta skips them). */
async function dataFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, top: boolean) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (top && e.name === LOG_DIR) continue;
      // Partition folders (`k=v`) are walked even though a value may start with `_`; other hidden names skipped.
      if ((e.name.startsWith('_') || e.name.startsWith('.')) && !e.name.includes('=')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p, false);
      else if (e.isFile()) out.push(p);
    }
  };
  await walk(root, true);
  return out;
}

function safeDecode(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}
