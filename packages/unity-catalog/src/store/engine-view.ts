/**
 * The Unity Catalog's view of the engine. The engine is the physical truth for schemas, tables and views;
 * this view keeps one snapshot per catalog of what DuckDB holds (its introspection costs tens of
 * milliseconds on a catalog with thousands of tables) and keeps the records in step with it.
 *
 * Reads never write: a get or list awaits `settled()` and then only reads. Records follow the engine in the
 * change path instead: the engine tells its listeners about every change (`onChange`), and the view then
 * adopts objects created through SQL (a record with a stable id) and drops records of objects dropped
 * through SQL. Changes this API describes itself (one table, one schema) refresh just those objects, so
 * creating N tables costs O(N), not O(N^2).
 */
import { uuid, type Logger } from '@minilake/core';
import { ident, literal, type CatalogChange } from '@minilake/engine-duckdb';
import type { UcContext } from './context.js';
import { HIDDEN_SCHEMAS, engineColumnOut, type ColumnOut, type EngineColumn } from './records.js';

export interface EngineObject {
  schema: string; // engine spelling
  name: string; // engine spelling
  kind: 'TABLE' | 'VIEW';
  comment: string | null;
  sql: string | null;
}

export interface SchemaSnapshot {
  engineName: string;
  /** Bumped whenever a described change patches this schema's objects. */
  rev?: number;
  objects: Map<string, { object: EngineObject; columns: EngineColumn[] }>;
}

export interface CatalogSnapshot {
  schemas: Map<string, SchemaSnapshot>;
}

export class EngineView {
  private readonly snapshots = new Map<string, { epoch: number; promise: Promise<CatalogSnapshot> }>();
  private readonly columnCache = new WeakMap<EngineColumn[], { key: string; out: ColumnOut[] }>();
  private queue: Promise<void> = Promise.resolve();
  private pending: (CatalogChange | undefined)[] | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly ctx: UcContext,
    private readonly logger: Logger,
  ) {}

  /** Starts following the engine's changes, and brings every record in step once (after a restart). */
  start(): void {
    this.unsubscribe ??= this.ctx.engine.onChange((change) => this.changed(change));
    this.changed(undefined);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Resolves once the records reflect every change notified so far. Reads await it, then only read. */
  settled(): Promise<void> {
    return this.queue;
  }

  private changed(change: CatalogChange | undefined): void {
    if (this.pending) {
      this.pending.push(change); // coalesced into the reconcile that has not started yet
      return;
    }
    this.pending = [change];
    this.queue = this.queue.then(async () => {
      const changes = this.pending ?? [];
      this.pending = undefined;
      try {
        await this.reconcile(changes);
      } catch (e) {
        this.logger.warn('bringing Unity Catalog records in step with the engine failed', {
          error: String(e),
        });
      }
    });
  }

  // ---- snapshots ----------------------------------------------------------------------------------------

  /**
   * The engine's catalog as of the current epoch: a memo of the engine, rebuilt (or patched, for changes
   * described by this API) when the epoch moved.
   */
  snapshot(catalog: string): Promise<CatalogSnapshot> {
    const engine = this.ctx.engine;
    const epoch = engine.catalogEpoch;
    const cached = this.snapshots.get(catalog);
    if (cached && cached.epoch === epoch) return cached.promise;
    const changes = cached ? engine.changesSince(cached.epoch) : undefined;
    let promise: Promise<CatalogSnapshot>;
    if (cached && changes && changes.every((ch) => ch.catalog !== catalog || ch.schema !== undefined)) {
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

  forget(catalog: string): void {
    this.snapshots.delete(catalog);
  }

  /** Brings a snapshot up to date for described changes, re-reading only the objects they name. */
  private async patchSnapshot(
    catalog: string,
    snap: CatalogSnapshot,
    changes: CatalogChange[],
  ): Promise<CatalogSnapshot> {
    const engine = this.ctx.engine;
    const db = engine.alias(catalog);
    const seen = new Map<string, CatalogChange>();
    for (const ch of changes)
      seen.set(`${ch.schema!.toLowerCase()}\u0000${ch.name?.toLowerCase() ?? ''}`, ch);
    for (const ch of seen.values()) {
      const schema = ch.schema!;
      const skey = schema.toLowerCase();
      if (ch.name === undefined) {
        const rows = await engine.all(
          `SELECT schema_name FROM duckdb_schemas() WHERE database_name = $db AND schema_name = $s AND NOT internal`,
          { db, s: schema },
        );
        if (rows.length === 0) snap.schemas.delete(skey);
        else if (!snap.schemas.has(skey) && !HIDDEN_SCHEMAS.has(skey))
          snap.schemas.set(skey, { engineName: String(rows[0]!.schema_name), objects: new Map() });
        continue;
      }
      const sch = snap.schemas.get(skey);
      if (!sch) return this.buildSnapshot(catalog);
      const ref = `${ident(db)}.${ident(sch.engineName)}.${ident(ch.name)}`;
      let rows: Record<string, unknown>[];
      try {
        // pragma_table_info looks the one table up; duckdb_columns() would walk the whole catalog.
        rows = await engine.all(
          `SELECT cid, name, type, "notnull" FROM pragma_table_info(${literal(ref)}) ORDER BY cid`,
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
    return (await this.buildSnapshots([catalog])).get(catalog)!;
  }

  /**
   * Snapshots of several catalogs from one pass over DuckDB's introspection functions (which walk every
   * attached database whatever the filter): after a change nobody described, refreshing every catalog
   * costs one pass, not one per catalog.
   */
  private async buildSnapshots(catalogs: string[]): Promise<Map<string, CatalogSnapshot>> {
    const engine = this.ctx.engine;
    const byAlias = new Map<string, CatalogSnapshot>();
    const out = new Map<string, CatalogSnapshot>();
    for (const c of catalogs) {
      const snap: CatalogSnapshot = { schemas: new Map() };
      byAlias.set(engine.alias(c), snap);
      out.set(c, snap);
    }
    const dbs = [...byAlias.keys()];
    const filter = `database_name IN (${dbs.map(literal).join(', ')})`;
    const [schemaRows, viewRows, columnRows] = await Promise.all([
      engine.all(`SELECT database_name, schema_name FROM duckdb_schemas() WHERE ${filter} AND NOT internal`),
      engine.all(
        `SELECT database_name, schema_name, view_name, comment, sql FROM duckdb_views() WHERE ${filter} AND NOT internal`,
      ),
      engine.all(
        `SELECT database_name, schema_name, table_name, column_name, data_type, column_index, is_nullable, comment
           FROM duckdb_columns() WHERE ${filter} ORDER BY database_name, schema_name, table_name, column_index`,
      ),
    ]);
    for (const r of schemaRows) {
      const snap = byAlias.get(String(r.database_name));
      const name = String(r.schema_name);
      if (!snap || HIDDEN_SCHEMAS.has(name.toLowerCase())) continue;
      snap.schemas.set(name.toLowerCase(), { engineName: name, objects: new Map() });
    }
    for (const r of viewRows) {
      const sch = byAlias.get(String(r.database_name))?.schemas.get(String(r.schema_name).toLowerCase());
      if (!sch) continue;
      const name = String(r.view_name);
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
      const sch = byAlias.get(String(r.database_name))?.schemas.get(String(r.schema_name).toLowerCase());
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
      const { database_name: _db, ...col } = r;
      obj.columns.push(col as unknown as EngineColumn);
    }
    return out;
  }

  /** Brings every catalog's snapshot to the current epoch in one pass (those not current already). */
  private async refreshAll(catalogs: string[]): Promise<void> {
    const epoch = this.ctx.engine.catalogEpoch;
    const stale = catalogs.filter((c) => this.snapshots.get(c)?.epoch !== epoch);
    if (stale.length < 2) return;
    const built = this.buildSnapshots(stale);
    for (const c of stale) {
      const entry = { epoch, promise: built.then((m) => m.get(c)!) };
      this.snapshots.set(c, entry);
      entry.promise.catch(() => {
        if (this.snapshots.get(c) === entry) this.snapshots.delete(c);
      });
    }
    await built;
  }

  // ---- lookups ------------------------------------------------------------------------------------------

  /** Visible engine schemas of a catalog (engine spelling). DuckDB's built-in `main` shows only when used. */
  async engineSchemas(catalog: string): Promise<string[]> {
    return this.visibleSchemas(catalog, await this.snapshot(catalog));
  }

  private visibleSchemas(catalog: string, snap: CatalogSnapshot): string[] {
    return [...snap.schemas.values()]
      .filter(
        (s) => s.engineName !== 'main' || s.objects.size > 0 || this.ctx.c.schemas.has(`${catalog}.main`),
      )
      .map((s) => s.engineName);
  }

  async engineSchema(catalog: string, schema: string): Promise<string | undefined> {
    return (await this.snapshot(catalog)).schemas.get(schema.toLowerCase())?.engineName;
  }

  async schemaSnapshot(catalog: string, engineSchema: string): Promise<SchemaSnapshot | undefined> {
    return (await this.snapshot(catalog)).schemas.get(engineSchema.toLowerCase());
  }

  async engineObjects(catalog: string, engineSchema?: string, name?: string): Promise<EngineObject[]> {
    const snap = await this.snapshot(catalog);
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

  async engineColumns(catalog: string, engineSchema: string, table: string): Promise<EngineColumn[]> {
    const snap = await this.snapshot(catalog);
    return snap.schemas.get(engineSchema.toLowerCase())?.objects.get(table.toLowerCase())?.columns ?? [];
  }

  /** Wire columns for an engine column list, computed once per snapshot. */
  columnsOut(cols: EngineColumn[], partitions: string[] | undefined): ColumnOut[] {
    const key = partitions?.join('\u0000') ?? '';
    const hit = this.columnCache.get(cols);
    if (hit && hit.key === key) return hit.out;
    const out = cols.map((x) => engineColumnOut(x, partitions));
    this.columnCache.set(cols, { key, out });
    return out;
  }

  // ---- records in step with the engine ----------------------------------------------------------------

  /**
   * Adopts engine schemas and objects that have no record, and drops records whose engine object is gone.
   * Dropping waits while this API is in the middle of a change of its own (a rename moves records after
   * the engine moved the objects) and when the engine changed again since the snapshot: the change that
   * follows reconciles again.
   */
  private async reconcile(changes: (CatalogChange | undefined)[]): Promise<void> {
    const c = this.ctx.c;
    const scopes = new Map<string, (CatalogChange | undefined)[]>();
    const everything = changes.some((ch) => ch === undefined);
    for (const name of c.catalogs.keys()) {
      const mine = everything ? [undefined] : changes.filter((ch) => ch!.catalog === name);
      if (mine.length) scopes.set(name, mine.some((ch) => ch?.schema === undefined) ? [undefined] : mine);
    }
    if (everything) await this.refreshAll([...scopes.keys()]);
    for (const [catalog, chs] of scopes) {
      const epoch = this.ctx.engine.catalogEpoch;
      const snap = await this.snapshot(catalog);
      if (!c.catalogs.has(catalog)) continue; // dropped meanwhile
      const mayDrop = this.ctx.engine.catalogEpoch === epoch && this.ctx.busy === 0;
      for (const ch of chs) this.reconcileScope(catalog, snap, ch, mayDrop);
    }
  }

  private reconcileScope(
    catalog: string,
    snap: CatalogSnapshot,
    ch: CatalogChange | undefined,
    mayDrop: boolean,
  ): void {
    const c = this.ctx.c;
    const visible = new Set(this.visibleSchemas(catalog, snap).map((s) => s.toLowerCase()));
    const inScope = (schema: string) => !ch?.schema || ch.schema.toLowerCase() === schema;
    // Schemas.
    if (!ch?.name) {
      for (const s of visible) {
        if (!inScope(s) || c.schemas.has(`${catalog}.${s}`)) continue;
        c.schemas.set(`${catalog}.${s}`, {
          schema_id: uuid(),
          catalog_name: catalog,
          name: s,
          properties: {},
          ...this.ctx.audit(),
        });
      }
      if (mayDrop)
        for (const [k, r] of Array.from(c.schemas.entries()))
          if (r.catalog_name === catalog && inScope(r.name) && !visible.has(r.name)) c.schemas.delete(k);
    }
    // Tables and views.
    for (const [skey, sch] of snap.schemas) {
      if (!visible.has(skey) || !inScope(skey)) continue;
      for (const [n, { object }] of sch.objects) {
        if (ch?.name && ch.name.toLowerCase() !== n) continue;
        const key = `${catalog}.${skey}.${n}`;
        const r = c.tables.get(key);
        if (r?.metadata_only) {
          // An engine object now carries this name (the Delta/SQL layer materialised it): the engine wins.
          c.tables.update(key, (x) => {
            delete x.metadata_only;
            delete x.columns;
          });
        } else if (!r) {
          c.tables.set(key, {
            table_id: uuid(),
            catalog_name: catalog,
            schema_name: skey,
            name: n,
            ...(object.kind === 'VIEW' ? { table_type: 'VIEW' as const } : {}),
            properties: {},
            ...this.ctx.audit(),
          });
        }
      }
    }
    if (!mayDrop) return;
    for (const [k, r] of Array.from(c.tables.entries())) {
      if (r.catalog_name !== catalog || r.metadata_only || !inScope(r.schema_name)) continue;
      if (ch?.name && ch.name.toLowerCase() !== r.name) continue;
      const sch = snap.schemas.get(r.schema_name);
      if (!sch?.objects.has(r.name)) c.tables.delete(k); // dropped through SQL
    }
  }
}
