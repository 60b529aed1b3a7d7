/**
 * Temporary views belong to a client session on Databricks (a Thrift session: dbt's incremental models create
 * `x__dbt_tmp` as a temporary view, then MERGE from it in the next statement). DuckDB's temporary views
 * belong to one connection, and the statement service runs each statement on whichever pooled connection
 * is free. So a session that created temporary views keeps their statements (`CREATE [OR REPLACE]
 * TEMPORARY VIEW ...`, as written), and before the session's next statement runs they are created again on
 * its connection, unless that connection already has exactly this session's current set. Views another
 * session left on the connection are dropped first, so sessions do not see each other's views.
 */
import { ident } from '@minilake/engine-duckdb';
import { connectionKey } from './namespace.js';
import { forgetPrepared } from './prepared-cache.js';
import { Cursor, type SplitStatement } from './tokens.js';
import type { DuckDBConnectionLike } from './types.js';

interface SessionViews {
  /** Lower-case view name -> the statement that created it. */
  views: Map<string, SplitStatement>;
  /** Bumped on every change, so a connection knows whether its copy is current. */
  version: number;
}

/** Sessions with temporary views, least recently used first (bounded: sessions that never close age out). */
const sessions = new Map<string, SessionViews>();
const MAX_SESSIONS = 1000;

/** What each pooled connection holds: whose views, which version, under which names. */
const installed = new WeakMap<object, { session: string; version: number; names: string[] }>();

/** `CREATE [OR REPLACE] TEMP[ORARY] VIEW [IF NOT EXISTS] name` -> name; `DROP VIEW [IF EXISTS] name` -> name. */
function viewStatement(stmt: SplitStatement): { kind: 'create' | 'drop'; name: string } | undefined {
  const c = new Cursor(stmt.tokens, stmt.text);
  try {
    if (c.accept('CREATE')) {
      c.accept('OR', 'REPLACE');
      if (!(c.accept('TEMPORARY') || c.accept('TEMP')) || !c.accept('VIEW')) return undefined;
      c.accept('IF', 'NOT', 'EXISTS');
      const parts = c.qualifiedName();
      return parts.length === 1 ? { kind: 'create', name: parts[0]!.toLowerCase() } : undefined;
    }
    if (c.accept('DROP', 'VIEW')) {
      c.accept('IF', 'EXISTS');
      const parts = c.qualifiedName();
      return parts.length === 1 ? { kind: 'drop', name: parts[0]!.toLowerCase() } : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Records a statement that succeeded in the session, if it created or dropped one of its temporary views. */
export function noteTempView(
  session: string | undefined,
  stmt: SplitStatement,
  conn: DuckDBConnectionLike,
): void {
  if (session === undefined) return;
  const v = viewStatement(stmt);
  if (!v) return;
  let sv = sessions.get(session);
  if (v.kind === 'drop') {
    if (!sv?.views.delete(v.name)) return;
  } else {
    if (!sv) sv = { views: new Map(), version: 0 };
    // Replaced views keep their place in creation order (a later view may read an earlier one).
    sv.views.set(v.name, stmt);
  }
  sv.version++;
  sessions.delete(session);
  sessions.set(session, sv);
  if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
  // This connection ran the statement after being brought up to date: it holds the new set.
  installed.set(connectionKey(conn), { session, version: sv.version, names: [...sv.views.keys()] });
}

/**
 * Makes the connection hold exactly the session's temporary views, replaying their statements with `run`
 * (the dialect's own pipeline). A statement outside a session gets a connection without any.
 */
export async function syncTempViews(
  conn: DuckDBConnectionLike,
  session: string | undefined,
  run: (stmt: SplitStatement) => Promise<unknown>,
): Promise<void> {
  const key = connectionKey(conn);
  const have = installed.get(key);
  const sv = session !== undefined ? sessions.get(session) : undefined;
  if (!have && !sv?.views.size) return;
  if (have && sv && have.session === session && have.version === sv.version) return;
  // The connection's temporary views change: plans cached over the old ones would not see it.
  forgetPrepared(conn);
  if (have) {
    installed.delete(key);
    for (const n of have.names) await conn.run(`DROP VIEW IF EXISTS temp.main.${ident(n)}`);
  }
  if (!sv?.views.size) return;
  for (const stmt of sv.views.values()) await run(stmt);
  installed.set(key, { session: session!, version: sv.version, names: [...sv.views.keys()] });
}
