/**
 * One DuckDB instance for the whole server. Its own database is in memory; every Unity Catalog catalog is a
 * database file under `<dir>/catalogs/` ATTACHed under a safe alias, so `catalog.schema.table` is native SQL.
 * Work goes through a small pool of connections with DuckDB's async API, so the event loop never blocks.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import { aborted, silentLogger, type Logger, type SharedResource } from '@minilake/core';
import { duckdb } from './duckdb-module.js';
import { ident, literal } from './sql.js';

/** How often runRetryingConflicts tries a statement that hits a write-write conflict. */
const CONFLICT_ATTEMPTS = 5;

/**
 * DuckDB's optimistic concurrency: a statement changing a catalog entry that another transaction changed
 * and committed first fails with one of these, and has changed nothing.
 */
export function isWriteConflict(e: unknown): boolean {
  return /write-write conflict|could not commit|failed to commit/i.test(
    e instanceof Error ? e.message : String(e),
  );
}

export interface DuckDbEngineOptions {
  /** The engine's folder: `<dataDir>/duckdb`. */
  dir: string;
  /** DuckDB memory_limit, e.g. `2GB`. */
  memoryLimit?: string;
  threads?: number;
  /** Maximum pooled connections (default 8). */
  poolSize?: number;
  logger?: Logger;
}

/**
 * A catalog change described by the code that made it: one object of one schema (`name`), the schema itself
 * (`schema` without `name`) or anything in one catalog (`catalog` alone). Caches may then refresh just that
 * instead of everything.
 */
export interface CatalogChange {
  /** Catalog name as the Unity Catalog knows it (lowercase). */
  catalog: string;
  /** Engine spelling of the schema; absent when anything in the catalog may have changed. */
  schema?: string;
  /** Table or view name; absent when the schema itself changed. */
  name?: string;
  /** Column comments the change set (DuckDB's cheap per-table lookup cannot read them back). */
  comments?: Record<string, string>;
}

/** Told about every catalog change; `undefined` means anything, anywhere, may have changed. */
export type CatalogChangeListener = (change: CatalogChange | undefined) => void;

/** How many recent epoch changes are remembered for changesSince(). */
const CHANGE_LOG_MAX = 4096;

export interface PooledConnection {
  conn: DuckDBConnection;
  release(): void;
}

/** DuckDB refuses these as ATTACH aliases, or they would collide with the engine's own databases. */
const RESERVED_ALIASES = new Set(['main', 'system', 'temp', 'memory', 'information_schema', 'pg_catalog']);
const ALIAS_SUFFIX = '__ml';

const needsSuffix = (n: string) => RESERVED_ALIASES.has(n) || n.endsWith(ALIAS_SUFFIX);

/** Engine alias for a catalog name; injective, and the inverse is catalogAliasToName. */
/** How many times an ATTACH waits for an earlier DETACH of the same file to finish (~2 s in all). */
const DETACHING_ATTEMPTS = 20;

export function catalogAlias(catalog: string): string {
  const n = catalog.toLowerCase();
  return needsSuffix(n) ? n + ALIAS_SUFFIX : n;
}

export function catalogAliasToName(alias: string): string {
  const a = alias.toLowerCase();
  if (a.endsWith(ALIAS_SUFFIX) && needsSuffix(a.slice(0, -ALIAS_SUFFIX.length)))
    return a.slice(0, -ALIAS_SUFFIX.length);
  return a;
}

/** A file name for a catalog: plain names stay readable, anything else is escaped, long names hashed. */
export function catalogFileName(catalog: string): string {
  const n = catalog.toLowerCase();
  let safe = '';
  for (const ch of n) {
    if (/^[a-z0-9_-]$/.test(ch)) safe += ch;
    else safe += `~${ch.codePointAt(0)!.toString(16)}~`;
  }
  if (safe.length > 120)
    safe = `${safe.slice(0, 60)}~${createHash('sha256').update(n).digest('hex').slice(0, 32)}`;
  return `${safe}.duckdb`;
}

function toJsValue(v: unknown): unknown {
  if (typeof v === 'bigint')
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : v.toString();
  if (Array.isArray(v)) return v.map(toJsValue);
  if (v && typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJsValue(x)]));
  }
  return v;
}

export class DuckDbEngine implements SharedResource {
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiters: ((c: DuckDBConnection) => void)[] = [];
  private readonly all_: Set<DuckDBConnection> = new Set();
  /** Connections leased by acquire() (statements): at most poolSize. */
  private statements = 0;
  private readonly attached = new Map<string, string>(); // catalog name (lowercase) -> alias
  private closed = false;
  private epoch = 0;
  /** changeLog[i] moved the epoch from logBase + i to logBase + i + 1 (undefined: not described). */
  private readonly changeLog: (CatalogChange | undefined)[] = [];
  private logBase = 0;
  private readonly listeners = new Set<CatalogChangeListener>();
  private readonly poolSize: number;
  private readonly logger: Logger;

  private constructor(
    private readonly instance: DuckDBInstance,
    readonly dir: string,
    opts: DuckDbEngineOptions,
  ) {
    this.poolSize = Math.max(1, opts.poolSize ?? 8);
    this.logger = opts.logger ?? silentLogger;
  }

  static async open(opts: DuckDbEngineOptions): Promise<DuckDbEngine> {
    const dir = path.resolve(opts.dir);
    await mkdir(path.join(dir, 'catalogs'), { recursive: true });
    await mkdir(path.join(dir, 'tmp'), { recursive: true });
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const engine = new DuckDbEngine(instance, dir, opts);
    await engine.withConnection(async (conn) => {
      await conn.run(`SET temp_directory = ${literal(path.join(dir, 'tmp'))}`);
      if (opts.memoryLimit) await conn.run(`SET memory_limit = ${literal(opts.memoryLimit)}`);
      if (opts.threads && opts.threads > 0) await conn.run(`SET threads = ${Math.floor(opts.threads)}`);
    });
    return engine;
  }

  get catalogsDir(): string {
    return path.join(this.dir, 'catalogs');
  }

  // ---- connections -------------------------------------------------------------------------------------

  /**
   * A connection from the pool, for a statement: at most poolSize are leased at once, and a caller beyond
   * that waits for one to come back. The engine does not read the SQL that runs on it: whoever runs DDL (or
   * commits a transaction holding some) on a leased connection calls notifyChange() once it is done.
   */
  acquire(): Promise<PooledConnection> {
    return this.lease(true);
  }

  /**
   * A connection for the engine's own short work (withConnection, all, run): it never waits for the pool.
   * A statement holding a pooled connection may need catalog metadata, which Unity Catalog reads from the
   * engine; with every pooled connection held by such statements, waiting here deadlocked the server (four
   * concurrent CREATE OR REPLACE / INSERT statements with a pool of two). Beyond poolSize a connection is
   * opened for the call and closed when it comes back.
   */
  private async lease(bounded: boolean): Promise<PooledConnection> {
    if (this.closed) throw new Error('The DuckDB engine is closed');
    let conn: DuckDBConnection;
    if (bounded && this.statements >= this.poolSize)
      conn = await new Promise<DuckDBConnection>((resolve) => this.waiters.push(resolve)); // counted by giveBack
    else {
      if (bounded) this.statements++;
      conn = this.idle.pop() ?? (await this.open());
    }
    let released = false;
    return {
      conn,
      release: () => {
        if (released) return;
        released = true;
        if (bounded) this.statements--;
        this.giveBack(conn);
      },
    };
  }

  private async open(): Promise<DuckDBConnection> {
    const conn = await this.instance.connect();
    this.all_.add(conn);
    return conn;
  }

  /**
   * Changes with every notified catalog change (and every ATTACH/DETACH the engine makes itself). A
   * metadata cache built while the epoch stayed the same is current.
   */
  get catalogEpoch(): number {
    return this.epoch;
  }

  /**
   * The described changes that moved the epoch from `since` to now, oldest first; undefined when one of them
   * was not described (or is too old to be remembered), in which case a cache must be rebuilt.
   */
  changesSince(since: number): CatalogChange[] | undefined {
    if (since < this.logBase || since > this.epoch) return undefined;
    const out: CatalogChange[] = [];
    for (let i = since - this.logBase; i < this.changeLog.length; i++) {
      const c = this.changeLog[i];
      if (!c) return undefined;
      out.push(c);
    }
    return out;
  }

  /**
   * Tells the engine's listeners (the Unity Catalog's metadata view) that the catalog changed: called by
   * whoever ran DDL, after it took effect. Without `change` anything may have changed.
   */
  notifyChange(change?: CatalogChange): void {
    this.epoch++;
    this.changeLog.push(change);
    if (this.changeLog.length > CHANGE_LOG_MAX) {
      const drop = this.changeLog.length - CHANGE_LOG_MAX / 2;
      this.changeLog.splice(0, drop);
      this.logBase += drop;
    }
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (e) {
        this.logger.warn('a catalog change listener failed', { error: String(e) });
      }
    }
  }

  /** Subscribes to notifyChange(); returns the unsubscribe function. */
  onChange(listener: CatalogChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private giveBack(conn: DuckDBConnection): void {
    if (this.closed) return;
    if (this.waiters.length > 0 && this.statements < this.poolSize) {
      this.statements++;
      this.waiters.shift()!(conn);
    } else if (this.all_.size > this.poolSize) {
      this.all_.delete(conn);
      try {
        conn.closeSync();
      } catch (e) {
        this.logger.debug('closing a DuckDB connection failed', { error: String(e) });
      }
    } else this.idle.push(conn);
  }

  async withConnection<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const { conn, release } = await this.lease(false);
    try {
      return await fn(conn);
    } finally {
      release();
    }
  }

  /** Runs a query and returns plain row objects (safe-range BIGINTs as numbers, others as strings). */
  async all(sql: string, params?: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    return this.withConnection(async (conn) => {
      const reader = await conn.runAndReadAll(sql, params as Record<string, DuckDBValue> | undefined);
      return reader.getRowObjectsJS().map((r) => toJsValue(r) as Record<string, unknown>);
    });
  }

  async run(sql: string, params?: Record<string, unknown>): Promise<void> {
    await this.withConnection(async (conn) => {
      await conn.run(sql, params as Record<string, DuckDBValue> | undefined);
    });
  }

  /**
   * run(), for one self-contained statement behind a REST request (a DROP or CREATE of a catalog object):
   * a write-write conflict with a concurrent statement is retried a few times, a few ms apart (the failed
   * statement changed nothing), and one that keeps conflicting is a 409 ABORTED instead of a 500.
   */
  async runRetryingConflicts(sql: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.run(sql);
      } catch (e) {
        if (!isWriteConflict(e)) throw e;
        if (attempt === CONFLICT_ATTEMPTS)
          throw aborted(`The change conflicted with concurrent statements ${attempt} times; retry it.`);
        await sleep(attempt * 5);
      }
    }
  }

  /** Runs exactly one statement (prepared, so a second statement smuggled into user SQL is refused). */
  async runSingle(sql: string): Promise<void> {
    await this.withConnection(async (conn) => {
      const prepared = await conn.prepare(sql);
      await prepared.run();
    });
  }

  // ---- catalogs ----------------------------------------------------------------------------------------

  alias(catalog: string): string {
    return catalogAlias(catalog);
  }

  catalogForAlias(alias: string): string | undefined {
    const name = catalogAliasToName(alias);
    return this.attached.has(name) ? name : undefined;
  }

  hasCatalog(name: string): boolean {
    return this.attached.has(name.toLowerCase());
  }

  catalogNames(): string[] {
    return [...this.attached.keys()].sort();
  }

  catalogFile(name: string): string {
    return path.join(this.catalogsDir, catalogFileName(name));
  }

  /**
   * ATTACHes (creating if needed) the catalog's database file. Idempotent. `readOnly` attaches an existing
   * file READ_ONLY: the engine itself then refuses every write to the catalog, whatever SQL sends it.
   */
  async attachCatalog(name: string, opts: { readOnly?: boolean } = {}): Promise<void> {
    const key = name.toLowerCase();
    if (this.attached.has(key)) return;
    const alias = catalogAlias(key);
    await mkdir(this.catalogsDir, { recursive: true });
    // STORAGE_VERSION: VARIANT columns need the v1.5 storage format.
    const attach = `ATTACH IF NOT EXISTS ${literal(this.catalogFile(key))} AS ${ident(alias)} (STORAGE_VERSION 'v1.5.0'${opts.readOnly ? ', READ_ONLY' : ''})`;
    // A file detached a moment ago (a reset, then the same catalog made again) stays attached ("in the
    // process of being detached", "already attached by") until the last query that still reads it ends,
    // such as a metadata query over every database: wait for that, briefly.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.run(attach);
        break;
      } catch (e) {
        if (attempt >= DETACHING_ATTEMPTS || !/Unique file handle conflict/.test(String(e))) throw e;
        await sleep(attempt * 10);
      }
    }
    this.attached.set(key, alias);
    this.notifyChange({ catalog: key });
  }

  async detachCatalog(name: string, opts: { deleteFile?: boolean } = {}): Promise<void> {
    const key = name.toLowerCase();
    const alias = catalogAlias(key);
    if (this.attached.has(key)) {
      // A connection whose current database is the catalog would block DETACH: move every idle one away.
      for (const conn of this.idle) await conn.run('USE memory').catch(() => undefined);
      await this.run(`DETACH DATABASE IF EXISTS ${ident(alias)}`);
      this.attached.delete(key);
      this.notifyChange({ catalog: key });
    }
    if (opts.deleteFile) {
      const file = this.catalogFile(key);
      await rm(file, { force: true });
      await rm(`${file}.wal`, { force: true });
    }
  }

  /**
   * Writes every attached catalog's WAL into its file, so a copy of the file is the whole database. DuckDB
   * refuses while another connection has uncommitted catalog changes or updates (the tail of a statement, a
   * catalog reconcile): those end on their own and are waited for, up to `patienceMs`; a transaction held
   * open longer (a SQL session's own BEGIN) is named in a 409 ABORTED instead.
   */
  async checkpoint(patienceMs = 30_000): Promise<void> {
    for (const [catalog, alias] of this.attached) {
      const deadline = Date.now() + patienceMs;
      for (let pause = 10; ; pause = Math.min(pause * 2, 500)) {
        try {
          await this.run(`CHECKPOINT ${ident(alias)}`);
          break;
        } catch (e) {
          if (!/Cannot CHECKPOINT: there are other write transactions/.test(String(e))) throw e;
          if (Date.now() >= deadline)
            throw aborted(
              `Catalog '${catalog}' cannot be written through: a transaction with uncommitted changes has been open ` +
                `for more than ${Math.round(patienceMs / 1000)} s (commit or roll back the session's transaction).`,
            );
          await sleep(pause);
        }
      }
    }
  }

  /** Detaches and deletes every catalog file. */
  async reset(): Promise<void> {
    for (const name of Array.from(this.attached.keys())) await this.detachCatalog(name, { deleteFile: true });
    const files = await readdir(this.catalogsDir).catch(() => [] as string[]);
    await Promise.all(files.map((f) => rm(path.join(this.catalogsDir, f), { force: true, recursive: true })));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const conn of this.all_) {
      try {
        conn.closeSync();
      } catch (e) {
        this.logger.debug('closing a DuckDB connection failed', { error: String(e) });
      }
    }
    this.all_.clear();
    this.idle.length = 0;
    this.instance.closeSync();
  }
}
