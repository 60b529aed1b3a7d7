/**
 * Delta writes beyond appends, without a JVM: copy-on-write UPDATE / DELETE / MERGE, INSERT OVERWRITE (whole
 * table or one static partition), TRUNCATE. The statement itself runs on DuckDB against a temporary table
 * staged from the snapshot (with the file each row came from); only the files that hold changed rows are
 * rewritten (DuckDB COPY ... RETURN_STATS), and one commit removes them and adds the new files, with
 * Databricks' operation names and metrics in commitInfo.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ident, literal } from '@minilake/engine-duckdb';
import { DeltaError } from './errors.js';
import type { Action, AddAction, RemoveAction, SqlRunner } from './log.js';
import { type VacuumOptions, vacuum } from './maintenance.js';
import { type SparkField, type SparkSchema, duckDbType } from './schema.js';
import type { DeltaReader, DeltaSnapshot } from './snapshot.js';
import { checkWritable, commit, writeFiles } from './writer.js';

/** The staged table's extra columns: the data file a row came from (NULL for new rows), and a row id. */
export const FILE_COLUMN = '__ml_file';
export const ROW_COLUMN = '__ml_row';
/**
 * Set true by every UPDATE action of a MERGE on the staged table: DuckDB's RETURNING reports empty values for
 * rows updated by a WHEN NOT MATCHED BY SOURCE clause, so the marker tells which files changed.
 */
export const TOUCHED_COLUMN = '__ml_touched';

export interface DeltaTableOptions {
  sql: SqlRunner;
  reader: DeltaReader;
  root: string;
  now?: () => number;
  engineInfo?: string;
}

export type RewriteOperation = 'UPDATE' | 'DELETE' | 'MERGE';

export interface RewriteCounts {
  updated: number;
  deleted: number;
  inserted: number;
  /** MERGE only: the split of updated/deleted rows by clause kind, and the source's row count. */
  matchedUpdated?: number;
  matchedDeleted?: number;
  notMatchedBySourceUpdated?: number;
  notMatchedBySourceDeleted?: number;
  sourceRows?: number;
}

/** A snapshot staged as a temporary table for a copy-on-write statement. */
export interface StagedRewrite {
  /** The temporary table's name (unqualified, on the connection `sql` runs on). */
  table: string;
  snapshot: DeltaSnapshot;
  /** The table's logical columns, in order. */
  columns: string[];
  /**
   * Commits the statement's effect: the files that held changed rows (values of FILE_COLUMN) are removed,
   * the staged rows that came from them (or are new: FILE_COLUMN NULL) become new files. Undefined: nothing
   * changed, no commit.
   */
  commit(op: {
    operation: RewriteOperation;
    touched: string[];
    counts: RewriteCounts;
    parameters?: Record<string, unknown>;
  }): Promise<number | undefined>;
  /** Drops the temporary table (always call it, after commit or failure). */
  drop(): Promise<void>;
}

/** The JSON Delta keeps in remove.partitionValues etc.: a removed file as Spark records it. */
function removeOf(f: AddAction, now: number, dataChange = true): RemoveAction & Record<string, unknown> {
  return {
    path: f.path,
    deletionTimestamp: now,
    dataChange,
    extendedFileMetadata: true,
    partitionValues: f.partitionValues,
    size: f.size,
    ...(f.deletionVector ? { deletionVector: f.deletionVector } : {}),
  };
}

function numRecords(f: AddAction): number | undefined {
  if (!f.stats) return undefined;
  try {
    const n = (JSON.parse(f.stats) as { numRecords?: unknown }).numRecords;
    return typeof n === 'number' ? n : undefined;
  } catch {
    return undefined;
  }
}

export class DeltaTable {
  readonly root: string;
  private readonly sql: SqlRunner;
  private readonly reader: DeltaReader;
  private readonly now: () => number;
  private readonly engineInfo: string;

  constructor(o: DeltaTableOptions) {
    this.sql = o.sql;
    this.reader = o.reader;
    this.root = path.resolve(o.root);
    this.now = o.now ?? Date.now;
    this.engineInfo = o.engineInfo ?? 'MiniLake';
  }

  /** The latest snapshot, checked writable (features we cannot write fail with the feature's name). */
  async writableSnapshot(): Promise<DeltaSnapshot> {
    const snap = await this.reader.snapshot(this.root);
    checkWritable(snap);
    if (snap.metadata.configuration?.['delta.appendOnly'] === 'true')
      throw new DeltaError(
        'DELTA_CANNOT_MODIFY_APPEND_ONLY',
        'This table is configured to only allow appends (delta.appendOnly = true): updates, deletes and overwrites are not allowed',
      );
    return snap;
  }

  private commitInfo(
    snap: DeltaSnapshot,
    operation: string,
    parameters: Record<string, unknown>,
    metrics: Record<string, number>,
    started: number,
    extra: Record<string, unknown> = {},
  ) {
    const now = this.now();
    return {
      timestamp: now,
      operation,
      operationParameters: parameters,
      readVersion: snap.version,
      isolationLevel: 'WriteSerializable',
      isBlindAppend: false,
      operationMetrics: Object.fromEntries(
        Object.entries({ ...metrics, executionTimeMs: Math.max(0, Date.now() - started) }).map(([k, v]) => [
          k,
          String(v),
        ]),
      ),
      engineInfo: this.engineInfo,
      txnId: randomUUID(),
      ...extra,
    };
  }

  /** Commits, removing the new files again when the commit fails (nothing points at them). */
  private async commitOrClean(
    snap: DeltaSnapshot,
    actions: Action[],
    adds: AddAction[],
    reads: 'files' | 'table',
  ): Promise<number> {
    try {
      const v = await commit(this.root, snap, actions, { reader: this.reader, sql: this.sql, reads });
      return v;
    } catch (e) {
      await Promise.all(adds.map((a) => rm(snap.filePath(a), { force: true })));
      throw e;
    }
  }

  /** Stages the table's rows (with FILE_COLUMN and ROW_COLUMN) as the temporary table `table`. */
  async stage(table: string): Promise<StagedRewrite> {
    const started = Date.now();
    const snap = await this.writableSnapshot();
    const scan = await this.reader.scanSql(snap, { fileColumn: FILE_COLUMN });
    await this.sql.all(
      `CREATE OR REPLACE TEMP TABLE ${ident(table)} AS SELECT *, row_number() OVER () AS ${ident(ROW_COLUMN)}, false AS ${ident(TOUCHED_COLUMN)} FROM (${scan})`,
    );
    const columns = snap.schema.fields.map((f) => f.name);
    const drop = async () => {
      await this.sql.all(`DROP TABLE IF EXISTS temp.main.${ident(table)}`);
    };
    return {
      table,
      snapshot: snap,
      columns,
      drop,
      commit: async (op) => {
        const marked = await this.sql.all(
          `SELECT DISTINCT ${ident(FILE_COLUMN)} AS f FROM temp.main.${ident(table)} WHERE ${ident(TOUCHED_COLUMN)} AND ${ident(FILE_COLUMN)} IS NOT NULL`,
        );
        op = { ...op, touched: [...op.touched, ...marked.map((r) => String(r.f))] };
        const byPath = new Map(snap.files.map((f) => [snap.filePath(f), f]));
        const touched = [...new Set(op.touched)].map((p) => byPath.get(p)).filter((f) => f !== undefined);
        const c = op.counts;
        if (touched.length === 0 && c.inserted === 0) return undefined;
        const list = touched.map((f) => literal(snap.filePath(f))).join(', ');
        const where = touched.length
          ? `${ident(FILE_COLUMN)} IS NULL OR ${ident(FILE_COLUMN)} IN (${list})`
          : `${ident(FILE_COLUMN)} IS NULL`;
        const now = this.now();
        const { adds, rows, bytes } = await writeFiles(
          this.sql,
          snap,
          `(SELECT * FROM temp.main.${ident(table)} WHERE ${where}) AS t`,
          now,
        );
        const removedBytes = touched.reduce((n, f) => n + f.size, 0);
        const copied = Math.max(0, rows - c.updated - c.inserted);
        const parameters = op.parameters ?? {};
        let metrics: Record<string, number>;
        if (op.operation === 'DELETE') {
          metrics = {
            numRemovedFiles: touched.length,
            numRemovedBytes: removedBytes,
            numCopiedRows: copied,
            numDeletionVectorsAdded: 0,
            numDeletionVectorsRemoved: 0,
            numAddedChangeFiles: 0,
            numDeletedRows: c.deleted,
            numAddedFiles: adds.length,
            numAddedBytes: bytes,
            rewriteTimeMs: Math.max(0, Date.now() - started),
            scanTimeMs: 0,
          };
        } else if (op.operation === 'UPDATE') {
          metrics = {
            numRemovedFiles: touched.length,
            numRemovedBytes: removedBytes,
            numCopiedRows: copied,
            numDeletionVectorsAdded: 0,
            numDeletionVectorsRemoved: 0,
            numAddedChangeFiles: 0,
            numUpdatedRows: c.updated,
            numAddedFiles: adds.length,
            numAddedBytes: bytes,
            rewriteTimeMs: Math.max(0, Date.now() - started),
            scanTimeMs: 0,
          };
        } else {
          metrics = {
            numTargetRowsCopied: copied,
            numTargetRowsDeleted: c.deleted,
            numTargetFilesAdded: adds.length,
            numTargetBytesAdded: bytes,
            numTargetBytesRemoved: removedBytes,
            numTargetDeletionVectorsAdded: 0,
            numTargetRowsMatchedUpdated: c.matchedUpdated ?? c.updated,
            numTargetRowsMatchedDeleted: c.matchedDeleted ?? c.deleted,
            numTargetRowsUpdated: c.updated,
            numTargetRowsInserted: c.inserted,
            numTargetRowsNotMatchedBySourceUpdated: c.notMatchedBySourceUpdated ?? 0,
            numTargetRowsNotMatchedBySourceDeleted: c.notMatchedBySourceDeleted ?? 0,
            numTargetFilesRemoved: touched.length,
            numTargetChangeFilesAdded: 0,
            numSourceRows: c.sourceRows ?? 0,
            numOutputRows: rows,
            rewriteTimeMs: Math.max(0, Date.now() - started),
            scanTimeMs: 0,
          };
        }
        const info = this.commitInfo(snap, op.operation, parameters, metrics, started);
        const actions: Action[] = [
          { commitInfo: info },
          ...touched.map((f) => ({ remove: removeOf(f, now) })),
          ...adds.map((add) => ({ add })),
        ];
        return this.commitOrClean(snap, actions, adds, 'files');
      },
    };
  }

  /**
   * INSERT OVERWRITE: the rows of `source` replace the whole table, or only the files of one static partition
   * (`partition`: column -> value as written in partitionValues, null for NULL) whose rows must all belong
   * to it. TRUNCATE is an overwrite with no rows.
   */
  async overwrite(
    source: string | undefined,
    o: { partition?: Record<string, string | null>; operation?: 'WRITE' | 'TRUNCATE' } = {},
  ): Promise<{ version: number; rows: number }> {
    const started = Date.now();
    const snap = await this.writableSnapshot();
    const parts = snap.partitionColumns;
    const spec = o.partition;
    if (spec) {
      for (const k of Object.keys(spec)) {
        if (!parts.includes(k))
          throw new DeltaError(
            'PARTITION_SCHEMA_IN_ICEBERG_TABLES',
            `${k} is not a partition column of this table (partition columns: ${parts.join(', ') || 'none'})`,
          );
      }
    }
    const now = this.now();
    let adds: AddAction[] = [];
    let rows = 0;
    let bytes = 0;
    if (source !== undefined) {
      let src = source;
      if (spec) {
        // Rows outside the static partition are an error in Spark too; the partition's values win.
        const cols = snap.schema.fields.map((f) =>
          f.name in spec
            ? `CAST(${spec[f.name] === null ? 'NULL' : literal(spec[f.name]!)} AS ${duckDbType(f.type)}) AS ${ident(f.name)}`
            : ident(f.name),
        );
        src = `(SELECT ${cols.join(', ')} FROM ${source}) AS t`;
      }
      ({ adds, rows, bytes } = await writeFiles(this.sql, snap, src, now));
    }
    const matches = (f: AddAction) =>
      !spec || Object.entries(spec).every(([k, v]) => (f.partitionValues[k] ?? null) === v);
    const removed = snap.files.filter(matches);
    const truncate = o.operation === 'TRUNCATE';
    const parameters: Record<string, unknown> = truncate
      ? {}
      : {
          mode: 'Overwrite',
          partitionBy: JSON.stringify(parts),
          ...(spec
            ? {
                predicate: JSON.stringify(
                  Object.entries(spec).map(([k, v]) => (v === null ? `(${k} IS NULL)` : `(${k} = '${v}')`)),
                ),
              }
            : {}),
        };
    const metrics: Record<string, number> = truncate
      ? { numRemovedFiles: removed.length, numRemovedBytes: removed.reduce((n, f) => n + f.size, 0) }
      : {
          numFiles: adds.length,
          numOutputRows: rows,
          numOutputBytes: bytes,
          numRemovedFiles: removed.length,
          numRemovedBytes: removed.reduce((n, f) => n + f.size, 0),
        };
    const info = this.commitInfo(snap, truncate ? 'TRUNCATE' : 'WRITE', parameters, metrics, started);
    const actions: Action[] = [
      { commitInfo: info },
      ...removed.map((f) => ({ remove: removeOf(f, now) })),
      ...adds.map((add) => ({ add })),
    ];
    const version = await this.commitOrClean(snap, actions, adds, 'table');
    return { version, rows };
  }

  /**
   * CREATE OR REPLACE TABLE ... AS SELECT over an existing Delta table: one commit with the new metaData
   * (schema, partitioning; the table id is kept), every current file removed and the rows of `source` added.
   */
  async replace(
    source: string,
    o: { fields: SparkField[]; partitionColumns: string[]; configuration?: Record<string, string> },
  ): Promise<{ version: number; rows: number }> {
    const started = Date.now();
    const snap = await this.writableSnapshot();
    const schema: SparkSchema = { type: 'struct', fields: o.fields };
    const now = this.now();
    const { adds, rows, bytes } = await writeFiles(
      this.sql,
      { schema, partitionColumns: o.partitionColumns, root: this.root },
      source,
      now,
    );
    const metaData = {
      ...snap.metadata,
      schemaString: JSON.stringify(schema),
      partitionColumns: o.partitionColumns,
      configuration: { ...snap.metadata.configuration, ...o.configuration },
    };
    const info = this.commitInfo(
      snap,
      'CREATE OR REPLACE TABLE AS SELECT',
      {
        partitionBy: JSON.stringify(o.partitionColumns),
        description: null,
        isManaged: 'false',
        properties: JSON.stringify(o.configuration ?? {}),
      },
      {
        numFiles: adds.length,
        numOutputRows: rows,
        numOutputBytes: bytes,
        numRemovedFiles: snap.files.length,
      },
      started,
    );
    const actions: Action[] = [
      { commitInfo: info },
      { metaData },
      ...snap.files.map((f) => ({ remove: removeOf(f, now) })),
      ...adds.map((add) => ({ add })),
    ];
    const version = await this.commitOrClean(snap, actions, adds, 'table');
    this.reader.forget(this.root);
    return { version, rows };
  }

  /**
   * OPTIMIZE: bin-packing compaction. Per partition, files smaller than `minFileSize` are rewritten together
   * when there are at least two of them (ZORDER BY is accepted and compacts the same way). The commit has
   * dataChange false, as Delta's, so streaming readers skip it.
   */
  async optimize(
    o: { minFileSize?: number; zOrderBy?: string[]; partition?: (f: AddAction) => boolean } = {},
  ): Promise<{ version: number | undefined; metrics: OptimizeMetrics }> {
    const started = Date.now();
    const snap = await this.writableSnapshot();
    const min = o.minFileSize ?? 128 * 1024 * 1024;
    const groups = new Map<string, AddAction[]>();
    for (const f of snap.files) {
      if (o.partition && !o.partition(f)) continue;
      if (f.size >= min || f.deletionVector) continue;
      const k = JSON.stringify(snap.partitionColumns.map((p) => f.partitionValues[p] ?? null));
      groups.set(k, [...(groups.get(k) ?? []), f]);
    }
    const now = this.now();
    const removed: AddAction[] = [];
    const adds: AddAction[] = [];
    let partitions = 0;
    try {
      for (const files of groups.values()) {
        if (files.length < 2) continue;
        partitions++;
        const scan = await this.reader.scanSql(snap, { fileColumn: FILE_COLUMN });
        const list = files.map((f) => literal(snap.filePath(f))).join(', ');
        const w = await writeFiles(
          this.sql,
          snap,
          `(SELECT * FROM (${scan}) WHERE ${ident(FILE_COLUMN)} IN (${list})) AS t`,
          now,
        );
        removed.push(...files);
        adds.push(...w.adds.map((a) => ({ ...a, dataChange: false })));
      }
    } catch (e) {
      await Promise.all(adds.map((a) => rm(snap.filePath(a), { force: true })));
      throw e;
    }
    const sizes = (fs: AddAction[]) => {
      const s = fs.map((f) => f.size);
      return {
        min: s.length ? Math.min(...s) : null,
        max: s.length ? Math.max(...s) : null,
        avg: s.length ? s.reduce((a, b) => a + b, 0) / s.length : 0,
        totalFiles: s.length,
        totalSize: s.reduce((a, b) => a + b, 0),
      };
    };
    const metrics: OptimizeMetrics = {
      numFilesAdded: adds.length,
      numFilesRemoved: removed.length,
      filesAdded: sizes(adds),
      filesRemoved: sizes(removed),
      partitionsOptimized: partitions,
      totalConsideredFiles: snap.files.length,
      totalFilesSkipped: snap.files.length - removed.length,
    };
    if (adds.length === 0) return { version: undefined, metrics };
    const info = this.commitInfo(
      snap,
      'OPTIMIZE',
      {
        predicate: '[]',
        clusterBy: '[]',
        zOrderBy: JSON.stringify(o.zOrderBy ?? []),
        auto: false,
      },
      {
        numRemovedFiles: removed.length,
        numAddedFiles: adds.length,
        numRemovedBytes: metrics.filesRemoved.totalSize,
        numAddedBytes: metrics.filesAdded.totalSize,
        numDeletionVectorsRemoved: 0,
      },
      started,
    );
    const actions: Action[] = [
      { commitInfo: info },
      ...removed.map((f) => ({ remove: removeOf(f, now, false) })),
      ...adds.map((add) => ({ add })),
    ];
    const version = await this.commitOrClean(snap, actions, adds, 'files');
    return { version, metrics };
  }

  /** VACUUM (maintenance.ts) on this table. */
  vacuum(o: Omit<VacuumOptions, 'sql' | 'reader' | 'root' | 'now'> = {}) {
    return vacuum({ ...o, sql: this.sql, reader: this.reader, root: this.root, now: this.now });
  }
}

export interface OptimizeMetrics {
  numFilesAdded: number;
  numFilesRemoved: number;
  filesAdded: FileSizes;
  filesRemoved: FileSizes;
  partitionsOptimized: number;
  totalConsideredFiles: number;
  totalFilesSkipped: number;
}
interface FileSizes {
  min: number | null;
  max: number | null;
  avg: number;
  totalFiles: number;
  totalSize: number;
}

/** Rows per file as the stats tell (for tests and metrics). */
export { numRecords };
