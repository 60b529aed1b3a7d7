/**
 * A table's commit history, as Delta defines it for DESCRIBE HISTORY and TIMESTAMP AS OF: one entry per JSON
 * commit still in the log, its time the commit's `inCommitTimestamp` when in-commit timestamps are on, else
 * the commit file's modification time, made strictly increasing (a clock step back must not reorder
 * versions), as Delta's history manager does. Also DESCRIBE DETAIL's facts about a snapshot.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { DeltaError } from './errors.js';
import { type CommitInfo, LOG_DIR, commitFileName, listLog } from './log.js';
import type { DeltaSnapshot } from './snapshot.js';

export interface CommitEntry {
  version: number;
  /** Milliseconds since the epoch: what time travel compares and DESCRIBE HISTORY shows. */
  timestamp: number;
  commitInfo: CommitInfo | undefined;
}

interface Cached {
  mtime: number;
  size: number;
  commitInfo: CommitInfo | undefined;
}

/** Commit files never change once written; their commitInfo is read once (re-read if the file is replaced). */
export class CommitLog {
  private readonly cache = new Map<string, Map<number, Cached>>();

  /** Every commit still in the log, oldest first. */
  async commits(location: string): Promise<CommitEntry[]> {
    const root = path.resolve(location);
    const { commits } = await listLog(root);
    const known = this.cache.get(root) ?? new Map<number, Cached>();
    this.cache.set(root, known);
    const out: CommitEntry[] = [];
    let prev = -Infinity;
    for (const v of commits) {
      const file = path.join(root, LOG_DIR, commitFileName(v));
      const st = await stat(file).catch(() => undefined);
      if (!st) continue; // cleaned up between the listing and now
      let c = known.get(v);
      if (!c || c.mtime !== st.mtimeMs || c.size !== st.size) {
        c = { mtime: st.mtimeMs, size: st.size, commitInfo: await firstCommitInfo(file) };
        known.set(v, c);
      }
      const ict = c.commitInfo?.inCommitTimestamp;
      let ts = typeof ict === 'number' ? ict : Math.floor(c.mtime);
      if (typeof ict !== 'number' && ts <= prev) ts = prev + 1;
      prev = ts;
      out.push({ version: v, timestamp: ts, commitInfo: c.commitInfo });
    }
    for (const v of known.keys()) if (!commits.includes(v)) known.delete(v);
    return out;
  }

  /** The newest version committed at or before `timestamp` (ms), with Delta's errors outside the log's span. */
  async versionAt(location: string, timestamp: number): Promise<number> {
    const commits = await this.commits(location);
    const first = commits[0];
    const last = commits.at(-1);
    if (!first || !last) throw new DeltaError('DELTA_TABLE_NOT_FOUND', 'The Delta log has no commits', 404);
    if (timestamp > last.timestamp)
      throw new DeltaError(
        'DELTA_TIMESTAMP_GREATER_THAN_COMMIT',
        `Timestamp ${formatTs(timestamp)} is after the table's latest version (${formatTs(last.timestamp)}). ` +
          `Use a timestamp at or before ${formatTs(last.timestamp)}.`,
      );
    if (timestamp < first.timestamp)
      throw new DeltaError(
        'DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION',
        `The provided timestamp (${formatTs(timestamp)}) is before the earliest version available to this table ` +
          `(${formatTs(first.timestamp)}). Please use a timestamp after ${formatTs(first.timestamp)}.`,
      );
    let v = first.version;
    for (const c of commits) if (c.timestamp <= timestamp) v = c.version;
    return v;
  }

  forget(location: string): void {
    this.cache.delete(path.resolve(location));
  }
}

async function firstCommitInfo(file: string): Promise<CommitInfo | undefined> {
  const text = await readFile(file, 'utf8');
  for (const line of text.split('\n')) {
    if (!line.includes('"commitInfo"')) continue;
    try {
      const a = JSON.parse(line) as { commitInfo?: CommitInfo };
      if (a.commitInfo) return a.commitInfo;
    } catch {
      // a torn line: no commitInfo from it
    }
  }
  return undefined;
}

/** Spark's rendering of a timestamp in messages (UTC). */
function formatTs(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** One DESCRIBE HISTORY row, in Databricks' column order and names. */
export interface HistoryRow {
  version: number;
  timestamp: number;
  userId: string | null;
  userName: string | null;
  operation: string | null;
  operationParameters: Record<string, string> | null;
  job: Record<string, string | null> | null;
  notebook: Record<string, string | null> | null;
  clusterId: string | null;
  readVersion: number | null;
  isolationLevel: string | null;
  isBlindAppend: boolean | null;
  operationMetrics: Record<string, string> | null;
  userMetadata: string | null;
  engineInfo: string | null;
}

/** DESCRIBE HISTORY rows, newest first (at most `limit`). */
export function historyRows(commits: CommitEntry[], limit?: number): HistoryRow[] {
  const rows = [...commits].reverse().slice(0, limit ?? commits.length);
  return rows.map(({ version, timestamp, commitInfo: ci }) => {
    const str = (v: unknown): string | null =>
      v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);
    const strMap = (v: unknown): Record<string, string> | null =>
      v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, str(x) ?? 'null']))
        : null;
    const struct = (v: unknown): Record<string, string | null> | null =>
      v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, str(x)])) : null;
    return {
      version,
      timestamp,
      userId: str(ci?.userId),
      userName: str(ci?.userName),
      operation: str(ci?.operation),
      operationParameters: strMap(ci?.operationParameters),
      job: struct(ci?.job),
      notebook: struct(ci?.notebook),
      clusterId: str(ci?.clusterId),
      readVersion: typeof ci?.readVersion === 'number' ? ci.readVersion : null,
      isolationLevel: str(ci?.isolationLevel),
      isBlindAppend: typeof ci?.isBlindAppend === 'boolean' ? ci.isBlindAppend : null,
      operationMetrics: strMap(ci?.operationMetrics),
      userMetadata: str(ci?.userMetadata),
      engineInfo: str(ci?.engineInfo),
    };
  });
}

/** DESCRIBE DETAIL of a snapshot (name and location as the caller knows the table). */
export interface DetailRow {
  format: string;
  id: string;
  name: string | null;
  description: string | null;
  location: string;
  createdAt: number | null;
  lastModified: number;
  partitionColumns: string[];
  clusteringColumns: string[];
  numFiles: number;
  sizeInBytes: number;
  properties: Record<string, string>;
  minReaderVersion: number;
  minWriterVersion: number;
  tableFeatures: string[];
  statistics: Record<string, number>;
}

/** Features a legacy (pre table-features) protocol version implies, as Delta lists them. */
const LEGACY_WRITER: [number, string][] = [
  [2, 'appendOnly'],
  [2, 'invariants'],
  [3, 'checkConstraints'],
  [4, 'changeDataFeed'],
  [4, 'generatedColumns'],
  [5, 'columnMapping'],
  [6, 'identityColumns'],
];

export function tableFeatures(p: DeltaSnapshot['protocol']): string[] {
  const out = new Set<string>();
  if (p.minWriterVersion < 7) for (const [v, f] of LEGACY_WRITER) if (p.minWriterVersion >= v) out.add(f);
  if (p.minReaderVersion === 2) out.add('columnMapping');
  for (const f of p.readerFeatures ?? []) out.add(f);
  for (const f of p.writerFeatures ?? []) out.add(f);
  return [...out].sort();
}

export function detailRow(
  snap: DeltaSnapshot,
  opts: { name: string | null; location: string; lastModified: number },
): DetailRow {
  const files = snap.files;
  const clustering = snap.logState.domains?.get('delta.clustering');
  let clusteringColumns: string[] = [];
  if (clustering) {
    try {
      const c = JSON.parse(clustering) as { clusteringColumns?: string[][] };
      clusteringColumns = (c.clusteringColumns ?? []).map((p) => p.join('.'));
    } catch {
      // an unreadable domain: no clustering columns shown
    }
  }
  const dvs = files.filter((f) => f.deletionVector);
  return {
    format: 'delta',
    id: snap.metadata.id,
    name: opts.name,
    description: snap.metadata.description ?? null,
    location: opts.location,
    createdAt: snap.metadata.createdTime ?? null,
    lastModified: opts.lastModified,
    partitionColumns: snap.partitionColumns,
    clusteringColumns,
    numFiles: files.length,
    sizeInBytes: files.reduce((a, f) => a + Number(f.size ?? 0), 0),
    properties: { ...snap.metadata.configuration },
    minReaderVersion: snap.protocol.minReaderVersion,
    minWriterVersion: snap.protocol.minWriterVersion,
    tableFeatures: tableFeatures(snap.protocol),
    statistics: {
      numRowsDeletedByDeletionVectors: dvs.reduce((a, f) => a + Number(f.deletionVector!.cardinality), 0),
      numDeletionVectors: dvs.length,
    },
  };
}
