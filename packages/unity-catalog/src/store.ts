/**
 * Unity Catalog state. The engine is the physical truth: every catalog is an attached DuckDB file, schemas,
 * tables, views and SQL functions live in it, so objects created or dropped through SQL show up here at once.
 * Collections hold what the engine cannot: ids, owners, comments, properties, timestamps, EXTERNAL tables
 * (metadata over a storage_location), volumes and grants. No Hono or HTTP types here.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  CollectionStore,
  invalidParameter,
  namePattern,
  notFound,
  realpathOfExisting,
  resolveUnder,
  uuid,
  type Clock,
  type Collection,
  type StateDb,
} from '@minilake/core';
import {
  databricksToDuckDbType,
  parseDatabricksType,
  parseDuckDbType,
  toDuckDbTypeText,
  quoteIdent,
  databricksTypeInfo,
  type CatalogChange,
  type DuckDbEngine,
  type TypeNode,
} from '@minilake/engine-duckdb';
import {
  catalogExists,
  catalogNotFound,
  engineRejected,
  functionExists,
  functionNotFound,
  metastoreNotFound,
  notEmpty,
  schemaExists,
  schemaNotFound,
  tableExists,
  tableNotFound,
  volumeExists,
  volumeNotFound,
} from './errors.js';
import { checkName, splitFullName, viewQuery } from './names.js';
import type { ColumnInput, FunctionInput } from './schemas.js';

type Props = Record<string, string>;

interface Audit {
  owner: string;
  created_at: number;
  created_by: string;
  updated_at: number;
  updated_by: string;
}

interface CatalogRecord extends Audit {
  id: string;
  name: string;
  comment?: string;
  properties: Props;
  storage_root?: string;
  isolation_mode: string;
  enable_predictive_optimization?: string;
}

interface SchemaRecord extends Audit {
  schema_id: string;
  catalog_name: string;
  name: string;
  comment?: string;
  properties: Props;
  storage_root?: string;
}

export interface ColumnOut {
  name: string;
  type_text: string;
  type_name: string;
  type_json: string;
  type_precision: number;
  type_scale: number;
  position: number;
  nullable: boolean;
  comment?: string;
  partition_index?: number;
}

interface TableRecord extends Audit {
  table_id: string;
  catalog_name: string;
  schema_name: string;
  name: string;
  /** Declared type; engine objects without one report MANAGED (table) or VIEW (view). */
  table_type?: 'MANAGED' | 'EXTERNAL' | 'VIEW';
  data_source_format?: string;
  storage_location?: string;
  comment?: string;
  properties: Props;
  partition_columns?: string[];
  /** Only for EXTERNAL tables that exist as metadata alone (no engine object). */
  columns?: ColumnOut[];
  metadata_only?: boolean;
}

interface VolumeRecord extends Audit {
  volume_id: string;
  catalog_name: string;
  schema_name: string;
  name: string;
  volume_type: 'MANAGED' | 'EXTERNAL';
  storage_location: string;
  comment?: string;
}

interface FunctionRecord extends Audit {
  function_id: string;
  info: Record<string, unknown>;
  catalog_name: string;
  schema_name: string;
  name: string;
  /** The engine macro kind created for it, if any. */
  macro?: 'scalar' | 'table';
}

interface EngineObject {
  schema: string; // engine spelling
  name: string; // engine spelling
  kind: 'TABLE' | 'VIEW';
  comment: string | null;
  sql: string | null;
}

interface SchemaSnapshot {
  engineName: string;
  /** Bumped whenever a described change patches this schema's objects. */
  rev?: number;
  objects: Map<string, { object: EngineObject; columns: EngineColumn[] }>;
}

interface CatalogSnapshot {
  schemas: Map<string, SchemaSnapshot>;
}

interface EngineColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  column_index: number;
  is_nullable: boolean;
  comment: string | null;
}

export interface TableMetadataInput {
  comment?: string;
  properties?: Props;
  data_source_format?: string;
  table_type?: 'MANAGED' | 'EXTERNAL' | 'VIEW';
  storage_location?: string;
  partition_columns?: string[];
}

export interface PermissionChange {
  principal: string;
  add?: string[] | null;
  remove?: string[] | null;
}

const HIDDEN_SCHEMAS = new Set(['information_schema', 'pg_catalog']);
const SECURABLE_TYPES = new Set([
  'metastore',
  'catalog',
  'schema',
  'table',
  'volume',
  'function',
  'external_location',
  'storage_credential',
  'connection',
  'share',
  'provider',
  'recipient',
  'credential',
]);

const clean = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

const typeNames: Record<string, string> = {
  LONG: 'bigint',
  INT: 'int',
  SHORT: 'smallint',
  BYTE: 'tinyint',
  STRING: 'string',
  DOUBLE: 'double',
  FLOAT: 'float',
  BOOLEAN: 'boolean',
  DATE: 'date',
  TIMESTAMP: 'timestamp',
  TIMESTAMP_NTZ: 'timestamp_ntz',
  BINARY: 'binary',
  INTERVAL: 'interval',
  VARIANT: 'variant',
  CHAR: 'string',
};

/** Parses a column's declared type: type_text first, else type_name (+ precision/scale for DECIMAL). */
function declaredType(col: {
  name: string;
  type_text?: string | null;
  type_name?: string | null;
  type_precision?: number | null;
  type_scale?: number | null;
}): TypeNode {
  let text = col.type_text ?? undefined;
  if (!text && col.type_name) {
    const tn = col.type_name.toUpperCase();
    text = tn === 'DECIMAL' ? `decimal(${col.type_precision || 10},${col.type_scale ?? 0})` : typeNames[tn];
  }
  if (!text) throw invalidParameter(`Column '${col.name}' needs a type_text.`);
  try {
    return parseDatabricksType(text);
  } catch (e) {
    throw invalidParameter(`Invalid type for column '${col.name}': ${(e as Error).message}`);
  }
}

function columnOut(
  name: string,
  node: TypeNode,
  position: number,
  nullable: boolean,
  comment: string | null | undefined,
  partitionIndex: number | undefined,
): ColumnOut {
  const info = databricksTypeInfo(node, clean({ name, nullable, comment: comment ?? undefined }));
  return clean({
    name,
    type_text: info.type_text,
    type_name: info.type_name,
    type_json: info.type_json,
    type_precision: info.type_precision ?? 0,
    type_scale: info.type_scale ?? 0,
    position,
    nullable,
    comment: comment ?? undefined,
    partition_index: partitionIndex,
  });
}

function engineColumnOut(c: EngineColumn, partitions: string[] | undefined): ColumnOut {
  const name = c.column_name;
  const pIdx = partitions?.indexOf(name.toLowerCase());
  let node: TypeNode;
  try {
    node = parseDuckTypeSafe(c.data_type);
  } catch {
    node = { kind: 'primitive', name: 'string' };
  }
  return columnOut(
    name,
    node,
    c.column_index - 1,
    c.is_nullable,
    c.comment,
    pIdx !== undefined && pIdx >= 0 ? pIdx : undefined,
  );
}

const parseDuckTypeSafe = (t: string): TypeNode => parseDuckDbType(t);

const likeToRegex = (pattern: string) => namePattern(pattern, 'sql');

export interface UnityCatalogStoreOptions {
  engine: DuckDbEngine;
  clock: Clock;
  /** The current user: owner of what they create. */
  user: string;
  workspaceId: string;
  /** Where managed volumes keep their files (`<dataDir>/volumes`). */
  volumesDir: string;
  /** The whole data dir, which external locations must stay outside of. */
  dataDir: string;
}

export class UnityCatalogStore extends CollectionStore {
  private readonly catalogs: Collection<CatalogRecord>;
  private readonly schemas: Collection<SchemaRecord>;
  private readonly tables: Collection<TableRecord>;
  private readonly volumes: Collection<VolumeRecord>;
  private readonly functions: Collection<FunctionRecord>;
  private readonly grants: Collection<Record<string, string[]>>;
  private readonly meta: Collection<{ metastore_id: string; created_at: number }>;
  readonly volumesRoot: string;
  private readonly creating = new Set<string>();
  private readonly columnCache = new WeakMap<EngineColumn[], { key: string; out: ColumnOut[] }>();
  private readonly snapshots = new Map<string, { epoch: number; promise: Promise<CatalogSnapshot> }>();
  /**
   * Serialized list rows per table key. A row is reused while its record (every change to a record goes
   * through tables.set/delete, which drop the row), engine object and column list are the same objects.
   */
  private readonly listRows = new Map<
    string,
    { r: TableRecord; o: EngineObject; cols: EngineColumn[]; omit: string; json: string }
  >();
  /** Whole sorted lists per schema, valid while neither the engine schema nor any table record changed. */
  private readonly listCache = new Map<
    string,
    { sch: SchemaSnapshot; rev: number | undefined; tablesRev: number; rows: { key: string; json: string }[] }
  >();
  private tablesRev = 0;

  readonly engine: DuckDbEngine;
  private readonly clock: Clock;
  private readonly user: string;
  private readonly workspaceId: string;
  /** The whole data dir: external locations must not overlap it. */
  private readonly dataDir: string;

  constructor(db: StateDb, opts: UnityCatalogStoreOptions) {
    super('unity-catalog', 1, db);
    this.engine = opts.engine;
    this.clock = opts.clock;
    this.user = opts.user;
    this.workspaceId = opts.workspaceId;
    this.dataDir = opts.dataDir;
    this.catalogs = this.collection('catalogs');
    this.schemas = this.collection('schemas');
    this.tables = this.collection('tables');
    const { set, delete: del } = this.tables;
    this.tables.set = (k, v) => {
      this.tablesRev++;
      this.listRows.delete(k);
      return set.call(this.tables, k, v);
    };
    this.tables.delete = (k) => {
      this.tablesRev++;
      this.listRows.delete(k);
      return del.call(this.tables, k);
    };
    this.volumes = this.collection('volumes');
    this.functions = this.collection('functions');
    this.grants = this.collection('grants');
    this.meta = this.collection('meta');
    this.volumesRoot = opts.volumesDir;
  }

  /** Re-attaches every catalog after a restart. */
  async open(): Promise<void> {
    for (const name of this.catalogs.keys()) await this.engine.attachCatalog(name);
  }

  protected override async onReset(): Promise<void> {
    for (const name of this.engine.catalogNames())
      await this.engine.detachCatalog(name, { deleteFile: true });
    await rm(this.volumesRoot, { recursive: true, force: true });
  }

  private audit(): Audit {
    const now = this.clock.now();
    return {
      owner: this.user,
      created_at: now,
      created_by: this.user,
      updated_at: now,
      updated_by: this.user,
    };
  }
  private touch<T extends Audit>(r: T): T {
    r.updated_at = this.clock.now();
    r.updated_by = this.user;
    return r;
  }

  // ---- metastore --------------------------------------------------------------------------------------

  metastore() {
    let m = this.meta.get('metastore');
    if (!m) m = this.meta.set('metastore', { metastore_id: uuid(), created_at: this.clock.now() });
    return m;
  }
  private metastoreId(): string {
    return (this.meta.get('metastore') ?? this.metastore()).metastore_id;
  }

  metastoreInfo(): Record<string, unknown> {
    const m = this.metastore();
    return {
      metastore_id: m.metastore_id,
      name: 'minilake',
      default_data_access_config_id: '',
      storage_root: `file://${this.volumesRoot}`,
      owner: this.user,
      region: 'local',
      cloud: 'local',
      global_metastore_id: `local:local:${m.metastore_id}`,
      privilege_model_version: '1.0',
      delta_sharing_scope: 'INTERNAL',
      created_at: m.created_at,
      created_by: this.user,
      updated_at: m.created_at,
      updated_by: this.user,
    };
  }
  getMetastore(id: string) {
    if (id !== this.metastore().metastore_id) throw metastoreNotFound(id);
    return this.metastoreInfo();
  }
  currentAssignment() {
    return {
      metastore_id: this.metastore().metastore_id,
      workspace_id: Number(this.workspaceId),
      default_catalog_name: 'main',
    };
  }

  // ---- catalogs ---------------------------------------------------------------------------------------

  private catalogRecord(name: string): CatalogRecord {
    const n = checkName('catalog', name);
    const r = this.catalogs.get(n);
    if (!r) throw catalogNotFound(name);
    return r;
  }

  private catalogOut(r: CatalogRecord) {
    return clean({
      name: r.name,
      full_name: r.name,
      id: r.id,
      comment: r.comment,
      properties: r.properties,
      owner: r.owner,
      storage_root: r.storage_root,
      metastore_id: this.metastore().metastore_id,
      catalog_type: 'MANAGED_CATALOG',
      securable_type: 'CATALOG',
      securable_kind: 'CATALOG_STANDARD',
      isolation_mode: r.isolation_mode,
      enable_predictive_optimization: r.enable_predictive_optimization,
      provisioning_info: { state: 'ACTIVE' },
      browse_only: false,
      created_at: r.created_at,
      created_by: r.created_by,
      updated_at: r.updated_at,
      updated_by: r.updated_by,
    });
  }

  async createCatalog(input: {
    name: string;
    comment?: string | null;
    properties?: Props | null;
    storage_root?: string | null;
  }) {
    const name = checkName('catalog', input.name);
    if (RESERVED_CATALOGS.has(name) || name.startsWith('__databricks'))
      throw invalidParameter(`Catalog name '${name}' is reserved.`);
    if (this.catalogs.has(name) || this.creating.has(name)) throw catalogExists(name);
    this.creating.add(name);
    try {
      return await this.createCatalogLocked(name, input);
    } finally {
      this.creating.delete(name);
    }
  }

  private async createCatalogLocked(
    name: string,
    input: { comment?: string | null; properties?: Props | null; storage_root?: string | null },
  ) {
    // A leftover file (from a run without persistence) must not leak old tables into a new catalog.
    await this.engine.detachCatalog(name, { deleteFile: true });
    await this.engine.attachCatalog(name);
    await this.engine.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.engine.alias(name))}."default"`);
    const r = this.catalogs.set(
      name,
      clean({
        id: uuid(),
        name,
        comment: input.comment ?? undefined,
        properties: input.properties ?? {},
        storage_root: input.storage_root ?? undefined,
        isolation_mode: 'OPEN',
        ...this.audit(),
      }),
    );
    this.schemas.set(`${name}.default`, {
      schema_id: uuid(),
      catalog_name: name,
      name: 'default',
      comment: 'Default schema (auto-created)',
      properties: {},
      ...this.audit(),
    });
    return this.catalogOut(r);
  }

  getCatalog(name: string) {
    return this.catalogOut(this.catalogRecord(name));
  }

  listCatalogs() {
    return [...this.catalogs.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((r) => this.catalogOut(r));
  }

  async updateCatalog(
    name: string,
    u: {
      new_name?: string | null;
      comment?: string | null;
      properties?: Props | null;
      owner?: string | null;
      isolation_mode?: string | null;
      enable_predictive_optimization?: string | null;
    },
  ) {
    let r = this.catalogRecord(name);
    if (u.new_name && checkName('catalog', u.new_name) !== r.name)
      r = await this.renameCatalog(r, checkName('catalog', u.new_name));
    if (u.comment !== undefined && u.comment !== null) r.comment = u.comment;
    if (u.properties) r.properties = { ...r.properties, ...u.properties };
    if (u.owner) r.owner = u.owner;
    if (u.isolation_mode) r.isolation_mode = u.isolation_mode;
    if (u.enable_predictive_optimization) r.enable_predictive_optimization = u.enable_predictive_optimization;
    this.catalogs.set(r.name, this.touch(r));
    return this.catalogOut(r);
  }

  private async renameCatalog(r: CatalogRecord, newName: string): Promise<CatalogRecord> {
    if (RESERVED_CATALOGS.has(newName) || newName.startsWith('__databricks'))
      throw invalidParameter(`Catalog name '${newName}' is reserved.`);
    if (this.catalogs.has(newName)) throw catalogExists(newName);
    const old = r.name;
    await this.engine.detachCatalog(old);
    await this.engine.detachCatalog(newName, { deleteFile: true });
    const from = this.engine.catalogFile(old);
    const to = this.engine.catalogFile(newName);
    await rename(from, to);
    await rename(`${from}.wal`, `${to}.wal`).catch(() => undefined);
    await this.engine.attachCatalog(newName);
    await this.moveDir(path.join(this.volumesRoot, old), path.join(this.volumesRoot, newName));
    this.catalogs.delete(old);
    r.name = newName;
    this.catalogs.set(newName, r);
    this.rekey(`${old}.`, `${newName}.`, (x) => ({ ...x, catalog_name: newName }));
    this.rekeyGrants(old, newName);
    return r;
  }

  private async moveDir(from: string, to: string) {
    await mkdir(path.dirname(to), { recursive: true });
    await rename(from, to).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }

  /** Moves every record under a name prefix (after a rename), fixing the record's own fields with `fix`. */
  private rekey(
    oldPrefix: string,
    newPrefix: string,
    fix: <T extends { catalog_name: string; schema_name?: string }>(x: T) => T,
  ) {
    for (const coll of [this.schemas, this.tables, this.volumes, this.functions] as Collection<{
      catalog_name: string;
      schema_name?: string;
      info?: Record<string, unknown>;
    }>[]) {
      for (const [k, v] of Array.from(coll.entries())) {
        if (!k.startsWith(oldPrefix)) continue;
        coll.delete(k);
        const nv = fix(v);
        if (nv.info)
          nv.info = {
            ...nv.info,
            catalog_name: nv.catalog_name,
            ...(nv.schema_name ? { schema_name: nv.schema_name } : {}),
          };
        coll.set(newPrefix + k.slice(oldPrefix.length), nv);
      }
    }
  }

  private rekeyGrants(oldFull: string, newFull: string) {
    for (const [k, v] of Array.from(this.grants.entries())) {
      const slash = k.indexOf('/');
      const full = k.slice(slash + 1);
      if (full === oldFull || full.startsWith(`${oldFull}.`)) {
        this.grants.delete(k);
        this.grants.set(`${k.slice(0, slash)}/${newFull}${full.slice(oldFull.length)}`, v);
      }
    }
  }

  private dropRecordsUnder(prefix: string, exact: string) {
    for (const coll of [this.schemas, this.tables, this.volumes, this.functions] as Collection<unknown>[]) {
      for (const k of Array.from(coll.keys())) if (k.startsWith(prefix)) coll.delete(k);
    }
    for (const k of Array.from(this.grants.keys())) {
      const full = k.slice(k.indexOf('/') + 1);
      if (full === exact || full.startsWith(prefix)) this.grants.delete(k);
    }
  }

  async deleteCatalog(name: string, force: boolean): Promise<void> {
    const r = this.catalogRecord(name);
    if (!force) {
      const schemas = await this.engineSchemas(r.name);
      const nonDefault = schemas.filter((s) => s.toLowerCase() !== 'default');
      const objects = schemas.some((s) => s.toLowerCase() === 'default')
        ? await this.countObjects(r.name, 'default')
        : 0;
      if (nonDefault.length > 0 || objects > 0)
        throw notEmpty(
          'Catalog',
          r.name,
          `It has ${schemas.length} schema(s) (including default) and ${objects} object(s) in its default schema.`,
        );
    }
    await this.engine.detachCatalog(r.name, { deleteFile: true });
    await rm(path.join(this.volumesRoot, r.name), { recursive: true, force: true });
    this.catalogs.delete(r.name);
    this.dropRecordsUnder(`${r.name}.`, r.name);
  }

  // ---- schemas ----------------------------------------------------------------------------------------

  private alias(catalog: string) {
    return quoteIdent(this.engine.alias(catalog));
  }

  /**
   * The engine's catalog as of the current epoch. DuckDB's introspection functions cost tens of
   * milliseconds on a catalog with thousands of tables, so one snapshot per catalog serves every get and
   * list until a statement that may change the catalog runs anywhere in the engine (see catalogEpoch).
   */
  private engineView(catalog: string): Promise<CatalogSnapshot> {
    const epoch = this.engine.catalogEpoch;
    const cached = this.snapshots.get(catalog);
    if (cached && cached.epoch === epoch) return cached.promise;
    // Changes this API described itself (a table or schema it created) refresh just those objects: a full
    // rebuild per created table would make creating N tables cost O(N^2). Any other change rebuilds.
    const changes = cached ? this.engine.changesSince(cached.epoch) : undefined;
    let promise: Promise<CatalogSnapshot>;
    if (cached && changes) {
      const mine = changes.filter((ch) => ch.catalog === catalog);
      promise = mine.length
        ? cached.promise.then((snap) => this.patchSnapshot(catalog, snap, mine))
        : cached.promise;
    } else promise = this.buildSnapshot(catalog);
    const entry = { epoch, promise };
    this.snapshots.set(catalog, entry);
    promise.catch(() => {
      if (this.snapshots.get(catalog) === entry) this.snapshots.delete(catalog);
    });
    return promise;
  }

  /** Brings a snapshot up to date for described changes, re-reading only the objects they name. */
  private async patchSnapshot(
    catalog: string,
    snap: CatalogSnapshot,
    changes: CatalogChange[],
  ): Promise<CatalogSnapshot> {
    const db = this.engine.alias(catalog);
    const seen = new Map<string, CatalogChange>();
    for (const ch of changes) seen.set(`${ch.schema.toLowerCase()}\u0000${ch.name?.toLowerCase() ?? ''}`, ch);
    for (const ch of seen.values()) {
      const skey = ch.schema.toLowerCase();
      if (ch.name === undefined) {
        const rows = await this.engine.all(
          `SELECT schema_name FROM duckdb_schemas() WHERE database_name = $db AND schema_name = $s AND NOT internal`,
          { db, s: ch.schema },
        );
        if (rows.length === 0) snap.schemas.delete(skey);
        else if (!snap.schemas.has(skey) && !HIDDEN_SCHEMAS.has(skey))
          snap.schemas.set(skey, { engineName: String(rows[0]!.schema_name), objects: new Map() });
        continue;
      }
      const sch = snap.schemas.get(skey);
      if (!sch) return this.buildSnapshot(catalog);
      const ref = `${quoteIdent(db)}.${quoteIdent(sch.engineName)}.${quoteIdent(ch.name)}`;
      let rows: Record<string, unknown>[];
      try {
        // pragma_table_info looks the one table up; duckdb_columns() would walk the whole catalog.
        rows = await this.engine.all(
          `SELECT cid, name, type, "notnull" FROM pragma_table_info(${sqlString(ref)}) ORDER BY cid`,
        );
      } catch (e) {
        if (!/does not exist/i.test(String((e as Error)?.message))) return this.buildSnapshot(catalog);
        rows = [];
      }
      const key = ch.name.toLowerCase();
      const prev = sch.objects.get(key);
      if (prev?.object.kind === 'VIEW') return this.buildSnapshot(catalog);
      sch.rev = (sch.rev ?? 0) + 1;
      if (rows.length === 0) {
        sch.objects.delete(key);
        continue;
      }
      sch.objects.set(key, {
        object: { schema: sch.engineName, name: ch.name, kind: 'TABLE', comment: null, sql: null },
        columns: rows.map((r) => ({
          table_name: ch.name!,
          column_name: String(r.name),
          data_type: String(r.type),
          column_index: Number(r.cid) + 1,
          is_nullable: !r.notnull,
          comment: ch.comments?.[String(r.name)] ?? null,
        })),
      });
    }
    return snap;
  }

  private async buildSnapshot(catalog: string): Promise<CatalogSnapshot> {
    const db = this.engine.alias(catalog);
    const [schemaRows, viewRows, columnRows] = await Promise.all([
      this.engine.all(`SELECT schema_name FROM duckdb_schemas() WHERE database_name = $db AND NOT internal`, {
        db,
      }),
      this.engine.all(
        `SELECT schema_name, view_name, comment, sql FROM duckdb_views() WHERE database_name = $db AND NOT internal`,
        { db },
      ),
      this.engine.all(
        `SELECT schema_name, table_name, column_name, data_type, column_index, is_nullable, comment
           FROM duckdb_columns() WHERE database_name = $db ORDER BY schema_name, table_name, column_index`,
        { db },
      ),
    ]);
    const schemas = new Map<string, SchemaSnapshot>();
    for (const r of schemaRows) {
      const name = String(r.schema_name);
      if (HIDDEN_SCHEMAS.has(name.toLowerCase())) continue;
      schemas.set(name.toLowerCase(), { engineName: name, objects: new Map() });
    }
    const views = new Set<string>();
    for (const r of viewRows) {
      const sch = schemas.get(String(r.schema_name).toLowerCase());
      if (!sch) continue;
      const name = String(r.view_name);
      views.add(`${r.schema_name}\u0000${name}`);
      sch.objects.set(name.toLowerCase(), {
        object: {
          schema: sch.engineName,
          name,
          kind: 'VIEW',
          comment: (r.comment as string | null) ?? null,
          sql: (r.sql as string | null) ?? null,
        },
        columns: [],
      });
    }
    for (const r of columnRows) {
      const sch = schemas.get(String(r.schema_name).toLowerCase());
      if (!sch) continue;
      const tname = String(r.table_name);
      const key = tname.toLowerCase();
      let obj = sch.objects.get(key);
      if (!obj) {
        obj = {
          object: { schema: sch.engineName, name: tname, kind: 'TABLE', comment: null, sql: null },
          columns: [],
        };
        sch.objects.set(key, obj);
      }
      obj.columns.push(r as unknown as EngineColumn);
    }
    return { schemas };
  }

  /** Visible engine schemas of a catalog (engine spelling). DuckDB's built-in `main` shows only when used. */
  private async engineSchemas(catalog: string): Promise<string[]> {
    const snap = await this.engineView(catalog);
    return [...snap.schemas.values()]
      .filter((s) => s.engineName !== 'main' || s.objects.size > 0 || this.schemas.has(`${catalog}.main`))
      .map((s) => s.engineName);
  }

  private async engineSchema(catalog: string, schema: string): Promise<string | undefined> {
    return (await this.engineView(catalog)).schemas.get(schema.toLowerCase())?.engineName;
  }

  private async countObjects(catalog: string, engineSchema: string): Promise<number> {
    const rows = await this.engine.all(
      `SELECT count(*) AS n FROM duckdb_functions()
        WHERE database_name = $db AND schema_name = $s AND function_type IN ('macro', 'table_macro')`,
      { db: this.engine.alias(catalog), s: engineSchema },
    );
    rows[0] = { n: Number(rows[0]?.n ?? 0) + (await this.engineObjects(catalog, engineSchema)).length };
    const prefix = `${catalog}.${engineSchema.toLowerCase()}.`;
    let extra = 0;
    for (const k of this.volumes.keys()) if (k.startsWith(prefix)) extra++;
    for (const [k, t] of this.tables.entries()) if (k.startsWith(prefix) && t.metadata_only) extra++;
    return Number(rows[0]?.n ?? 0) + extra;
  }

  private schemaRecordFor(catalog: string, schema: string): SchemaRecord {
    const key = `${catalog}.${schema}`;
    let r = this.schemas.get(key);
    if (!r) {
      r = this.schemas.set(key, {
        schema_id: uuid(),
        catalog_name: catalog,
        name: schema,
        properties: {},
        ...this.audit(),
      });
    }
    return r;
  }

  private schemaOut(r: SchemaRecord) {
    return clean({
      name: r.name,
      catalog_name: r.catalog_name,
      full_name: `${r.catalog_name}.${r.name}`,
      schema_id: r.schema_id,
      comment: r.comment,
      properties: r.properties,
      owner: r.owner,
      // Like Databricks: the root as given, and the managed location derived from it (metadata only here).
      storage_root: r.storage_root,
      storage_location: r.storage_root
        ? `${r.storage_root.replace(/\/+$/, '')}/__unitystorage/schemas/${r.schema_id}`
        : undefined,
      metastore_id: this.metastore().metastore_id,
      catalog_type: 'MANAGED_CATALOG',
      securable_type: 'SCHEMA',
      browse_only: false,
      created_at: r.created_at,
      created_by: r.created_by,
      updated_at: r.updated_at,
      updated_by: r.updated_by,
    });
  }

  /** Resolves `catalog.schema` against the engine; returns the names and the engine spelling. */
  private async resolveSchema(
    catalog: string,
    schema: string,
  ): Promise<{ catalog: string; schema: string; engineName: string }> {
    const c = this.catalogRecord(catalog).name;
    const s = checkName('schema', schema);
    const engineName = await this.engineSchema(c, s);
    if (
      engineName === undefined ||
      (engineName === 'main' && !(await this.engineSchemas(c)).includes('main'))
    ) {
      this.schemas.delete(`${c}.${s}`);
      throw schemaNotFound(`${c}.${s}`);
    }
    return { catalog: c, schema: s, engineName };
  }

  async createSchema(input: {
    catalog_name: string;
    name: string;
    comment?: string | null;
    properties?: Props | null;
    storage_root?: string | null;
  }) {
    const c = this.catalogRecord(input.catalog_name).name;
    const s = checkName('schema', input.name);
    if (HIDDEN_SCHEMAS.has(s)) throw invalidParameter(`Schema name '${s}' is reserved.`);
    const lock = `schema:${c}.${s}`;
    if (this.creating.has(lock)) throw schemaExists(`${c}.${s}`);
    this.creating.add(lock);
    try {
      const existing = await this.engineSchema(c, s);
      if (existing !== undefined && (existing !== 'main' || (await this.engineSchemas(c)).includes('main')))
        throw schemaExists(`${c}.${s}`);
      const ddl = `CREATE SCHEMA IF NOT EXISTS ${this.alias(c)}.${quoteIdent(s)}`;
      await this.engine.withConnection((conn) => conn.run(ddl), { change: { catalog: c, schema: s } });
      const r = this.schemas.set(`${c}.${s}`, {
        schema_id: uuid(),
        catalog_name: c,
        name: s,
        ...(input.comment ? { comment: input.comment } : {}),
        properties: input.properties ?? {},
        ...(input.storage_root ? { storage_root: input.storage_root } : {}),
        ...this.audit(),
      });
      return this.schemaOut(r);
    } finally {
      this.creating.delete(lock);
    }
  }

  async getSchema(fullName: string) {
    const [c, s] = splitFullName(fullName, 2, 'schema') as [string, string];
    const r = await this.resolveSchema(c, s);
    return this.schemaOut(this.schemaRecordFor(r.catalog, r.schema));
  }

  async listSchemas(catalog: string) {
    const c = this.catalogRecord(catalog).name;
    const names = (await this.engineSchemas(c)).map((n) => n.toLowerCase());
    const live = new Set(names);
    for (const k of Array.from(this.schemas.keys()))
      if (k.startsWith(`${c}.`) && !live.has(k.slice(c.length + 1))) this.schemas.delete(k);
    return names.sort().map((s) => this.schemaOut(this.schemaRecordFor(c, s)));
  }

  async updateSchema(
    fullName: string,
    u: {
      new_name?: string | null;
      comment?: string | null;
      properties?: Props | null;
      owner?: string | null;
      enable_predictive_optimization?: string | null;
    },
  ) {
    const [c0, s0] = splitFullName(fullName, 2, 'schema') as [string, string];
    const res = await this.resolveSchema(c0, s0);
    let r = this.schemaRecordFor(res.catalog, res.schema);
    if (u.new_name && checkName('schema', u.new_name) !== r.name) {
      r = await this.renameSchema(res.catalog, res.engineName, r, checkName('schema', u.new_name));
    }
    if (u.comment !== undefined && u.comment !== null) r.comment = u.comment;
    if (u.properties) r.properties = { ...r.properties, ...u.properties };
    if (u.owner) r.owner = u.owner;
    this.schemas.set(`${r.catalog_name}.${r.name}`, this.touch(r));
    return this.schemaOut(r);
  }

  /** DuckDB has no ALTER SCHEMA RENAME: tables are copied into the new schema, then the old one dropped. */
  private async renameSchema(
    catalog: string,
    engineName: string,
    r: SchemaRecord,
    newName: string,
  ): Promise<SchemaRecord> {
    if ((await this.engineSchema(catalog, newName)) !== undefined)
      throw schemaExists(`${catalog}.${newName}`);
    const objects = await this.engineObjects(catalog, engineName);
    const funcs = [...this.functions.keys()].filter((k) => k.startsWith(`${catalog}.${r.name}.`));
    if (objects.some((o) => o.kind === 'VIEW') || funcs.length > 0)
      throw invalidParameter(
        `Schema '${catalog}.${r.name}' holds views or functions; MiniLake can only rename schemas that hold tables and volumes.`,
      );
    const a = this.alias(catalog);
    const to = `${a}.${quoteIdent(newName)}`;
    await this.engine.withConnection(async (conn) => {
      await conn.run('BEGIN TRANSACTION');
      try {
        await conn.run(`CREATE SCHEMA ${to}`);
        for (const o of objects)
          await conn.run(
            `CREATE TABLE ${to}.${quoteIdent(o.name)} AS SELECT * FROM ${a}.${quoteIdent(engineName)}.${quoteIdent(o.name)}`,
          );
        await conn.run(`DROP SCHEMA ${a}.${quoteIdent(engineName)} CASCADE`);
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK').catch(() => undefined);
        throw engineRejected('Renaming the schema failed', e);
      }
    });
    await this.moveDir(
      path.join(this.volumesRoot, catalog, r.name),
      path.join(this.volumesRoot, catalog, newName),
    );
    const old = r.name;
    this.schemas.delete(`${catalog}.${old}`);
    r.name = newName;
    this.schemas.set(`${catalog}.${newName}`, r);
    this.rekey(`${catalog}.${old}.`, `${catalog}.${newName}.`, (x) => ({ ...x, schema_name: newName }));
    for (const v of this.volumes.values())
      if (v.catalog_name === catalog && v.schema_name === newName && v.volume_type === 'MANAGED')
        v.storage_location = `file://${path.join(this.volumesRoot, catalog, newName, v.name)}`;
    this.rekeyGrants(`${catalog}.${old}`, `${catalog}.${newName}`);
    return r;
  }

  async deleteSchema(fullName: string, force: boolean): Promise<void> {
    const [c0, s0] = splitFullName(fullName, 2, 'schema') as [string, string];
    const { catalog, schema, engineName } = await this.resolveSchema(c0, s0);
    if (!force) {
      const n = await this.countObjects(catalog, engineName);
      if (n > 0)
        throw notEmpty(
          'Schema',
          `${catalog}.${schema}`,
          `It holds ${n} table(s), view(s), volume(s) or function(s).`,
        );
    }
    if (engineName === 'main') {
      // DuckDB's built-in schema cannot be dropped: empty it instead.
      for (const o of await this.engineObjects(catalog, 'main'))
        await this.engine.run(
          `DROP ${o.kind === 'VIEW' ? 'VIEW' : 'TABLE'} IF EXISTS ${this.alias(catalog)}."main".${quoteIdent(o.name)} CASCADE`,
        );
    } else {
      await this.engine.run(`DROP SCHEMA IF EXISTS ${this.alias(catalog)}.${quoteIdent(engineName)} CASCADE`);
    }
    await rm(path.join(this.volumesRoot, catalog, schema), { recursive: true, force: true });
    this.schemas.delete(`${catalog}.${schema}`);
    this.dropRecordsUnder(`${catalog}.${schema}.`, `${catalog}.${schema}`);
  }

  // ---- tables -----------------------------------------------------------------------------------------

  private async engineObjects(
    catalog: string,
    engineSchema?: string,
    name?: string,
  ): Promise<EngineObject[]> {
    const snap = await this.engineView(catalog);
    const schemas =
      engineSchema !== undefined
        ? [snap.schemas.get(engineSchema.toLowerCase())]
        : [...snap.schemas.values()];
    const out: EngineObject[] = [];
    for (const sch of schemas) {
      if (!sch) continue;
      if (name !== undefined) {
        const o = sch.objects.get(name.toLowerCase());
        if (o) out.push(o.object);
      } else for (const o of sch.objects.values()) out.push(o.object);
    }
    return out;
  }

  /** Wire columns for an engine column list, computed once per snapshot. */
  private columnsOut(cols: EngineColumn[], partitions: string[] | undefined): ColumnOut[] {
    const key = partitions?.join('\u0000') ?? '';
    const hit = this.columnCache.get(cols);
    if (hit && hit.key === key) return hit.out;
    const out = cols.map((x) => engineColumnOut(x, partitions));
    this.columnCache.set(cols, { key, out });
    return out;
  }

  private async engineColumns(catalog: string, engineSchema: string, table: string): Promise<EngineColumn[]> {
    const snap = await this.engineView(catalog);
    return snap.schemas.get(engineSchema.toLowerCase())?.objects.get(table.toLowerCase())?.columns ?? [];
  }

  private tableRecordFor(catalog: string, schema: string, name: string, kind: 'TABLE' | 'VIEW'): TableRecord {
    const key = `${catalog}.${schema}.${name}`;
    let r = this.tables.get(key);
    if (r?.metadata_only) {
      // An engine object now carries this name (the Delta/SQL layer materialised it): the engine wins.
      delete r.metadata_only;
      delete r.columns;
      this.tables.set(key, r);
    }
    if (!r) {
      r = this.tables.set(key, {
        table_id: uuid(),
        catalog_name: catalog,
        schema_name: schema,
        name,
        ...(kind === 'VIEW' ? { table_type: 'VIEW' as const } : {}),
        properties: {},
        ...this.audit(),
      });
    }
    return r;
  }

  private tableOut(
    r: TableRecord,
    o: EngineObject | undefined,
    columns: ColumnOut[] | undefined,
    omit: { columns?: boolean; properties?: boolean } = {},
  ): Record<string, unknown> {
    const type = r.table_type ?? (o?.kind === 'VIEW' ? 'VIEW' : 'MANAGED');
    const out: Record<string, unknown> = {
      name: r.name,
      catalog_name: r.catalog_name,
      schema_name: r.schema_name,
      full_name: `${r.catalog_name}.${r.schema_name}.${r.name}`,
      table_type: type,
    };
    const format = r.data_source_format ?? (type === 'VIEW' ? undefined : 'DELTA');
    if (format !== undefined) out.data_source_format = format;
    if (!omit.columns) out.columns = columns ?? [];
    if (r.storage_location !== undefined) out.storage_location = r.storage_location;
    // A MANAGED table lives inside its catalog's DuckDB database file: that file is its truthful location
    // (clients such as the Spark connector parse this field as a URI and need it present).
    else if (type === 'MANAGED') out.storage_location = `file://${this.engine.catalogFile(r.catalog_name)}`;
    const definition = o?.kind === 'VIEW' && o.sql ? viewQuery(o.sql) : undefined;
    if (definition !== undefined) out.view_definition = definition;
    const comment = r.comment ?? o?.comment ?? undefined;
    if (comment !== undefined) out.comment = comment;
    if (!omit.properties) out.properties = r.properties;
    out.owner = r.owner;
    out.table_id = r.table_id;
    out.metastore_id = this.metastoreId();
    out.browse_only = false;
    out.created_at = r.created_at;
    out.created_by = r.created_by;
    out.updated_at = r.updated_at;
    out.updated_by = r.updated_by;
    return out;
  }

  private async resolveTable(fullName: string): Promise<{
    catalog: string;
    schema: string;
    name: string;
    engineSchema?: string;
    object?: EngineObject;
    record?: TableRecord;
  }> {
    const [c0, s0, t0] = splitFullName(fullName, 3, 'table') as [string, string, string];
    const c = this.catalogRecord(c0).name;
    const key = `${c}.${s0}.${t0}`;
    const engineSchema = await this.engineSchema(c, s0);
    if (engineSchema === undefined) {
      throw schemaNotFound(`${c}.${s0}`);
    }
    const [object] = await this.engineObjects(c, engineSchema, t0);
    if (object)
      return {
        catalog: c,
        schema: s0,
        name: t0,
        engineSchema,
        object,
        record: this.tableRecordFor(c, s0, t0, object.kind),
      };
    const rec = this.tables.get(key);
    if (rec?.metadata_only) return { catalog: c, schema: s0, name: t0, engineSchema, record: rec };
    if (rec) this.tables.delete(key); // dropped through SQL
    return { catalog: c, schema: s0, name: t0, engineSchema };
  }

  async getTable(fullName: string, omit: { columns?: boolean; properties?: boolean } = {}) {
    const t = await this.resolveTable(fullName);
    if (!t.record) throw tableNotFound(`${t.catalog}.${t.schema}.${t.name}`);
    if (!t.object) return this.tableOut(t.record, undefined, t.record.columns, omit);
    const cols = omit.columns ? [] : await this.engineColumns(t.catalog, t.engineSchema!, t.object.name);
    return this.tableOut(t.record, t.object, this.columnsOut(cols, t.record.partition_columns), omit);
  }

  async tableExists(fullName: string): Promise<boolean> {
    try {
      return (await this.resolveTable(fullName)).record !== undefined;
    } catch (e) {
      if ((e as { status?: number }).status === 404) return false;
      throw e;
    }
  }

  /**
   * The tables of a schema, sorted by name, each as its serialized JSON (`key` is the name). Rows are
   * cached between lists: a list of 10,000 tables is mostly string joining, not object building.
   */
  async listTables(
    catalog: string,
    schema: string,
    omit: { columns?: boolean; properties?: boolean } = {},
  ): Promise<{ key: string; json: string }[]> {
    const { catalog: c, schema: s, engineName } = await this.resolveSchema(catalog, schema);
    const snap = (await this.engineView(c)).schemas.get(engineName.toLowerCase());
    const out: { key: string; json: string }[] = [];
    const omitKey = `${omit.columns ? 1 : 0}${omit.properties ? 1 : 0}`;
    const prefix = `${c}.${s}.`;
    const cached = this.listCache.get(`${prefix}|${omitKey}`);
    if (cached && cached.sch === snap && cached.rev === snap.rev && cached.tablesRev === this.tablesRev)
      return cached.rows;
    for (const [n, { object: o, columns: cols }] of snap?.objects ?? []) {
      const r = this.tableRecordFor(c, s, n, o.kind);
      const key = prefix + n;
      const hit = this.listRows.get(key);
      if (hit && hit.r === r && hit.o === o && hit.cols === cols && hit.omit === omitKey) {
        out.push({ key: n, json: hit.json });
        continue;
      }
      const columns = omit.columns ? undefined : this.columnsOut(cols, r.partition_columns);
      const json = JSON.stringify(this.tableOut(r, o, columns, omit));
      this.listRows.set(key, { r, o, cols, omit: omitKey, json });
      out.push({ key: n, json });
    }
    const gone: string[] = [];
    for (const [k, r] of this.tables.entries()) {
      if (!k.startsWith(prefix) || snap?.objects.has(r.name)) continue;
      if (r.metadata_only)
        out.push({ key: r.name, json: JSON.stringify(this.tableOut(r, undefined, r.columns, omit)) });
      else gone.push(k); // dropped through SQL
    }
    for (const k of gone) this.tables.delete(k);
    out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    if (snap)
      this.listCache.set(`${prefix}|${omitKey}`, {
        sch: snap,
        rev: snap.rev,
        tablesRev: this.tablesRev,
        rows: out,
      });
    return out;
  }

  async tableSummaries(catalog: string, schemaPattern?: string, tablePattern?: string) {
    const c = this.catalogRecord(catalog).name;
    const sRe = schemaPattern ? likeToRegex(schemaPattern) : undefined;
    const tRe = tablePattern ? likeToRegex(tablePattern) : undefined;
    const objects = await this.engineObjects(c);
    const out = new Map<string, { full_name: string; table_type: string }>();
    for (const o of objects) {
      const s = o.schema.toLowerCase();
      const n = o.name.toLowerCase();
      if (HIDDEN_SCHEMAS.has(s) || (sRe && !sRe.test(s)) || (tRe && !tRe.test(n))) continue;
      const r = this.tables.get(`${c}.${s}.${n}`);
      out.set(`${c}.${s}.${n}`, {
        full_name: `${c}.${s}.${n}`,
        table_type: r?.table_type ?? (o.kind === 'VIEW' ? 'VIEW' : 'MANAGED'),
      });
    }
    for (const [k, r] of this.tables.entries()) {
      if (!k.startsWith(`${c}.`) || !r.metadata_only || out.has(k)) continue;
      if ((sRe && !sRe.test(r.schema_name)) || (tRe && !tRe.test(r.name))) continue;
      out.set(k, { full_name: k, table_type: r.table_type ?? 'EXTERNAL' });
    }
    return [...out.values()].sort((a, b) => (a.full_name < b.full_name ? -1 : 1));
  }

  async createTable(input: {
    name: string;
    catalog_name: string;
    schema_name: string;
    table_type: 'MANAGED' | 'EXTERNAL';
    data_source_format?: string | null;
    storage_location?: string | null;
    columns?: ColumnInput[] | null;
    comment?: string | null;
    properties?: Props | null;
  }) {
    const {
      catalog: c,
      schema: s,
      engineName,
    } = await this.resolveSchema(input.catalog_name, input.schema_name);
    const n = checkName('table', input.name);
    const full = `${c}.${s}.${n}`;
    if (
      (await this.engineObjects(c, engineName, n)).length > 0 ||
      this.tables.get(full)?.metadata_only ||
      this.creating.has(`table:${full}`)
    )
      throw tableExists(full);
    this.creating.add(`table:${full}`);
    try {
      return await this.createTableLocked(c, s, n, full, engineName, input);
    } finally {
      this.creating.delete(`table:${full}`);
    }
  }

  private async createTableLocked(
    c: string,
    s: string,
    n: string,
    full: string,
    engineName: string,
    input: Parameters<UnityCatalogStore['createTable']>[0],
  ) {
    const cols = [...(input.columns ?? [])].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
    const seen = new Set<string>();
    const typed = cols.map((col) => {
      if (typeof col.name !== 'string' || col.name === '' || col.name.includes('\0'))
        throw invalidParameter('Every column needs a name.');
      if (seen.has(col.name.toLowerCase())) throw invalidParameter(`Duplicate column name '${col.name}'.`);
      seen.add(col.name.toLowerCase());
      return { col, node: declaredType(col) };
    });
    const partitions = typed
      .filter((t) => t.col.partition_index !== undefined && t.col.partition_index !== null)
      .sort((a, b) => a.col.partition_index! - b.col.partition_index!)
      .map((t) => t.col.name.toLowerCase());
    const format = (input.data_source_format ?? 'DELTA').toUpperCase();
    const base = {
      table_id: uuid(),
      catalog_name: c,
      schema_name: s,
      name: n,
      table_type: input.table_type,
      data_source_format: format,
      ...(input.comment ? { comment: input.comment } : {}),
      properties: input.properties ?? {},
      ...(partitions.length ? { partition_columns: partitions } : {}),
      ...this.audit(),
    };
    if (input.table_type === 'EXTERNAL') {
      const loc = await this.externalLocation(input.storage_location, 'table');
      const rec: TableRecord = {
        ...base,
        storage_location: loc,
        metadata_only: true,
        columns: typed.map((t, i) =>
          columnOut(
            t.col.name,
            t.node,
            i,
            t.col.nullable ?? true,
            t.col.comment,
            partitions.indexOf(t.col.name.toLowerCase()) >= 0
              ? partitions.indexOf(t.col.name.toLowerCase())
              : undefined,
          ),
        ),
      };
      this.tables.set(full, rec);
      return this.tableOut(rec, undefined, rec.columns);
    }
    if (typed.length === 0) throw invalidParameter('A MANAGED table needs at least one column.');
    const ref = `${this.alias(c)}.${quoteIdent(engineName)}.${quoteIdent(n)}`;
    const ddl = typed
      .map(
        (t) =>
          `${quoteIdent(t.col.name)} ${toDuckDbTypeText(t.node)}${t.col.nullable === false ? ' NOT NULL' : ''}`,
      )
      .join(', ');
    const comments: Record<string, string> = {};
    for (const t of typed) if (t.col.comment) comments[t.col.name] = t.col.comment;
    const change = { catalog: c, schema: engineName, name: n, comments };
    await this.engine.withConnection(
      async (conn) => {
        await conn.run('BEGIN TRANSACTION');
        try {
          await conn.run(`CREATE TABLE ${ref} (${ddl})`);
          for (const t of typed)
            if (t.col.comment)
              await conn.run(
                `COMMENT ON COLUMN ${ref}.${quoteIdent(t.col.name)} IS ${sqlString(t.col.comment)}`,
              );
          await conn.run('COMMIT');
        } catch (e) {
          await conn.run('ROLLBACK').catch(() => undefined);
          // Two concurrent creates of one name: the loser sees DuckDB's conflict.
          if (/already exists|conflict/i.test(String((e as Error)?.message))) throw tableExists(full);
          throw engineRejected('Cannot create the table', e);
        }
      },
      { change },
    );
    this.tables.set(
      full,
      input.storage_location ? { ...base, storage_location: input.storage_location } : base,
    );
    return this.getTable(full);
  }

  async updateTable(fullName: string, u: { owner?: string | null; comment?: string | null }) {
    const t = await this.resolveTable(fullName);
    if (!t.record) throw tableNotFound(`${t.catalog}.${t.schema}.${t.name}`);
    if (u.owner) t.record.owner = u.owner;
    if (u.comment !== undefined && u.comment !== null) t.record.comment = u.comment;
    this.tables.set(`${t.catalog}.${t.schema}.${t.name}`, this.touch(t.record));
  }

  async deleteTable(fullName: string): Promise<void> {
    const t = await this.resolveTable(fullName);
    if (!t.record) throw tableNotFound(`${t.catalog}.${t.schema}.${t.name}`);
    if (t.object) {
      const kind = t.object.kind === 'VIEW' ? 'VIEW' : 'TABLE';
      await this.engine.run(
        `DROP ${kind} IF EXISTS ${this.alias(t.catalog)}.${quoteIdent(t.engineSchema!)}.${quoteIdent(t.object.name)}`,
      );
    }
    const full = `${t.catalog}.${t.schema}.${t.name}`;
    this.tables.delete(full);
    this.dropRecordsUnder(`${full}.`, full);
  }

  /** The full name of the table with this id; 400 when missing, 404 TABLE_DOES_NOT_EXIST when unknown. */
  tableById(tableId: string | null | undefined): string {
    if (!tableId) throw invalidParameter('table_id is required.');
    for (const [k, r] of this.tables.entries()) if (r.table_id === tableId) return k;
    throw notFound(`Table with id '${tableId}' does not exist.`, 'TABLE_DOES_NOT_EXIST');
  }

  /** Records what SQL DDL declared (comment, properties, EXTERNAL location...) for an engine object. */
  setTableMetadata(fullName: string, meta: TableMetadataInput): void {
    const [c, s, n] = splitFullName(fullName, 3, 'table') as [string, string, string];
    this.catalogRecord(c);
    const key = `${c}.${s}.${n}`;
    const r: TableRecord = this.tables.get(key) ?? {
      table_id: uuid(),
      catalog_name: c,
      schema_name: s,
      name: n,
      properties: {},
      ...this.audit(),
    };
    if (meta.comment !== undefined) r.comment = meta.comment;
    if (meta.properties) r.properties = { ...r.properties, ...meta.properties };
    if (meta.data_source_format) r.data_source_format = meta.data_source_format.toUpperCase();
    if (meta.table_type) r.table_type = meta.table_type;
    if (meta.storage_location !== undefined) r.storage_location = meta.storage_location;
    if (meta.partition_columns) r.partition_columns = meta.partition_columns.map((p) => p.toLowerCase());
    delete r.metadata_only;
    delete r.columns;
    this.tables.set(key, this.touch(r));
  }

  // ---- volumes ----------------------------------------------------------------------------------------

  private volumeDir(c: string, s: string, v: string) {
    return resolveUnder(this.volumesRoot, `${c}/${s}/${v}`);
  }

  private volumeOut(r: VolumeRecord) {
    return clean({
      name: r.name,
      catalog_name: r.catalog_name,
      schema_name: r.schema_name,
      full_name: `${r.catalog_name}.${r.schema_name}.${r.name}`,
      volume_type: r.volume_type,
      storage_location: r.storage_location,
      volume_id: r.volume_id,
      comment: r.comment,
      owner: r.owner,
      metastore_id: this.metastore().metastore_id,
      browse_only: false,
      created_at: r.created_at,
      created_by: r.created_by,
      updated_at: r.updated_at,
      updated_by: r.updated_by,
    });
  }

  private volumeRecord(fullName: string): VolumeRecord {
    const [c, s, v] = splitFullName(fullName, 3, 'volume') as [string, string, string];
    const r = this.volumes.get(`${c}.${s}.${v}`);
    if (!r) {
      this.catalogRecord(c);
      throw volumeNotFound(`${c}.${s}.${v}`);
    }
    return r;
  }

  async createVolume(input: {
    name: string;
    catalog_name: string;
    schema_name: string;
    volume_type: 'MANAGED' | 'EXTERNAL';
    storage_location?: string | null;
    comment?: string | null;
  }) {
    const { catalog: c, schema: s } = await this.resolveSchema(input.catalog_name, input.schema_name);
    const v = checkName('volume', input.name);
    const full = `${c}.${s}.${v}`;
    if (this.volumes.has(full) || this.creating.has(`volume:${full}`)) throw volumeExists(full);
    this.creating.add(`volume:${full}`);
    try {
      return await this.createVolumeLocked(c, s, v, full, input);
    } finally {
      this.creating.delete(`volume:${full}`);
    }
  }

  private async createVolumeLocked(
    c: string,
    s: string,
    v: string,
    full: string,
    input: Parameters<UnityCatalogStore['createVolume']>[0],
  ) {
    let location: string;
    if (input.volume_type === 'EXTERNAL') {
      location = await this.externalLocation(input.storage_location, 'volume');
      await mkdir(location.replace(/^file:\/\//, ''), { recursive: true });
    } else {
      if (input.storage_location)
        throw invalidParameter('storage_location must not be set for a MANAGED volume.');
      const dir = this.volumeDir(c, s, v);
      await mkdir(dir, { recursive: true });
      location = `file://${dir}`;
    }
    const r = this.volumes.set(
      full,
      clean({
        volume_id: uuid(),
        catalog_name: c,
        schema_name: s,
        name: v,
        volume_type: input.volume_type,
        storage_location: location,
        comment: input.comment ?? undefined,
        ...this.audit(),
      }),
    );
    return this.volumeOut(r);
  }

  /**
   * External locations must be absolute local paths (file:///x, file:/x or /x) that neither equal, contain nor
   * sit inside MiniLake's own data folder (compared after resolving symlinks), and, like Databricks, must not
   * overlap another external volume or table. `remote` lets EXTERNAL tables keep cloud URIs as metadata only.
   */
  private async externalLocation(
    loc: string | null | undefined,
    what: 'volume' | 'table',
    self?: string,
  ): Promise<string> {
    if (!loc) throw invalidParameter(`storage_location is required for an EXTERNAL ${what}.`);
    if (loc.includes('\0')) throw invalidParameter('storage_location must not contain NUL bytes.');
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(loc)?.[1]?.toLowerCase();
    if (scheme !== undefined && scheme !== 'file') {
      if (what === 'table' && REMOTE_SCHEMES.has(scheme) && !loc.split('/').includes('..')) return loc;
      throw invalidParameter(
        `storage_location ${JSON.stringify(loc)} uses the unsupported scheme '${scheme}:'; MiniLake serves only local file: locations.`,
      );
    }
    const p = loc.startsWith('file://')
      ? loc.slice('file://'.length)
      : loc.startsWith('file:')
        ? loc.slice(5)
        : loc;
    if (!p.startsWith('/') || p.split('/').includes('..'))
      throw invalidParameter(
        `storage_location must be an absolute file: location without '..': ${JSON.stringify(loc)}`,
      );
    const abs = path.resolve(p);
    const real = await realish(abs);
    const dataDir = this.dataDir;
    for (const d of new Set([dataDir, await realish(dataDir)]))
      for (const x of new Set([abs, real]))
        if (overlaps(x, d))
          throw invalidParameter(
            `storage_location ${JSON.stringify(loc)} overlaps MiniLake's managed storage; choose a folder outside the data directory.`,
          );
    const others: [string, string][] = [];
    for (const [k, v] of this.volumes.entries())
      if (v.volume_type === 'EXTERNAL') others.push([k, v.storage_location]);
    for (const [k, t] of this.tables.entries())
      if (t.table_type === 'EXTERNAL' && t.storage_location) others.push([k, t.storage_location]);
    for (const [k, other] of others) {
      if (k === self || !/^(file:|\/)/.test(other)) continue;
      const o = path.resolve(other.replace(/^file:(\/\/)?/, ''));
      if (overlaps(abs, o) || overlaps(real, await realish(o)))
        throw invalidParameter(
          `Input path ${JSON.stringify(loc)} overlaps with other external tables or volumes (${k}).`,
        );
    }
    return `file://${abs}`;
  }

  getVolume(fullName: string) {
    return this.volumeOut(this.volumeRecord(fullName));
  }

  async listVolumes(catalog: string, schema: string) {
    const { catalog: c, schema: s } = await this.resolveSchema(catalog, schema);
    const prefix = `${c}.${s}.`;
    return [...this.volumes.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, r]) => this.volumeOut(r));
  }

  async updateVolume(
    fullName: string,
    u: { new_name?: string | null; comment?: string | null; owner?: string | null },
  ) {
    const r = this.volumeRecord(fullName);
    const oldFull = `${r.catalog_name}.${r.schema_name}.${r.name}`;
    if (u.new_name && checkName('volume', u.new_name) !== r.name) {
      const nn = checkName('volume', u.new_name);
      const newFull = `${r.catalog_name}.${r.schema_name}.${nn}`;
      if (this.volumes.has(newFull)) throw volumeExists(newFull);
      if (r.volume_type === 'MANAGED') {
        const to = this.volumeDir(r.catalog_name, r.schema_name, nn);
        await this.moveDir(this.volumeDir(r.catalog_name, r.schema_name, r.name), to);
        r.storage_location = `file://${to}`;
      }
      this.volumes.delete(oldFull);
      r.name = nn;
      this.rekeyGrants(oldFull, newFull);
    }
    if (u.comment !== undefined && u.comment !== null) r.comment = u.comment;
    if (u.owner) r.owner = u.owner;
    this.volumes.set(`${r.catalog_name}.${r.schema_name}.${r.name}`, this.touch(r));
    return this.volumeOut(r);
  }

  async deleteVolume(fullName: string): Promise<void> {
    const r = this.volumeRecord(fullName);
    if (r.volume_type === 'MANAGED')
      await rm(this.volumeDir(r.catalog_name, r.schema_name, r.name), { recursive: true, force: true });
    const full = `${r.catalog_name}.${r.schema_name}.${r.name}`;
    this.volumes.delete(full);
    this.dropRecordsUnder(`${full}.`, full);
  }

  /** Absolute directory of a volume (what /Volumes/<c>/<s>/<v> serves); 404 when the volume is missing. */
  async volumeDirectory(catalog: string, schema: string, volume: string): Promise<string> {
    const r = this.volumeRecord(`${catalog}.${schema}.${volume}`);
    const dir = r.storage_location.replace(/^file:\/\//, '');
    await mkdir(dir, { recursive: true });
    return dir;
  }

  // ---- functions --------------------------------------------------------------------------------------

  private functionOut(r: FunctionRecord) {
    return clean({
      ...r.info,
      name: r.name,
      catalog_name: r.catalog_name,
      schema_name: r.schema_name,
      full_name: `${r.catalog_name}.${r.schema_name}.${r.name}`,
      function_id: r.function_id,
      owner: r.owner,
      metastore_id: this.metastore().metastore_id,
      created_at: r.created_at,
      created_by: r.created_by,
      updated_at: r.updated_at,
      updated_by: r.updated_by,
    });
  }

  private functionRecord(fullName: string): FunctionRecord {
    const [c, s, f] = splitFullName(fullName, 3, 'function') as [string, string, string];
    const r = this.functions.get(`${c}.${s}.${f}`);
    if (!r) {
      this.catalogRecord(c);
      throw functionNotFound(`${c}.${s}.${f}`);
    }
    return r;
  }

  async createFunction(fi: FunctionInput) {
    const { catalog: c, schema: s, engineName } = await this.resolveSchema(fi.catalog_name, fi.schema_name);
    const n = checkName('function', fi.name);
    const full = `${c}.${s}.${n}`;
    if (this.functions.has(full)) throw functionExists(full);
    const params = [...(fi.input_params?.parameters ?? [])].sort(
      (a, b) => (a.position ?? 0) - (b.position ?? 0),
    );
    const inParams = params.map((p, i) => {
      const node = declaredType(p);
      const t = databricksTypeInfo(node, { name: p.name });
      return clean({
        ...p,
        type_text: t.type_text,
        type_name: t.type_name,
        type_json: p.type_json ?? t.type_json,
        position: p.position ?? i,
      });
    });
    const isTable =
      (fi.data_type ?? '').toUpperCase() === 'TABLE_TYPE' || (fi.return_params?.parameters?.length ?? 0) > 0;
    const body = (fi.routine_body ?? 'SQL').toUpperCase();
    let macro: FunctionRecord['macro'];
    if (body === 'SQL') {
      const def = (fi.routine_definition ?? '').trim();
      if (!def) throw invalidParameter('routine_definition is required for a SQL function.');
      const ref = `${this.alias(c)}.${quoteIdent(engineName)}.${quoteIdent(n)}`;
      const args = inParams.map((p) => quoteIdent(p.name)).join(', ');
      let sql: string;
      if (isTable) {
        sql = `CREATE MACRO ${ref}(${args}) AS TABLE ${def}`;
        macro = 'table';
      } else {
        const ret = fi.full_data_type ?? fi.data_type;
        let cast = '';
        if (ret) {
          try {
            cast = databricksToDuckDbType(ret);
          } catch {
            cast = '';
          }
        }
        sql = cast
          ? `CREATE MACRO ${ref}(${args}) AS CAST((${def}) AS ${cast})`
          : `CREATE MACRO ${ref}(${args}) AS (${def})`;
        macro = 'scalar';
      }
      try {
        await this.engine.runSingle(sql);
      } catch (e) {
        throw engineRejected('Cannot create the function', e);
      }
    }
    const info: Record<string, unknown> = clean({
      ...fi,
      name: n,
      catalog_name: c,
      schema_name: s,
      input_params: { parameters: inParams },
      data_type: fi.data_type ?? (isTable ? 'TABLE_TYPE' : undefined),
      routine_body: body,
      parameter_style: fi.parameter_style ?? 'S',
      is_deterministic: fi.is_deterministic ?? true,
      sql_data_access: fi.sql_data_access ?? 'CONTAINS_SQL',
      is_null_call: fi.is_null_call ?? false,
      security_type: fi.security_type ?? 'DEFINER',
      specific_name: fi.specific_name ?? n,
    });
    const r = this.functions.set(
      full,
      clean({ function_id: uuid(), info, catalog_name: c, schema_name: s, name: n, macro, ...this.audit() }),
    );
    return this.functionOut(r);
  }

  getFunction(fullName: string) {
    return this.functionOut(this.functionRecord(fullName));
  }

  async listFunctions(catalog: string, schema: string) {
    const { catalog: c, schema: s } = await this.resolveSchema(catalog, schema);
    const prefix = `${c}.${s}.`;
    return [...this.functions.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, r]) => this.functionOut(r));
  }

  updateFunction(fullName: string, u: { owner?: string | null }) {
    const r = this.functionRecord(fullName);
    if (u.owner) r.owner = u.owner;
    this.functions.set(`${r.catalog_name}.${r.schema_name}.${r.name}`, this.touch(r));
    return this.functionOut(r);
  }

  async deleteFunction(fullName: string): Promise<void> {
    const r = this.functionRecord(fullName);
    if (r.macro) {
      const engineSchema = (await this.engineSchema(r.catalog_name, r.schema_name)) ?? r.schema_name;
      await this.engine.run(
        `DROP MACRO ${r.macro === 'table' ? 'TABLE ' : ''}IF EXISTS ${this.alias(r.catalog_name)}.${quoteIdent(engineSchema)}.${quoteIdent(r.name)}`,
      );
    }
    const full = `${r.catalog_name}.${r.schema_name}.${r.name}`;
    this.functions.delete(full);
    this.dropRecordsUnder(`${full}.`, full);
  }

  // ---- grants -----------------------------------------------------------------------------------------

  /** Validates the securable and returns its canonical [type, full name]. */
  private async securable(type: string, fullName: string): Promise<[string, string]> {
    const t = type.toLowerCase();
    if (!SECURABLE_TYPES.has(t)) throw invalidParameter(`Unsupported securable type '${type}'.`);
    switch (t) {
      case 'metastore':
        this.getMetastore(fullName);
        return [t, fullName];
      case 'catalog':
        return [t, this.catalogRecord(fullName).name];
      case 'schema': {
        const s = await this.getSchema(fullName);
        return [t, s.full_name];
      }
      case 'table': {
        const r = await this.resolveTable(fullName);
        if (!r.record) throw tableNotFound(`${r.catalog}.${r.schema}.${r.name}`);
        return [t, `${r.catalog}.${r.schema}.${r.name}`];
      }
      case 'volume':
        return [t, this.getVolume(fullName).full_name];
      case 'function':
        return [t, this.getFunction(fullName).full_name];
      default:
        return [t, fullName];
    }
  }

  private assignments(key: string, principal?: string) {
    const g = this.grants.get(key) ?? {};
    return Object.entries(g)
      .filter(([p, privs]) => privs.length > 0 && (principal === undefined || p === principal))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([p, privileges]) => ({ principal: p, privileges: [...privileges].sort() }));
  }

  async getPermissions(type: string, fullName: string, principal?: string) {
    const [t, full] = await this.securable(type, fullName);
    return { privilege_assignments: this.assignments(`${t}/${full}`, principal) };
  }

  async updatePermissionsChecked(type: string, fullName: string, changes: PermissionChange[]) {
    const [t, full] = await this.securable(type, fullName);
    this.applyPermissions(t, full, changes);
    return { privilege_assignments: this.assignments(`${t}/${full}`) };
  }

  applyPermissions(type: string, fullName: string, changes: PermissionChange[]): void {
    const key = `${type.toLowerCase()}/${fullName.toLowerCase()}`;
    const applicable = PRIVILEGES_BY_TYPE[type.toLowerCase()];
    for (const ch of changes) {
      if (!ch.principal || ch.principal.trim() === '')
        throw invalidParameter('A permissions change needs a non-empty principal.');
      const privs = [...(ch.add ?? []), ...(ch.remove ?? [])].map((p) =>
        p.toUpperCase().replaceAll(' ', '_'),
      );
      const unknown = privs.filter((p) => !PRIVILEGES.has(p));
      if (unknown.length) throw invalidParameter(`Invalid privilege(s): ${unknown.join(', ')}.`);
      const misplaced = applicable ? privs.filter((p) => !applicable.has(p)) : [];
      if (misplaced.length)
        throw invalidParameter(
          `Privilege ${misplaced[0]} is not applicable to this entity (${type.toUpperCase()} '${fullName}').`,
        );
    }
    const g = { ...this.grants.get(key) };
    for (const ch of changes) {
      const set = new Set(g[ch.principal] ?? []);
      for (const p of ch.add ?? []) set.add(p.toUpperCase().replaceAll(' ', '_'));
      for (const p of ch.remove ?? []) {
        const up = p.toUpperCase().replaceAll(' ', '_');
        if (up === 'ALL_PRIVILEGES') set.clear();
        set.delete(up);
      }
      if (set.size) g[ch.principal] = [...set];
      else delete g[ch.principal];
    }
    if (Object.keys(g).length) this.grants.set(key, g);
    else this.grants.delete(key);
  }

  async getEffectivePermissions(type: string, fullName: string, principal?: string) {
    const [t, full] = await this.securable(type, fullName);
    const chain: [string, string][] = [['metastore', this.metastore().metastore_id]];
    const parts = full.split('.');
    if (t !== 'metastore') {
      if (['catalog', 'schema', 'table', 'volume', 'function'].includes(t))
        chain.push(['catalog', parts[0]!]);
      if (['schema', 'table', 'volume', 'function'].includes(t))
        chain.push(['schema', `${parts[0]}.${parts[1]}`]);
      if (['table', 'volume', 'function'].includes(t) || !['catalog', 'schema'].includes(t))
        chain.push([t, full]);
    }
    const byPrincipal = new Map<
      string,
      { privilege: string; inherited_from_type?: string; inherited_from_name?: string }[]
    >();
    for (const [ct, cn] of chain) {
      for (const a of this.assignments(`${ct}/${cn}`, principal)) {
        let list = byPrincipal.get(a.principal);
        if (!list) byPrincipal.set(a.principal, (list = []));
        for (const p of a.privileges)
          list.push(
            ct === t && cn === full
              ? { privilege: p }
              : { privilege: p, inherited_from_type: ct.toUpperCase(), inherited_from_name: cn },
          );
      }
    }
    return {
      privilege_assignments: [...byPrincipal.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([p, privileges]) => ({ principal: p, privileges })),
    };
  }
}

/** Names Databricks keeps for its own catalogs (system tables, the legacy metastore, the sample data). */
const RESERVED_CATALOGS = new Set(['system', 'hive_metastore', 'samples']);

/** The Privilege enum of the Unity Catalog API (databricks-sdk-go service/catalog). */
const PRIVILEGES = new Set([
  'ACCESS',
  'ALL_PRIVILEGES',
  'APPLY_TAG',
  'BROWSE',
  'CREATE',
  'CREATE_CATALOG',
  'CREATE_CLEAN_ROOM',
  'CREATE_CONNECTION',
  'CREATE_EXTERNAL_LOCATION',
  'CREATE_EXTERNAL_TABLE',
  'CREATE_EXTERNAL_VOLUME',
  'CREATE_FOREIGN_CATALOG',
  'CREATE_FOREIGN_SECURABLE',
  'CREATE_FUNCTION',
  'CREATE_MANAGED_STORAGE',
  'CREATE_MATERIALIZED_VIEW',
  'CREATE_MODEL',
  'CREATE_PROVIDER',
  'CREATE_RECIPIENT',
  'CREATE_SCHEMA',
  'CREATE_SERVICE_CREDENTIAL',
  'CREATE_SHARE',
  'CREATE_STORAGE_CREDENTIAL',
  'CREATE_TABLE',
  'CREATE_VIEW',
  'CREATE_VOLUME',
  'EXECUTE',
  'EXECUTE_CLEAN_ROOM_TASK',
  'EXTERNAL_USE_SCHEMA',
  'MANAGE',
  'MANAGE_ALLOWLIST',
  'MODIFY',
  'MODIFY_CLEAN_ROOM',
  'READ_FILES',
  'READ_PRIVATE_FILES',
  'READ_VOLUME',
  'REFRESH',
  'SELECT',
  'SET_SHARE_PERMISSION',
  'SINGLE_USER_ACCESS',
  'USAGE',
  'USE_CATALOG',
  'USE_CONNECTION',
  'USE_MARKETPLACE_ASSETS',
  'USE_PROVIDER',
  'USE_RECIPIENT',
  'USE_SCHEMA',
  'USE_SHARE',
  'WRITE_FILES',
  'WRITE_PRIVATE_FILES',
  'WRITE_VOLUME',
]);
/** Privileges the securables served here accept (privilege model 1.0); other types check the enum only. */
const SCHEMA_PRIVS = [
  'ALL_PRIVILEGES',
  'APPLY_TAG',
  'CREATE_FUNCTION',
  'CREATE_MATERIALIZED_VIEW',
  'CREATE_MODEL',
  'CREATE_TABLE',
  'CREATE_VIEW',
  'CREATE_VOLUME',
  'EXECUTE',
  'EXTERNAL_USE_SCHEMA',
  'MANAGE',
  'MODIFY',
  'READ_VOLUME',
  'REFRESH',
  'SELECT',
  'USE_SCHEMA',
  'WRITE_VOLUME',
];
const PRIVILEGES_BY_TYPE: Record<string, Set<string>> = {
  metastore: new Set([
    'CREATE_CATALOG',
    'CREATE_CLEAN_ROOM',
    'CREATE_CONNECTION',
    'CREATE_EXTERNAL_LOCATION',
    'CREATE_PROVIDER',
    'CREATE_RECIPIENT',
    'CREATE_SERVICE_CREDENTIAL',
    'CREATE_SHARE',
    'CREATE_STORAGE_CREDENTIAL',
    'MANAGE_ALLOWLIST',
    'SET_SHARE_PERMISSION',
    'USE_MARKETPLACE_ASSETS',
    'USE_PROVIDER',
    'USE_RECIPIENT',
    'USE_SHARE',
  ]),
  catalog: new Set([...SCHEMA_PRIVS, 'BROWSE', 'CREATE_SCHEMA', 'USE_CATALOG']),
  schema: new Set(SCHEMA_PRIVS),
  table: new Set(['ALL_PRIVILEGES', 'APPLY_TAG', 'MANAGE', 'MODIFY', 'REFRESH', 'SELECT']),
  volume: new Set(['ALL_PRIVILEGES', 'APPLY_TAG', 'MANAGE', 'READ_VOLUME', 'WRITE_VOLUME']),
  function: new Set(['ALL_PRIVILEGES', 'APPLY_TAG', 'EXECUTE', 'MANAGE']),
};

/** Cloud schemes an EXTERNAL table may name as metadata only (nothing is ever read from them). */
const REMOTE_SCHEMES = new Set(['s3', 's3a', 's3n', 'gs', 'abfs', 'abfss', 'wasb', 'wasbs', 'dbfs']);

/** True when one path equals or contains the other. */
function overlaps(a: string, b: string): boolean {
  return (
    a === b ||
    a.startsWith(b.endsWith(path.sep) ? b : b + path.sep) ||
    b.startsWith(a.endsWith(path.sep) ? a : a + path.sep)
  );
}

/** The real path of `p`: symlinks resolved on its longest existing prefix, the rest appended. */
const realish = realpathOfExisting;

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
