/**
 * Tables and views. Engine objects (DuckDB tables and views, whatever created them) and metadata-only
 * EXTERNAL tables are listed together; where a table's data lives is its source's business
 * (table-sources.ts). Lists are served from serialized rows cached per table (see listTables).
 */
import type { SparkSchema } from '@minilake/delta';
import { invalidParameter, notFound, uuid } from '@minilake/core';
import { ident } from '@minilake/engine-duckdb';
import { schemaNotFound, tableExists, tableNotFound } from '../errors.js';
import { checkName, splitFullName, viewQuery } from '../names.js';
import type { ColumnInput } from '../schemas.js';
import type { UcContext } from './context.js';
import type { EngineObject, EngineView, SchemaSnapshot } from './engine-view.js';
import {
  HIDDEN_SCHEMAS,
  applyPatch,
  likeToRegex,
  typedColumns,
  type ColumnOut,
  type EngineColumn,
  type Props,
  type TableMetadataInput,
  type TableRecord,
} from './records.js';
import type { Schemas } from './schemas.js';
import { localPath, type TableDescriptor } from '@minilake/tables';
import { columnsOut } from './delta-source.js';
import { ExternalFilesSource, ManagedDuckDbSource, type TableSource } from './table-sources.js';

/**
 * The descriptor of a table that exists as a record alone (no engine object): a Delta folder when its
 * format is DELTA and its location is local, else files read in place (metadata only).
 */
export function recordDescriptor(fullName: string, r: TableRecord): TableDescriptor {
  const root = localPath(r.storage_location);
  const delta = r.data_source_format === 'DELTA' && r.table_type !== 'VIEW' && root !== undefined;
  return {
    fullName,
    tableType: r.table_type ?? 'EXTERNAL',
    storage: delta ? 'delta' : 'files',
    ...(r.data_source_format ? { dataSourceFormat: r.data_source_format } : {}),
    ...(r.storage_location ? { location: r.storage_location } : {}),
    ...(delta ? { root } : {}),
    ...(r.partition_columns ? { partitionColumns: r.partition_columns } : {}),
  };
}

export interface ResolvedTable {
  catalog: string;
  schema: string;
  name: string;
  engineSchema?: string;
  object?: EngineObject;
  record?: TableRecord;
}

type Omit_ = { columns?: boolean; properties?: boolean };

/** What creating a table takes (Tables.create and the store's createTable). */
export interface TableInput {
  name: string;
  catalog_name: string;
  schema_name: string;
  table_type: 'MANAGED' | 'EXTERNAL' | 'MATERIALIZED_VIEW' | 'STREAMING_TABLE';
  /** The owning pipeline of a MATERIALIZED_VIEW or STREAMING_TABLE. */
  pipeline_id?: string;
  data_source_format?: string | null;
  storage_location?: string | null;
  columns?: ColumnInput[] | null;
  comment?: string | null;
  properties?: Props | null;
}

export class Tables {
  readonly sources: TableSource[];
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

  constructor(
    private readonly ctx: UcContext,
    private readonly view: EngineView,
    private readonly schemas: Schemas,
    sources?: TableSource[],
  ) {
    this.sources = sources ?? [new ManagedDuckDbSource(ctx), new ExternalFilesSource(ctx)];
    // Every write of a table record drops its cached row, whichever part of the store made it.
    const tables = ctx.c.tables;
    const { set, delete: del } = tables;
    tables.set = (k, v) => {
      this.tablesRev++;
      this.listRows.delete(k);
      return set.call(tables, k, v);
    };
    tables.delete = (k) => {
      this.tablesRev++;
      this.listRows.delete(k);
      return del.call(tables, k);
    };
  }

  /** A record for an engine object the view has not adopted (a change nobody notified): built, not stored. */
  private transientRecord(
    catalog: string,
    schema: string,
    name: string,
    kind: 'TABLE' | 'VIEW',
  ): TableRecord {
    return {
      table_id: uuid(),
      catalog_name: catalog,
      schema_name: schema,
      name,
      ...(kind === 'VIEW' ? { table_type: 'VIEW' as const } : {}),
      properties: {},
      ...this.ctx.audit(),
    };
  }

  private recordFor(catalog: string, schema: string, name: string, kind: 'TABLE' | 'VIEW'): TableRecord {
    const r = this.ctx.c.tables.get(`${catalog}.${schema}.${name}`);
    return r && !r.metadata_only ? r : this.transientRecord(catalog, schema, name, kind);
  }

  out(r: TableRecord, o: EngineObject | undefined, columns: ColumnOut[] | undefined, omit: Omit_ = {}) {
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
    else if (type === 'MANAGED')
      out.storage_location = `file://${this.ctx.engine.catalogFile(r.catalog_name)}`;
    const definition = o?.kind === 'VIEW' && o.sql ? viewQuery(o.sql) : undefined;
    if (definition !== undefined) out.view_definition = definition;
    const comment = r.comment ?? o?.comment ?? undefined;
    if (comment !== undefined) out.comment = comment;
    // Kept even when empty: Databricks' tables carry their Delta properties, and the Spark connector and
    // DuckDB's unity_catalog extension read the map.
    if (!omit.properties) out.properties = r.properties;
    if (r.pipeline_id !== undefined) out.pipeline_id = r.pipeline_id;
    out.owner = r.owner;
    out.table_id = r.table_id;
    out.metastore_id = this.ctx.metastoreId;
    out.browse_only = false;
    out.created_at = r.created_at;
    out.created_by = r.created_by;
    out.updated_at = r.updated_at;
    out.updated_by = r.updated_by;
    return out;
  }

  async resolve(fullName: string): Promise<ResolvedTable> {
    const [c0, s0, t0] = splitFullName(fullName, 3, 'table') as [string, string, string];
    const c = this.ctx.catalogRecord(c0).name;
    await this.view.settled();
    const engineSchema = await this.view.engineSchema(c, s0);
    if (engineSchema === undefined) throw schemaNotFound(`${c}.${s0}`);
    const [object] = await this.view.engineObjects(c, engineSchema, t0);
    if (object)
      return {
        catalog: c,
        schema: s0,
        name: t0,
        engineSchema,
        object,
        record: this.recordFor(c, s0, t0, object.kind),
      };
    const rec = this.ctx.c.tables.get(`${c}.${s0}.${t0}`);
    // A record without its engine object was dropped through SQL (the view drops the record shortly).
    if (rec?.metadata_only) return { catalog: c, schema: s0, name: t0, engineSchema, record: rec };
    return { catalog: c, schema: s0, name: t0, engineSchema };
  }

  /**
   * What a name's data is and where it lives, for the table layer: an engine object (DuckDB), a Delta folder,
   * or files at an EXTERNAL location; undefined for a name that is neither an engine object nor a record.
   */
  async describe(fullName: string): Promise<TableDescriptor | undefined> {
    let t: ResolvedTable;
    try {
      t = await this.resolve(fullName);
    } catch {
      return undefined;
    }
    const full = `${t.catalog}.${t.schema}.${t.name}`;
    const r = t.record;
    if (t.object)
      return {
        fullName: full,
        tableType: r?.table_type ?? (t.object.kind === 'VIEW' ? 'VIEW' : 'MANAGED'),
        storage: 'duckdb',
        ...(r?.data_source_format ? { dataSourceFormat: r.data_source_format } : {}),
        ...(r?.storage_location ? { location: r.storage_location } : {}),
        ...(r?.partition_columns ? { partitionColumns: r.partition_columns } : {}),
      };
    return r?.metadata_only ? recordDescriptor(full, r) : undefined;
  }

  async get(fullName: string, omit: Omit_ = {}) {
    const t = await this.resolve(fullName);
    if (!t.record) throw tableNotFound(`${t.catalog}.${t.schema}.${t.name}`);
    if (!t.object) {
      const r = t.record;
      const d = recordDescriptor(`${t.catalog}.${t.schema}.${t.name}`, r);
      const live = omit.columns ? undefined : await this.ctx.formats.of(d).columns(d);
      return this.out(r, undefined, live ? columnsOut(live) : r.columns, omit);
    }
    const cols = omit.columns ? [] : await this.view.engineColumns(t.catalog, t.engineSchema!, t.object.name);
    return this.out(t.record, t.object, this.view.columnsOut(cols, t.record.partition_columns), omit);
  }

  async exists(fullName: string): Promise<boolean> {
    try {
      return (await this.resolve(fullName)).record !== undefined;
    } catch (e) {
      if ((e as { status?: number }).status === 404) return false;
      throw e;
    }
  }

  /**
   * The tables of a schema, sorted by name, each as its serialized JSON (`key` is the name). Rows are
   * cached between lists: a list of 10,000 tables is mostly string joining, not object building.
   */
  async list(catalog: string, schema: string, omit: Omit_ = {}): Promise<{ key: string; json: string }[]> {
    const { catalog: c, schema: s, engineName } = await this.schemas.resolve(catalog, schema);
    const snap = await this.view.schemaSnapshot(c, engineName);
    const omitKey = `${omit.columns ? 1 : 0}${omit.properties ? 1 : 0}`;
    const prefix = `${c}.${s}.`;
    const cached = this.listCache.get(`${prefix}|${omitKey}`);
    if (cached && cached.sch === snap && cached.rev === snap.rev && cached.tablesRev === this.tablesRev)
      return cached.rows;
    const out: { key: string; json: string }[] = [];
    for (const [n, { object: o, columns: cols }] of snap?.objects ?? []) {
      const r = this.recordFor(c, s, n, o.kind);
      const key = prefix + n;
      const hit = this.listRows.get(key);
      if (hit && hit.r === r && hit.o === o && hit.cols === cols && hit.omit === omitKey) {
        out.push({ key: n, json: hit.json });
        continue;
      }
      const columns = omit.columns ? undefined : this.view.columnsOut(cols, r.partition_columns);
      const json = JSON.stringify(this.out(r, o, columns, omit));
      this.listRows.set(key, { r, o, cols, omit: omitKey, json });
      out.push({ key: n, json });
    }
    for (const [k, r] of this.ctx.c.tables.entries()) {
      if (!k.startsWith(prefix) || snap?.objects.has(r.name) || !r.metadata_only) continue;
      out.push({ key: r.name, json: JSON.stringify(this.out(r, undefined, r.columns, omit)) });
    }
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

  async summaries(catalog: string, schemaPattern?: string, tablePattern?: string) {
    const c = this.ctx.catalogRecord(catalog).name;
    const sRe = schemaPattern ? likeToRegex(schemaPattern) : undefined;
    const tRe = tablePattern ? likeToRegex(tablePattern) : undefined;
    await this.view.settled();
    const objects = await this.view.engineObjects(c);
    const tables = this.ctx.c.tables;
    const out = new Map<string, { full_name: string; table_type: string }>();
    for (const o of objects) {
      const s = o.schema.toLowerCase();
      const n = o.name.toLowerCase();
      if (HIDDEN_SCHEMAS.has(s) || (sRe && !sRe.test(s)) || (tRe && !tRe.test(n))) continue;
      const r = tables.get(`${c}.${s}.${n}`);
      out.set(`${c}.${s}.${n}`, {
        full_name: `${c}.${s}.${n}`,
        table_type: r?.table_type ?? (o.kind === 'VIEW' ? 'VIEW' : 'MANAGED'),
      });
    }
    for (const [k, r] of tables.entries()) {
      if (!k.startsWith(`${c}.`) || !r.metadata_only || out.has(k)) continue;
      if ((sRe && !sRe.test(r.schema_name)) || (tRe && !tRe.test(r.name))) continue;
      out.set(k, { full_name: k, table_type: r.table_type ?? 'EXTERNAL' });
    }
    return [...out.values()].sort((a, b) => (a.full_name < b.full_name ? -1 : 1));
  }

  /** `delta`: the Spark schema SQL DDL declared, for a source writing a Delta log (MANAGED Delta). */
  async create(input: TableInput, delta?: { schema: SparkSchema; partitionColumns: string[] }) {
    const {
      catalog: c,
      schema: s,
      engineName,
    } = await this.schemas.resolve(input.catalog_name, input.schema_name);
    const n = checkName('table', input.name);
    const full = `${c}.${s}.${n}`;
    const lock = `table:${full}`;
    if (
      (await this.view.engineObjects(c, engineName, n)).length > 0 ||
      this.ctx.c.tables.get(full)?.metadata_only ||
      this.ctx.creating.has(lock)
    )
      throw tableExists(full);
    this.ctx.creating.add(lock);
    try {
      const { typed, partitions: declared } = typedColumns(input.columns);
      const partitions = delta ? delta.partitionColumns.map((p) => p.toLowerCase()) : declared;
      const format = (input.data_source_format ?? 'DELTA').toUpperCase();
      // A MANAGED table over a staging table's folder (Spark's MANAGED tables, the Unity Catalog OSS flow).
      const staged =
        input.table_type === 'MANAGED' && input.storage_location
          ? [...this.ctx.c.staging.values()].find((x) =>
              sameLocation(x.staging_location, input.storage_location!),
            )
          : undefined;
      if (
        staged &&
        (staged.catalog_name !== c ||
          staged.schema_name !== s ||
          staged.name.toLowerCase() !== n.toLowerCase())
      )
        throw invalidParameter(
          `The staging location ${staged.staging_location} was staged for another table.`,
        );
      const source = this.sources.find((x) =>
        x.handles({ tableType: input.table_type, format, creating: true, staged: staged !== undefined }),
      );
      if (!source) throw invalidParameter(`Unsupported table_type '${input.table_type}'.`);
      const base: TableRecord = {
        table_id: staged?.id ?? uuid(),
        catalog_name: c,
        schema_name: s,
        name: n,
        table_type: input.table_type,
        data_source_format: format,
        ...(input.pipeline_id ? { pipeline_id: input.pipeline_id } : {}),
        ...(input.comment ? { comment: input.comment } : {}),
        properties: input.properties ?? {},
        ...(partitions.length ? { partition_columns: partitions } : {}),
        ...this.ctx.audit(),
      };
      const made = await this.ctx.mutating(() =>
        source.create({
          catalog: c,
          schema: s,
          name: n,
          fullName: full,
          engineSchema: engineName,
          tableType: input.table_type,
          format,
          storageLocation: input.storage_location,
          columns: typed,
          partitions,
          base,
          ...(delta ? { delta } : {}),
          ...(staged ? { stagedDir: staged.staging_location.replace(/^file:\/\//, '') } : {}),
        }),
      );
      this.ctx.c.tables.set(full, made.record);
      if (staged) this.ctx.c.staging.delete(staged.id);
      if (made.change) this.ctx.engine.notifyChange(made.change);
      if (made.record.metadata_only) return this.out(made.record, undefined, made.record.columns);
      return await this.get(full);
    } finally {
      this.ctx.creating.delete(lock);
    }
  }

  /**
   * A staging table (Unity Catalog OSS's `POST /staging-tables`): a fresh folder under the managed storage
   * root where Spark writes a MANAGED Delta table's first commit, before `POST /tables` names it (MANAGED,
   * storage_location = the staging location). Its id becomes the table's id.
   */
  async stage(input: { catalog_name: string; schema_name: string; name: string }) {
    const { catalog: c, schema: s } = await this.schemas.resolve(input.catalog_name, input.schema_name);
    const n = checkName('table', input.name);
    if (!this.ctx.managedDeltaDir)
      throw invalidParameter('MANAGED Delta tables are not served by this store.');
    if (await this.exists(`${c}.${s}.${n}`)) throw tableExists(`${c}.${s}.${n}`);
    const id = uuid();
    const schemaId = this.ctx.c.schemas.get(`${c}.${s}`)?.schema_id;
    const record = {
      id,
      catalog_name: c,
      schema_name: s,
      name: n,
      staging_location: `file://${this.ctx.managedTableDir(schemaId, id)}`,
      created_at: this.ctx.clock.now(),
    };
    this.ctx.c.staging.set(id, record);
    const { created_at: _, ...out } = record;
    return out;
  }

  async update(fullName: string, u: { owner?: string | null; comment?: string | null }) {
    const t = await this.resolve(fullName);
    if (!t.record) throw tableNotFound(`${t.catalog}.${t.schema}.${t.name}`);
    const key = `${t.catalog}.${t.schema}.${t.name}`;
    const tables = this.ctx.c.tables;
    if (!tables.has(key)) tables.set(key, t.record);
    tables.update(key, (r) => {
      applyPatch(r, u);
      this.ctx.touch(r);
    });
  }

  async delete(fullName: string): Promise<void> {
    const t = await this.resolve(fullName);
    if (!t.record) throw tableNotFound(`${t.catalog}.${t.schema}.${t.name}`);
    const full = `${t.catalog}.${t.schema}.${t.name}`;
    const record = t.record;
    await this.ctx.mutating(async () => {
      if (t.object) {
        const kind = t.object.kind === 'VIEW' ? 'VIEW' : 'TABLE';
        await this.ctx.engine.runRetryingConflicts(
          `DROP ${kind} IF EXISTS ${this.ctx.alias(t.catalog)}.${ident(t.engineSchema!)}.${ident(t.object.name)}`,
        );
      }
      const format = record.data_source_format ?? 'DELTA';
      const source = this.sources.find((x) =>
        x.handles({ tableType: record.table_type ?? 'MANAGED', format }),
      );
      await source?.drop?.(record);
      this.ctx.c.tables.delete(full);
      this.ctx.dropRecordsUnder(`${full}.`, full);
      if (t.object)
        this.ctx.engine.notifyChange({ catalog: t.catalog, schema: t.engineSchema!, name: t.object.name });
    });
  }

  /** The full name of the table with this id; 400 when missing, 404 TABLE_DOES_NOT_EXIST when unknown. */
  byId(tableId: string | null | undefined): string {
    if (!tableId) throw invalidParameter('table_id is required.');
    for (const [k, r] of this.ctx.c.tables.entries()) if (r.table_id === tableId) return k;
    throw notFound(`Table with id '${tableId}' does not exist.`, 'TABLE_DOES_NOT_EXIST');
  }

  /** Records what SQL DDL declared (comment, properties, EXTERNAL location...) for an engine object. */
  setMetadata(fullName: string, meta: TableMetadataInput): void {
    const [c, s, n] = splitFullName(fullName, 3, 'table') as [string, string, string];
    this.ctx.catalogRecord(c);
    const key = `${c}.${s}.${n}`;
    const tables = this.ctx.c.tables;
    if (!tables.has(key))
      tables.set(key, {
        table_id: uuid(),
        catalog_name: c,
        schema_name: s,
        name: n,
        properties: {},
        ...this.ctx.audit(),
      });
    tables.update(key, (r) => {
      if (meta.comment !== undefined) r.comment = meta.comment;
      if (meta.properties) r.properties = { ...r.properties, ...meta.properties };
      if (meta.data_source_format) r.data_source_format = meta.data_source_format.toUpperCase();
      if (meta.table_type) r.table_type = meta.table_type;
      if (meta.storage_location !== undefined) r.storage_location = meta.storage_location;
      if (meta.partition_columns) r.partition_columns = meta.partition_columns.map((p) => p.toLowerCase());
      delete r.metadata_only;
      delete r.columns;
      this.ctx.touch(r);
    });
    // Moves the epoch: a reconcile working from a snapshot older than the DDL this describes must not
    // take the fresh record for one of an object dropped through SQL.
    this.ctx.engine.notifyChange({ catalog: c, schema: s, name: n });
  }
}

/** `file:///x/` and `/x` name the same folder. */
function sameLocation(a: string, b: string): boolean {
  const norm = (x: string) => x.replace(/^file:(\/\/)?/, '').replace(/\/+$/, '');
  return norm(a) === norm(b);
}
