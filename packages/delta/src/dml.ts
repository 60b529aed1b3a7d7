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
import { deletedRows, encodeDeletionVector, writeDeletionVectors } from './dv.js';
import { type PruneTerm, mayMatch } from './prune.js';

/** The staged table's extra columns: the data file a row came from (NULL for new rows), and a row id. */
export const FILE_COLUMN = '__ml_file';
export const ROW_COLUMN = '__ml_row';
/** The staged table's row index of a row in its data file (what a deletion vector names). */
export const POS_COLUMN = '__ml_pos';
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

  /** The table's column names, in order. */
  async columnNames(): Promise<string[]> {
    return (await this.writableSnapshot()).schema.fields.map((f) => f.name);
  }

  /** Whether DELETE / UPDATE / MERGE mark rows in deletion vectors rather than rewrite files. */
  static writesDeletionVectors(snap: DeltaSnapshot): boolean {
    const p = snap.protocol;
    return (
      snap.metadata.configuration?.['delta.enableDeletionVectors'] === 'true' &&
      p.minWriterVersion === 7 &&
      (p.writerFeatures ?? []).includes('deletionVectors') &&
      (p.readerFeatures ?? []).includes('deletionVectors')
    );
  }

  /**
   * Stages the rows a statement can change as the temporary table `table` (with FILE_COLUMN, POS_COLUMN,
   * ROW_COLUMN and TOUCHED_COLUMN). `o.prune`: terms every changed row satisfies (the WHERE's conjuncts);
   * files that cannot hold such a row are left out. Without `o.probe` every (remaining) row is staged. With it, `o.view` is created
   * first: a temporary view over the snapshot (with FILE_COLUMN and POS_COLUMN), and `o.probe` is a SELECT *
   * over that view keeping only the rows the statement can change (its WHERE, or MERGE's ON as a semi-join).
   * Copy-on-write then stages the whole files that hold such a row (they are rewritten); with deletion
   * vectors only those rows are staged (the files stay, the changed rows are marked in their DVs).
   */
  async stage(
    table: string,
    o: { probe?: string; view?: string; prune?: PruneTerm[] } = {},
  ): Promise<StagedRewrite> {
    const started = Date.now();
    const snap = await this.writableSnapshot();
    const dv = DeltaTable.writesDeletionVectors(snap);
    // Files that cannot hold a row the statement changes (by partition values and stats) are not read.
    const terms = o.prune ?? [];
    const files = terms.length ? snap.files.filter((f) => mayMatch(f, terms, snap)) : snap.files;
    // FILE_COLUMN is the row's file as an index into `files` (an integer per row is far cheaper to stage,
    // group and join than the path), POS_COLUMN its row index in that file.
    const scan = await this.reader.scanSql(snap, {
      fileIndexColumn: FILE_COLUMN,
      rowIndexColumn: POS_COLUMN,
      files,
    });
    const stg = `temp.main.${ident(table)}`;
    const pos = `temp.main.${ident(`${table}_pos`)}`;
    const view = o.probe !== undefined && o.view ? `temp.main.${ident(o.view)}` : undefined;
    const drop = async () => {
      await this.sql.all(`DROP TABLE IF EXISTS ${stg}`);
      await this.sql.all(`DROP TABLE IF EXISTS ${pos}`);
      if (view) await this.sql.all(`DROP VIEW IF EXISTS ${view}`);
    };
    try {
      // Only the rows the statement can change are staged (the probe), with deletion vectors and for a
      // copy-on-write rewrite alike: the rewrite reads a changed file's other rows straight from its
      // Parquet file when it writes the new one, so they are never copied into the staged table.
      let rows: string;
      if (view) {
        await this.sql.all(`CREATE OR REPLACE TEMP VIEW ${ident(o.view!)} AS ${scan}`);
        rows = `(${o.probe})`;
      } else rows = `(${scan})`;
      // ROW_COLUMN: a staged row's identity (file and position), for MERGE's check that no target row is
      // changed twice; NULL for rows the statement inserts. No window function: it would serialise the scan.
      await this.sql.all(
        `CREATE OR REPLACE TEMP TABLE ${ident(table)} AS SELECT *, ` +
          `(CAST(${ident(FILE_COLUMN)} AS BIGINT) << 32) | ${ident(POS_COLUMN)} AS ${ident(ROW_COLUMN)}, ` +
          `false AS ${ident(TOUCHED_COLUMN)} FROM ${rows} AS __ml_rows`,
      );
      // Where the staged rows came from: the statement deletes some and marks the ones it updates.
      await this.sql.all(
        `CREATE OR REPLACE TEMP TABLE ${ident(`${table}_pos`)} AS SELECT ${ident(FILE_COLUMN)}, ${ident(POS_COLUMN)} FROM ${stg}`,
      );
    } catch (e) {
      await drop();
      throw e;
    }
    const columns = snap.schema.fields.map((f) => f.name);
    const F = ident(FILE_COLUMN);
    const P = ident(POS_COLUMN);
    return {
      table,
      snapshot: snap,
      columns,
      drop,
      commit: async (op) => {
        // The staged rows no longer there unchanged: deleted, or marked by an update (their positions,
        // for deletion vectors; their files, for a rewrite).
        const kept = `SELECT ${F}, ${P} FROM ${stg} WHERE ${F} IS NOT NULL AND ${ident(TOUCHED_COLUMN)} IS NOT TRUE`;
        const gone = `FROM ${pos} AS p ANTI JOIN (${kept}) AS k ON p.${F} = k.${F} AND p.${P} = k.${P}`;
        const changed = await this.sql.all(
          dv
            ? `SELECT p.${F} AS f, list(p.${P} ORDER BY p.${P}) AS r ${gone} GROUP BY p.${F}`
            : `SELECT DISTINCT p.${F} AS f ${gone}`,
        );
        const byPath = new Map(snap.files.map((f) => [snap.filePath(f), f]));
        const touched = [
          ...new Set([...changed.map((r) => files[Number(r.f)]), ...op.touched.map((p) => byPath.get(p))]),
        ].filter((f) => f !== undefined);
        const c = op.counts;
        if (touched.length === 0 && c.inserted === 0) return undefined;
        const now = this.now();
        if (dv) {
          const positions = new Map(
            changed.map((r) => [
              snap.filePath(files[Number(r.f)]!),
              (r.r as unknown[]).map((x) => Number(x)),
            ]),
          );
          return this.commitDeletionVectors(snap, op, touched, positions, stg, started, now);
        }
        // A changed file's new version: its rows never staged, read from the file itself, and its staged
        // rows the statement kept (changed or not); the inserted rows join them. The ids are those of the
        // staged table (files outside `files`, named by op.touched only, get fresh ones).
        const index = new Map(files.map((f, i) => [f, i]));
        const ids = touched.map((f, k) => index.get(f) ?? files.length + k);
        const cols = columns.map((n) => ident(n)).join(', ');
        const unstaged = touched.length
          ? `SELECT ${cols} FROM (${await this.reader.scanSql(snap, {
              fileIndexColumn: FILE_COLUMN,
              fileIds: ids,
              rowIndexColumn: POS_COLUMN,
              files: touched,
            })}) AS o ANTI JOIN ${pos} AS p ON o.${F} = p.${F} AND o.${P} = p.${P} UNION ALL `
          : '';
        const mine = ids.length ? `${F} IS NULL OR ${F} IN (${ids.join(', ')})` : `${F} IS NULL`;
        const { adds, rows, bytes } = await writeFiles(
          this.sql,
          snap,
          `(${unstaged}SELECT ${cols} FROM ${stg} WHERE ${mine}) AS t`,
          now,
        );
        const removedBytes = touched.reduce((n, f) => n + f.size, 0);
        // Copied rows: the rewritten files' rows the statement left as they were.
        const copied = Math.max(0, rows - c.updated - c.inserted);
        const metrics = rewriteMetrics(op.operation, c, {
          removedFiles: touched.length,
          removedBytes,
          addedFiles: adds.length,
          addedBytes: bytes,
          copied,
          outputRows: rows,
          dvAdded: 0,
          dvRemoved: 0,
          dvUpdated: 0,
          started,
        });
        const info = this.commitInfo(snap, op.operation, op.parameters ?? {}, metrics, started);
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
   * The deletion-vector form of a DELETE / UPDATE / MERGE commit: each touched file keeps its data and gets
   * a new DV (its old DV's rows plus the rows the statement deleted or updated) in one new DV file; the
   * updated and inserted rows are written as new files. A file whose every row is deleted is removed.
   */
  private async commitDeletionVectors(
    snap: DeltaSnapshot,
    op: Parameters<StagedRewrite['commit']>[0],
    touched: AddAction[],
    positions: Map<string, number[]>,
    stg: string,
    started: number,
    now: number,
  ): Promise<number> {
    const c = op.counts;
    const { adds, rows, bytes } = await writeFiles(
      this.sql,
      snap,
      `(SELECT * FROM ${stg} WHERE ${ident(TOUCHED_COLUMN)} OR ${ident(FILE_COLUMN)} IS NULL) AS t`,
      now,
    );
    const marked: { file: AddAction; rows: number[] }[] = [];
    const emptied: AddAction[] = [];
    for (const f of touched) {
      const fresh = positions.get(snap.filePath(f)) ?? [];
      const old = f.deletionVector ? await deletedRows(snap.root, f.deletionVector) : [];
      const all = mergeSorted(old, fresh);
      if (all.length === old.length) continue;
      if (all.length >= (await this.physicalRows(snap, f))) emptied.push(f);
      else marked.push({ file: f, rows: all });
    }
    const written: string[] = [];
    const dvAdds: AddAction[] = [];
    try {
      if (marked.length) {
        const { file, descriptors } = await writeDeletionVectors(
          snap.root,
          marked.map((m) => ({ bytes: encodeDeletionVector(m.rows), cardinality: m.rows.length })),
        );
        written.push(file);
        marked.forEach((m, i) => {
          dvAdds.push({
            ...m.file,
            dataChange: true,
            stats: looseStats(m.file),
            deletionVector: descriptors[i]!,
          });
        });
      }
      const removed = [...marked.map((m) => m.file), ...emptied];
      const dvRemoved = removed.filter((f) => f.deletionVector).length;
      const metrics = rewriteMetrics(op.operation, c, {
        removedFiles: emptied.length,
        removedBytes: emptied.reduce((n, f) => n + f.size, 0),
        addedFiles: adds.length,
        addedBytes: bytes,
        copied: 0,
        outputRows: rows,
        dvAdded: marked.length,
        dvRemoved,
        dvUpdated: marked.filter((m) => m.file.deletionVector).length,
        started,
      });
      const info = this.commitInfo(snap, op.operation, op.parameters ?? {}, metrics, started);
      const actions: Action[] = [
        { commitInfo: info },
        ...removed.map((f) => ({ remove: removeOf(f, now) })),
        ...dvAdds.map((add) => ({ add })),
        ...adds.map((add) => ({ add })),
      ];
      return await commit(this.root, snap, actions, { reader: this.reader, sql: this.sql, reads: 'files' });
    } catch (e) {
      await Promise.all([
        ...adds.map((a) => rm(snap.filePath(a), { force: true })),
        ...written.map((w) => rm(w, { force: true })),
      ]);
      throw e;
    }
  }

  /** The rows physically in a data file (deleted ones included): numRecords, else the Parquet footer. */
  private async physicalRows(snap: DeltaSnapshot, f: AddAction): Promise<number> {
    const n = numRecords(f);
    if (n !== undefined) return n;
    const r = await this.sql.all(`SELECT count(*) AS n FROM read_parquet(${literal(snap.filePath(f))})`);
    return Number(r[0]?.n ?? 0);
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
   * when there are at least two of them (ZORDER BY is accepted and compacts the same way). A file whose
   * deletion vector hides more than `maxDeletedRowsRatio` of its rows (Delta's
   * optimize.maxDeletedRowsRatio, 0.05) is rewritten whatever its size, even alone: the rewrite drops the
   * deleted rows and the file goes with its DV, as Delta's OPTIMIZE purges them. The commit has dataChange
   * false, as Delta's, so streaming readers skip it.
   */
  async optimize(
    o: {
      minFileSize?: number;
      maxDeletedRowsRatio?: number;
      zOrderBy?: string[];
      partition?: (f: AddAction) => boolean;
    } = {},
  ): Promise<{ version: number | undefined; metrics: OptimizeMetrics }> {
    const started = Date.now();
    const snap = await this.writableSnapshot();
    const min = o.minFileSize ?? 128 * 1024 * 1024;
    const ratio = o.maxDeletedRowsRatio ?? 0.05;
    const purge = (f: AddAction) => {
      const dv = f.deletionVector;
      if (!dv) return false;
      const n = numRecords(f);
      // Without a row count the share is unknown: rewriting applies the DV, which is never wrong.
      return n === undefined || n === 0 || dv.cardinality / n > ratio;
    };
    const groups = new Map<string, AddAction[]>();
    for (const f of snap.files) {
      if (o.partition && !o.partition(f)) continue;
      if (f.size >= min && !purge(f)) continue;
      const k = JSON.stringify(snap.partitionColumns.map((p) => f.partitionValues[p] ?? null));
      groups.set(k, [...(groups.get(k) ?? []), f]);
    }
    const now = this.now();
    const removed: AddAction[] = [];
    const adds: AddAction[] = [];
    let partitions = 0;
    try {
      for (const files of groups.values()) {
        if (files.length < 2 && !files.some(purge)) continue;
        partitions++;
        // The snapshot scan of just these files applies their deletion vectors.
        const scan = await this.reader.scanSql(snap, { files });
        const w = await writeFiles(this.sql, snap, `(${scan}) AS t`, now);
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
    if (removed.length === 0) return { version: undefined, metrics };
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
        numDeletionVectorsRemoved: removed.filter((f) => f.deletionVector).length,
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

/** Databricks' operationMetrics of a DELETE / UPDATE / MERGE commit (values become strings in commitInfo). */
function rewriteMetrics(
  operation: RewriteOperation,
  c: RewriteCounts,
  m: {
    removedFiles: number;
    removedBytes: number;
    addedFiles: number;
    addedBytes: number;
    copied: number;
    outputRows: number;
    dvAdded: number;
    dvRemoved: number;
    dvUpdated: number;
    started: number;
  },
): Record<string, number> {
  const took = Math.max(0, Date.now() - m.started);
  if (operation !== 'MERGE')
    return {
      numRemovedFiles: m.removedFiles,
      numRemovedBytes: m.removedBytes,
      numCopiedRows: m.copied,
      numDeletionVectorsAdded: m.dvAdded,
      numDeletionVectorsRemoved: m.dvRemoved,
      numDeletionVectorsUpdated: m.dvUpdated,
      numAddedChangeFiles: 0,
      ...(operation === 'DELETE' ? { numDeletedRows: c.deleted } : { numUpdatedRows: c.updated }),
      numAddedFiles: m.addedFiles,
      numAddedBytes: m.addedBytes,
      rewriteTimeMs: took,
      scanTimeMs: 0,
    };
  return {
    numTargetRowsCopied: m.copied,
    numTargetRowsDeleted: c.deleted,
    numTargetFilesAdded: m.addedFiles,
    numTargetBytesAdded: m.addedBytes,
    numTargetBytesRemoved: m.removedBytes,
    numTargetDeletionVectorsAdded: m.dvAdded,
    numTargetDeletionVectorsRemoved: m.dvRemoved,
    numTargetDeletionVectorsUpdated: m.dvUpdated,
    numTargetRowsMatchedUpdated: c.matchedUpdated ?? c.updated,
    numTargetRowsMatchedDeleted: c.matchedDeleted ?? c.deleted,
    numTargetRowsUpdated: c.updated,
    numTargetRowsInserted: c.inserted,
    numTargetRowsNotMatchedBySourceUpdated: c.notMatchedBySourceUpdated ?? 0,
    numTargetRowsNotMatchedBySourceDeleted: c.notMatchedBySourceDeleted ?? 0,
    numTargetFilesRemoved: m.removedFiles,
    numTargetChangeFilesAdded: 0,
    numSourceRows: c.sourceRows ?? 0,
    numOutputRows: m.outputRows,
    rewriteTimeMs: took,
    scanTimeMs: 0,
  };
}

/** Two ascending lists of row indexes -> their ascending union. */
function mergeSorted(a: number[], b: number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
    if (out.length === 0 || out[out.length - 1] !== x) out.push(x);
  }
  return out;
}

/**
 * A file's stats once a DV hides some of its rows: numRecords still counts the physical rows and the bounds
 * may be wider than the live rows (tightBounds false), as Spark writes them.
 */
function looseStats(f: AddAction): string {
  let stats: Record<string, unknown> = {};
  try {
    if (f.stats) stats = JSON.parse(f.stats) as Record<string, unknown>;
  } catch {
    stats = {};
  }
  return JSON.stringify({ ...stats, tightBounds: false });
}

/** Rows per file as the stats tell (for tests and metrics). */
export { numRecords };
