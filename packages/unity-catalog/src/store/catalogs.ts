/** The metastore and its catalogs. Every catalog is one DuckDB database file, attached under an alias. */
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { invalidParameter, Mutex, uuid } from '@minilake/core';
import { ident } from '@minilake/engine-duckdb';
import { catalogExists, metastoreNotFound, notEmpty } from '../errors.js';
import { checkName } from '../names.js';
import type { UcContext } from './context.js';
import { builtinCatalogFields } from './builtin.js';
import type { EngineView } from './engine-view.js';
import {
  RESERVED_CATALOGS,
  applyPatch,
  clean,
  propertiesOut,
  type CatalogRecord,
  type Props,
} from './records.js';

export class Catalogs {
  /**
   * Serializes what attaches or detaches a catalog's database (create, rename, delete). Two of them on one
   * name at once (a delete racing a delete or a create) detached and removed the same files together, and
   * DuckDB aborted the process.
   */
  private readonly attachments = new Mutex();

  constructor(
    private readonly ctx: UcContext,
    private readonly view: EngineView,
  ) {}

  // ---- metastore ----------------------------------------------------------------------------------------

  metastoreInfo(): Record<string, unknown> {
    const m = this.ctx.c.meta.get('metastore')!;
    const user = this.ctx.user;
    return {
      metastore_id: m.metastore_id,
      name: 'minilake',
      default_data_access_config_id: '',
      storage_root: `file://${this.ctx.volumesRoot}`,
      owner: user,
      region: 'local',
      cloud: 'local',
      global_metastore_id: `local:local:${m.metastore_id}`,
      privilege_model_version: '1.0',
      delta_sharing_scope: 'INTERNAL',
      created_at: m.created_at,
      created_by: user,
      updated_at: m.created_at,
      updated_by: user,
    };
  }

  getMetastore(id: string) {
    if (id !== this.ctx.metastoreId) throw metastoreNotFound(id);
    return this.metastoreInfo();
  }

  currentAssignment() {
    return {
      metastore_id: this.ctx.metastoreId,
      workspace_id: Number(this.ctx.workspaceId),
      default_catalog_name: 'main',
    };
  }

  // ---- catalogs -----------------------------------------------------------------------------------------

  /**
   * Like Databricks' answers: no `properties` when there are none, predictive optimization INHERIT unless
   * set, and no `provisioning_info` (Databricks sends it for its system catalogs only).
   */
  out(r: CatalogRecord) {
    return clean({
      name: r.name,
      full_name: r.name,
      id: r.id,
      comment: r.comment,
      properties: propertiesOut(r.properties),
      owner: r.owner,
      storage_root: r.storage_root,
      metastore_id: this.ctx.metastoreId,
      catalog_type: 'MANAGED_CATALOG',
      securable_type: 'CATALOG',
      securable_kind: 'CATALOG_STANDARD',
      ...builtinCatalogFields(r),
      isolation_mode: r.isolation_mode,
      enable_predictive_optimization: r.enable_predictive_optimization ?? 'INHERIT',
      browse_only: false,
      created_at: r.created_at,
      created_by: r.created_by,
      updated_at: r.updated_at,
      updated_by: r.updated_by,
    });
  }

  async create(input: {
    name: string;
    comment?: string | null;
    properties?: Props | null;
    storage_root?: string | null;
  }) {
    const name = checkName('catalog', input.name);
    if (RESERVED_CATALOGS.has(name) || name.startsWith('__databricks'))
      throw invalidParameter(`Catalog name '${name}' is reserved.`);
    const { c, creating } = this.ctx;
    if (c.catalogs.has(name) || creating.has(name)) throw catalogExists(name);
    creating.add(name);
    try {
      return await this.attachments.run(() => this.ctx.mutating(() => this.createLocked(name, input)));
    } finally {
      creating.delete(name);
    }
  }

  /**
   * A catalog the workspace provides (main, hive_metastore, samples: builtin.ts), past the reserved-name
   * check; `extra` fields go into its record. `readOnly`: the database file, made beforehand by `prepare`
   * (under an alias of its own, never this catalog's), is attached READ_ONLY and gets no default schema.
   */
  async createBuiltin(
    name: string,
    extra: Partial<CatalogRecord>,
    o: { readOnly?: { prepare: (file: string) => Promise<void> } } = {},
  ): Promise<void> {
    await this.attachments.run(() =>
      this.ctx.mutating(async () => {
        if (this.ctx.c.catalogs.has(name)) return;
        await this.createLocked(name, { comment: extra.comment ?? null }, o.readOnly);
        this.ctx.c.catalogs.update(name, (r) => Object.assign(r, extra));
      }),
    );
  }

  private async createLocked(
    name: string,
    input: { comment?: string | null; properties?: Props | null; storage_root?: string | null },
    readOnly?: { prepare: (file: string) => Promise<void> },
  ) {
    const { engine, c } = this.ctx;
    // A leftover file (from a run without persistence) must not leak old tables into a new catalog.
    await engine.detachCatalog(name, { deleteFile: true });
    if (readOnly) {
      await readOnly.prepare(engine.catalogFile(name));
      await engine.attachCatalog(name, { readOnly: true });
    } else {
      await engine.attachCatalog(name);
      await engine.run(`CREATE SCHEMA IF NOT EXISTS ${this.ctx.alias(name)}.${ident('default')}`);
    }
    const r = c.catalogs.set(
      name,
      clean({
        id: uuid(),
        name,
        comment: input.comment ?? undefined,
        properties: input.properties ?? {},
        storage_root: input.storage_root ?? undefined,
        isolation_mode: 'OPEN',
        ...this.ctx.audit(),
      }),
    );
    if (readOnly) {
      engine.notifyChange({ catalog: name });
      return this.out(r);
    }
    c.schemas.set(`${name}.default`, {
      schema_id: uuid(),
      catalog_name: name,
      name: 'default',
      comment: 'Default schema (auto-created)',
      properties: {},
      ...this.ctx.audit(),
    });
    engine.notifyChange({ catalog: name, schema: 'default' });
    return this.out(r);
  }

  get(name: string) {
    return this.out(this.ctx.catalogRecord(name));
  }

  list() {
    return [...this.ctx.c.catalogs.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((r) => this.out(r));
  }

  async update(
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
    let r = this.ctx.catalogRecord(name);
    if (u.new_name && checkName('catalog', u.new_name) !== r.name)
      r = await this.attachments.run(() =>
        // The record again, under the lock: a delete may have come first.
        this.ctx.mutating(() => this.rename(this.ctx.catalogRecord(name), checkName('catalog', u.new_name!))),
      );
    const changed = this.ctx.c.catalogs.update(r.name, (x) => {
      applyPatch(x, u);
      if (u.isolation_mode) x.isolation_mode = u.isolation_mode;
      this.ctx.touch(x);
    })!;
    return this.out(changed);
  }

  private async rename(r: CatalogRecord, newName: string): Promise<CatalogRecord> {
    if (RESERVED_CATALOGS.has(newName) || newName.startsWith('__databricks'))
      throw invalidParameter(`Catalog name '${newName}' is reserved.`);
    const { c, engine, volumesRoot } = this.ctx;
    if (c.catalogs.has(newName)) throw catalogExists(newName);
    const old = r.name;
    await engine.detachCatalog(old);
    await engine.detachCatalog(newName, { deleteFile: true });
    const from = engine.catalogFile(old);
    const to = engine.catalogFile(newName);
    await rename(from, to);
    await rename(`${from}.wal`, `${to}.wal`).catch(() => undefined);
    await engine.attachCatalog(newName);
    await this.ctx.moveDir(path.join(volumesRoot, old), path.join(volumesRoot, newName));
    c.catalogs.delete(old);
    const moved = c.catalogs.set(newName, { ...r, name: newName });
    this.ctx.rekey(`${old}.`, `${newName}.`, (x) => ({ ...x, catalog_name: newName }));
    // Managed volumes follow their catalog's folder.
    for (const [k, v] of Array.from(c.volumes.entries()))
      if (v.catalog_name === newName && v.volume_type === 'MANAGED')
        c.volumes.update(k, (x) => {
          x.storage_location = `file://${path.join(volumesRoot, newName, x.schema_name, x.name)}`;
        });
    this.ctx.rekeyGrants(old, newName);
    this.view.forget(old);
    engine.notifyChange({ catalog: newName });
    return moved;
  }

  async delete(name: string, force: boolean): Promise<void> {
    const r = this.ctx.catalogRecord(name);
    await this.view.settled();
    if (!force) {
      const schemas = await this.view.engineSchemas(r.name);
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
    await this.attachments.run(() =>
      this.ctx.mutating(async () => {
        this.ctx.catalogRecord(r.name); // still there: a concurrent delete may have come first (404)
        await this.ctx.engine.detachCatalog(r.name, { deleteFile: true });
        await rm(path.join(this.ctx.volumesRoot, r.name), { recursive: true, force: true });
        await this.ctx.dropManagedData(`${r.name}.`);
        this.ctx.c.catalogs.delete(r.name);
        this.ctx.dropRecordsUnder(`${r.name}.`, r.name);
        this.view.forget(r.name);
      }),
    );
  }

  /** Tables, views, functions and volumes in one schema (what a non-forced delete refuses to drop). */
  async countObjects(catalog: string, engineSchema: string): Promise<number> {
    const { engine, c } = this.ctx;
    const rows = await engine.all(
      `SELECT count(*) AS n FROM duckdb_functions()
        WHERE database_name = $db AND schema_name = $s AND function_type IN ('macro', 'table_macro')`,
      { db: engine.alias(catalog), s: engineSchema },
    );
    const macros = Number(rows[0]?.n ?? 0);
    const objects = (await this.view.engineObjects(catalog, engineSchema)).length;
    const prefix = `${catalog}.${engineSchema.toLowerCase()}.`;
    let extra = 0;
    for (const k of c.volumes.keys()) if (k.startsWith(prefix)) extra++;
    for (const [k, t] of c.tables.entries()) if (k.startsWith(prefix) && t.metadata_only) extra++;
    return macros + objects + extra;
  }
}
