import { defineService } from '@minilake/core';
import { deltaReader, type DeltaTable, type DetailRow, type HistoryRow } from '@minilake/delta';
import { DUCKDB_FOLDER, duckDbEngine, type DuckDbEngine } from '@minilake/engine-duckdb';
import { unityCatalogApp } from './app.js';
import {
  ExternalDeltaSource,
  ExternalFilesSource,
  ManagedDeltaSource,
  ManagedDuckDbSource,
  UnityCatalogStore,
  type DeltaAsOf,
  type DeltaRef,
  type PermissionChange,
  type TableMetadataInput,
  type TableScan,
} from './store.js';

export {
  UnityCatalogStore,
  type UnityCatalogStoreOptions,
  type TableMetadataInput,
  type PermissionChange,
  type TableSource,
  type TableCreate,
  type CreatedTable,
  type TableScan,
  type DeltaAsOf,
  type DeltaRef,
} from './store.js';
export {
  databricksToDuckDbType,
  databricksTypeInfo,
  duckDbTypeToDatabricks,
  normalizeDatabricksType,
  parseDatabricksType,
  sparkTypeJson,
  structFieldJson,
  toDatabricksTypeName,
  toDatabricksTypeText,
  type DatabricksTypeInfo,
} from './types.js';
export type {
  CatalogInfo,
  ColumnInfo,
  ForeignKeyConstraint,
  FunctionInfo,
  FunctionParameterInfo,
  PrimaryKeyConstraint,
  SchemaInfo,
  SecurableAudit,
  TableConstraint,
  TableInfo,
  VolumeInfo,
} from './wire.js';
export { unityCatalogApp } from './app.js';
export { checkName, splitFullName } from './names.js';

/** What other services (sql, files) use through ctx.peer(unityCatalogService). */
export interface UnityCatalogApi {
  engine: DuckDbEngine;
  createCatalog(input: {
    name: string;
    comment?: string;
    properties?: Record<string, string>;
  }): Promise<unknown>;
  deleteCatalog(name: string, force: boolean): Promise<void>;
  createSchema(input: {
    catalog_name: string;
    name: string;
    comment?: string;
    properties?: Record<string, string>;
  }): Promise<unknown>;
  deleteSchema(fullName: string, force: boolean): Promise<void>;
  /** All three throw 404 DatabricksErrors (CATALOG_/SCHEMA_/TABLE_DOES_NOT_EXIST). */
  getCatalog(name: string): unknown;
  getSchema(fullName: string): Promise<unknown>;
  getTable(fullName: string): Promise<unknown>;
  /** Records what SQL DDL declared about a table (comment, TBLPROPERTIES, LOCATION, USING, PARTITIONED BY). */
  setTableMetadata(fullName: string, meta: TableMetadataInput): void;
  /** GRANT / REVOKE from SQL; stored, not enforced. */
  updatePermissions(securableType: string, fullName: string, changes: PermissionChange[]): void;
  /**
   * A DuckDB SELECT over an EXTERNAL Delta table's snapshot (log version checked per call), or over the Delta
   * folder `{ path }` (`delta.\`/path\``); `at`: a version or `{ timestamp }` (ms). Undefined for other tables.
   */
  tableScan(ref: DeltaRef, at?: DeltaAsOf): Promise<TableScan | undefined>;
  /** DESCRIBE HISTORY rows (newest first) of an EXTERNAL Delta table or a Delta path, else undefined. */
  tableHistory(ref: DeltaRef, limit?: number): Promise<HistoryRow[] | undefined>;
  /** DESCRIBE DETAIL of an EXTERNAL Delta table or a Delta path, else undefined. */
  tableDetail(ref: DeltaRef): Promise<DetailRow | undefined>;
  /** Appends a relation's rows (on the connection `sql` runs on) to an EXTERNAL Delta table as one commit. */
  tableAppend(
    fullName: string,
    source: string,
    sql: { all(sql: string): Promise<Record<string, unknown>[]> },
  ): Promise<{ rows: number; version: number | undefined } | undefined>;
  /** A Delta writer for an EXTERNAL Delta table (DML, INSERT OVERWRITE, TRUNCATE, OPTIMIZE, VACUUM), else undefined. */
  deltaTable(
    fullName: string,
    sql: { all(sql: string): Promise<Record<string, unknown>[]> },
  ): Promise<DeltaTable | undefined>;
  /** How SQL's CREATE TABLE without LOCATION stores a table: DuckDB (default) or a MANAGED Delta folder. */
  managedFormat: 'DUCKDB' | 'DELTA';
  /** DROP TABLE of a table with no engine object (Delta): the record, and a MANAGED table's folder. */
  deleteTable(fullName: string): Promise<void>;
  /**
   * CREATE TABLE ... USING DELTA LOCATION: the first Delta commit (unless a log exists), then the record;
   * without a storage_location, a MANAGED Delta table (when managedFormat is DELTA).
   */
  createDeltaTable(r: Parameters<UnityCatalogStore['createDeltaTable']>[0]): Promise<unknown>;
  /** Absolute directory of a volume; 404 when it does not exist. */
  volumeDirectory(catalog: string, schema: string, volume: string): Promise<string>;
  store: UnityCatalogStore;
}

export const unityCatalogService = defineService<UnityCatalogApi>({
  name: 'unity-catalog',
  description: 'Unity Catalog on DuckDB: catalogs, schemas, tables, volumes, functions, grants',
  configDefaults: {
    MINILAKE_DUCKDB_MEMORY_LIMIT: '',
    MINILAKE_DUCKDB_THREADS: '',
    MINILAKE_MANAGED_FORMAT: 'duckdb',
  },
  // Volumes have always lived in `<dataDir>/volumes`: kept, so persisted volumes stay where they are.
  folders: ['volumes', DUCKDB_FOLDER],
  async create(ctx) {
    const engine = await duckDbEngine(ctx);
    const delta = await deltaReader(ctx, engine);
    const managedFormat = (ctx.config.MINILAKE_MANAGED_FORMAT || 'duckdb').toLowerCase();
    if (managedFormat !== 'duckdb' && managedFormat !== 'delta')
      throw new Error(
        `MINILAKE_MANAGED_FORMAT=${JSON.stringify(ctx.config.MINILAKE_MANAGED_FORMAT)} must be duckdb or delta`,
      );
    const store = new UnityCatalogStore({
      db: ctx.state,
      engine,
      clock: ctx.clock,
      user: ctx.identity.userName,
      volumesDir: ctx.folder('volumes'),
      // External locations must stay outside everything MiniLake manages.
      dataDir: ctx.dataDir,
      workspaceId: ctx.identity.workspaceId,
      logger: ctx.logger,
      deltaReader: delta,
      // MANAGED Delta tables live in this service's own folder, in Databricks' storage-root layout: those
      // Spark creates always, every MANAGED table with MINILAKE_MANAGED_FORMAT=delta.
      managedDeltaDir: ctx.dir,
      managedDeltaDefault: managedFormat === 'delta',
      tableSources: (uc) => [
        new ManagedDeltaSource(uc, delta),
        new ManagedDuckDbSource(uc),
        new ExternalDeltaSource(uc, delta),
        new ExternalFilesSource(uc),
      ],
    });
    await store.open();
    return {
      app: unityCatalogApp(store),
      state: [store],
      api: {
        engine,
        store,
        createCatalog: (input) => store.createCatalog(input),
        deleteCatalog: (name, force) => store.deleteCatalog(name, force),
        createSchema: (input) => store.createSchema(input),
        deleteSchema: (fullName, force) => store.deleteSchema(fullName, force),
        getCatalog: (name) => store.getCatalog(name),
        getSchema: (fullName) => store.getSchema(fullName),
        getTable: (fullName) => store.getTable(fullName),
        setTableMetadata: (fullName, meta) => store.setTableMetadata(fullName, meta),
        updatePermissions: (type, fullName, changes) => store.applyPermissions(type, fullName, changes),
        volumeDirectory: (c, s, v) => store.volumeDirectory(c, s, v),
        tableScan: (ref, at) => store.tableScan(ref, at),
        tableHistory: (ref, limit) => store.tableHistory(ref, limit),
        tableDetail: (ref) => store.tableDetail(ref),
        tableAppend: (fullName, source, sql) => store.tableAppend(fullName, source, sql),
        deltaTable: (fullName, sql) => store.tableDelta(fullName, sql),
        createDeltaTable: (r) => store.createDeltaTable(r),
        managedFormat: store.managedFormat,
        deleteTable: (fullName) => store.deleteTable(fullName),
      },
      async ready() {
        await engine.all('SELECT 1');
      },
    };
  },
});
