/**
 * Appends without a JVM: DuckDB writes the Parquet files (COPY ... RETURN_STATS gives each file's path, size,
 * row count, per-column min/max/null counts and partition keys), MiniLake commits the next log entry. The
 * commit file is created exclusively, so two writers can never both own a version (optimistic concurrency).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ident, literal } from '@minilake/engine-duckdb';
import { DeltaError } from './errors.js';
import {
  type Action,
  type AddAction,
  LOG_DIR,
  type Protocol,
  type SqlRunner,
  commitFileName,
  readCommit,
} from './log.js';
import { checkpointInterval, writeCheckpoint } from './checkpoint.js';
import type { SparkField, SparkSchema, SparkType } from './schema.js';
import type { DeltaReader, DeltaSnapshot } from './snapshot.js';

/**
 * Writer table features whose rules this writer keeps (or that ask nothing of it). `deletionVectors` only
 * allows writers to write deletion vectors: copy-on-write stays legal (files that already carry one are read
 * through the snapshot scan, which refuses them until it applies them).
 */
const SUPPORTED_WRITER_FEATURES = new Set([
  'deletionVectors',
  'appendOnly',
  'invariants',
  'timestampNtz',
  'vacuumProtocolCheck',
  'checkpointProtection',
]);

export function checkWritable(snap: DeltaSnapshot): void {
  const p: Protocol = snap.protocol;
  const refuse = (what: string) => {
    throw new DeltaError(
      'DELTA_UNSUPPORTED_FEATURES_FOR_WRITE',
      `Unable to write this Delta table: MiniLake does not write ${what} yet`,
    );
  };
  if (p.minWriterVersion > 7) refuse(`writer version ${p.minWriterVersion}`);
  if (p.minWriterVersion >= 3 && p.minWriterVersion < 7) {
    // Legacy versions 3 to 6 imply CHECK constraints, generated columns, change data feed, column mapping.
    refuse(
      `writer version ${p.minWriterVersion} (constraints, generated columns, change data feed, column mapping)`,
    );
  }
  if (p.minWriterVersion === 7) {
    const missing = (p.writerFeatures ?? []).filter((f) => !SUPPORTED_WRITER_FEATURES.has(f));
    if (missing.length) refuse(`the table feature(s) ${missing.join(', ')}`);
  }
  if (snap.mappingMode !== 'none') refuse('column-mapped tables (the table feature columnMapping)');
  const inv = snap.schema.fields.find((f) => f.metadata?.['delta.invariants']);
  if (inv) refuse(`column invariants (the table feature invariants, column ${inv.name})`);
}

export interface CommitOptions {
  reader: DeltaReader;
  /**
   * The statement's runner; without it no checkpoint is written. The checkpoint itself runs on the reader's
   * own runner after the commit returns (DeltaReader.background): the statement does not wait for it.
   */
  sql?: SqlRunner;
  /** How many times a commit retries on a version another writer took first (when no conflict). */
  maxRetries?: number;
  now?: () => number;
  /**
   * What the transaction read, for the conflict check when another writer commits first: `'none'` (a blind
   * append), `'files'` (it read the base snapshot's files: a winner removing any of them conflicts; blind
   * appends by the winner do not, as in Delta's WriteSerializable level) or `'table'` (an overwrite: any file
   * the winner added conflicts too).
   */
  reads?: 'none' | 'files' | 'table';
  /** Write a checkpoint when the committed version is a multiple of the table's interval (default on). */
  checkpoint?: boolean;
  /** Called when a checkpoint could not be written (the commit itself stands). */
  onCheckpointError?: (e: unknown) => void;
}

const concurrent = (code: string, text: string, version: number) =>
  new DeltaError(
    code,
    `${text} (conflicting commit: version ${version}). Please try the operation again.`,
    409,
  );

/**
 * Why the transaction that built `actions` on `base` cannot follow the winner's commit, or undefined when it
 * can (then it is retried on the next version). Delta's conflict rules, reduced to what MiniLake writes.
 */
function conflict(
  base: DeltaSnapshot,
  actions: Action[],
  winner: Action[],
  version: number,
  reads: 'none' | 'files' | 'table',
): DeltaError | undefined {
  if (winner.some((a) => a.protocol))
    return concurrent(
      'DELTA_PROTOCOL_CHANGED',
      'ProtocolChangedException: The protocol version of the Delta table has been changed by a concurrent update',
      version,
    );
  if (winner.some((a) => a.metaData)) {
    if (reads === 'none')
      return concurrent(
        'DELTA_CONCURRENT_APPEND',
        'ConcurrentAppendException: Files were added to the table by a concurrent update that also changed its metadata',
        version,
      );
    return concurrent(
      'DELTA_METADATA_CHANGED',
      'MetadataChangedException: The metadata of the Delta table has been changed by a concurrent update',
      version,
    );
  }
  const key = (p: string) => safeDecode(p);
  const ours = new Set(actions.filter((a) => a.remove).map((a) => key(a.remove!.path)));
  const winnerRemoves = winner.filter((a) => a.remove).map((a) => key(a.remove!.path));
  const both = winnerRemoves.find((p) => ours.has(p));
  if (both)
    return concurrent(
      'DELTA_CONCURRENT_DELETE_DELETE',
      `ConcurrentDeleteDeleteException: This transaction attempted to delete one or more files that were deleted (for example ${both}) by a concurrent update`,
      version,
    );
  if (reads !== 'none') {
    const read = new Set(base.files.map((f) => key(f.path)));
    const gone = winnerRemoves.find((p) => read.has(p));
    if (gone)
      return concurrent(
        'DELTA_CONCURRENT_DELETE_READ',
        `ConcurrentDeleteReadException: This transaction attempted to read one or more files that were deleted (for example ${gone}) by a concurrent update`,
        version,
      );
  }
  if (reads === 'table' && winner.some((a) => a.add && a.add.dataChange !== false))
    return concurrent(
      'DELTA_CONCURRENT_APPEND',
      'ConcurrentAppendException: Files were added to the table by a concurrent update',
      version,
    );
  return undefined;
}

function safeDecode(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/**
 * Commits `actions` as the version after `base`. The commit file is created exclusively; when another writer
 * took the version, its actions are checked against what this transaction read (`reads`) and the commit is
 * retried on the next version, or fails with the Delta concurrent-modification error of the conflict.
 */
export async function commit(
  root: string,
  base: DeltaSnapshot,
  actions: Action[],
  opts: CommitOptions,
): Promise<number> {
  let version = base.version + 1;
  const body = actions.map((a) => JSON.stringify(a)).join('\n') + '\n';
  let made = false;
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(path.join(root, LOG_DIR, commitFileName(version)), body, { flag: 'wx' });
      break;
    } catch (e) {
      // The log folder is there whenever the base snapshot was read from it: created only when it is not
      // (one file-system call less on every commit).
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !made) {
        await mkdir(path.join(root, LOG_DIR), { recursive: true });
        made = true;
        attempt--;
        continue;
      }
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const err = conflict(base, actions, await readCommit(root, version), version, opts.reads ?? 'none');
    if (err) throw err;
    if (attempt >= (opts.maxRetries ?? 10))
      throw concurrent(
        'DELTA_CONCURRENT_TRANSACTION',
        'ConcurrentTransactionException: Too many concurrent commits',
        version,
      );
    version++;
  }
  opts.reader.committed(base, version, actions);
  if (opts.sql && opts.checkpoint !== false && version > 0 && version % checkpointInterval(base) === 0) {
    // A checkpoint only speeds up readers (Delta's protocol makes it optional: a reader without one replays
    // the JSON commits), so it is written after the statement answers; it appears under its final name
    // only once complete, and a failed one leaves the table as it was (the commit stands without it).
    opts.reader.background((sql) => writeCheckpoint(sql, opts.reader, root, version), opts.onCheckpointError);
  }
  return version;
}

interface CopyStatsRow {
  filename: string;
  count: unknown;
  file_size_bytes: unknown;
  column_statistics: unknown;
  partition_keys: unknown;
}

/** DuckDB's MAP values come back as objects (or key/value lists, depending on the reader): one shape here. */
function mapEntries(m: unknown): [string, unknown][] {
  if (!m) return [];
  if (Array.isArray(m))
    return m.map((e) => [String((e as { key: unknown }).key), (e as { value: unknown }).value]);
  if (m instanceof Map) return [...m.entries()].map(([k, v]) => [String(k), v]);
  return Object.entries(m as Record<string, unknown>);
}

function unquote(name: string): string {
  return name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name;
}

/** A DuckDB min/max string as the JSON value Delta's stats hold, or undefined to leave it out. */
function statValue(type: SparkType, v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  const s = String(v);
  switch (type) {
    case 'long':
    case 'integer':
    case 'short':
    case 'byte': {
      const n = Number(s);
      return Number.isSafeInteger(n) ? n : undefined;
    }
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(s) ? s : undefined;
    case 'string':
      // Parquet may truncate long string bounds; a short one is exact.
      return s.length <= 32 ? s : undefined;
    default:
      return undefined; // floats (NaN), decimals, timestamps (rounding): no bounds rather than wrong ones
  }
}

/**
 * Writes the rows of `source` (a DuckDB relation with the table's logical columns) as Parquet files under
 * the table root and returns their add actions (stats, partition values, URI-encoded paths).
 */
export async function writeFiles(
  sql: SqlRunner,
  snap: Pick<DeltaSnapshot, 'schema' | 'partitionColumns' | 'root'>,
  source: string,
  now: number,
): Promise<{ adds: AddAction[]; rows: number; bytes: number }> {
  const fields = snap.schema.fields;
  const parts = snap.partitionColumns;
  const cols = fields.map((f) => ident(f.name)).join(', ');
  const target = parts.length
    ? snap.root
    : path.join(snap.root, `part-00000-${randomUUID()}-c000.snappy.parquet`);
  const opts = [
    'FORMAT parquet',
    'COMPRESSION snappy',
    'RETURN_STATS',
    ...(parts.length
      ? [
          `PARTITION_BY (${parts.map((p) => ident(p)).join(', ')})`,
          "FILENAME_PATTERN 'part-{uuid}.c000'",
          'APPEND',
        ]
      : []),
  ];
  const rows = (await sql.all(
    `COPY (SELECT ${cols} FROM ${source}) TO ${literal(target)} (${opts.join(', ')})`,
  )) as unknown as CopyStatsRow[];
  const byName = new Map<string, SparkField>(fields.map((f) => [f.name, f]));
  const adds: AddAction[] = [];
  let total = 0;
  let bytes = 0;
  for (const r of rows) {
    const n = Number(r.count);
    if (n === 0) continue;
    total += n;
    bytes += Number(r.file_size_bytes);
    const minValues: Record<string, unknown> = {};
    const maxValues: Record<string, unknown> = {};
    const nullCount: Record<string, number> = {};
    for (const [k, v] of mapEntries(r.column_statistics)) {
      const name = unquote(k);
      const f = byName.get(name);
      if (!f) continue;
      const st = new Map(mapEntries(v));
      if (st.has('null_count')) nullCount[name] = Number(st.get('null_count'));
      const lo = statValue(f.type, st.get('min'));
      const hi = statValue(f.type, st.get('max'));
      if (lo !== undefined && hi !== undefined) {
        minValues[name] = lo;
        maxValues[name] = hi;
      }
    }
    const partitionValues: Record<string, string | null> = {};
    const keys = new Map(mapEntries(r.partition_keys));
    for (const p of parts) {
      const v = keys.get(p);
      partitionValues[p] = v === null || v === undefined ? null : String(v);
    }
    // add.path is a URI reference relative to the root: the folder DuckDB wrote (already escaped on disk,
    // `k=a%20b`) is encoded once more, as Spark does.
    const rel = path.relative(snap.root, r.filename).split(path.sep).join('/');
    adds.push({
      path: encodeURI(rel),
      partitionValues,
      size: Number(r.file_size_bytes),
      modificationTime: now,
      dataChange: true,
      stats: JSON.stringify({ numRecords: n, minValues, maxValues, nullCount }),
    });
  }
  return { adds, rows: total, bytes };
}

/** Appends the rows of `source` to the table at `root` and returns the committed version (undefined: no rows). */
export async function append(
  sql: SqlRunner,
  reader: DeltaReader,
  root: string,
  source: string,
  o: { now?: () => number; engineInfo?: string } = {},
): Promise<{ version: number | undefined; rows: number }> {
  const snap = await reader.snapshot(root);
  checkWritable(snap);
  const now = (o.now ?? Date.now)();
  const { adds, rows, bytes } = await writeFiles(sql, snap, source, now);
  if (adds.length === 0) return { version: undefined, rows: 0 };
  const commitInfo = {
    timestamp: now,
    operation: 'WRITE',
    operationParameters: { mode: 'Append', partitionBy: JSON.stringify(snap.partitionColumns) },
    readVersion: snap.version,
    isolationLevel: 'Serializable',
    isBlindAppend: true,
    operationMetrics: {
      numFiles: String(adds.length),
      numOutputRows: String(rows),
      numOutputBytes: String(bytes),
    },
    engineInfo: o.engineInfo ?? 'MiniLake',
    txnId: randomUUID(),
  };
  try {
    const version = await commit(root, snap, [{ commitInfo }, ...adds.map((add) => ({ add }))], {
      reader,
      sql,
    });
    return { version, rows };
  } catch (e) {
    // Nothing points at the files of a failed commit: remove them so they do not linger as garbage.
    await Promise.all(adds.map((a) => rm(path.join(root, decodeURI(a.path)), { force: true })));
    throw e;
  }
}

/**
 * A new table's protocol: (1, 2), or (3, 7) with the `deletionVectors` reader and writer feature when the
 * table asks for them (`delta.enableDeletionVectors`), as delta-spark creates it.
 */
export function initialProtocol(configuration: Record<string, string>): Protocol {
  if (configuration['delta.enableDeletionVectors'] === 'true')
    return {
      minReaderVersion: 3,
      minWriterVersion: 7,
      readerFeatures: ['deletionVectors'],
      writerFeatures: ['deletionVectors'],
    };
  return { minReaderVersion: 1, minWriterVersion: 2 };
}

/** A new table's first commit: protocol (1, 2) (or with deletion vectors), metaData with the Spark schemaString, commitInfo. */
export async function createTable(
  reader: DeltaReader,
  root: string,
  t: {
    schema: SparkSchema;
    partitionColumns: string[];
    configuration?: Record<string, string>;
    /** A table whose folder the catalog owns (commitInfo's `isManaged`, as Spark records it). */
    managed?: boolean;
    now?: number;
  },
): Promise<number> {
  const now = t.now ?? Date.now();
  const log = path.join(root, LOG_DIR);
  await mkdir(log, { recursive: true });
  const actions: Action[] = [
    {
      commitInfo: {
        timestamp: now,
        operation: 'CREATE TABLE',
        operationParameters: {
          partitionBy: JSON.stringify(t.partitionColumns),
          description: null,
          isManaged: t.managed ? 'true' : 'false',
          properties: JSON.stringify(t.configuration ?? {}),
        },
        isolationLevel: 'Serializable',
        isBlindAppend: true,
        operationMetrics: {},
        engineInfo: 'MiniLake',
        txnId: randomUUID(),
      },
    },
    { protocol: initialProtocol(t.configuration ?? {}) },
    {
      metaData: {
        id: randomUUID(),
        format: { provider: 'parquet', options: {} },
        schemaString: JSON.stringify(t.schema),
        partitionColumns: t.partitionColumns,
        configuration: t.configuration ?? {},
        createdTime: now,
      },
    },
  ];
  try {
    await writeFile(
      path.join(log, commitFileName(0)),
      actions.map((a) => JSON.stringify(a)).join('\n') + '\n',
      {
        flag: 'wx',
      },
    );
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new DeltaError('DELTA_TABLE_ALREADY_EXISTS', `A Delta table already exists at ${root}`, 409);
    }
    throw e;
  }
  reader.forget(root);
  return 0;
}
