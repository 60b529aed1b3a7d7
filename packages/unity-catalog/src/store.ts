import type { SparkSchema } from '@minilake/delta';
import { localPath, type TableDescriptor, type TableFormats, type TableRef } from '@minilake/tables';
import { deltaPathDescriptor } from './store/delta-access.js';
import { externalLocation } from './store/locations.js';
/**
 * Unity Catalog state, split by securable under `store/`: catalogs (and the metastore), schemas, tables
 * (with their sources: MANAGED in DuckDB or Delta, EXTERNAL Delta or files), volumes, functions, grants, and the engine
 * view that keeps records in step with the engine. This class owns the collections (the StateModule) and
 * keeps the store's public API in one place. No Hono or HTTP types here.
 *
 * The engine is the physical truth: every catalog is an attached DuckDB file, and schemas, tables, views
 * and SQL functions live in it, so objects created or dropped through SQL show up here once the code that
 * ran the SQL notified the engine. Collections hold what the engine cannot: ids, owners, comments,
 * properties, timestamps, EXTERNAL tables (metadata over a storage_location), volumes and grants.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { CollectionStore, invalidParameter, silentLogger, type Logger, type StateDb } from '@minilake/core';
import type { DuckDbEngine } from '@minilake/engine-duckdb';
import { tableNotFound } from './errors.js';
import type { FunctionInput } from './schemas.js';
import { BuiltinCatalogs } from './store/builtin.js';
import { Catalogs } from './store/catalogs.js';
import { UcContext, type UcContextOptions } from './store/context.js';
import { EngineView } from './store/engine-view.js';
import { Functions } from './store/functions.js';
import { Grants } from './store/grants.js';
import {
  permissionDenied,
  Privileges,
  type Caller,
  type Missing,
  type Need,
  type SecurableKind,
} from './store/privileges.js';
import type { PermissionChange, Props, TableMetadataInput } from './store/records.js';
import { Schemas } from './store/schemas.js';
import { ExternalDeltaSource, ManagedDeltaSource, PipelineDatasetSource } from './store/delta-source.js';
import { ExternalFilesSource, ManagedDuckDbSource } from './store/table-sources.js';
import { Tables, type TableInput } from './store/tables.js';
import { Volumes } from './store/volumes.js';
import type { ExternalSecurables } from './store/external.js';

export type { ColumnOut, PermissionChange, TableMetadataInput } from './store/records.js';
export type { ExternalSecurables } from './store/external.js';
export type { Caller, Missing, Need, SecurableKind } from './store/privileges.js';
export { refusalText } from './store/privileges.js';
export type { TableSource, TableCreate, CreatedTable } from './store/table-sources.js';

/** The context's options (the store opens the collections itself), plus the store's own. */
export interface UnityCatalogStoreOptions extends Omit<UcContextOptions, 'collections'> {
  db: StateDb;
  logger?: Logger;
  /** No built-in catalogs (main, hive_metastore, samples): MINILAKE_EMPTY=1. */
  empty?: boolean;
  /** Where the samples catalog's tables are generated; without it there is no samples catalog. */
  samplesDir?: string;
  /**
   * MINILAKE_ENFORCE=1: who is asking (the request's principal). Set, every change through this store is
   * checked against Unity Catalog privileges (store/privileges.ts); unset, nothing is checked.
   */
  caller?: () => Caller;
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
  private readonly privileges: Privileges;
  private readonly caller: (() => Caller) | undefined;
  /** Where tables' data lives and how it is read and written. */
  readonly formats: TableFormats;
  private readonly builtins: BuiltinCatalogs;

  constructor(o: UnityCatalogStoreOptions) {
    super('unity-catalog', 1, o.db);
    this.engine = o.engine;
    this.formats = o.formats;
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
      formats: o.formats,
      clock: o.clock,
      user: o.user,
      ...(o.actor ? { actor: o.actor } : {}),
      volumesDir: o.volumesDir,
      dataDir: o.dataDir,
      ...(o.managedDeltaDir ? { managedDeltaDir: o.managedDeltaDir } : {}),
      ...(o.datasetsDir ? { datasetsDir: o.datasetsDir } : {}),
      ...(o.managedDeltaDefault ? { managedDeltaDefault: true } : {}),
      workspaceId: o.workspaceId,
    });
    this.volumesRoot = this.ctx.volumesRoot;
    this.view = new EngineView(this.ctx, o.logger ?? silentLogger);
    this.catalogs = new Catalogs(this.ctx, this.view);
    this.schemas = new Schemas(this.ctx, this.view, this.catalogs);
    // First match wins: a pipeline's datasets, MANAGED Delta (when enabled) before MANAGED DuckDB, EXTERNAL
    // Delta before files.
    this.tables = new Tables(this.ctx, this.view, this.schemas, [
      new PipelineDatasetSource(this.ctx),
      new ManagedDeltaSource(this.ctx),
      new ManagedDuckDbSource(this.ctx),
      new ExternalDeltaSource(this.ctx),
      new ExternalFilesSource(this.ctx),
    ]);
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
      // A registered model (another service's) is granted as a FUNCTION too.
      functionFullName: (n) => {
        try {
          return this.functions.get(n).full_name;
        } catch (e) {
          for (const x of this.ctx.external) {
            const full = x.grantType === 'function' ? x.fullName(n) : undefined;
            if (full) return full;
          }
          throw e;
        }
      },
    });
    this.privileges = new Privileges(this.ctx);
    this.caller = o.caller;
    this.builtins = new BuiltinCatalogs(this.ctx, {
      empty: o.empty ?? false,
      ...(o.samplesDir ? { samplesDir: o.samplesDir } : {}),
      deltaReader: o.formats.delta.reader,
      createCatalog: (name, extra, o) => this.catalogs.createBuiltin(name, extra, o),
    });
  }

  /** Attaches every recorded catalog's database (samples READ_ONLY, so the engine refuses writes to it). */
  private async attachAll(): Promise<void> {
    for (const name of this.ctx.c.catalogs.keys())
      await this.engine.attachCatalog(name, { readOnly: this.builtins.readOnly(name) });
  }

  /** Re-attaches every catalog after a restart and starts following the engine's changes. */
  async open(): Promise<void> {
    this.ctx.ensureMetastore();
    await this.attachAll();
    await this.builtins.ensure();
    this.view.start();
    await this.view.settled();
  }

  /**
   * Stops following the engine and waits for a reconcile in flight (the engine itself is shared and closed
   * by its owner after this: a reconcile still querying a closed DuckDB crashed the process).
   */
  async close(): Promise<void> {
    this.view.stop();
    await this.view.settled();
  }

  protected override async onReset(): Promise<void> {
    for (const name of this.engine.catalogNames())
      await this.engine.detachCatalog(name, { deleteFile: true });
    await rm(this.volumesRoot, { recursive: true, force: true });
    this.ctx.ensureMetastore();
  }

  /**
   * The catalogs a new workspace has (store/builtin.ts), after a reset: not inside the reset itself, which
   * the shared engine's reset follows (detaching every catalog) and a snapshot's restore too (which copies
   * the catalogs' files back while none is attached).
   */
  ensureBuiltins(): Promise<void> {
    return this.builtins.ensure();
  }

  /** The catalogs' database files are back in place when the host restores a snapshot: attach them. */
  override async restore(snapshot: unknown): Promise<void> {
    super.restore(snapshot);
    this.ctx.ensureMetastore();
    await this.attachAll();
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
    this.guard({ on: 'metastore', privilege: 'CREATE_CATALOG' });
    return this.catalogs.create(input);
  }
  getCatalog(name: string) {
    return this.catalogs.get(name);
  }
  listCatalogs() {
    return this.catalogs.list();
  }
  updateCatalog(name: string, u: Parameters<Catalogs['update']>[1]) {
    this.guardExisting('catalog', name, 'OWNER');
    this.builtins.checkWritable(name, 'Catalog');
    if (u.new_name) this.builtins.checkDroppable(name);
    return this.catalogs.update(name, u);
  }
  async deleteCatalog(name: string, force: boolean) {
    this.guardExisting('catalog', name, 'OWNER');
    this.builtins.checkDroppable(name);
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
    this.builtins.checkWritable(input.catalog_name, 'Catalog');
    this.guardExisting('catalog', input.catalog_name, 'CREATE_SCHEMA');
    return this.schemas.create(input);
  }
  getSchema(fullName: string) {
    return this.schemas.get(fullName);
  }
  /**
   * Where a schema's managed data lives, what DESCRIBE SCHEMA prints as its Location (Databricks always prints
   * one): the managed location Unity Catalog reports when the schema or its catalog has a storage root, else
   * the folder MANAGED Delta tables of the schema are written under here.
   */
  async schemaLocation(fullName: string): Promise<string | undefined> {
    const s = (await this.schemas.get(fullName)) as { schema_id?: string; storage_location?: string };
    if (s.storage_location) return s.storage_location;
    if (!s.schema_id) return undefined;
    const catalog = this.catalogs.get(fullName.split('.')[0]!) as { storage_root?: string };
    if (catalog.storage_root)
      return `${catalog.storage_root.replace(/\/+$/, '')}/__unitystorage/schemas/${s.schema_id}`;
    const root = this.ctx.managedDeltaDir;
    return root ? `file://${path.join(root, '__unitystorage', 'schemas', s.schema_id)}` : undefined;
  }
  listSchemas(catalog: string) {
    return this.schemas.list(catalog);
  }
  updateSchema(fullName: string, u: Parameters<Schemas['update']>[1]) {
    this.builtins.checkWritable(fullName, 'Schema');
    this.guardExisting('schema', fullName, 'OWNER');
    return this.schemas.update(fullName, u);
  }
  async deleteSchema(fullName: string, force: boolean) {
    this.builtins.checkWritable(fullName, 'Schema');
    this.guardExisting('schema', fullName, 'OWNER');
    return this.schemas.delete(fullName, force);
  }

  // ---- tables ----
  async createTable(input: TableInput) {
    this.builtins.checkWritable(input.catalog_name, 'Catalog');
    this.guardCreate(input.catalog_name, input.schema_name, 'CREATE_TABLE');
    return this.tables.create(input);
  }
  getTable(fullName: string, omit: { columns?: boolean; properties?: boolean } = {}) {
    return this.tables.get(fullName, omit);
  }
  /**
   * What a table's data is and where it lives (the table layer's descriptor): a full name (undefined when it
   * is neither an engine object nor a registered table), or a Delta folder by path (checked; a folder
   * without a log is DELTA_MISSING_DELTA_TABLE).
   */
  async describeTable(ref: TableRef): Promise<TableDescriptor | undefined> {
    if (typeof ref !== 'string')
      return deltaPathDescriptor(this.ctx, ref.path, (c, sch, v) => this.volumes.directory(c, sch, v));
    // A sample table's data is generated the first time anything opens it.
    await this.builtins.prepare(ref);
    const d = await this.tables.describe(ref);
    const readOnly = d?.fullName ? this.builtins.readOnlyReason(d.fullName) : undefined;
    return d && readOnly ? { ...d, readOnly } : d;
  }
  /**
   * CREATE TABLE ... USING DELTA LOCATION: writes the first Delta commit at the (checked) location unless a
   * Delta log is already there, then registers the EXTERNAL table, whose columns come from that log. Without
   * a location (MANAGED Delta tables on, see `managedFormat`): a MANAGED table in a fresh folder under the
   * managed storage root. `table_type` MATERIALIZED_VIEW or STREAMING_TABLE (with `pipeline_id`): a pipeline's
   * dataset, a Delta folder under the datasets root whatever MANAGED tables are.
   */
  async createDeltaTable(r: {
    catalog_name: string;
    schema_name: string;
    name: string;
    table_type?: 'MATERIALIZED_VIEW' | 'STREAMING_TABLE';
    pipeline_id?: string;
    storage_location?: string;
    fields: unknown[];
    partition_columns: string[];
    comment?: string;
    properties?: Record<string, string>;
  }) {
    this.builtins.checkWritable(r.catalog_name, 'Catalog');
    this.guardCreate(r.catalog_name, r.schema_name, 'CREATE_TABLE');
    const schema = { type: 'struct' as const, fields: r.fields as SparkSchema['fields'] };
    if (r.table_type) {
      if (!this.ctx.datasetsDir) throw invalidParameter('Pipeline datasets are not served by this store.');
      return this.tables.create(
        {
          name: r.name,
          catalog_name: r.catalog_name,
          schema_name: r.schema_name,
          table_type: r.table_type,
          data_source_format: 'DELTA',
          ...(r.pipeline_id ? { pipeline_id: r.pipeline_id } : {}),
          ...(r.comment ? { comment: r.comment } : {}),
          ...(r.properties ? { properties: r.properties } : {}),
        },
        { schema, partitionColumns: r.partition_columns },
      );
    }
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
    await this.formats.delta.create(dir, {
      schema,
      partitionColumns: r.partition_columns,
      configuration: r.properties ?? {},
    });
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
    this.builtins.checkWritable(input.catalog_name, 'Catalog');
    this.guardCreate(input.catalog_name, input.schema_name, 'CREATE_TABLE');
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
  async updateTable(fullName: string, u: { owner?: string | null; comment?: string | null }) {
    this.builtins.checkWritable(fullName);
    this.guardExisting('table', fullName, 'OWNER');
    return this.tables.update(fullName, u);
  }
  async deleteTable(fullName: string) {
    this.builtins.checkWritable(fullName);
    this.guardExisting('table', fullName, 'OWNER');
    return this.tables.delete(fullName);
  }
  tableById(tableId: string | null | undefined) {
    return this.tables.byId(tableId);
  }
  /**
   * What temporary table credentials need (Spark asks for them before it opens the folder): the table must
   * exist, and a sample table's data is generated now. READ_WRITE on a table of a read-only catalog is
   * refused, as Unity Catalog hands a shared table's readers read credentials only: a client (MiniLake's
   * Spark plugin, the official connector) then asks for READ and knows the table is read-only.
   */
  async tableCredentials(tableId: string | null | undefined, operation?: string | null): Promise<void> {
    const fullName = this.tables.byId(tableId);
    if (operation === 'READ_WRITE') this.builtins.checkWritable(fullName);
    // MINILAKE_ENFORCE=1: credentials to read need SELECT, to write MODIFY (with the parents' USE privileges),
    // as Databricks vends them; what a Spark session may do with a table is decided here (the catalog plugin
    // asks as the session's caller). The samples are readable by every user.
    if (!this.builtins.readOnly(fullName.split('.')[0]!.toLowerCase()))
      this.guard({ on: 'table', fullName, privilege: operation === 'READ_WRITE' ? 'MODIFY' : 'SELECT' });
    await this.builtins.prepare(fullName);
  }
  /** Refuses a change to a table of a read-only catalog (samples): a 403 PERMISSION_DENIED saying why. */
  checkWritable(fullName: string): void {
    this.builtins.checkWritable(fullName);
  }
  /** Temporary path credentials: PATH_READ_WRITE or PATH_CREATE_TABLE inside a read-only catalog is refused. */
  pathCredentials(url: string | null | undefined, operation?: string | null): void {
    if (url && (operation === 'PATH_READ_WRITE' || operation === 'PATH_CREATE_TABLE'))
      this.builtins.checkPathWritable(url);
  }
  /**
   * Runs a change made of an engine object and its record together (SQL's CREATE TABLE: the record is set
   * inside the engine's open transaction): the engine view drops no record meanwhile, so a reconcile that
   * does not see the uncommitted table yet cannot take its record (and its comment, properties) away.
   */
  together<T>(fn: () => Promise<T>): Promise<T> {
    return this.ctx.mutating(fn);
  }

  setTableMetadata(fullName: string, meta: TableMetadataInput) {
    this.builtins.checkWritable(fullName);
    this.tables.setMetadata(fullName, meta);
  }

  // ---- volumes ----
  createVolume(input: Parameters<Volumes['create']>[0]) {
    this.builtins.checkVolumeCatalog(input.catalog_name);
    this.guardCreate(input.catalog_name, input.schema_name, 'CREATE_VOLUME');
    return this.volumes.create(input);
  }
  getVolume(fullName: string) {
    return this.volumes.get(fullName);
  }
  listVolumes(catalog: string, schema: string) {
    return this.volumes.list(catalog, schema);
  }
  updateVolume(fullName: string, u: Parameters<Volumes['update']>[1]) {
    this.builtins.checkWritable(fullName, 'Volume');
    this.guardExisting('volume', fullName, 'OWNER');
    return this.volumes.update(fullName, u);
  }
  deleteVolume(fullName: string) {
    this.builtins.checkWritable(fullName, 'Volume');
    this.guardExisting('volume', fullName, 'OWNER');
    return this.volumes.delete(fullName);
  }
  /**
   * A volume's directory (404 when the volume does not exist). With `access` (the Files API, SQL's volume
   * paths, Spark's file systems) and MINILAKE_ENFORCE=1, the caller needs READ VOLUME to read or list, WRITE
   * VOLUME to write or delete, either for `any` (a status Spark takes before a read or a write); a caller that
   * may not see the volume at all is refused the same way.
   */
  async volumeDirectory(catalog: string, schema: string, volume: string, access?: 'read' | 'write' | 'any') {
    const dir = await this.volumes.directory(catalog, schema, volume);
    if (access && this.caller) {
      const fullName = `${catalog}.${schema}.${volume}`;
      const need = (privilege: 'READ_VOLUME' | 'WRITE_VOLUME') =>
        this.guard({ on: 'volume', fullName, privilege });
      if (access === 'any') {
        // A status or a listing: either privilege will do; the refusal names READ VOLUME.
        try {
          need('READ_VOLUME');
        } catch (e) {
          try {
            need('WRITE_VOLUME');
          } catch {
            throw e;
          }
        }
      } else need(access === 'read' ? 'READ_VOLUME' : 'WRITE_VOLUME');
    }
    return dir;
  }

  // ---- functions ----
  createFunction(fi: FunctionInput) {
    this.builtins.checkWritable(fi.catalog_name, 'Catalog');
    this.guardCreate(fi.catalog_name, fi.schema_name, 'CREATE_FUNCTION');
    return this.functions.create(fi);
  }
  /** SQL's CREATE FUNCTION: the engine already holds the macro; Unity Catalog records the function. */
  recordFunction(fi: FunctionInput, opts: { macro: 'scalar' | 'table'; replace: boolean }) {
    this.builtins.checkWritable(fi.catalog_name, 'Catalog');
    this.guardCreate(fi.catalog_name, fi.schema_name, 'CREATE_FUNCTION');
    return this.functions.create(fi, opts);
  }
  functionExists(fullName: string): boolean {
    try {
      this.functions.get(fullName);
      return true;
    } catch {
      return false;
    }
  }
  getFunction(fullName: string) {
    return this.functions.get(fullName);
  }
  listFunctions(catalog: string, schema: string) {
    return this.functions.list(catalog, schema);
  }
  updateFunction(fullName: string, u: { owner?: string | null }) {
    this.builtins.checkWritable(fullName, 'Function');
    this.guardExisting('function', fullName, 'OWNER');
    return this.functions.update(fullName, u);
  }
  deleteFunction(fullName: string) {
    this.builtins.checkWritable(fullName, 'Function');
    this.guardExisting('function', fullName, 'OWNER');
    return this.functions.delete(fullName);
  }

  get metastoreId(): string {
    return this.ctx.metastoreId;
  }

  // ---- securables other services keep (see ExternalSecurables) ----
  registerExternal(x: ExternalSecurables): void {
    this.ctx.external.push(x);
  }
  /** Moves a securable's grants to a new name (a renamed registered model), or drops them (`to` undefined). */
  moveGrants(type: string, from: string, to: string | undefined): void {
    const key = `${type.toLowerCase()}/${from.toLowerCase()}`;
    const g = this.ctx.c.grants.get(key);
    if (!g) return;
    this.ctx.c.grants.delete(key);
    if (to !== undefined) this.ctx.c.grants.set(`${type.toLowerCase()}/${to.toLowerCase()}`, g);
  }

  // ---- grants ----
  async getPermissions(type: string, fullName: string, principal?: string) {
    if (type.toLowerCase() !== 'metastore') this.builtins.checkGrantable(fullName);
    return this.grants.get(type, fullName, principal);
  }
  async updatePermissionsChecked(type: string, fullName: string, changes: PermissionChange[]) {
    if (type.toLowerCase() !== 'metastore') this.builtins.checkGrantable(fullName);
    this.guardGrant(type, fullName);
    return this.grants.updateChecked(type, fullName, changes);
  }
  applyPermissions(type: string, fullName: string, changes: PermissionChange[]): void {
    this.guardGrant(type, fullName);
    this.grants.apply(type, fullName, changes);
  }
  // ---- privileges (MINILAKE_ENFORCE=1; store/privileges.ts has the rules) ----
  /** Whether privileges are checked (a caller was given). */
  get enforcing(): boolean {
    return this.caller !== undefined;
  }

  /** What `who` lacks for `need`, undefined when nothing (the SQL layer asks before it touches the engine). */
  privilegeMissing(who: Caller, need: Need): Missing | undefined {
    if (need.on !== 'metastore' && !this.ctx.c.catalogs.has(need.fullName.split('.')[0]!.toLowerCase()))
      return undefined;
    return this.privileges.missing(who, need);
  }

  /** Refuses (403 PERMISSION_DENIED) when the caller lacks `need`; nothing when privileges are not enforced. */
  guard(need: Need): void {
    if (!this.caller) return;
    const m = this.privilegeMissing(this.caller(), need);
    if (m) throw permissionDenied(m);
  }

  /**
   * A change of an existing securable: checked once its catalog exists (a missing catalog is the store's own
   * 404; below it, a refusal comes before "does not exist", as Databricks checks the parents first).
   */
  private guardExisting(
    on: SecurableKind,
    fullName: string,
    privilege: 'OWNER' | 'MANAGE' | 'CREATE_SCHEMA',
  ) {
    this.guard({ on, fullName, privilege } as Need);
  }

  private guardCreate(
    catalog: string,
    schema: string,
    privilege: 'CREATE_TABLE' | 'CREATE_VOLUME' | 'CREATE_FUNCTION',
  ) {
    this.guard({ on: 'schema', fullName: `${catalog}.${schema}`, privilege });
  }

  /** GRANT / REVOKE: ownership or MANAGE; on the metastore and other securables, admins only. */
  private guardGrant(type: string, fullName: string) {
    if (!this.caller) return;
    const t = type.toLowerCase();
    if (['catalog', 'schema', 'table', 'volume', 'function'].includes(t))
      this.guard({ on: t as SecurableKind, fullName, privilege: 'MANAGE' });
    else this.guard({ on: 'metastore', privilege: 'MANAGE' });
  }

  /** GET of a securable the caller may not see: 403, as Databricks answers it. */
  checkVisible(on: SecurableKind, fullName: string): void {
    this.guard({ on, fullName, privilege: 'BROWSE' });
  }

  /** A list's items the caller may see (Databricks filters lists); all of them when nothing is enforced. */
  visible<T>(on: SecurableKind, items: T[], fullName: (x: T) => string): T[] {
    if (!this.caller) return items;
    const who = this.caller();
    if (who.groups.includes('admins')) return items;
    return items.filter((x) => this.privileges.sees(who, on, fullName(x)));
  }

  /**
   * Whether `who` may see a securable: the rule REST lists filter by (`visible`), for a caller named
   * explicitly (SQL's SHOW and information_schema, whose statement outlives its request).
   */
  sees(who: Caller, on: SecurableKind, fullName: string): boolean {
    return this.privileges.sees(who, on, fullName);
  }

  /** Whether `who` may see a grant to `grantee` on a securable it sees (store/privileges.ts). */
  seesGrant(who: Caller, on: SecurableKind, fullName: string, grantee: string): boolean {
    return this.privileges.seesGrant(who, on, fullName, grantee);
  }

  /**
   * MINILAKE_ENFORCE=1, SQL: the first privilege `who` lacks to read (SELECT) or write (MODIFY) table
   * `fullName` (`c.s.t`): USE CATALOG, USE SCHEMA, then the privilege, with inheritance, groups, `account
   * users`, ALL PRIVILEGES, admins and owners as store/privileges.ts says. Undefined when nothing is missing.
   */
  async missingPrivilege(
    who: Caller,
    privilege: 'SELECT' | 'MODIFY',
    fullName: string,
  ): Promise<Missing | undefined> {
    if (who.groups.includes('admins')) return undefined;
    const [catalog, schema, table] = fullName.toLowerCase().split('.');
    if (!catalog || !schema || !table) return undefined;
    // Samples are readable by every user (and refuse writes themselves); information_schema is readable
    // by every user and lists only what the caller may see (the SQL layer filters its rows by `sees`); a
    // name Unity Catalog does not know is the engine's to report (not found).
    if (catalog === 'samples' || schema === 'information_schema') return undefined;
    if (!this.ctx.c.catalogs.has(catalog)) return undefined;
    const missing = this.privileges.missing(who, {
      on: 'table',
      fullName: `${catalog}.${schema}.${table}`,
      privilege,
    });
    if (!missing) return undefined;
    // Only a table Unity Catalog knows is checked: a temporary view named like one (an unqualified name
    // resolves to the current schema) is the session's, and a name that is nothing is the engine's to report.
    try {
      const t = await this.tables.resolve(`${catalog}.${schema}.${table}`);
      const known = t.object || t.record || this.ctx.c.tables.has(`${t.catalog}.${t.schema}.${t.name}`);
      return known ? missing : undefined;
    } catch {
      return undefined;
    }
  }

  async getEffectivePermissions(type: string, fullName: string, principal?: string) {
    if (type.toLowerCase() !== 'metastore') this.builtins.checkGrantable(fullName);
    return this.grants.getEffective(type, fullName, principal);
  }
}
