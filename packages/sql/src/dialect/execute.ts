/**
 * Step 4 of the dialect pipeline (index.ts), execute: a rewritten statement on the engine, streaming (the
 * last statement of the text) or materialised (the ones before it), with Databricks' DML answers
 * (num_affected_rows, MERGE's four counters) and one retry after reinstalling macros an engine lost.
 */
import type { CommandStages } from './commands.js';
import type { Session } from './session.js';
import type { SplitStatement } from './tokens.js';
import type { DuckDBConnectionLike, DuckDBResultLike } from './types.js';
import { mapError } from './engine-errors.js';
import { macroMissing, reinstallMacros } from './namespace.js';
import { cachedPrepare, dropPrepared } from './prepared-cache.js';
import { type Prepared, prepare } from './rewrite.js';

export const DML = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

export function affected(r: { getRows(): unknown[][] }): bigint {
  const v = r.getRows()[0]?.[0];
  return typeof v === 'bigint' ? v : BigInt(Number(v ?? 0));
}

export async function withFallback<T>(
  p: Prepared,
  s: Session,
  run: (sql: string, values: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  try {
    return await run(p.sql, p.values);
  } catch (e) {
    if (!macroMissing(e)) throw mapError(e, p.sql);
    await reinstallMacros(s.conn, s.engine);
    try {
      return await run(p.sql, p.values);
    } catch (e2) {
      throw mapError(e2, p.sql);
    }
  }
}

/** What Databricks answers for a translated statement: MERGE's four counters, a DML count, or the rows. */
export type Execution = 'merge' | 'dml' | 'query';

export function executionOf(stmt: SplitStatement): Execution {
  const head = stmt.tokens[0]?.text.toUpperCase() ?? '';
  return head === 'MERGE' ? 'merge' : DML.has(head) ? 'dml' : 'query';
}

/** Runs a rewritten statement; the last statement of a text streams, earlier ones are materialised. */
export async function execute(
  kind: Execution,
  stmt: SplitStatement,
  p: Prepared,
  s: Session,
  final: boolean,
): Promise<DuckDBResultLike> {
  if (p.delta) {
    // Copy-on-write on a staged Delta table: the staged table tells which files to rewrite. Without a
    // RETURNING list (UPDATE, DELETE) DuckDB's own count of changed rows is the answer.
    const d = p.delta;
    let n: Awaited<ReturnType<typeof d.finish>>;
    try {
      if (d.returning === undefined) n = await d.finish({ count: Number(affected(await read(p, s))) });
      else
        n = await d.finish({
          rows: (await read({ ...p, sql: `${p.sql} RETURNING ${d.returning}` }, s)).getRows(),
        });
    } finally {
      await d.cleanup();
    }
    if (kind === 'merge')
      return s.conn.stream(
        'SELECT $a::BIGINT AS num_affected_rows, $u::BIGINT AS num_updated_rows, $d::BIGINT AS num_deleted_rows, $i::BIGINT AS num_inserted_rows',
        { a: String(n.affected), u: String(n.updated), d: String(n.deleted), i: String(n.inserted) },
      );
    return s.conn.stream('SELECT $n::BIGINT AS num_affected_rows', { n: String(n.affected) });
  }
  if (kind === 'merge') {
    // Databricks reports the four MERGE counters; DuckDB tells the action of every changed row.
    const rows = (await read({ ...p, sql: `${p.sql} RETURNING merge_action` }, s)).getRows();
    const n = { UPDATE: 0, DELETE: 0, INSERT: 0 } as Record<string, number>;
    for (const [a] of rows) n[String(a)] = (n[String(a)] ?? 0) + 1;
    return s.conn.stream(
      'SELECT $a::BIGINT AS num_affected_rows, $u::BIGINT AS num_updated_rows, $d::BIGINT AS num_deleted_rows, $i::BIGINT AS num_inserted_rows',
      { a: String(rows.length), u: String(n.UPDATE), d: String(n.DELETE), i: String(n.INSERT) },
    );
  }
  if (kind === 'dml') {
    const n = affected(await read(p, s));
    await p.after?.();
    const head = stmt.tokens[0]?.text.toUpperCase();
    const cols = head === 'INSERT' ? ['num_affected_rows', 'num_inserted_rows'] : ['num_affected_rows'];
    return s.conn.stream(`SELECT ${cols.map((c) => `$n::BIGINT AS ${c}`).join(', ')}`, { n: String(n) });
  }
  // An engine without a catalog epoch cannot say when a cached plan went stale: nothing is cached on it.
  if (!final || p.cacheable !== true || s.engine.catalogEpoch === undefined) return run(p, s, !final);
  return run(p, s, false, readsNoTable(stmt) ? 'materialized' : 'stream');
}

/**
 * A SELECT or VALUES that reads no table (no FROM anywhere, by its tokens): `SELECT 1`, the connection check
 * clients send, `SELECT current_date()`. Its rows come from its own expressions, which the engine computes in
 * memory whichever way it is run, so it is run to a materialized result: one engine round trip instead of
 * three (run, then fetch chunk after chunk until none is left), its chunks then read synchronously.
 */
function readsNoTable(stmt: SplitStatement): boolean {
  const head = stmt.tokens[0]?.type;
  if (head !== 'SELECT' && head !== 'VALUES') return false;
  for (const t of stmt.tokens) if (t.type === 'FROM' || t.type === 'TABLE') return false;
  return true;
}

const columnTypes = new WeakMap<object, Map<number, string>>();

/** A result -> the cached prepared statement it came from, when its columns are the same on every run. */
const shapeKeys = new WeakMap<object, object>();

/**
 * An object standing for the result's columns (names, engine types, Databricks types), the same object for
 * every result whose columns are sure to be the same: a statement that reads no table, run with no values
 * through a cached prepared statement. Its columns follow from its text, namespace and time zone (the cache
 * key) alone; bound values could change them (`SELECT :x`) and tables can be altered under a cached plan,
 * so nothing else has a key. The result builder keys the columns' wire form on it (statements.ts).
 */
export function resultShapeKey(result: object): object | undefined {
  return shapeKeys.get(result);
}

/**
 * The Databricks types of a result's columns where the engine's type does not tell them (DuckDB has one
 * INTERVAL type; Spark types each interval YEAR TO MONTH, DAY, ...): index -> type text.
 */
export function databricksColumnTypes(result: object): Map<number, string> | undefined {
  return columnTypes.get(result);
}

async function run(
  p: Prepared,
  s: Session,
  materialize: boolean,
  cache?: 'stream' | 'materialized',
): Promise<DuckDBResultLike> {
  const hasValues = Object.keys(p.values).length > 0;
  const r = await withFallback(p, s, (sql, values) =>
    materialize
      ? (s.conn.run(sql, hasValues ? values : undefined) as Promise<DuckDBResultLike>)
      : cache
        ? runCached(s, sql, hasValues ? values : undefined, cache)
        : streamOne(s.conn, sql, hasValues ? values : undefined),
  );
  if (p.columnTypes && r && typeof r === 'object') columnTypes.set(r, p.columnTypes);
  return r;
}

/**
 * Streams one statement. The text reaching here is one statement (the dialect splits a text itself), so it
 * is prepared directly: `stream()` would first extract the statements (a parse and a thread-pool round trip
 * of its own) and then prepare the one it found, ~0.1 ms more per statement (bench/README.md, `SELECT 1`).
 * A connection without `prepare` (a test double) streams as before.
 */
async function streamOne(
  conn: DuckDBConnectionLike,
  sql: string,
  values: Record<string, unknown> | undefined,
): Promise<DuckDBResultLike> {
  if (!conn.prepare) return conn.stream(sql, values);
  const prepared = await conn.prepare(sql);
  try {
    if (values) prepared.bind(values);
    return await prepared.stream();
  } finally {
    prepared.destroySync();
  }
}

/**
 * Runs a query through the connection's prepared-statement cache (prepared-cache.ts): the plan is reused,
 * the values are bound afresh, the query runs every time. A failed run drops the entry, so the error (and
 * a retry after reinstalling macros) comes from a fresh prepare.
 */
async function runCached(
  s: Session,
  sql: string,
  values: Record<string, unknown> | undefined,
  mode: 'stream' | 'materialized',
): Promise<DuckDBResultLike> {
  const conn = s.conn;
  if (!conn.prepare) return conn.stream(sql, values);
  const scope = `${s.catalog}\u0000${s.schema}\u0000${s.timeZone}`;
  const { prepared, cached } = await cachedPrepare(
    conn as Parameters<typeof cachedPrepare>[0],
    s.engine.catalogEpoch,
    scope,
    sql,
  );
  try {
    prepared.clearBindings?.();
    if (values) prepared.bind(values);
    const r = await (mode === 'materialized' && prepared.run ? prepared.run() : prepared.stream());
    if (cached && mode === 'materialized' && !values && r && typeof r === 'object')
      shapeKeys.set(r, prepared);
    return r;
  } catch (e) {
    if (cached) dropPrepared(conn, prepared);
    throw e;
  } finally {
    if (!cached) prepared.destroySync();
  }
}

function read(p: Prepared, s: Session): Promise<{ getRows(): unknown[][] }> {
  const hasValues = Object.keys(p.values).length > 0;
  return withFallback(p, s, (sql, values) => s.conn.runAndReadAll(sql, hasValues ? values : undefined));
}

/**
 * The later stages (rewrite, then execute) for a query a command embeds (CREATE TABLE ... AS SELECT,
 * INSERT OVERWRITE, EXPLAIN, COPY (query)): the same path as a top-level statement.
 */
export function stagesFor(s: Session): CommandStages {
  return {
    translateOnly: async (text) => {
      const p = await prepare(text, s);
      return { sql: p.sql, values: p.values };
    },
    exec: async (text, materialize) => run(await prepare(text, s), s, materialize),
    count: async (text) => affected(await read(await prepare(text, s), s)),
  };
}
