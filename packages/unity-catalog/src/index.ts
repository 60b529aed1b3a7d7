import path from 'node:path';
import { choiceSetting, defineService, enforceSetting, switchSetting } from '@minilake/core';
import { deltaReader } from '@minilake/delta';
import { DUCKDB_FOLDER, duckDbEngine, duckDbSettings, type DuckDbEngine } from '@minilake/engine-duckdb';
import { TableFormats, type TableDescriptor, type TableRef } from '@minilake/tables';
import { unityCatalogApp } from './app.js';
import type { FunctionInput } from './schemas.js';
import {
  UnityCatalogStore,
  type ExternalSecurables,
  type PermissionChange,
  type TableMetadataInput,
} from './store.js';

export {
  UnityCatalogStore,
  type UnityCatalogStoreOptions,
  type TableMetadataInput,
  type PermissionChange,
  type TableSource,
  type TableCreate,
  type CreatedTable,
  type ExternalSecurables,
  type Caller,
  type Missing,
  type Need,
  type SecurableKind,
  refusalText,
} from './store.js';
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
  /**
   * Runs a change that makes an engine object and its record together (SQL's CREATE TABLE sets the record
   * inside its open transaction): records are not dropped meanwhile for engine objects not yet committed.
   */
  together<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * MINILAKE_ENFORCE=1: every change through this API is checked for the request's principal (a refusal is a
   * 403 PERMISSION_DENIED DatabricksError); the SQL layer asks `missingPrivilege` / `privilegeMissing` for
   * what runs on the engine directly (reads, DML, CREATE/DROP/ALTER TABLE and VIEW).
   */
  enforcing: boolean;
  /** The first privilege a principal lacks to read or write a table (UnityCatalogStore.missingPrivilege). */
  missingPrivilege: UnityCatalogStore['missingPrivilege'];
  /** Refuses (403 PERMISSION_DENIED) a change to a table of a read-only catalog (samples), whoever asks. */
  checkWritable(fullName: string): void;
  /** The first privilege a principal lacks for any need (store/privileges.ts). */
  privilegeMissing: UnityCatalogStore['privilegeMissing'];
  /** Whether a principal may see a securable: the rule REST lists filter by (SQL's SHOW, information_schema). */
  sees: UnityCatalogStore['sees'];
  /** Whether a principal may see a grant on a securable it sees (information_schema's `*_privileges`). */
  seesGrant: UnityCatalogStore['seesGrant'];
  /** GRANT / REVOKE from SQL; stored, enforced with MINILAKE_ENFORCE=1. */
  updatePermissions(securableType: string, fullName: string, changes: PermissionChange[]): void;
  /**
   * What a table's data is and where it lives: a full name (undefined when it is neither an engine object
   * nor a registered table), or a Delta folder by path (checked: volumes map into their folder, anything
   * else must lie outside the data directory). `tables.of(descriptor)` then reads and writes it.
   */
  describeTable(ref: TableRef): Promise<TableDescriptor | undefined>;
  /** The table layer: one format per kind of storage (DuckDB objects, Delta folders, files). */
  tables: TableFormats;
  /** How SQL's CREATE TABLE without LOCATION stores a table: DuckDB (default) or a MANAGED Delta folder. */
  managedFormat: 'DUCKDB' | 'DELTA';
  /** DROP TABLE of a table with no engine object (Delta): the record, and a MANAGED table's folder. */
  deleteTable(fullName: string): Promise<void>;
  /**
   * CREATE TABLE ... USING DELTA LOCATION: the first Delta commit (unless a log exists), then the record;
   * without a storage_location, a MANAGED Delta table (when managedFormat is DELTA).
   */
  createDeltaTable(r: Parameters<UnityCatalogStore['createDeltaTable']>[0]): Promise<unknown>;
  /** SQL's functions: whether one exists, recording one SQL created (its macro made), DROP FUNCTION. */
  functionExists(fullName: string): boolean;
  recordFunction(fi: FunctionInput, opts: { macro: 'scalar' | 'table'; replace: boolean }): Promise<unknown>;
  deleteFunction(fullName: string): Promise<void>;
  /** Schema and catalog changes from SQL (ALTER ... SET DBPROPERTIES, COMMENT ON, OWNER TO). */
  updateSchema(fullName: string, u: Parameters<UnityCatalogStore['updateSchema']>[1]): Promise<unknown>;
  updateCatalog(name: string, u: Parameters<UnityCatalogStore['updateCatalog']>[1]): Promise<unknown>;
  /**
   * Absolute directory of a volume; 404 when it does not exist. `access` given (a caller's read or write of
   * its files), MINILAKE_ENFORCE=1 checks READ VOLUME / WRITE VOLUME (403 PERMISSION_DENIED).
   */
  volumeDirectory(
    catalog: string,
    schema: string,
    volume: string,
    access?: 'read' | 'write' | 'any',
  ): Promise<string>;
  /**
   * Securables another service keeps under schemas (mlflow's registered models): counted and dropped with
   * their schema, moved with it, granted as `grantType`.
   */
  registerExternal(x: ExternalSecurables): void;
  /** Moves one securable's grants to a new full name (a rename), or drops them (`to` undefined: a delete). */
  moveGrants(type: string, from: string, to: string | undefined): void;
  /** The metastore's id (what `metastore_id` fields carry). */
  metastoreId(): string;
  store: UnityCatalogStore;
}

/** Unity Catalog's settings: the engine's, and where MANAGED tables live. */
export const unityCatalogSettings = {
  ...duckDbSettings,
  MINILAKE_MANAGED_FORMAT: choiceSetting({
    doc:
      '`delta`: MANAGED tables (SQL `CREATE TABLE` without `LOCATION`, `USING DELTA` or no `USING`; CTAS; the ' +
      'Tables API) are real Delta folders under `<dataDir>/unity-catalog/__unitystorage/schemas/<schema id>/tables/<table id>`, ' +
      'as Databricks lays managed tables out under a storage root, so Spark and deltalake read and write them; ' +
      '`DROP TABLE` deletes the folder. `duckdb` (the default, fastest): MANAGED tables are DuckDB tables.',
    choices: ['duckdb', 'delta'],
    default: 'duckdb',
  }),
  ...enforceSetting,
  MINILAKE_EMPTY: switchSetting({
    doc:
      '`1`: a bare metastore, without the catalogs a new workspace has (`main` with `default`, `hive_metastore`, ' +
      '`samples`). A reset brings back what the server started with.',
    default: '0',
  }),
};

export const unityCatalogService = defineService<UnityCatalogApi, typeof unityCatalogSettings>({
  name: 'unity-catalog',
  description: 'Unity Catalog on DuckDB: catalogs, schemas, tables, volumes, functions, grants',
  settings: unityCatalogSettings,
  // Volumes have always lived in `<dataDir>/volumes`: kept, so persisted volumes stay where they are.
  folders: ['volumes', DUCKDB_FOLDER],
  async create(ctx) {
    const engine = await duckDbEngine(ctx);
    const formats = new TableFormats({
      engine,
      deltaReader: await deltaReader(ctx, engine),
      now: () => ctx.clock.now(),
    });
    const managedFormat = ctx.settings.MINILAKE_MANAGED_FORMAT;
    const store = new UnityCatalogStore({
      db: ctx.state,
      engine,
      clock: ctx.clock,
      user: ctx.identity.userName,
      // The creator of a securable becomes its owner (the configured user unless MINILAKE_AUTH=tokens).
      actor: () => ctx.principal().userName,
      // Only with MINILAKE_ENFORCE=1: without a caller the store checks nothing (no work per request).
      ...(ctx.settings.MINILAKE_ENFORCE ? { caller: () => ctx.principal() } : {}),
      volumesDir: ctx.folder('volumes'),
      // External locations must stay outside everything MiniLake manages.
      dataDir: ctx.dataDir,
      workspaceId: ctx.identity.workspaceId,
      logger: ctx.logger,
      formats,
      empty: ctx.settings.MINILAKE_EMPTY,
      // The samples catalog's Delta tables, generated on first read (builtin.ts).
      samplesDir: path.join(ctx.dir, 'samples'),
      // MANAGED Delta tables live in this service's own folder, in Databricks' storage-root layout: those
      // Spark creates always, every MANAGED table with MINILAKE_MANAGED_FORMAT=delta.
      managedDeltaDir: ctx.dir,
      managedDeltaDefault: managedFormat === 'delta',
      // A pipeline's materialized views and streaming tables: Delta, in the same storage root.
      datasetsDir: ctx.dir,
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
        together: (fn) => store.together(fn),
        enforcing: store.enforcing,
        missingPrivilege: (who, privilege, fullName) => store.missingPrivilege(who, privilege, fullName),
        checkWritable: (fullName) => store.checkWritable(fullName),
        privilegeMissing: (who, need) => store.privilegeMissing(who, need),
        sees: (who, on, fullName) => store.sees(who, on, fullName),
        seesGrant: (who, on, fullName, grantee) => store.seesGrant(who, on, fullName, grantee),
        updatePermissions: (type, fullName, changes) => store.applyPermissions(type, fullName, changes),
        volumeDirectory: (c, s, v, access) => store.volumeDirectory(c, s, v, access),
        registerExternal: (x) => store.registerExternal(x),
        moveGrants: (type, from, to) => store.moveGrants(type, from, to),
        metastoreId: () => store.metastoreId,
        describeTable: (ref) => store.describeTable(ref),
        tables: formats,
        createDeltaTable: (r) => store.createDeltaTable(r),
        managedFormat: store.managedFormat,
        deleteTable: (fullName) => store.deleteTable(fullName),
        functionExists: (fullName) => store.functionExists(fullName),
        recordFunction: (fi, opts) => store.recordFunction(fi, opts),
        deleteFunction: (fullName) => store.deleteFunction(fullName),
        updateSchema: (fullName, u) => store.updateSchema(fullName, u),
        updateCatalog: (name, u) => store.updateCatalog(name, u),
      },
      async ready() {
        await engine.all('SELECT 1');
      },
      afterReset: () => store.ensureBuiltins(),
      close: () => store.close(),
    };
  },
});
