/**
 * A Delta snapshot: one version of a table, its schema, its live files, and the DuckDB SQL that reads them.
 * DeltaReader caches snapshots by log version, so reading an unchanged table costs one directory listing.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ident, literal } from '@minilake/engine-duckdb';
import { deletedRows, rowRanges } from './dv.js';
import { CommitLog, type DetailRow, type HistoryRow, detailRow, historyRows } from './history.js';
import { DeltaError } from './errors.js';
import {
  type Action,
  type AddAction,
  type LogState,
  type SqlRunner,
  applyActions,
  latestVersion,
  listLog,
  replay,
} from './log.js';
import {
  type SparkField,
  type SparkSchema,
  type SparkType,
  duckDbType,
  parseSchemaString,
  physicalName,
  sparkTypeText,
  ucTypeName,
} from './schema.js';

/** Reader features this library reads correctly. */
export const SUPPORTED_READER_FEATURES = new Set([
  'columnMapping',
  'timestampNtz',
  'vacuumProtocolCheck',
  'deletionVectors',
  'typeWidening',
  'typeWidening-preview',
  'v2Checkpoint',
]);

export function checkReadable(p: { minReaderVersion: number; readerFeatures?: string[] | null }): void {
  if (p.minReaderVersion > 3) {
    throw new DeltaError(
      'DELTA_UNSUPPORTED_FEATURES_FOR_READ',
      `Delta reader version ${p.minReaderVersion} is not supported (MiniLake reads versions 1 to 3)`,
    );
  }
  if (p.minReaderVersion === 3) {
    const missing = (p.readerFeatures ?? []).filter((f) => !SUPPORTED_READER_FEATURES.has(f));
    if (missing.length) {
      throw new DeltaError(
        'DELTA_UNSUPPORTED_FEATURES_FOR_READ',
        `Unable to read this Delta table: MiniLake does not support the reader table feature(s) ${missing.join(', ')}`,
      );
    }
  }
}

export interface DeltaColumn {
  name: string;
  type: SparkType;
  /** Spark's SQL spelling (Unity Catalog type_text). */
  typeText: string;
  /** Unity Catalog type_name. */
  typeName: string;
  /** The Spark JSON of the type (Unity Catalog type_json is the whole field). */
  typeJson: string;
  duckType: string;
  nullable: boolean;
  partitionIndex?: number;
  comment?: string;
}

export class DeltaSnapshot {
  readonly schema: SparkSchema;
  readonly mappingMode: string;

  constructor(
    readonly root: string,
    private readonly state: LogState,
  ) {
    checkReadable(state.protocol);
    this.schema = parseSchemaString(state.metadata.schemaString);
    this.mappingMode = state.metadata.configuration?.['delta.columnMapping.mode'] ?? 'none';
    if (!['none', 'name', 'id'].includes(this.mappingMode)) {
      throw new DeltaError(
        'DELTA_UNSUPPORTED_FEATURES_FOR_READ',
        `Column mapping mode ${this.mappingMode} is not supported`,
      );
    }
  }

  get version(): number {
    return this.state.version;
  }
  get timestamp(): number {
    return this.state.timestamp;
  }
  get protocol() {
    return this.state.protocol;
  }
  get metadata() {
    return this.state.metadata;
  }
  get partitionColumns(): string[] {
    return this.state.metadata.partitionColumns;
  }
  get files(): AddAction[] {
    return [...this.state.files.values()];
  }
  /** The replayed state, for writers that build the next commit on it. */
  get logState(): LogState {
    return this.state;
  }

  columns(): DeltaColumn[] {
    return this.schema.fields.map((f) => {
      const pi = this.partitionColumns.indexOf(f.name);
      const comment = typeof f.metadata?.comment === 'string' ? f.metadata.comment : undefined;
      return {
        name: f.name,
        type: f.type,
        typeText: sparkTypeText(f.type),
        typeName: ucTypeName(f.type),
        typeJson: JSON.stringify({
          name: f.name,
          type: f.type,
          nullable: f.nullable,
          metadata: f.metadata ?? {},
        }),
        duckType: duckDbType(f.type),
        nullable: f.nullable,
        ...(pi >= 0 ? { partitionIndex: pi } : {}),
        ...(comment ? { comment } : {}),
      };
    });
  }

  /** The absolute path on disk of a data file (add.path is a URI reference, relative to the table root). */
  filePath(add: AddAction): string {
    if (/^[a-z][a-z0-9+.-]*:/i.test(add.path)) {
      if (add.path.startsWith('file:')) return fileURLToPath(add.path);
      throw new DeltaError(
        'DELTA_UNSUPPORTED_FEATURES_FOR_READ',
        `Data file ${add.path} is not on a local filesystem`,
      );
    }
    return path.join(this.root, decodeURIComponent(add.path));
  }

  /**
   * A DuckDB SELECT producing the table's rows with their logical column names and types. `present` is the
   * set of physical column names found in the files (columns added later are NULL in older files).
   */
  scanSql(
    present: Set<string>,
    o: {
      fileColumn?: string;
      /** A column with each row's file as its index in `files` (an INTEGER: cheaper to keep than the path). */
      fileIndexColumn?: string;
      /** With fileIndexColumn: the number to give each file of `files` instead of its index. */
      fileIds?: number[];
      rowIndexColumn?: string;
      deleted?: Map<string, [number, number][]>;
      /** Only these files (DML reads the ones that can hold a changed row); default every file. */
      files?: AddAction[];
    } = {},
  ): string {
    const deleted = o.deleted ?? new Map<string, [number, number][]>();
    const fields = this.schema.fields;
    if (this.mappingMode !== 'none') {
      const nested = fields.find((f) => hasStruct(f.type));
      if (nested) {
        throw new DeltaError(
          'DELTA_UNSUPPORTED_FEATURES_FOR_READ',
          `Column mapping on nested struct fields (column ${nested.name}) is not supported`,
        );
      }
    }
    const files = o.files ?? this.files;
    if (files.length === 0) {
      const cols = fields.map((f) => `CAST(NULL AS ${duckDbType(f.type)}) AS ${ident(f.name)}`);
      if (o.fileColumn) cols.push(`CAST(NULL AS VARCHAR) AS ${ident(o.fileColumn)}`);
      if (o.fileIndexColumn) cols.push(`CAST(NULL AS INTEGER) AS ${ident(o.fileIndexColumn)}`);
      if (o.rowIndexColumn) cols.push(`CAST(NULL AS BIGINT) AS ${ident(o.rowIndexColumn)}`);
      return `SELECT ${cols.join(', ')} WHERE false`;
    }
    const parts = this.partitionColumns;
    const partField = (name: string): SparkField | undefined => fields.find((f) => f.name === name);
    const proj = fields.map((f) => {
      const t = duckDbType(f.type);
      const pi = parts.indexOf(f.name);
      if (pi >= 0) return `CAST(p.${ident(`p${pi}`)} AS ${t}) AS ${ident(f.name)}`;
      const phys = physicalName(f, this.mappingMode);
      if (!present.has(phys)) return `CAST(NULL AS ${t}) AS ${ident(f.name)}`;
      return `CAST(d.${ident(phys)} AS ${t}) AS ${ident(f.name)}`;
    });
    // Writers (copy-on-write DML) need the file each row came from.
    if (o.fileColumn) proj.push(`d."__ml_file" AS ${ident(o.fileColumn)}`);
    // DuckDB's file_index virtual column: the position of the row's file in the list read_parquet reads.
    if (o.fileIndexColumn) {
      const index = o.fileIds
        ? `[${o.fileIds.map((i) => Math.trunc(i)).join(', ')}][CAST(d.file_index AS BIGINT) + 1]`
        : 'd.file_index';
      proj.push(`CAST(${index} AS INTEGER) AS ${ident(o.fileIndexColumn)}`);
    }
    // Deletion vector writers need each row's index in its file.
    if (o.rowIndexColumn) proj.push(`d.file_row_number AS ${ident(o.rowIndexColumn)}`);
    const list = files.map((f) => literal(this.filePath(f))).join(', ');
    const withDv = files.filter((f) => f.deletionVector);
    const missing = withDv.find((f) => !deleted.has(this.filePath(f)));
    if (missing) throw new Error(`scanSql: the deleted rows of ${missing.path} were not loaded`);
    // Rows a deletion vector removes are dropped by their index in the file (file_row_number).
    const rowNumber = withDv.length || o.rowIndexColumn ? ', file_row_number = true' : '';
    let sql = `SELECT ${proj.join(', ')} FROM read_parquet([${list}], union_by_name = true, filename = '__ml_file'${rowNumber}) AS d`;
    if (parts.length) {
      const rows = files.map((f) => {
        const vals = parts.map((name) => {
          const field = partField(name);
          const key = field ? physicalName(field, this.mappingMode) : name;
          const v = f.partitionValues[key] ?? f.partitionValues[name];
          return v === undefined || v === null ? 'NULL' : literal(v);
        });
        return `(${literal(this.filePath(f))}, ${vals.join(', ')})`;
      });
      const names = ['__ml_path', ...parts.map((_, i) => `p${i}`)].map(ident).join(', ');
      sql += ` JOIN (VALUES ${rows.join(', ')}) AS p(${names}) ON d."__ml_file" = p."__ml_path"`;
    }
    const ranges = withDv.flatMap((f) => {
      const file = literal(this.filePath(f));
      return deleted.get(this.filePath(f))!.map(([lo, hi]) => `(${file}, ${lo}::BIGINT, ${hi}::BIGINT)`);
    });
    if (ranges.length) {
      // Ranges are expanded to rows so the anti-join is a hash join on equality (a range condition would
      // compare every row with every range of its file).
      const deletedSet =
        `SELECT "__ml_path", unnest(range(lo, hi + 1)) AS r ` +
        `FROM (VALUES ${ranges.join(', ')}) AS dv("__ml_path", lo, hi)`;
      sql +=
        ` WHERE NOT EXISTS (SELECT 1 FROM (${deletedSet}) AS x` +
        ` WHERE x."__ml_path" = d."__ml_file" AND x.r = d.file_row_number)`;
    }
    return sql;
  }
}

function hasStruct(t: SparkType): boolean {
  if (typeof t === 'string') return false;
  if (t.type === 'struct') return true;
  if (t.type === 'array') return hasStruct(t.elementType);
  return hasStruct(t.keyType) || hasStruct(t.valueType);
}

export interface DeltaReaderOptions {
  sql: SqlRunner;
  /** Snapshots kept per table (the latest and a few time-travel versions). */
  maxVersionsPerTable?: number;
}

interface TableCache {
  snapshots: Map<number, DeltaSnapshot>;
  /** The physical columns present in the files of a version (the union of `columns` over its files). */
  present: Map<number, Set<string>>;
  /**
   * The physical column names of each data file (a footer read, once per file: data files are immutable).
   * A new version then costs a footer read of its new files only, not of every file of the table.
   */
  columns: Map<string, string[]>;
  /** Deleted row ranges by data file path and DV id (a DV never changes once written). */
  deleted: Map<string, [number, number][]>;
}

/**
 * Reads Delta tables through DuckDB. Each call lists `_delta_log/` (so a commit by anyone else is seen at
 * once) and replays only the commits after the newest cached snapshot.
 */
export class DeltaReader {
  private readonly sql: SqlRunner;
  private readonly max: number;
  private readonly cache = new Map<string, TableCache>();
  /** Commit times and commitInfo, for TIMESTAMP AS OF and DESCRIBE HISTORY. */
  readonly commitLog = new CommitLog();
  /** Work left running after a statement answered (checkpoints), awaited by settled(). */
  private readonly pending = new Set<Promise<void>>();

  constructor(opts: DeltaReaderOptions) {
    this.sql = opts.sql;
    this.max = opts.maxVersionsPerTable ?? 4;
  }

  /** The current version of the table's log (one directory listing). */
  async latestVersion(root: string): Promise<number> {
    return latestVersion(await listLog(path.resolve(root)));
  }

  async snapshot(location: string, version?: number): Promise<DeltaSnapshot> {
    const root = path.resolve(location);
    const listing = await listLog(root);
    const latest = latestVersion(listing);
    const v = version ?? latest;
    if (v < 0 || v > latest) {
      const earliest = Math.min(...listing.commits, ...listing.checkpoints.keys());
      throw new DeltaError(
        'DELTA_VERSION_NOT_FOUND',
        `Cannot time travel Delta table to version ${v}. Available versions: [${earliest}, ${latest}].`,
      );
    }
    const entry = this.cache.get(root) ?? {
      snapshots: new Map(),
      present: new Map(),
      columns: new Map(),
      deleted: new Map(),
    };
    this.cache.set(root, entry);
    const hit = entry.snapshots.get(v);
    if (hit) return hit;
    // Replay from the newest cached state at or below v when no commit in between is missing.
    const base = [...entry.snapshots.values()]
      .filter((s) => s.version < v)
      .sort((a, b) => b.version - a.version)[0];
    const canExtend =
      base !== undefined &&
      [...Array(v - base.version).keys()].every((i) => listing.commits.includes(base.version + 1 + i));
    const state = await replay(this.sql, root, listing, v, canExtend ? base.logState : undefined);
    const snap = new DeltaSnapshot(root, state);
    entry.snapshots.set(v, snap);
    this.trim(entry);
    return snap;
  }

  /**
   * Our own commit of `actions` as `version`, on `base`: its snapshot is the base's state with those actions
   * applied, so the next statement does not read back the commit it just wrote (replay would compute the
   * very same state). Only for the version right after the base (a commit retried past other writers'
   * versions is read from the log as usual), and only while the base's table is cached.
   */
  committed(base: DeltaSnapshot, version: number, actions: Action[]): void {
    if (version !== base.version + 1) return;
    const entry = this.cache.get(base.root);
    if (!entry || entry.snapshots.get(base.version) !== base) return;
    const from = base.logState;
    const state = { ...from, files: new Map(from.files), domains: new Map(from.domains ?? []) };
    applyActions(state, actions);
    entry.snapshots.set(version, new DeltaSnapshot(base.root, { ...state, version }));
    this.trim(entry);
  }

  /**
   * Runs `task` on this reader's own runner (not a statement's connection) after the caller answered: the
   * checkpoint of a commit, which readers never need (they replay the JSON commits without it). A failure
   * goes to `onError`; settled() waits for every task (tests, shutdown).
   */
  background(task: (sql: SqlRunner) => Promise<void>, onError?: (e: unknown) => void): void {
    const p: Promise<void> = task(this.sql)
      .catch((e: unknown) => onError?.(e))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Resolves once the background tasks started so far (checkpoints) have finished. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all(this.pending);
  }

  /** The host's hooks for a shared resource: a data snapshot or a shutdown waits for pending checkpoints. */
  checkpoint(): Promise<void> {
    return this.settled();
  }
  close(): Promise<void> {
    return this.settled();
  }

  private trim(entry: TableCache): void {
    while (entry.snapshots.size > this.max) {
      const oldest = Math.min(...entry.snapshots.keys());
      entry.snapshots.delete(oldest);
      entry.present.delete(oldest);
    }
  }

  /** The SELECT that reads a snapshot's rows (logical names, Delta types as DuckDB types). */
  async scanSql(
    snap: DeltaSnapshot,
    o: {
      fileColumn?: string;
      fileIndexColumn?: string;
      fileIds?: number[];
      rowIndexColumn?: string;
      files?: AddAction[];
    } = {},
  ): Promise<string> {
    const entry = this.cache.get(snap.root);
    let present = entry?.present.get(snap.version);
    if (!present) {
      present = new Set();
      const columns = entry?.columns ?? new Map<string, string[]>();
      const paths = snap.files.map((f) => snap.filePath(f));
      const unread = paths.filter((p) => !columns.has(p));
      if (unread.length) {
        for (const p of unread) columns.set(p, []);
        const list = unread.map((p) => literal(p)).join(', ');
        const rows = await this.sql.all(`SELECT DISTINCT file_name, name FROM parquet_schema([${list}])`);
        for (const r of rows) columns.get(String(r.file_name))?.push(String(r.name));
        // Every Parquet footer names at least its root: a file with no names came back under another
        // spelling of its path, so its names are read again next time rather than cached as none.
        const missed = unread.filter((p) => !columns.get(p)?.length);
        for (const p of missed) columns.delete(p);
        if (missed.length) {
          const all = paths.map((p) => literal(p)).join(', ');
          for (const r of await this.sql.all(`SELECT DISTINCT name FROM parquet_schema([${all}])`))
            present.add(String(r.name));
        }
      }
      for (const p of paths) for (const c of columns.get(p) ?? []) present.add(c);
      if (entry) {
        entry.present.set(snap.version, present);
        // Forget the files no cached snapshot has any more.
        const live = new Set([...entry.snapshots.values()].flatMap((s) => s.files.map((f) => s.filePath(f))));
        for (const p of entry.columns.keys()) if (!live.has(p)) entry.columns.delete(p);
      }
    }
    const deleted = new Map<string, [number, number][]>();
    for (const f of snap.files) {
      if (!f.deletionVector) continue;
      const dv = f.deletionVector;
      const id = `${snap.filePath(f)}\u0000${dv.storageType}${dv.pathOrInlineDv}@${dv.offset ?? ''}`;
      let r = entry?.deleted.get(id);
      if (!r) {
        r = rowRanges(await deletedRows(snap.root, dv));
        entry?.deleted.set(id, r);
      }
      deleted.set(snap.filePath(f), r);
    }
    if (entry) {
      // Forget the DVs of files no cached snapshot has any more.
      const live = new Set(
        [...entry.snapshots.values()].flatMap((s) =>
          s.files.flatMap((f) => {
            const dv = f.deletionVector;
            return dv
              ? [`${s.filePath(f)}\u0000${dv.storageType}${dv.pathOrInlineDv}@${dv.offset ?? ''}`]
              : [];
          }),
        ),
      );
      for (const k of entry.deleted.keys()) if (!live.has(k)) entry.deleted.delete(k);
    }
    return snap.scanSql(present, { ...o, deleted });
  }

  /** The snapshot current at `timestamp` (ms since the epoch), as TIMESTAMP AS OF reads it. */
  async snapshotAt(location: string, timestamp: number): Promise<DeltaSnapshot> {
    return this.snapshot(location, await this.commitLog.versionAt(location, timestamp));
  }

  /** DESCRIBE HISTORY: the commits still in the log, newest first. */
  async history(location: string, limit?: number): Promise<HistoryRow[]> {
    return historyRows(await this.commitLog.commits(location), limit);
  }

  /** DESCRIBE DETAIL of the latest snapshot. */
  async detail(location: string, opts: { name: string | null; location: string }): Promise<DetailRow> {
    const snap = await this.snapshot(location);
    const commits = await this.commitLog.commits(location);
    const last = commits.at(-1)?.timestamp ?? snap.timestamp;
    return detailRow(snap, { ...opts, lastModified: last });
  }

  /** Forgets a table (after DROP, or when its folder is replaced). */
  forget(location: string): void {
    this.cache.delete(path.resolve(location));
    this.commitLog.forget(location);
  }
}

/** The host's one reader (one snapshot cache), shared by every service that reads Delta tables. */
export function deltaReader(
  ctx: { shared<T extends object>(key: string, create: () => T | Promise<T>): Promise<T> },
  sql: SqlRunner,
): Promise<DeltaReader> {
  return ctx.shared('delta-reader', async () => {
    // Delta data files are immutable (a write adds new files, never rewrites one), so their Parquet footers
    // can be cached across statements: every scan binds read_parquet over all of a snapshot's files, and
    // the SQL layer's type probe binds it once more. DuckDB checks each file's modification time before it
    // uses a cached footer, so a Parquet file rewritten by anyone else is read again.
    await sql.all('SET GLOBAL parquet_metadata_cache = true').catch(() => undefined);
    return new DeltaReader({ sql });
  });
}
