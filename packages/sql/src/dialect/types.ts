/**
 * Minimal structural types for the engine pieces the dialect layer uses. The real DuckDBConnection /
 * DuckDBResult (@duckdb/node-api) satisfy them; staying structural lets the engine's leased connections (a
 * Proxy) and test wrappers pass without casts.
 */
import type { DeltaPruneTerm } from './translate/common.js';
export interface DuckDBResultLike {
  readonly columnCount: number;
}

export interface DuckDBPreparedLike {
  bind(values: Record<string, unknown>): void;
  /** Forgets the values bound before (a cached statement is bound again for every run). */
  clearBindings?(): void;
  stream(): Promise<DuckDBResultLike>;
  /** Runs to a materialized result (its chunks are then read synchronously). */
  run?(): Promise<DuckDBResultLike>;
  destroySync(): void;
}

export interface DuckDBReaderLike {
  getRows(): unknown[][];
  columnNames(): string[];
}

export interface DuckDBConnectionLike {
  stream(sql: string, values?: Record<string, unknown>): Promise<DuckDBResultLike>;
  /** One statement, parsed and planned in one engine call (see execute.ts `streamOne`). */
  prepare?(sql: string): Promise<DuckDBPreparedLike>;
  run(sql: string, values?: Record<string, unknown>): Promise<unknown>;
  runAndReadAll(sql: string, values?: Record<string, unknown>): Promise<DuckDBReaderLike>;
}

/** Minimal shape of @minilake/engine-duckdb's DuckDbEngine used here. */
export interface DuckDbEngineLike {
  /** Databricks catalog name -> DuckDB attached database alias (main -> main__ml). */
  alias(catalog: string): string;
  /** Inverse of alias for attached catalogs. */
  catalogForAlias?(alias: string): string | undefined;
  /** Changes whenever the catalog may have changed (DDL, ATTACH/DETACH); absent = never cache per connection. */
  readonly catalogEpoch?: number;
  /** Tells the engine's listeners (the Unity Catalog) that DDL ran; the engine reads no SQL text itself. */
  notifyChange?(): void;
}

/** The Unity Catalog operations SQL DDL handled by MiniLake (commands/ddl.ts) goes through (all optional: absent = unsupported here). */
export interface UnityCatalogApiLike {
  createCatalog?(req: { name: string; comment?: string }): unknown;
  deleteCatalog?(name: string, force: boolean): unknown;
  createSchema?(req: { catalog_name: string; name: string; comment?: string }): unknown;
  deleteSchema?(fullName: string, force: boolean): unknown;
  setTableMetadata?(fullName: string, meta: TableMetadata): unknown;
  updatePermissions?(
    securableType: string,
    fullName: string,
    changes: { principal: string; add?: string[]; remove?: string[] }[],
  ): unknown;
  getTable?(fullName: string): unknown;
  /** How CREATE TABLE without LOCATION stores a table: DuckDB (default) or a MANAGED Delta folder. */
  managedFormat?: 'DUCKDB' | 'DELTA';
  /**
   * CREATE MATERIALIZED VIEW / STREAMING TABLE, REFRESH and DROP of them, run as a pipeline by the pipelines
   * service (commands/datasets.ts); resolves when the pipeline's update ends, rejects with its error.
   */
  runDatasetStatement?(req: {
    action: 'create' | 'upsert' | 'replace' | 'refresh' | 'drop';
    full_name: string;
    statement?: string;
    full_refresh?: boolean;
    if_exists?: boolean;
    if_not_exists?: boolean;
  }): Promise<unknown>;
  /** Drops a table that is no engine object (Delta): its record, and a MANAGED table's folder. */
  deleteTable?(fullName: string): Promise<void>;
  /**
   * CREATE TABLE ... USING DELTA LOCATION: writes the Delta log (fields are Spark StructField JSON); without
   * a storage_location, a MANAGED Delta table (only when managedFormat is DELTA).
   */
  createDeltaTable?(r: {
    catalog_name: string;
    schema_name: string;
    name: string;
    storage_location?: string;
    fields: unknown[];
    partition_columns: string[];
    comment?: string;
    properties?: Record<string, string>;
  }): Promise<unknown>;
  /**
   * A DuckDB SELECT over a table whose data is not an engine object (EXTERNAL Delta), or over the Delta folder
   * `{ path }`, at a version or `{ timestamp }` (ms); undefined for other tables.
   */
  tableScan?(
    ref: string | { path: string },
    at?: number | { version?: number; timestamp?: number },
  ): Promise<{ sql: string; version: number; columns?: { name: string; type: string }[] } | undefined>;
  /** DESCRIBE HISTORY rows of an EXTERNAL Delta table or Delta path (undefined for other tables). */
  tableHistory?(
    ref: string | { path: string },
    limit?: number,
  ): Promise<Record<string, unknown>[] | undefined>;
  /** DESCRIBE DETAIL of an EXTERNAL Delta table or Delta path (undefined for other tables). */
  tableDetail?(ref: string | { path: string }): Promise<Record<string, unknown> | undefined>;
  /**
   * Appends the rows of `source` (a relation on the connection `sql` runs on) to an EXTERNAL Delta table as
   * one Delta commit; undefined when the table is not one.
   */
  tableAppend?(
    fullName: string,
    source: string,
    sql: { all(sql: string): Promise<Record<string, unknown>[]> },
  ): Promise<{ rows: number; version: number | undefined } | undefined>;
  /**
   * A writer for an EXTERNAL Delta table (copy-on-write DML, INSERT OVERWRITE, TRUNCATE, OPTIMIZE, VACUUM;
   * @minilake/delta's DeltaTable), whose temporary tables live on the connection `sql` runs on; undefined
   * when the table is not one.
   */
  deltaTable?(
    fullName: string,
    sql: { all(sql: string): Promise<Record<string, unknown>[]> },
  ): Promise<DeltaTableLike | undefined>;
  /** The real directory of a volume (created on demand); throws when the volume does not exist. */
  volumeDirectory?(catalog: string, schema: string, volume: string): Promise<string>;
}

export interface TableMetadata {
  comment?: string;
  properties?: Record<string, string>;
  data_source_format?: string;
  table_type?: 'MANAGED' | 'EXTERNAL' | 'VIEW';
  storage_location?: string;
  partition_columns?: string[];
}

/** What the dialect layer uses of @minilake/delta's DeltaTable (structural: no dependency on the package). */
export interface DeltaTableLike {
  root: string;
  /** The table's column names, in order (MERGE's `SET *` / `INSERT *` expand over them). */
  columnNames(): Promise<string[]>;
  /**
   * Stages the rows an UPDATE / DELETE / MERGE can change as the temporary table `table`: every row, or with
   * `probe` (a SELECT * over the temporary view `view`, which stage creates over the snapshot) only those.
   */
  stage(
    table: string,
    o?: {
      probe?: string;
      view?: string;
      /** Conjuncts every changed row satisfies: files their stats rule out are not staged. */
      prune?: DeltaPruneTerm[];
    },
  ): Promise<StagedRewriteLike>;
  overwrite(
    source: string | undefined,
    o?: { partition?: Record<string, string | null>; operation?: 'WRITE' | 'TRUNCATE' },
  ): Promise<{ version: number; rows: number }>;
  /** CREATE OR REPLACE TABLE ... AS SELECT on an existing Delta table: new schema and files, one commit. */
  replace(
    source: string,
    o: { fields: unknown[]; partitionColumns: string[]; configuration?: Record<string, string> },
  ): Promise<{ version: number; rows: number }>;
  optimize(o?: { zOrderBy?: string[] }): Promise<{
    version: number | undefined;
    metrics: {
      numFilesAdded: number;
      numFilesRemoved: number;
      filesAdded: {
        min: number | null;
        max: number | null;
        avg: number;
        totalFiles: number;
        totalSize: number;
      };
      filesRemoved: {
        min: number | null;
        max: number | null;
        avg: number;
        totalFiles: number;
        totalSize: number;
      };
      partitionsOptimized: number;
      totalConsideredFiles: number;
      totalFilesSkipped: number;
    };
  }>;
  vacuum(o?: { retainHours?: number; dryRun?: boolean; retentionCheck?: boolean }): Promise<{
    files: string[];
    bytes: number;
  }>;
}

export interface StagedRewriteLike {
  table: string;
  columns: string[];
  commit(op: {
    operation: 'UPDATE' | 'DELETE' | 'MERGE';
    touched: string[];
    counts: {
      updated: number;
      deleted: number;
      inserted: number;
      matchedUpdated?: number;
      matchedDeleted?: number;
      notMatchedBySourceUpdated?: number;
      notMatchedBySourceDeleted?: number;
    };
    parameters?: Record<string, unknown>;
  }): Promise<number | undefined>;
  drop(): Promise<void>;
}
