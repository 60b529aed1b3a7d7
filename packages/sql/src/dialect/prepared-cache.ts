/**
 * Prepared statements kept per pooled connection, so a query text that runs again skips DuckDB's parse and
 * plan (a fresh `prepare` of `SELECT 1` costs about twice a whole UC GET; re-running a prepared statement a
 * third of that: bench/README.md, "Issue 16, stmt"). Results are never cached: every execution runs the plan.
 *
 * A cached plan must mean what a fresh prepare would. DuckDB rebinds a prepared statement by itself when a
 * database it read changed (ALTER / DROP / CREATE of a table, on any connection), but not when a temporary
 * view is replaced or the TimeZone / search path changed on the connection. So an entry is keyed by the
 * translated text plus the namespace and time zone it was prepared under, and a connection's entries are
 * all dropped when
 *  - the engine's catalog epoch moved (any notified DDL, ATTACH / DETACH, a reset),
 *  - a statement other than a plain query ran on the connection (SET, USE, CREATE TEMP VIEW, PRAGMA, ...:
 *    `forgetPrepared`, called by the dialect's entry point before and after such text),
 *  - its temporary views were replaced for another session (temp-views.ts).
 * Only statements whose translation needed no per-statement engine objects are cached (no Delta views,
 * information_schema tables, staged Delta writes or volume lookups: `Prepared.cacheable`).
 */
import { connectionKey } from './namespace.js';
import type { DuckDBConnectionLike, DuckDBPreparedLike } from './types.js';

/** Entries per connection (least recently used dropped first): a plan is a few KB of engine memory. */
const MAX_ENTRIES = 64;

interface ConnectionCache {
  epoch: number | undefined;
  entries: Map<string, DuckDBPreparedLike>;
}

const caches = new WeakMap<object, ConnectionCache>();

function destroyAll(c: ConnectionCache): void {
  for (const p of c.entries.values()) destroy(p);
  c.entries.clear();
}

function destroy(p: DuckDBPreparedLike): void {
  try {
    p.destroySync();
  } catch {
    // Already destroyed with its connection.
  }
}

/** Drops every prepared statement cached for the connection (its session state changed). */
export function forgetPrepared(conn: object): void {
  const key = connectionKey(conn);
  const c = caches.get(key);
  if (!c) return;
  caches.delete(key);
  destroyAll(c);
}

/**
 * A prepared statement for `sql` on `conn`, from the cache or prepared now and cached. `scope` is everything
 * besides the text that binding depends on (namespace, time zone). The caller binds its values afresh, and
 * destroys a statement that came back with `cached: false` (the catalog changed while it was prepared).
 */
export async function cachedPrepare(
  conn: DuckDBConnectionLike & { prepare(sql: string): Promise<DuckDBPreparedLike> },
  epoch: number | undefined,
  scope: string,
  sql: string,
): Promise<{ prepared: DuckDBPreparedLike; cached: boolean }> {
  const key = connectionKey(conn);
  let c = caches.get(key);
  if (c && c.epoch !== epoch) {
    destroyAll(c);
    c.epoch = epoch;
  }
  const entryKey = `${scope}\u0000${sql}`;
  const hit = c?.entries.get(entryKey);
  if (hit) {
    // Most recently used last.
    c!.entries.delete(entryKey);
    c!.entries.set(entryKey, hit);
    return { prepared: hit, cached: true };
  }
  const prepared = await conn.prepare(sql);
  // The epoch may have moved while preparing (DDL on another connection): cache against the one seen first,
  // so the next lookup drops it if so.
  c = caches.get(key);
  if (!c) caches.set(key, (c = { epoch, entries: new Map() }));
  if (c.epoch !== epoch) return { prepared, cached: false };
  const old = c.entries.get(entryKey);
  if (old) destroy(old);
  c.entries.set(entryKey, prepared);
  if (c.entries.size > MAX_ENTRIES) {
    const [k, first] = c.entries.entries().next().value!;
    c.entries.delete(k);
    destroy(first);
  }
  return { prepared, cached: true };
}

/** Drops one entry (its execution failed: the next run prepares afresh and reports its own error). */
export function dropPrepared(conn: object, prepared: DuckDBPreparedLike): void {
  const c = caches.get(connectionKey(conn));
  if (!c) return;
  for (const [k, p] of c.entries) {
    if (p !== prepared) continue;
    c.entries.delete(k);
    destroy(p);
    return;
  }
}

/** How many statements are cached for the connection (tests). */
export function preparedCount(conn: object): number {
  return caches.get(connectionKey(conn))?.entries.size ?? 0;
}
