/**
 * The catalogs a new Databricks workspace has before anyone creates one:
 *
 * - `main` with its `default` schema (the workspace's default catalog, so `CREATE TABLE t` works on
 *   arrival). Made once, on the first open of an empty metastore and again after a reset; a user may drop
 *   it like any catalog, and a restart does not bring it back.
 * - `hive_metastore`, the legacy catalog a Unity Catalog workspace still shows: schemas and tables work,
 *   Unity Catalog's volumes and grants do not.
 * - `samples`, read-only (a Delta Sharing catalog on Databricks): `nyctaxi.trips` and the TPC-H tables, as
 *   EXTERNAL Delta tables whose data is generated (deterministically, @minilake/samples) the first time
 *   something reads them: a SQL scan, DESCRIBE DETAIL/HISTORY, or the temporary credentials Spark asks for
 *   before it opens the folder.
 *
 * `hive_metastore` and `samples` always exist: they cannot be dropped or renamed, and one missing (a reset, a
 * store from before they existed) is made again when the store opens. `empty` (MINILAKE_EMPTY=1) makes none.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { invalidParameter, permissionDenied, uuid } from '@minilake/core';
import type { DeltaReader } from '@minilake/delta';
import { fromSparkJson, type TypeNode } from '@minilake/datatypes';
import { ident, literal } from '@minilake/engine-duckdb';
import { SAMPLE_SCHEMAS, SAMPLE_TABLES, SAMPLES_CATALOG, type SampleTable } from '@minilake/samples';
import type { UcContext } from './context.js';
import { localPath } from '@minilake/tables';
import { columnOut, type CatalogRecord, type TableRecord } from './records.js';

export const MAIN_CATALOG = 'main';
export const HIVE_METASTORE = 'hive_metastore';
export { SAMPLES_CATALOG };

/** Who owns what Databricks provides (its system catalogs' owner). */
const SYSTEM_USER = 'System user';

/** The wire fields of the built-in catalogs, as Databricks reports its own (see the README's Fidelity). */
export function builtinCatalogFields(r: CatalogRecord): Record<string, unknown> {
  if (r.name === SAMPLES_CATALOG && r.builtin)
    return { catalog_type: 'DELTASHARING_CATALOG', securable_kind: 'CATALOG_SYSTEM_DELTASHARING' };
  if (r.name === HIVE_METASTORE && r.builtin)
    return { catalog_type: 'INTERNAL_CATALOG', securable_kind: 'CATALOG_INTERNAL' };
  return {};
}

/** A sample column's Spark type as a tree (through the one vocabulary; anything else reads as a string). */
function sampleType(sparkType: string): TypeNode {
  try {
    return fromSparkJson(sparkType);
  } catch {
    return { kind: 'primitive', name: 'string' };
  }
}

export class BuiltinCatalogs {
  /** One generation per table at a time; later readers wait for it. */
  private readonly generating = new Map<string, Promise<void>>();

  constructor(
    private readonly ctx: UcContext,
    private readonly o: {
      /** MINILAKE_EMPTY=1: no built-in catalog at all. */
      empty: boolean;
      /** Where the sample tables' Delta folders go (undefined: no samples catalog). */
      samplesDir?: string;
      deltaReader?: DeltaReader;
      /**
       * Creates a catalog (Catalogs' own create, past the name checks): a plain one with its `default`
       * schema, or a READ_ONLY one whose file `readOnly.prepare` makes.
       */
      createCatalog: (
        name: string,
        extra: Partial<CatalogRecord>,
        o?: { readOnly?: { prepare: (file: string) => Promise<void> } },
      ) => Promise<void>;
    },
  ) {}

  /** Makes what is missing (see the file comment). Runs when the store opens and after a reset. */
  async ensure(): Promise<void> {
    if (this.o.empty) return;
    const { c } = this.ctx;
    if (!c.meta.has('workspace')) {
      if (!c.catalogs.has(MAIN_CATALOG)) await this.o.createCatalog(MAIN_CATALOG, {});
      c.meta.set('workspace', { created_at: this.ctx.clock.now() });
    }
    if (!c.catalogs.has(HIVE_METASTORE))
      await this.o.createCatalog(HIVE_METASTORE, {
        builtin: true,
        comment: 'The legacy Hive metastore of this workspace',
      });
    if (this.o.samplesDir && this.o.deltaReader && !c.catalogs.has(SAMPLES_CATALOG))
      await this.createSamples();
  }

  /** Whether the store must attach this catalog's database READ_ONLY (the engine then refuses writes). */
  readOnly(catalog: string): boolean {
    return catalog === SAMPLES_CATALOG && !!this.ctx.c.catalogs.get(catalog)?.builtin;
  }

  private builtinRecord(catalog: string): CatalogRecord | undefined {
    const r = this.ctx.c.catalogs.get(catalog.toLowerCase());
    return r?.builtin ? r : undefined;
  }

  /** Refuses a change to anything in `samples` as Databricks refuses it (the share is read-only). */
  checkWritable(fullName: string, securable = 'Table'): void {
    const reason = this.readOnlyReason(fullName, securable);
    if (reason) throw permissionDenied(reason);
  }

  /** Why a name cannot be written (the samples catalog is read-only), or undefined. */
  readOnlyReason(fullName: string, securable = 'Table'): string | undefined {
    const catalog = fullName.split('.')[0]!.toLowerCase();
    if (catalog === SAMPLES_CATALOG && this.builtinRecord(catalog))
      return `User does not have MODIFY on ${securable} '${fullName.toLowerCase()}': the samples catalog is read-only.`;
    return undefined;
  }

  /**
   * Refuses a write into the folder of a read-only catalog's table (a path credential for writing, a
   * CREATE TABLE ... LOCATION there): the files are the samples' own.
   */
  checkPathWritable(url: string): void {
    const dir = localPath(url);
    if (!dir || !this.o.samplesDir || !this.builtinRecord(SAMPLES_CATALOG)) return;
    const root = path.resolve(this.o.samplesDir);
    const p = path.resolve(dir);
    if (p !== root && !p.startsWith(root + path.sep)) return;
    const [schema, name] = path.relative(root, p).split(path.sep);
    this.checkWritable(
      [SAMPLES_CATALOG, schema, name].filter(Boolean).join('.'),
      name ? 'Table' : schema ? 'Schema' : 'Catalog',
    );
  }

  /** Refuses dropping or renaming hive_metastore or samples. */
  checkDroppable(catalog: string): void {
    const r = this.builtinRecord(catalog);
    if (r)
      throw invalidParameter(
        `Catalog '${r.name}' is provided by the workspace and cannot be deleted or renamed.`,
      );
  }

  /** Databricks has no Unity Catalog volumes in the legacy catalog. */
  checkVolumeCatalog(catalog: string): void {
    const c = catalog.toLowerCase();
    if (c === HIVE_METASTORE && this.builtinRecord(c))
      throw invalidParameter(
        `Volumes are Unity Catalog securables: the legacy catalog '${HIVE_METASTORE}' cannot hold them. Create the volume in a Unity Catalog catalog such as '${MAIN_CATALOG}'.`,
      );
    this.checkWritable(c, 'Catalog');
  }

  /** Databricks' Unity Catalog grants API does not cover hive_metastore (it has legacy table ACLs). */
  checkGrantable(fullName: string): void {
    const c = fullName.split('.')[0]!.toLowerCase();
    if (c === HIVE_METASTORE && this.builtinRecord(c))
      throw invalidParameter(
        `The Unity Catalog permissions API does not manage '${HIVE_METASTORE}' objects: they use the legacy Hive metastore table access control.`,
      );
  }

  /**
   * Generates a sample table's Delta folder unless it is there: call before anything opens the folder.
   * Names outside `samples` (or unknown tables) are left alone.
   */
  async prepare(fullName: string): Promise<void> {
    const [catalog, schema, name] = fullName.toLowerCase().split('.');
    if (catalog !== SAMPLES_CATALOG || !schema || !name || !this.builtinRecord(catalog)) return;
    const record = this.ctx.c.tables.get(`${catalog}.${schema}.${name}`);
    const dir = localPath(record?.storage_location);
    if (!record || !dir || existsSync(path.join(dir, '_delta_log'))) return;
    const key = `${schema}.${name}`;
    let running = this.generating.get(key);
    if (!running) {
      running = (async () => {
        const { writeSampleTable } = await import('@minilake/samples/generate');
        await this.ctx.engine.withConnection((conn) =>
          writeSampleTable(conn, this.o.deltaReader!, dir, schema, name, { now: this.ctx.clock.now() }),
        );
      })().finally(() => this.generating.delete(key));
      this.generating.set(key, running);
    }
    await running;
  }

  /** The samples catalog: a READ_ONLY database holding its schemas, and one EXTERNAL Delta record per table. */
  private async createSamples(): Promise<void> {
    const { c, engine } = this.ctx;
    // The file is made under a private alias first: attaching it as `samples`, detaching and attaching it
    // again READ_ONLY raced the engine view's reads of the catalog (DuckDB then refuses the second attach
    // while the first is still being detached).
    const prepare = async (file: string) => {
      const alias = ident(`__ml_init_${SAMPLES_CATALOG}`);
      await engine.run(`ATTACH ${literal(file)} AS ${alias} (STORAGE_VERSION 'v1.5.0')`);
      try {
        for (const schema of Object.keys(SAMPLE_SCHEMAS))
          await engine.run(`CREATE SCHEMA IF NOT EXISTS ${alias}.${ident(schema)}`);
      } finally {
        await engine.run(`DETACH DATABASE IF EXISTS ${alias}`);
      }
    };
    await this.o.createCatalog(
      SAMPLES_CATALOG,
      {
        builtin: true,
        comment: 'Sample datasets provided by MiniLake, generated as Databricks ships them (read-only)',
        owner: SYSTEM_USER,
      },
      { readOnly: { prepare } },
    );
    for (const [schema, comment] of Object.entries(SAMPLE_SCHEMAS))
      c.schemas.set(`${SAMPLES_CATALOG}.${schema}`, {
        schema_id: uuid(),
        catalog_name: SAMPLES_CATALOG,
        name: schema,
        comment,
        properties: {},
        ...this.ctx.audit(),
        owner: SYSTEM_USER,
      });
    for (const t of SAMPLE_TABLES)
      c.tables.set(`${SAMPLES_CATALOG}.${t.schema}.${t.name}`, this.tableRecord(t));
    engine.notifyChange({ catalog: SAMPLES_CATALOG });
  }

  private tableRecord(t: SampleTable): TableRecord {
    const dir = path.join(this.o.samplesDir!, t.schema, t.name);
    return {
      table_id: uuid(),
      catalog_name: SAMPLES_CATALOG,
      schema_name: t.schema,
      name: t.name,
      table_type: 'EXTERNAL',
      data_source_format: 'DELTA',
      storage_location: `file://${dir}`,
      comment: t.comment,
      properties: {},
      metadata_only: true,
      columns: t.columns.map((col, i) =>
        columnOut(col.name, sampleType(col.type), i, true, undefined, undefined),
      ),
      ...this.ctx.audit(),
      owner: SYSTEM_USER,
    };
  }
}
