/** Schemas: DuckDB schemas inside their catalog's database, with the metadata DuckDB cannot hold. */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { invalidParameter, uuid } from '@minilake/core';
import { ident } from '@minilake/engine-duckdb';
import { engineRejected, notEmpty, schemaExists, schemaNotFound } from '../errors.js';
import { checkName, splitFullName } from '../names.js';
import type { Catalogs } from './catalogs.js';
import type { UcContext } from './context.js';
import type { EngineView } from './engine-view.js';
import {
  HIDDEN_SCHEMAS,
  applyPatch,
  clean,
  propertiesOut,
  type Props,
  type SchemaRecord,
} from './records.js';

export interface ResolvedSchema {
  catalog: string;
  schema: string;
  /** The engine's spelling of the schema. */
  engineName: string;
}

export class Schemas {
  constructor(
    private readonly ctx: UcContext,
    private readonly view: EngineView,
    private readonly catalogs: Catalogs,
  ) {}

  /**
   * Like Databricks: no `properties` when there are none, predictive optimization INHERIT unless set,
   * the root as given and the managed location derived from it (metadata only here).
   */
  out(r: SchemaRecord) {
    return clean({
      name: r.name,
      catalog_name: r.catalog_name,
      full_name: `${r.catalog_name}.${r.name}`,
      schema_id: r.schema_id,
      comment: r.comment,
      properties: propertiesOut(r.properties),
      owner: r.owner,
      storage_root: r.storage_root,
      storage_location: r.storage_root
        ? `${r.storage_root.replace(/\/+$/, '')}/__unitystorage/schemas/${r.schema_id}`
        : undefined,
      metastore_id: this.ctx.metastoreId,
      catalog_type: 'MANAGED_CATALOG',
      securable_type: 'SCHEMA',
      enable_predictive_optimization: r.enable_predictive_optimization ?? 'INHERIT',
      browse_only: false,
      created_at: r.created_at,
      created_by: r.created_by,
      updated_at: r.updated_at,
      updated_by: r.updated_by,
    });
  }

  /**
   * The record of a schema the engine holds. The engine view adopts every schema it sees, so a record is
   * there; should a change not have been notified, the answer is built without storing anything.
   */
  private record(catalog: string, schema: string): SchemaRecord {
    return (
      this.ctx.c.schemas.get(`${catalog}.${schema}`) ?? {
        schema_id: uuid(),
        catalog_name: catalog,
        name: schema,
        properties: {},
        ...this.ctx.audit(),
      }
    );
  }

  /** Resolves `catalog.schema` against the engine; returns the names and the engine spelling. */
  async resolve(catalog: string, schema: string): Promise<ResolvedSchema> {
    const c = this.ctx.catalogRecord(catalog).name;
    const s = checkName('schema', schema);
    await this.view.settled();
    const engineName = await this.view.engineSchema(c, s);
    if (
      engineName === undefined ||
      (engineName === 'main' && !(await this.view.engineSchemas(c)).includes('main'))
    )
      throw schemaNotFound(`${c}.${s}`);
    return { catalog: c, schema: s, engineName };
  }

  async create(input: {
    catalog_name: string;
    name: string;
    comment?: string | null;
    properties?: Props | null;
    storage_root?: string | null;
  }) {
    const c = this.ctx.catalogRecord(input.catalog_name).name;
    const s = checkName('schema', input.name, {
      call: 'CreateSchema',
      field: 'managedcatalog.SchemaInfo.name',
    });
    if (HIDDEN_SCHEMAS.has(s)) throw invalidParameter(`Schema name '${s}' is reserved.`);
    const lock = `schema:${c}.${s}`;
    const { creating, engine } = this.ctx;
    if (creating.has(lock)) throw schemaExists(`${c}.${s}`);
    creating.add(lock);
    try {
      await this.view.settled();
      const existing = await this.view.engineSchema(c, s);
      if (
        existing !== undefined &&
        (existing !== 'main' || (await this.view.engineSchemas(c)).includes('main'))
      )
        throw schemaExists(`${c}.${s}`);
      return await this.ctx.mutating(async () => {
        await engine.runRetryingConflicts(`CREATE SCHEMA IF NOT EXISTS ${this.ctx.alias(c)}.${ident(s)}`);
        const r = this.ctx.c.schemas.set(`${c}.${s}`, {
          schema_id: uuid(),
          catalog_name: c,
          name: s,
          ...(input.comment ? { comment: input.comment } : {}),
          properties: input.properties ?? {},
          ...(input.storage_root ? { storage_root: input.storage_root } : {}),
          ...this.ctx.audit(),
        });
        engine.notifyChange({ catalog: c, schema: s });
        return this.out(r);
      });
    } finally {
      creating.delete(lock);
    }
  }

  async get(fullName: string) {
    const [c, s] = splitFullName(fullName, 2, 'schema') as [string, string];
    const r = await this.resolve(c, s);
    return this.out(this.record(r.catalog, r.schema));
  }

  async list(catalog: string) {
    const c = this.ctx.catalogRecord(catalog).name;
    await this.view.settled();
    const names = (await this.view.engineSchemas(c)).map((n) => n.toLowerCase());
    return names.sort().map((s) => this.out(this.record(c, s)));
  }

  async update(
    fullName: string,
    u: {
      new_name?: string | null;
      comment?: string | null;
      properties?: Props | null;
      owner?: string | null;
      enable_predictive_optimization?: string | null;
      properties_to_remove?: string[];
    },
  ) {
    const [c0, s0] = splitFullName(fullName, 2, 'schema') as [string, string];
    const res = await this.resolve(c0, s0);
    let key = `${res.catalog}.${res.schema}`;
    if (!this.ctx.c.schemas.has(key)) this.ctx.c.schemas.set(key, this.record(res.catalog, res.schema));
    if (u.new_name && checkName('schema', u.new_name) !== res.schema) {
      const newName = checkName('schema', u.new_name);
      await this.ctx.mutating(() => this.rename(res, newName));
      key = `${res.catalog}.${newName}`;
    }
    const r = this.ctx.c.schemas.update(key, (x) => {
      applyPatch(x, u);
      this.ctx.touch(x);
    })!;
    return this.out(r);
  }

  /** DuckDB has no ALTER SCHEMA RENAME: tables are copied into the new schema, then the old one dropped. */
  private async rename(res: ResolvedSchema, newName: string): Promise<void> {
    const { catalog, schema: old, engineName } = res;
    const { c, engine, volumesRoot } = this.ctx;
    if ((await this.view.engineSchema(catalog, newName)) !== undefined)
      throw schemaExists(`${catalog}.${newName}`);
    const objects = await this.view.engineObjects(catalog, engineName);
    const funcs = [...c.functions.keys()].filter((k) => k.startsWith(`${catalog}.${old}.`));
    if (objects.some((o) => o.kind === 'VIEW') || funcs.length > 0)
      throw invalidParameter(
        `Schema '${catalog}.${old}' holds views or functions; MiniLake can only rename schemas that hold tables and volumes.`,
      );
    const a = this.ctx.alias(catalog);
    const to = `${a}.${ident(newName)}`;
    await engine.withConnection(async (conn) => {
      await conn.run('BEGIN TRANSACTION');
      try {
        await conn.run(`CREATE SCHEMA ${to}`);
        for (const o of objects)
          await conn.run(
            `CREATE TABLE ${to}.${ident(o.name)} AS SELECT * FROM ${a}.${ident(engineName)}.${ident(o.name)}`,
          );
        await conn.run(`DROP SCHEMA ${a}.${ident(engineName)} CASCADE`);
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK').catch(() => undefined);
        throw engineRejected('Renaming the schema failed', e);
      }
    });
    await this.ctx.moveDir(path.join(volumesRoot, catalog, old), path.join(volumesRoot, catalog, newName));
    const r = c.schemas.get(`${catalog}.${old}`)!;
    c.schemas.delete(`${catalog}.${old}`);
    c.schemas.set(`${catalog}.${newName}`, { ...r, name: newName });
    // Each moved record is written once, in its final form: a managed volume's storage_location follows
    // the folder it was moved to (and so survives a crash right after the rename).
    this.ctx.rekey(`${catalog}.${old}.`, `${catalog}.${newName}.`, (x) => {
      const moved = { ...x, schema_name: newName } as typeof x & {
        volume_type?: string;
        storage_location?: string;
        name?: string;
      };
      if (moved.volume_type === 'MANAGED' && moved.name)
        moved.storage_location = `file://${path.join(volumesRoot, catalog, newName, moved.name)}`;
      return moved;
    });
    this.ctx.rekeyGrants(`${catalog}.${old}`, `${catalog}.${newName}`);
    engine.notifyChange({ catalog });
  }

  async delete(fullName: string, force: boolean): Promise<void> {
    const [c0, s0] = splitFullName(fullName, 2, 'schema') as [string, string];
    const { catalog, schema, engineName } = await this.resolve(c0, s0);
    if (!force) {
      const n = await this.catalogs.countObjects(catalog, engineName);
      if (n > 0)
        throw notEmpty(
          'Schema',
          `${catalog}.${schema}`,
          `It holds ${n} table(s), view(s), volume(s) or function(s).`,
        );
    }
    const { engine, c, volumesRoot } = this.ctx;
    await this.ctx.mutating(async () => {
      const a = this.ctx.alias(catalog);
      if (engineName === 'main') {
        // DuckDB's built-in schema cannot be dropped: empty it instead.
        for (const o of await this.view.engineObjects(catalog, 'main'))
          await engine.runRetryingConflicts(
            `DROP ${o.kind === 'VIEW' ? 'VIEW' : 'TABLE'} IF EXISTS ${a}.${ident('main')}.${ident(o.name)} CASCADE`,
          );
      } else {
        await engine.runRetryingConflicts(`DROP SCHEMA IF EXISTS ${a}.${ident(engineName)} CASCADE`);
      }
      await rm(path.join(volumesRoot, catalog, schema), { recursive: true, force: true });
      await this.ctx.dropManagedData(
        `${catalog}.${schema}.`,
        c.schemas.get(`${catalog}.${schema}`)?.schema_id,
      );
      c.schemas.delete(`${catalog}.${schema}`);
      this.ctx.dropRecordsUnder(`${catalog}.${schema}.`, `${catalog}.${schema}`);
      engine.notifyChange({ catalog });
    });
  }
}
