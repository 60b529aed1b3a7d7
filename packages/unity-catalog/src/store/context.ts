/**
 * What every part of the Unity Catalog store shares: the collections (the only state), the engine, the
 * clock and the caller, plus the few operations that cross securables (name lookups, moving or dropping
 * every record under a name after a rename or a cascading delete). No Hono or HTTP types here.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { uuid, type Clock, type Collection } from '@minilake/core';
import { ident, type DuckDbEngine } from '@minilake/engine-duckdb';
import type { TableFormats } from '@minilake/tables';
import { catalogNotFound } from '../errors.js';
import type { ExternalSecurables } from './external.js';
import { checkName, splitFullName } from '../names.js';
import type {
  Audit,
  CatalogRecord,
  FunctionRecord,
  SchemaRecord,
  TableRecord,
  VolumeRecord,
} from './records.js';

export interface UcCollections {
  catalogs: Collection<CatalogRecord>;
  schemas: Collection<SchemaRecord>;
  tables: Collection<TableRecord>;
  volumes: Collection<VolumeRecord>;
  functions: Collection<FunctionRecord>;
  /** `<type>/<full name>` to principal to privileges. */
  grants: Collection<Record<string, string[]>>;
  /** `metastore` (its id), and `workspace` once the built-in catalogs were first made (builtin.ts). */
  meta: Collection<{ metastore_id?: string; created_at: number }>;
  /** Staging tables by id: a MANAGED Delta folder handed out before its table is created (Spark, UC OSS). */
  staging: Collection<StagingRecord>;
}

export interface StagingRecord {
  id: string;
  catalog_name: string;
  schema_name: string;
  name: string;
  staging_location: string;
  created_at: number;
}

export interface UcContextOptions {
  collections: UcCollections;
  engine: DuckDbEngine;
  /** Where tables' data lives and how it is read and written (@minilake/tables). */
  formats: TableFormats;
  clock: Clock;
  user: string;
  /**
   * Who acts right now (the request's principal, MINILAKE_AUTH=tokens): a securable's creator becomes its
   * owner, as on Databricks. Without it every change is the configured user's.
   */
  actor?: () => string;
  /** Where managed volumes keep their files (the service's `volumes` folder). */
  volumesDir: string;
  /** The whole data dir, which external locations must stay outside of. */
  dataDir: string;
  workspaceId: string;
  /**
   * Where MANAGED Delta tables keep their folders (`<dir>/__unitystorage/schemas/<schema id>/tables/<table
   * id>`, Databricks' layout under a storage root); unset: MANAGED tables are DuckDB tables only.
   */
  managedDeltaDir?: string;
  /**
   * Where a declarative pipeline's MATERIALIZED_VIEW and STREAMING_TABLE datasets keep their Delta folders
   * (same layout); they are Delta whatever MANAGED tables are, since Spark writes them.
   */
  datasetsDir?: string;
  /**
   * Whether a MANAGED table created without saying more (SQL without USING, the Tables API) is a Delta
   * folder (MINILAKE_MANAGED_FORMAT=delta) rather than a DuckDB table. Spark's MANAGED tables are Delta
   * either way: they come through a staging table.
   */
  managedDeltaDefault?: boolean;
}

export class UcContext {
  readonly c: UcCollections;
  readonly engine: DuckDbEngine;
  readonly formats: TableFormats;
  readonly clock: Clock;
  readonly user: string;
  private readonly actorOf: (() => string) | undefined;
  readonly dataDir: string;
  readonly volumesRoot: string;
  readonly workspaceId: string;
  /** See UcContextOptions.managedDeltaDir. */
  readonly managedDeltaDir: string | undefined;
  /** See UcContextOptions.datasetsDir. */
  readonly datasetsDir: string | undefined;
  readonly managedDeltaDefault: boolean;
  /** Names being created right now (two concurrent creates of one name: the second is refused). */
  readonly creating = new Set<string>();
  /** How many of this API's own multi-step changes are under way (the engine view then drops no records). */
  busy = 0;
  /** Securables other services keep under schemas (see ExternalSecurables). */
  readonly external: ExternalSecurables[] = [];

  constructor(o: UcContextOptions) {
    this.c = o.collections;
    this.engine = o.engine;
    this.formats = o.formats;
    this.clock = o.clock;
    this.user = o.user;
    this.actorOf = o.actor;
    this.dataDir = o.dataDir;
    this.volumesRoot = o.volumesDir;
    this.workspaceId = o.workspaceId;
    this.managedDeltaDir = o.managedDeltaDir;
    this.datasetsDir = o.datasetsDir;
    this.managedDeltaDefault = o.managedDeltaDefault ?? false;
  }

  /** The folder of a MANAGED Delta table (ids, not names: a rename moves no file, as on Databricks). */
  managedTableDir(schemaId: string | undefined, tableId: string, root = this.managedDeltaDir): string {
    if (!root) throw new Error('MANAGED Delta tables are not enabled');
    // A schema the engine made (no record, so no id yet) gets the metastore-level layout.
    return schemaId
      ? path.join(root, '__unitystorage', 'schemas', schemaId, 'tables', tableId)
      : path.join(root, this.metastoreId, 'tables', tableId);
  }

  /**
   * Deletes the folders of the MANAGED Delta tables recorded under a name prefix (`cat.` or `cat.sch.`):
   * a cascading drop removes their data as Databricks does for managed tables.
   */
  async dropManagedData(prefix: string, schemaId?: string): Promise<void> {
    const roots = [this.managedDeltaDir, this.datasetsDir].filter((r): r is string => r !== undefined);
    for (const root of new Set(roots)) {
      if (schemaId)
        await rm(path.join(root, '__unitystorage', 'schemas', schemaId), { recursive: true, force: true });
      for (const [k, r] of this.c.tables.entries()) {
        const owned =
          r.table_type === 'MANAGED' ||
          r.table_type === 'MATERIALIZED_VIEW' ||
          r.table_type === 'STREAMING_TABLE';
        if (!k.startsWith(prefix) || !owned || !r.metadata_only) continue;
        const dir = r.storage_location?.startsWith('file://') ? r.storage_location.slice(7) : undefined;
        // Only a folder inside a managed root is ever removed.
        if (dir && dir.startsWith(root + path.sep)) await rm(dir, { recursive: true, force: true });
      }
    }
  }

  /** Runs one of this API's own changes; the engine view waits for it before dropping records. */
  async mutating<T>(fn: () => Promise<T>): Promise<T> {
    this.busy++;
    try {
      return await fn();
    } finally {
      this.busy--;
    }
  }

  /** Who makes the change being made: the request's principal, else the configured user. */
  get actor(): string {
    return this.actorOf?.() ?? this.user;
  }

  audit(): Audit {
    const now = this.clock.now();
    const who = this.actor;
    return {
      owner: who,
      created_at: now,
      created_by: who,
      updated_at: now,
      updated_by: who,
    };
  }

  /** The audit fields of a change, for `Collection.update`. */
  touch<T extends Audit>(r: T): T {
    r.updated_at = this.clock.now();
    r.updated_by = this.actor;
    return r;
  }

  /** The metastore record: created when the store opens (or is reset), so reads never create it. */
  ensureMetastore(): void {
    if (!this.c.meta.has('metastore'))
      this.c.meta.set('metastore', { metastore_id: uuid(), created_at: this.clock.now() });
  }

  get metastoreId(): string {
    return this.c.meta.get('metastore')!.metastore_id!;
  }

  catalogRecord(name: string): CatalogRecord {
    const n = checkName('catalog', name);
    const r = this.c.catalogs.get(n);
    if (!r) throw catalogNotFound(name);
    return r;
  }

  /** The records of a collection under a name prefix (`cat.sch.`), in key order: what a list call returns. */
  recordsUnder<T>(coll: Collection<T>, prefix: string): T[] {
    return [...coll.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, r]) => r);
  }

  /**
   * A record of a securable inside a schema (volume, function) by `catalog.schema.name`; a missing catalog
   * is reported as such before the object's own not-found error.
   */
  objectRecord<T>(coll: Collection<T>, fullName: string, what: string, notFound: (full: string) => Error): T {
    const [c, s, n] = splitFullName(fullName, 3, what) as [string, string, string];
    const r = coll.get(`${c}.${s}.${n}`);
    if (!r) {
      this.catalogRecord(c);
      throw notFound(`${c}.${s}.${n}`);
    }
    return r;
  }

  /** The quoted engine alias of a catalog. */
  alias(catalog: string): string {
    return ident(this.engine.alias(catalog));
  }

  async moveDir(from: string, to: string): Promise<void> {
    await mkdir(path.dirname(to), { recursive: true });
    await rename(from, to).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }

  private get named(): Collection<{
    catalog_name: string;
    schema_name?: string;
    info?: Record<string, unknown>;
  }>[] {
    return [this.c.schemas, this.c.tables, this.c.volumes, this.c.functions] as never;
  }

  /**
   * Moves every record under a name prefix (after a rename) to its new key, fixing the record's own fields
   * with `fix`; each moved record is written once, in its final form.
   */
  rekey(
    oldPrefix: string,
    newPrefix: string,
    fix: <T extends { catalog_name: string; schema_name?: string }>(x: T) => T,
  ): void {
    for (const coll of this.named) {
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
    for (const x of this.external) x.rekeyUnder(oldPrefix, newPrefix);
  }

  rekeyGrants(oldFull: string, newFull: string): void {
    const grants = this.c.grants;
    for (const [k, v] of Array.from(grants.entries())) {
      const slash = k.indexOf('/');
      const full = k.slice(slash + 1);
      if (full === oldFull || full.startsWith(`${oldFull}.`)) {
        grants.delete(k);
        grants.set(`${k.slice(0, slash)}/${newFull}${full.slice(oldFull.length)}`, v);
      }
    }
  }

  dropRecordsUnder(prefix: string, exact: string): void {
    for (const coll of this.named) {
      for (const k of Array.from(coll.keys())) if (k.startsWith(prefix)) coll.delete(k);
    }
    for (const x of this.external) x.dropUnder(prefix);
    for (const k of Array.from(this.c.grants.keys())) {
      const full = k.slice(k.indexOf('/') + 1);
      if (full === exact || full.startsWith(prefix)) this.c.grants.delete(k);
    }
  }
}
