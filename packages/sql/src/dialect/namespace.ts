/**
 * Step 0 of the dialect pipeline (index.ts): the session. The request's catalog and schema become the pooled
 * connection's namespace (USE + search_path, UTC), the spark_* macros are installed once per engine, and a
 * connection that already has the namespace is not sent it again.
 */
import { literal, qualified } from '@minilake/engine-duckdb';
import type { Need } from '@minilake/unity-catalog';
import { MACRO_DB, macroStatements, MACRO_SCHEMA } from './macros.js';
import type { Session, Visibility } from './session.js';
import { sqlError } from './sql-error.js';
import type { SplitStatement } from './tokens.js';
import type { DialectEnv, DuckDBConnectionLike } from './types.js';

/** The namespace last applied to each pooled connection (keyed by its native handle) and the engine's epoch. */
export const namespaces = new WeakMap<object, { target: string; epoch: number | undefined; ok: boolean }>();

/** The connection is known not to have the (missing) namespace: it only has the macro search path. */
export class NamespaceUnavailable extends Error {}

// Thrown for every statement on a connection whose default namespace is known to be missing (a fresh
// engine has no main.default): one shared instance, so no stack is captured per statement.
const NAMESPACE_UNAVAILABLE = new NamespaceUnavailable('default namespace unavailable');

export const SESSION_CHANGING = new Set(['RESET', 'PRAGMA', 'CALL', 'ATTACH', 'DETACH', 'USE']);

/** The DuckDB TimeZone last set on each pooled connection (keyed by its native handle). */
const zones = new WeakMap<object, string>();

/**
 * A Spark session time zone (a region id, `UTC`, or a whole-hour offset such as `+08:00`) as the DuckDB
 * (ICU) zone name, or undefined when DuckDB has no such zone.
 */
export function duckZone(zone: string): string | undefined {
  const z = zone.trim();
  const off = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(z);
  if (off) {
    if ((off[3] ?? '00') !== '00') return undefined;
    const h = Number(off[2]);
    if (h > 14) return undefined;
    // POSIX-style Etc zones count the other way: Etc/GMT-8 is UTC+8.
    return h === 0 ? 'Etc/UTC' : `Etc/GMT${off[1] === '+' ? '-' : '+'}${h}`;
  }
  if (/^(UTC|GMT|Z)$/i.test(z)) return 'Etc/UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: z });
    return z;
  } catch {
    return undefined;
  }
}

export const invalidTimeZone = (zone: string): Error =>
  sqlError(
    'INVALID_CONF_VALUE.TIME_ZONE',
    '22022',
    `The value '${zone}' in the config "spark.sql.session.timeZone" is invalid. Cannot resolve the given timezone.`,
  );

/** Sets the connection's TimeZone (how TIMESTAMP literals are read and timestamps shown) when it differs. */
export async function applyZone(c: DuckDBConnectionLike, zone: string): Promise<void> {
  const key = connectionKey(c);
  if (zones.get(key) === zone) return;
  zones.delete(key);
  await c.run(`SET TimeZone = ${literal(zone)}`);
  zones.set(key, zone);
}

/** Leases wrap the same connection in a new proxy each time: key the cache by the wrapped native handle. */
export function connectionKey(c: object): object {
  const inner = (c as { connection?: unknown }).connection;
  return inner && typeof inner === 'object' ? inner : c;
}

export const macrosReady = new WeakMap<object, Promise<void>>();

export async function ensureMacros(conn: DuckDBConnectionLike, engine: object): Promise<void> {
  let p = macrosReady.get(engine);
  if (!p) {
    p = (async () => {
      for (const sql of macroStatements()) await conn.run(sql);
    })();
    macrosReady.set(engine, p);
    p.catch(() => macrosReady.delete(engine));
  }
  await p;
}

/** The macro database can disappear (an engine that detached everything): reinstall and retry once. */
export function macroMissing(e: unknown): boolean {
  const m = e instanceof Error ? e.message : String(e);
  return m.includes(MACRO_DB) || /spark_[a-z_]+ does not exist/i.test(m);
}

export async function reinstallMacros(conn: DuckDBConnectionLike, engine: object): Promise<void> {
  macrosReady.delete(engine);
  await ensureMacros(conn, engine);
}

export function namespaceError(s: Session, e: unknown): Error {
  const msg = e instanceof Error ? e.message : String(e);
  if (/Catalog .* does not exist|database .* does not exist/i.test(msg))
    return sqlError('NO_SUCH_CATALOG_EXCEPTION', '42704', `Catalog '${s.catalog}' was not found.`);
  return sqlError(
    'SCHEMA_NOT_FOUND',
    '42704',
    `The schema \`${s.catalog}\`.\`${s.schema}\` cannot be found. Verify the spelling and correctness of the schema and catalog.`,
  );
}

export interface SessionInput {
  catalog?: string;
  schema?: string;
  parameters?: { name: string; value?: string | null; type?: string }[];
  user?: string;
  /** See ExecuteInput.authorize. */
  authorize?: (need: Need) => Promise<void>;
  /** See ExecuteInput.visibility. */
  visibility?: Visibility;
  namespaceMayBeMissing?: boolean;
  /** The session time zone (spark.sql.session.timeZone); Databricks SQL warehouses default to UTC. */
  timeZone?: string;
}

/**
 * The session for one request on one pooled connection: catalog/schema applied (an explicit namespace must
 * exist; the default main.default may not yet, then only the macros are on the search path).
 */
export async function openSession(
  c: DuckDBConnectionLike,
  input: SessionInput,
  env: DialectEnv,
): Promise<Session> {
  await ensureMacros(c, env.engine);
  const params = new Map<string, { value: string | null; type: string | undefined }>();
  for (const p of input.parameters ?? []) params.set(p.name, { value: p.value ?? null, type: p.type });
  const explicitNs =
    !input.namespaceMayBeMissing && (input.catalog !== undefined || input.schema !== undefined);
  let applied: string | undefined;
  const key = connectionKey(c);
  const zone = input.timeZone === undefined ? 'Etc/UTC' : duckZone(input.timeZone);
  if (zone === undefined) throw invalidTimeZone(input.timeZone!);
  await applyZone(c, zone);
  const s: Session = {
    conn: c,
    engine: env.engine,
    uc: env.uc,
    ...(env.datasets ? { datasets: env.datasets } : {}),
    catalog: input.catalog || 'main',
    schema: input.schema || 'default',
    ...(input.user !== undefined ? { user: input.user } : {}),
    ...(input.authorize !== undefined ? { authorize: input.authorize } : {}),
    ...(input.visibility !== undefined ? { visibility: input.visibility } : {}),
    params,
    conf: new Map(),
    timeZone: zone,
    inTransaction: false,
    applyNamespace: async () => {
      const target = qualified(env.engine.alias(s.catalog), s.schema);
      if (applied === target) return;
      // Pooled connections keep their namespace between requests: skip the round trip when this connection
      // already has it and no catalog change (e.g. a DETACH moving idle connections to `memory`) happened since.
      const epoch = env.engine.catalogEpoch;
      const known = namespaces.get(key);
      if (known && known.target === target && epoch !== undefined && known.epoch === epoch) {
        if (!known.ok) throw NAMESPACE_UNAVAILABLE;
        applied = target;
        return;
      }
      namespaces.delete(key);
      await c.run(`USE ${target}; SET search_path = ${literal(`${target},${MACRO_SCHEMA}`)}`);
      namespaces.set(key, { target, epoch, ok: true });
      applied = target;
    },
  };
  // The common case without a round trip or a thrown signal: this connection is known to have the namespace
  // (or, for the default one, known not to: then only the macros are on its search path), and no catalog
  // change happened since. The same answer applyNamespace gives below, without its promise chain.
  const epoch = env.engine.catalogEpoch;
  const known = namespaces.get(key);
  if (known && epoch !== undefined && known.epoch === epoch && (known.ok || !explicitNs)) {
    const target = qualified(env.engine.alias(s.catalog), s.schema);
    if (known.target === target) {
      if (known.ok) applied = target;
      return s;
    }
  }
  try {
    await s.applyNamespace().catch(async (e: unknown) => {
      if (!macroMissing(e)) throw e;
      await reinstallMacros(c, env.engine);
      await s.applyNamespace();
    });
  } catch (e) {
    // The default namespace (main.default) may not exist in a fresh engine; only an explicit one must.
    if (explicitNs) throw namespaceError(s, e);
    if (!(e instanceof NamespaceUnavailable)) {
      const epoch = env.engine.catalogEpoch;
      namespaces.delete(key);
      await c.run(`SET search_path = ${literal(MACRO_SCHEMA)}`);
      const target = qualified(env.engine.alias(s.catalog), s.schema);
      namespaces.set(key, { target, epoch, ok: false });
    }
  }
  return s;
}

/** Text that may change the connection's settings behind the dialect's back: set the namespace again next time. */
export function forgetNamespaceIfChanged(c: DuckDBConnectionLike, stmts: SplitStatement[]): void {
  if (stmts.some((st) => SESSION_CHANGING.has(st.tokens[0]?.text.toUpperCase() ?? ''))) {
    namespaces.delete(connectionKey(c));
    zones.delete(connectionKey(c));
  }
}
