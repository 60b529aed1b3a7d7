import { existsSync } from 'node:fs';
import path from 'node:path';
import { createTable as createDeltaLog, type DeltaReader, LOG_DIR, type SparkSchema } from '@minilake/delta';
import { DeltaAccess, type DeltaAsOf, type DeltaRef } from './store/delta-access.js';
import { localPath } from './store/delta-source.js';
import { externalLocation } from './store/locations.js';
/**
 * Unity Catalog state, split by securable under `store/`: catalogs (and the metastore), schemas, tables
 * (with their sources: MANAGED in DuckDB, EXTERNAL files), volumes, functions, grants, and the engine
 * view that keeps records in step with the engine. This class owns the collections (the StateModule) and
 * keeps the store's public API in one place. No Hono or HTTP types here.
 *
 * The engine is the physical truth: every catalog is an attached DuckDB file, and schemas, tables, views
 * and SQL functions live in it, so objects created or dropped through SQL show up here once the code that
 * ran the SQL notified the engine. Collections hold what the engine cannot: ids, owners, comments,
 * properties, timestamps, EXTERNAL tables (metadata over a storage_location), volumes and grants.
 */
import { rm } from 'node:fs/promises';
import { CollectionStore, invalidParameter, silentLogger, type Logger, type StateDb } from '@minilake/core';
import type { DuckDbEngine } from '@minilake/engine-duckdb';
import { tableNotFound } from './errors.js';
import type { FunctionInput } from './schemas.js';
import { Catalogs } from './store/catalogs.js';
import { UcContext, type UcContextOptions } from './store/context.js';
import { EngineView } from './store/engine-view.js';
import { Functions } from './store/functions.js';
import { Grants } from './store/grants.js';
import type { PermissionChange, Props, TableMetadataInput } from './store/records.js';
import { Schemas } from './store/schemas.js';
import type { TableSource } from './store/table-sources.js';
import { Tables, type TableInput } from './store/tables.js';
import { Volumes } from './store/volumes.js';

export type { ColumnOut, PermissionChange, TableMetadataInput } from './store/records.js';
export type { TableSource, TableCreate, CreatedTable, TableScan } from './store/table-sources.js';
export type { DeltaAsOf, DeltaRef } from './store/delta-access.js';
export { ManagedDuckDbSource, ExternalFilesSource } from './store/table-sources.js';
export { ExternalDeltaSource, ManagedDeltaSource } from './store/delta-source.js';

/** The context's options (the store opens the collections itself), plus the store's own. */
export interface UnityCatalogStoreOptions extends Omit<UcContextOptions, 'collections'> {
  db: StateDb;
  logger?: Logger;
  /** Table sources, first match wins; default MANAGED in DuckDB, then EXTERNAL files. */
  tableSources?: (ctx: UcContext) => TableSource[];
  /** The Delta reader EXTERNAL Delta tables share (needed by createDeltaTable). */
  deltaReader?: DeltaReader;
}

export class UnityCatalogStore extends CollectionStore {
  readonly engine: DuckDbEngine;
  readonly volumesRoot: string;
  private readonly ctx: UcContext;
  private readonly view: EngineView;
  private readonly catalogs: Catalogs;
  private readonly schemas: Schemas;
  private readonly tables: Tables;
  private readonly volumes: Volumes;
  private readonly functions: Functions;
  private readonly grants: Grants;
  private readonly deltaReader: DeltaReader | undefined;

  constructor(o: UnityCatalogStoreOptions) {
    super('unity-catalog', 1, o.db);
    this.engine = o.engine;
    this.deltaReader = o.deltaReader;
    this.ctx = new UcContext({
      collections: {
        catalogs: this.collection('catalogs'),
        schemas: this.collection('schemas'),
        tables: this.collection('tables'),
        volumes: this.collection('volumes'),
        functions: this.collection('functions'),
        grants: this.collection('grants'),
        meta: this.collection('meta'),
        staging: this.collection('staging'),
      },
      engine: o.engine,
      clock: o.clock,
      user: o.user,
      volumesDir: o.volumesDir,
      dataDir: o.dataDir,
      ...(o.managedDeltaDir ? { managedDeltaDir: o.managedDeltaDir } : {}),
      ...(o.managedDeltaDefault ? { managedDeltaDefault: true } : {}),
      workspaceId: o.workspaceId,
    });
    this.volumesRoot = this.ctx.volumesRoot;
    this.view = new EngineView(this.ctx, o.logger ?? silentLogger);
    this.catalogs = new Catalogs(this.ctx, this.view);
    this.schemas = new Schemas(this.ctx, this.view, this.catalogs);
    this.tables = new Tables(this.ctx, this.view, this.schemas, o.tableSources?.(this.ctx));
    this.volumes = new Volumes(this.ctx, this.schemas);
    this.functions = new Functions(this.ctx, this.view, this.schemas);
    this.grants = new Grants(this.ctx, {
      metastore: (id) => void this.catalogs.getMetastore(id),
      schemaFullName: async (n) => (await this.schemas.get(n)).full_name,
      tableFullName: async (n) => {
        const t = await this.tables.resolve(n);
        const full = `${t.catalog}.${t.schema}.${t.name}`;
        if (!t.record) throw tableNotFound(full);
        return full;
      },
      volumeFullName: (n) => this.volumes.get(n).full_name,
      functionFullName: (n) => this.functions.get(n).full_name,
    });
  }

  /** Re-attaches every catalog after a restart and starts following the engine's changes. */
  async open(): Promise<void> {
    this.ctx.ensureMetastore();
    for (const name of this.ctx.c.catalogs.keys()) await this.engine.attachCatalog(name);
    this.view.start();
    await this.view.settled();
  }

  /** Stops following the engine (the engine itself is shared and closed by its owner). */
  close(): void {
    this.view.stop();
  }

  protected override async onReset(): Promise<void> {
    for (const name of this.engine.catalogNames())
      await this.engine.detachCatalog(name, { deleteFile: true });
    await rm(this.volumesRoot, { recursive: true, force: true });
    this.ctx.ensureMetastore();
  }

  /** The catalogs' database files are back in place when the host restores a snapshot: attach them. */
  override async restore(snapshot: unknown): Promise<void> {
    super.restore(snapshot);
    this.ctx.ensureMetastore();
    for (const name of this.ctx.c.catalogs.keys()) await this.engine.attachCatalog(name);
  }

  // ---- metastore ----
  metastoreInfo() {
    return this.catalogs.metastoreInfo();
  }
  getMetastore(id: string) {
    return this.catalogs.getMetastore(id);
  }
  currentAssignment() {
    return this.catalogs.currentAssignment();
  }

  // ---- catalogs ----
  createCatalog(input: Parameters<Catalogs['create']>[0]) {
    return this.catalogs.create(input);
  }
  getCatalog(name: string) {
    return this.catalogs.get(name);
  }
  listCatalogs() {
    return this.catalogs.list();
  }
  updateCatalog(name: string, u: Parameters<Catalogs['update']>[1]) {
    return this.catalogs.update(name, u);
  }
  deleteCatalog(name: string, force: boolean) {
    return this.catalogs.delete(name, force);
  }

  // ---- schemas ----
  createSchema(input: {
    catalog_name: string;
    name: string;
    comment?: string | null;
    properties?: Props | null;
    storage_root?: string | null;
  }) {
    return this.schemas.create(input);
  }
  getSchema(fullName: string) {
    return this.schemas.get(fullName);
  }
  listSchemas(catalog: string) {
    return this.schemas.list(catalog);
  }
  updateSchema(fullName: string, u: Parameters<Schemas['update']>[1]) {
    return this.schemas.update(fullName, u);
  }
  deleteSchema(fullName: string, force: boolean) {
    return this.schemas.delete(fullName, force);
  }

  // ---- tables ----
  createTable(input: TableInput) {
    return this.tables.create(input);
  }
  getTable(fullName: string, omit: { columns?: boolean; properties?: boolean } = {}) {
    return this.tables.get(fullName, omit);
  }
  /**
   * A DuckDB SELECT over an EXTERNAL Delta table's snapshot (undefined for any other table), or over the
   * Delta folder at `{ path }`; `at` is a version or `{ timestamp }` (TIMESTAMP AS OF, ms since the epoch).
   */
  async tableScan(ref: DeltaRef, at?: DeltaAsOf) {
    if (typeof ref !== 'string') return this.delta().scan(ref, at);
    const version = typeof at === 'object' ? await this.delta().versionOf(ref, at) : at;
    return this.tables.scan(ref, version);
  }
  /** DESCRIBE HISTORY of an EXTERNAL Delta table or a Delta path (undefined when the name is not one). */
  tableHistory(ref: DeltaRef, limit?: number) {
    return this.delta().history(ref, limit);
  }
  /** DESCRIBE DETAIL of an EXTERNAL Delta table or a Delta path (undefined when the name is not one). */
  tableDetail(ref: DeltaRef) {
    return this.delta().detail(ref);
  }
  private deltaAccess: DeltaAccess | undefined;
  private delta(): DeltaAccess {
    if (!this.deltaReader) throw invalidParameter('Delta tables are not served by this store.');
    this.deltaAccess ??= new DeltaAccess({
      ctx: this.ctx,
      reader: this.deltaReader,
      record: async (fullName) => {
        const t = await this.tables.resolve(fullName);
        return t.object || !t.record?.metadata_only ? undefined : t.record;
      },
      volumeDirectory: (c, sch, v) => this.volumes.directory(c, sch, v),
    });
    return this.deltaAccess;
  }
  tableAppend(
    fullName: string,
    source: string,
    sql: { all(sql: string): Promise<Record<string, unknown>[]> },
  ) {
    return this.tables.append(fullName, source, sql);
  }
  /** A Delta writer (DML, overwrite, OPTIMIZE, VACUUM) for an EXTERNAL Delta table, else undefined. */
  tableDelta(fullName: string, sql: { all(sql: string): Promise<Record<string, unknown>[]> }) {
    return this.tables.deltaTable(fullName, sql);
  }
  /**
   * CREATE TABLE ... USING DELTA LOCATION: writes the first Delta commit at the (checked) location unless a
   * Delta log is already there, then registers the EXTERNAL table, whose columns come from that log. Without
   * a location (MANAGED Delta tables on, see `managedFormat`): a MANAGED table in a fresh folder under the
   * managed storage root.
   */
  async createDeltaTable(r: {
    catalog_name: string;
    schema_name: string;
    name: string;
    storage_location?: string;
    fields: unknown[];
    partition_columns: string[];
    comment?: string;
    properties?: Record<string, string>;
  }) {
    if (!this.deltaReader) throw invalidParameter('Delta tables are not served by this store.');
    const schema = { type: 'struct' as const, fields: r.fields as SparkSchema['fields'] };
    if (r.storage_location === undefined) {
      if (this.managedFormat !== 'DELTA')
        throw invalidParameter('MANAGED Delta tables are off (MINILAKE_MANAGED_FORMAT=delta turns them on).');
      return this.tables.create(
        {
          name: r.name,
          catalog_name: r.catalog_name,
          schema_name: r.schema_name,
          table_type: 'MANAGED',
          data_source_format: 'DELTA',
          ...(r.comment ? { comment: r.comment } : {}),
          ...(r.properties ? { properties: r.properties } : {}),
        },
        { schema, partitionColumns: r.partition_columns },
      );
    }
    const loc = await externalLocation(this.ctx, r.storage_location, 'table');
    const dir = localPath(loc);
    if (!dir) throw invalidParameter(`MiniLake writes Delta tables only to local locations: ${loc}`);
    if (!existsSync(path.join(dir, LOG_DIR))) {
      await createDeltaLog(this.deltaReader, dir, {
        schema,
        partitionColumns: r.partition_columns,
        configuration: r.properties ?? {},
        now: this.ctx.clock.now(),
      });
    }
    return this.tables.create({
      name: r.name,
      catalog_name: r.catalog_name,
      schema_name: r.schema_name,
      table_type: 'EXTERNAL',
      data_source_format: 'DELTA',
      storage_location: loc,
      ...(r.comment ? { comment: r.comment } : {}),
      ...(r.properties ? { properties: r.properties } : {}),
    });
  }
  /** How MANAGED tables are stored: DuckDB tables (the default) or Delta folders (`managedDeltaDir` set). */
  get managedFormat(): 'DUCKDB' | 'DELTA' {
    return this.ctx.managedDeltaDefault && this.ctx.managedDeltaDir ? 'DELTA' : 'DUCKDB';
  }
  /** A staging table (Unity Catalog OSS): the folder a MANAGED Delta table will live in, for Spark to write. */
  createStagingTable(input: { catalog_name: string; schema_name: string; name: string }) {
    return this.tables.stage(input);
  }
  tableExists(fullName: string) {
    return this.tables.exists(fullName);
  }
  listTables(catalog: string, schema: string, omit: { columns?: boolean; properties?: boolean } = {}) {
    return this.tables.list(catalog, schema, omit);
  }
  tableSummaries(catalog: string, schemaPattern?: string, tablePattern?: string) {
    return this.tables.summaries(catalog, schemaPattern, tablePattern);
  }
  updateTable(fullName: string, u: { owner?: string | null; comment?: string | null }) {
    return this.tables.update(fullName, u);
  }
  deleteTable(fullName: string) {
    return this.tables.delete(fullName);
  }
  tableById(tableId: string | null | undefined) {
    return this.tables.byId(tableId);
  }
  setTableMetadata(fullName: string, meta: TableMetadataInput) {
    this.tables.setMetadata(fullName, meta);
  }

  // ---- volumes ----
  createVolume(input: Parameters<Volumes['create']>[0]) {
    return this.volumes.create(input);
  }
  getVolume(fullName: string) {
    return this.volumes.get(fullName);
  }
  listVolumes(catalog: string, schema: string) {
    return this.volumes.list(catalog, schema);
  }
  updateVolume(fullName: string, u: Parameters<Volumes['update']>[1]) {
    return this.volumes.update(fullName, u);
  }
  deleteVolume(fullName: string) {
    return this.volumes.delete(fullName);
  }
  volumeDirectory(catalog: string, schema: string, volume: string) {
    return this.volumes.directory(catalog, schema, volume);
  }

  // ---- functions ----
  createFunction(fi: FunctionInput) {
    return this.functions.create(fi);
  }
  getFunction(fullName: string) {
    return this.functions.get(fullName);
  }
  listFunctions(catalog: string, schema: string) {
    return this.functions.list(catalog, schema);
  }
  updateFunction(fullName: string, u: { owner?: string | null }) {
    return this.functions.update(fullName, u);
  }
  deleteFunction(fullName: string) {
    return this.functions.delete(fullName);
  }

  // ---- grants ----
  getPermissions(type: string, fullName: string, principal?: string) {
    return this.grants.get(type, fullName, principal);
  }
  updatePermissionsChecked(type: string, fullName: string, changes: PermissionChange[]) {
    return this.grants.updateChecked(type, fullName, changes);
  }
  applyPermissions(type: string, fullName: string, changes: PermissionChange[]): void {
    this.grants.apply(type, fullName, changes);
  }
  getEffectivePermissions(type: string, fullName: string, principal?: string) {
    return this.grants.getEffective(type, fullName, principal);
  }
}
