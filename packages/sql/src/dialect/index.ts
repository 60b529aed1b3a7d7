/**
 * Databricks SQL on DuckDB: the one entry point the Statement Execution API calls.
 * - Multi-statement text runs in order; the last statement's result is returned (streaming).
 * - Catalog/schema from the request become the connection's namespace (USE + search_path) per statement.
 * - USE/SHOW/DESCRIBE/UC DDL/Delta commands are intercepted (intercept.ts); everything else is translated
 *   (translate.ts) with Spark semantics from macros (macros.ts). Text that is not Databricks SQL but runs on
 *   DuckDB as written still runs (fallback).
 */
import { catalogAliasToName } from '@minilake/engine-duckdb';
import { intercept } from './intercept.js';
import { MACRO_DB, macroStatements, MACRO_SCHEMA } from './macros.js';
import { loadPolyglot } from './polyglot.js';
import { quoteIdent, type Session } from './session.js';
import { SqlError, sqlError, syntaxError, unsupported } from './sql-error.js';
import { splitStatementsCached, tokenType, type SplitStatement } from './tokens.js';
import {
  isVolumePath,
  translate,
  TranslationFailed,
  VolumesNeeded,
  type TranslateOptions,
} from './translate.js';
import { polyglot } from './polyglot.js';
import { resolveVolumes } from './volumes.js';
import type {
  DuckDBConnectionLike,
  DuckDBResultLike,
  DuckDbEngineLike,
  UnityCatalogApiLike,
} from './types.js';

export { SqlError, sqlError } from './sql-error.js';
export { loadPolyglot } from './polyglot.js';
export { sparkType } from './intercept.js';
export type {
  DuckDBConnectionLike,
  DuckDBResultLike,
  DuckDbEngineLike,
  UnityCatalogApiLike,
} from './types.js';

export interface StatementParameter {
  name: string;
  value?: string | null;
  type?: string;
}

export interface ExecuteInput {
  statement: string;
  catalog?: string;
  schema?: string;
  parameters?: StatementParameter[];
  /** The caller's user name (current_user()); the Statement API passes the request's identity. */
  user?: string;
}

/** The namespace last applied to each pooled connection (keyed by its native handle) and the engine's epoch. */
const namespaces = new WeakMap<object, { target: string; epoch: number | undefined; ok: boolean }>();

/** The connection is known not to have the (missing) namespace: it only has the macro search path. */
class NamespaceUnavailable extends Error {}
const SESSION_CHANGING = new Set(['RESET', 'PRAGMA', 'CALL', 'ATTACH', 'DETACH', 'USE']);

/** Leases wrap the same connection in a new proxy each time: key the cache by the wrapped native handle. */
function connectionKey(c: object): object {
  const inner = (c as { connection?: unknown }).connection;
  return inner && typeof inner === 'object' ? inner : c;
}

const macrosReady = new WeakMap<object, Promise<void>>();

async function ensureMacros(conn: DuckDBConnectionLike, engine: object): Promise<void> {
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
function macroMissing(e: unknown): boolean {
  const m = e instanceof Error ? e.message : String(e);
  return m.includes(MACRO_DB) || /spark_[a-z_]+ does not exist/i.test(m);
}

async function reinstallMacros(conn: DuckDBConnectionLike, engine: object): Promise<void> {
  macrosReady.delete(engine);
  await ensureMacros(conn, engine);
}

export async function executeDatabricksSql<R extends DuckDBResultLike>(
  conn: { stream(sql: string, values?: Record<string, unknown>): Promise<R> } & Omit<
    DuckDBConnectionLike,
    'stream'
  >,
  input: ExecuteInput,
  env: { engine: DuckDbEngineLike; uc?: UnityCatalogApiLike | unknown },
): Promise<R> {
  await loadPolyglot();
  const c = conn as unknown as DuckDBConnectionLike;
  await ensureMacros(c, env.engine);
  const params = new Map<string, { value: string | null; type: string | undefined }>();
  for (const p of input.parameters ?? []) params.set(p.name, { value: p.value ?? null, type: p.type });
  const explicitNs = input.catalog !== undefined || input.schema !== undefined;
  let applied: string | undefined;
  const key = connectionKey(c);
  const s: Session = {
    conn: c,
    engine: env.engine,
    uc: (env.uc ?? undefined) as UnityCatalogApiLike | undefined,
    catalog: input.catalog || 'main',
    schema: input.schema || 'default',
    ...(input.user !== undefined ? { user: input.user } : {}),
    params,
    inTransaction: false,
    applyNamespace: async () => {
      const target = `${quoteIdent(env.engine.alias(s.catalog))}.${quoteIdent(s.schema)}`;
      if (applied === target) return;
      // Pooled connections keep their namespace between requests: skip the round trip when this connection
      // already has it and no catalog change (e.g. a DETACH moving idle connections to `memory`) happened since.
      const epoch = env.engine.catalogEpoch;
      const known = namespaces.get(key);
      if (known && known.target === target && epoch !== undefined && known.epoch === epoch) {
        if (!known.ok) throw new NamespaceUnavailable();
        applied = target;
        return;
      }
      namespaces.delete(key);
      // Databricks SQL warehouses default to UTC; TIMESTAMP (TIMESTAMPTZ here) literals and rendering follow it.
      await c.run(
        `USE ${target}; SET search_path = '${`${target},${MACRO_SCHEMA}`.replaceAll("'", "''")}'; SET TimeZone = 'UTC'`,
      );
      namespaces.set(key, { target, epoch, ok: true });
      applied = target;
    },
  };
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
      await c.run(`SET search_path = '${MACRO_SCHEMA.replaceAll("'", "''")}'`);
      const target = `${quoteIdent(env.engine.alias(s.catalog))}.${quoteIdent(s.schema)}`;
      namespaces.set(key, { target, epoch, ok: false });
    }
  }
  const stmts = splitStatementsCached(input.statement);
  if (stmts.length === 0) throw syntaxError('Syntax error: the statement text is empty.');
  // Text that may change the connection's settings behind the dialect's back: set the namespace again next time.
  if (stmts.some((st) => SESSION_CHANGING.has(st.tokens[0]?.text.toUpperCase() ?? '')))
    namespaces.delete(key);
  let last: DuckDBResultLike | undefined;
  try {
    for (let i = 0; i < stmts.length; i++) {
      const final = i === stmts.length - 1;
      last = await runOne(stmts[i]!, s, final);
    }
  } catch (e) {
    // A failure inside the text's own BEGIN ... leaves the pooled connection in an aborted transaction:
    // roll it back so the next request on this connection starts clean.
    if (s.inTransaction) {
      await c.run('ROLLBACK').catch(() => undefined);
      env.engine.notifyChange?.();
    }
    throw e;
  }
  return last as R;
}

function namespaceError(s: Session, e: unknown): Error {
  const msg = e instanceof Error ? e.message : String(e);
  if (/Catalog .* does not exist|database .* does not exist/i.test(msg))
    return sqlError('NO_SUCH_CATALOG_EXCEPTION', '42704', `Catalog '${s.catalog}' was not found.`);
  return sqlError(
    'SCHEMA_NOT_FOUND',
    '42704',
    `The schema \`${s.catalog}\`.\`${s.schema}\` cannot be found. Verify the spelling and correctness of the schema and catalog.`,
  );
}

const MACRO_ERROR_STATES: Record<string, string> = {
  UNSUPPORTED_FEATURE: '0A000',
  DIVIDE_BY_ZERO: '22012',
  INVALID_ARRAY_INDEX: '22003',
  INVALID_ARRAY_INDEX_IN_ELEMENT_AT: '22003',
  INVALID_INDEX_OF_ZERO: '22003',
  'INVALID_PARAMETER_VALUE.START': '22023',
};

const DML = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
/**
 * Statements (by their first token) that may change the catalog, or publish or undo a transaction that
 * did: after one runs, the engine's listeners are told. A false positive costs a metadata refresh.
 */
const CATALOG_CHANGING = new Set([
  'CREATE',
  'DROP',
  'ALTER',
  'ATTACH',
  'DETACH',
  'IMPORT',
  'COMMENT',
  'COMMIT',
  'ROLLBACK',
  'ABORT',
  'END',
]);

async function runOne(stmt: SplitStatement, s: Session, final: boolean): Promise<DuckDBResultLike> {
  if (!CATALOG_CHANGING.has(stmt.tokens[0]?.text.toUpperCase() ?? '')) return runStatement(stmt, s, final);
  try {
    return await runStatement(stmt, s, final);
  } finally {
    s.engine.notifyChange?.();
  }
}

async function runStatement(stmt: SplitStatement, s: Session, final: boolean): Promise<DuckDBResultLike> {
  const hooks = {
    translateOnly: async (text: string) => {
      const p = await prepare(text, s);
      return { sql: p.sql, values: p.values };
    },
    exec: (text: string, materialize: boolean) => runText(text, s, materialize),
    count: async (text: string) => affected(await runTextRead(text, s)),
  };
  const first = stmt.tokens[0]?.text.toUpperCase() ?? '';
  if (first === 'BEGIN' || first === 'START') s.inTransaction = true;
  else if (first === 'COMMIT' || first === 'ROLLBACK' || first === 'END' || first === 'ABORT')
    s.inTransaction = false;
  let r: DuckDBResultLike | undefined;
  try {
    r = await intercept(stmt, s, hooks);
  } catch (e) {
    throw mapError(e);
  }
  if (r) return r;
  const head = stmt.tokens[0]?.text.toUpperCase() ?? '';
  if (head === 'MERGE') {
    // Databricks reports the four MERGE counters; DuckDB tells the action of every changed row.
    const rows = (await runTextRead(stmt.text, s, ' RETURNING merge_action')).getRows();
    const n = { UPDATE: 0, DELETE: 0, INSERT: 0 } as Record<string, number>;
    for (const [a] of rows) n[String(a)] = (n[String(a)] ?? 0) + 1;
    return s.conn.stream(
      'SELECT $a::BIGINT AS num_affected_rows, $u::BIGINT AS num_updated_rows, $d::BIGINT AS num_deleted_rows, $i::BIGINT AS num_inserted_rows',
      { a: String(rows.length), u: String(n.UPDATE), d: String(n.DELETE), i: String(n.INSERT) },
    );
  }
  if (DML.has(head)) {
    const n = affected(await runTextRead(stmt.text, s));
    const cols = head === 'INSERT' ? ['num_affected_rows', 'num_inserted_rows'] : ['num_affected_rows'];
    return s.conn.stream(`SELECT ${cols.map((c) => `$n::BIGINT AS ${c}`).join(', ')}`, { n: String(n) });
  }
  return runText(stmt.text, s, !final);
}

function affected(r: { getRows(): unknown[][] }): bigint {
  const v = r.getRows()[0]?.[0];
  return typeof v === 'bigint' ? v : BigInt(Number(v ?? 0));
}

interface Prepared {
  sql: string;
  values: Record<string, unknown>;
  fallback: string | undefined;
}

async function prepare(text: string, s: Session): Promise<Prepared> {
  const paramTypes = new Map<string, string | undefined>();
  for (const [k, v] of s.params) paramTypes.set(k, v.type);
  const o: TranslateOptions = {
    alias: (c: string) => s.engine.alias(c),
    currentCatalog: s.catalog,
    sessionCatalog: s.catalog,
    sessionSchema: s.schema,
    ...(s.user !== undefined ? { user: s.user } : {}),
    paramTypes,
  };
  try {
    let t: ReturnType<typeof translate>;
    try {
      t = translate(text, o);
    } catch (e) {
      if (!(e instanceof VolumesNeeded)) throw e;
      o.volumes = await resolveVolumes(e.paths, s);
      t = translate(text, o);
    }
    const values: Record<string, unknown> = {};
    for (const p of t.params) {
      const v = s.params.get(p);
      if (!v)
        throw sqlError(
          'UNBOUND_SQL_PARAMETER',
          '42P02',
          `Found the unbound parameter: ${p}. Please, fix \`args\` and provide a mapping of the parameter to either a SQL literal or collection constructor functions such as \`map()\`, \`array()\`, \`struct()\`.`,
        );
      values[p] = v.value;
    }
    if (t.avgColumns.length > 0) {
      const decimals = await avgDecimalTypes(text, o, t.avgColumns, values, s);
      if (decimals.size > 0) t = translate(text, { ...o, avgDecimals: decimals });
    }
    return { sql: t.sql, values, fallback: text };
  } catch (e) {
    if (e instanceof SqlError) throw e;
    if (e instanceof TranslationFailed) {
      // Text that runs as written must not reach the host's /Volumes: its paths could not be mapped.
      if (namesVolume(text))
        throw unsupported(
          'This statement form with a /Volumes path (use read_csv/read_parquet/read_json/read_text or a simpler COPY)',
        );
      return { sql: text, values: {}, fallback: undefined };
    }
    throw e;
  }
}

function namesVolume(text: string): boolean {
  const { tokenize, Dialect } = polyglot();
  const r = tokenize(text, Dialect.Databricks);
  return !!r.tokens?.some((t) => tokenType(t) === 'STRING' && isVolumePath(t.text));
}

/**
 * DESCRIBE of the probe query tells the DuckDB type of each avg/sum argument, giving Spark's result type:
 * avg(DECIMAL(p, s)) = DECIMAL(p + 4, s + 4); sum(DECIMAL(p, s)) = DECIMAL(p + 10, s); sum(integral) = BIGINT
 * (DuckDB: DOUBLE, DECIMAL(38, s), HUGEINT).
 */
async function avgDecimalTypes(
  text: string,
  o: Parameters<typeof translate>[1],
  columns: { index: number; fn: 'avg' | 'sum' | 'div' }[],
  values: Record<string, unknown>,
  s: Session,
): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>();
  try {
    const probe = translate(text, { ...o, avgProbe: true });
    const r = await s.conn.runAndReadAll(
      `DESCRIBE ${probe.sql}`,
      Object.keys(values).length > 0 ? values : undefined,
    );
    const rows = r.getRows();
    for (const { index, fn } of columns) {
      const type = String(rows[index]?.[1] ?? '');
      if (fn === 'div') {
        const t = sparkDivisionType(type);
        if (t) out.set(index, t);
        continue;
      }
      const m = type.match(/^DECIMAL\((\d+),\s*(\d+)\)$/);
      if (m) {
        const [p, sc] = [Number(m[1]), Number(m[2])];
        out.set(
          index,
          fn === 'avg'
            ? { data_type: 'decimal', precision: Math.min(38, p + 4), scale: Math.min(38, sc + 4) }
            : { data_type: 'decimal', precision: Math.min(38, p + 10), scale: sc },
        );
      } else if (fn === 'sum' && ['INTEGER', 'BIGINT', 'SMALLINT', 'TINYINT'].includes(type)) {
        out.set(index, { data_type: 'big_int', length: null });
      }
    }
  } catch {
    // The real statement reports its own error.
  }
  return out;
}

/** Spark's integral types as decimals when they meet a DECIMAL in arithmetic. */
const INTEGRAL_DECIMAL: Record<string, [number, number]> = {
  TINYINT: [3, 0],
  SMALLINT: [5, 0],
  INTEGER: [10, 0],
  BIGINT: [20, 0],
};

/**
 * Spark's type of `a / b` from the probe's `STRUCT(<type of a>, <type of b>)`: when a DECIMAL meets a DECIMAL
 * or an integral type, DECIMAL(p1 - s1 + s2 + max(6, s1 + p2 + 1), max(6, s1 + p2 + 1)) bounded to 38 digits
 * as Spark bounds it (keeping at least 6 fraction digits). Anything else stays as DuckDB computes it.
 */
function sparkDivisionType(struct: string): Record<string, unknown> | undefined {
  const m = struct.match(
    /^STRUCT\((?:"?\w*"?\s+)?([A-Z]+(?:\(\d+,\s*\d+\))?),\s*(?:"?\w*"?\s+)?([A-Z]+(?:\(\d+,\s*\d+\))?)\)$/,
  );
  if (!m) return undefined;
  const dec = (t: string): [number, number] | undefined => {
    const d = t.match(/^DECIMAL\((\d+),\s*(\d+)\)$/);
    return d ? [Number(d[1]), Number(d[2])] : INTEGRAL_DECIMAL[t];
  };
  const [a, b] = [dec(m[1]!), dec(m[2]!)];
  if (!a || !b || (!m[1]!.startsWith('DECIMAL') && !m[2]!.startsWith('DECIMAL'))) return undefined;
  const [[p1, s1], [p2, s2]] = [a, b];
  let scale = Math.max(6, s1 + p2 + 1);
  let precision = p1 - s1 + s2 + scale;
  if (precision > 38) {
    const intDigits = precision - scale;
    scale = Math.max(38 - intDigits, Math.min(scale, 6));
    precision = 38;
  }
  return { data_type: 'decimal', precision, scale };
}

async function withFallback<T>(
  p: Prepared,
  s: Session,
  run: (sql: string, values: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  try {
    return await run(p.sql, p.values);
  } catch (e) {
    if (!macroMissing(e)) throw mapError(e);
    await reinstallMacros(s.conn, s.engine);
    try {
      return await run(p.sql, p.values);
    } catch (e2) {
      throw mapError(e2);
    }
  }
}

async function runText(text: string, s: Session, materialize: boolean): Promise<DuckDBResultLike> {
  const p = await prepare(text, s);
  const hasValues = Object.keys(p.values).length > 0;
  return withFallback(p, s, (sql, values) =>
    materialize
      ? (s.conn.run(sql, hasValues ? values : undefined) as Promise<DuckDBResultLike>)
      : s.conn.stream(sql, hasValues ? values : undefined),
  );
}

async function runTextRead(text: string, s: Session, suffix = ''): Promise<{ getRows(): unknown[][] }> {
  const p = await prepare(text, s);
  p.sql += suffix;
  const hasValues = Object.keys(p.values).length > 0;
  return withFallback(p, s, (sql, values) => s.conn.runAndReadAll(sql, hasValues ? values : undefined));
}

/** Error classes (and SQLSTATEs) for Databricks REST error codes thrown by Unity Catalog inside a statement. */
const REST_CODES: Record<string, [string, string]> = {
  INVALID_PARAMETER_VALUE: ['INVALID_PARAMETER_VALUE', '22023'],
  CATALOG_DOES_NOT_EXIST: ['NO_SUCH_CATALOG_EXCEPTION', '42704'],
  SCHEMA_DOES_NOT_EXIST: ['SCHEMA_NOT_FOUND', '42704'],
  TABLE_DOES_NOT_EXIST: ['TABLE_OR_VIEW_NOT_FOUND', '42P01'],
  CATALOG_ALREADY_EXISTS: ['CATALOG_ALREADY_EXISTS', '42P04'],
  SCHEMA_ALREADY_EXISTS: ['SCHEMA_ALREADY_EXISTS', '42P06'],
  TABLE_ALREADY_EXISTS: ['TABLE_OR_VIEW_ALREADY_EXISTS', '42P07'],
  PERMISSION_DENIED: ['PERMISSION_DENIED', '42501'],
  RESOURCE_DOES_NOT_EXIST: ['RESOURCE_DOES_NOT_EXIST', '42704'],
  RESOURCE_ALREADY_EXISTS: ['RESOURCE_ALREADY_EXISTS', '42710'],
};

/** Engine aliases (`main__ml`) in an error text -> the catalog names users wrote. */
function unaliasText(t: string): string {
  return t.replace(/\b[A-Za-z0-9_]+__ml\b/g, (a) => catalogAliasToName(a));
}

/** DuckDB error text (or a Databricks REST error from Unity Catalog) -> Databricks error class and SQLSTATE. */
export function mapError(e: unknown): Error {
  if (e instanceof SqlError) return e;
  if (
    e instanceof Error &&
    e.name === 'DatabricksError' &&
    typeof (e as { errorCode?: unknown }).errorCode === 'string'
  ) {
    const code = (e as unknown as { errorCode: string }).errorCode;
    const [cls, state] = REST_CODES[code] ?? [code, 'KD000'];
    return sqlError(cls, state, unaliasText(e.message));
  }
  return mapDuckError(unaliasText(e instanceof Error ? e.message : String(e)));
}

function mapDuckError(msg: string): Error {
  let first = msg.split('\n')[0] ?? msg;
  if (first.startsWith('Failed to extract statements: '))
    first = first.slice('Failed to extract statements: '.length);
  let m: RegExpMatchArray | null;
  if (/INTERRUPT/i.test(first)) return sqlError('OPERATION_CANCELED', '57014', 'The statement was canceled.');
  // Errors raised by the spark_* macros carry their Spark error class.
  if ((m = first.match(/\[([A-Z_]+(?:\.[A-Z_]+)?)\] (.*)$/)) && m[1]! in MACRO_ERROR_STATES)
    return sqlError(m[1]!, MACRO_ERROR_STATES[m[1]!]!, m[2]!);
  if (
    (m = first.match(/Table with name (\S+) does not exist/)) ||
    (m = first.match(/Table or view .*?"?([\w.]+)"? does not exist/))
  )
    return sqlError(
      'TABLE_OR_VIEW_NOT_FOUND',
      '42P01',
      `The table or view \`${m[1]}\` cannot be found. Verify the spelling and correctness of the schema and catalog. (${first})`,
    );
  if ((m = first.match(/Catalog (?:with name )?"?([^"\s!]+)"? does not exist/)))
    return sqlError('NO_SUCH_CATALOG_EXCEPTION', '42704', `Catalog '${m[1]}' was not found. (${first})`);
  if ((m = first.match(/Schema with name "?([^"\s]+)"? does not exist/)))
    return sqlError('SCHEMA_NOT_FOUND', '42704', `The schema \`${m[1]}\` cannot be found. (${first})`);
  if (
    (m = first.match(/Referenced column "?([^"\s]+)"? (?:was )?not found/)) ||
    (m = first.match(/column "?([^"\s]+)"? .*does not exist/i))
  )
    return sqlError(
      'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION',
      '42703',
      `A column, variable, or function parameter with name \`${m[1]}\` cannot be resolved. (${first})`,
    );
  if ((m = first.match(/(?:Scalar|Aggregate|Table) Function with name "?([^"\s!]+)"? does not exist/)))
    return sqlError(
      'UNRESOLVED_ROUTINE',
      '42883',
      `Cannot resolve routine \`${m[1]}\` on search path [\`system\`.\`builtin\`, \`system\`.\`session\`]. (${first})`,
    );
  if (first.startsWith('Parser Error'))
    return sqlError('PARSE_SYNTAX_ERROR', '42601', `Syntax error: ${first}`);
  if (first.includes('Unimplemented type for cast'))
    return sqlError(
      'DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION',
      '42K09',
      `Cannot resolve the cast: ${first}`,
    );
  // A sum wider than BIGINT (our cast of DuckDB's HUGEINT sum) is Spark's arithmetic overflow.
  if (
    /Overflow in (addition|subtraction|multiplication)/.test(first) ||
    /out of range .*source column sum\(/.test(first)
  )
    return sqlError(
      'ARITHMETIC_OVERFLOW',
      '22003',
      `${first}. Use 'try_add'/'try_multiply' to tolerate overflow and return NULL instead.`,
    );
  if (/Failed to cast .* to type|out of range for the destination type|Overflow in/.test(first))
    return sqlError(
      'CAST_OVERFLOW',
      '22003',
      `${first}. Use \`try_cast\` to tolerate overflow and return NULL instead.`,
    );
  if (first.startsWith('Conversion Error') || first.startsWith('Invalid Input Error: Could not convert'))
    return sqlError('CAST_INVALID_INPUT', '22018', first);
  if (first.includes('already exists')) return sqlError('TABLE_OR_VIEW_ALREADY_EXISTS', '42P07', first);
  if (first.includes('aggregate function calls cannot be nested'))
    return sqlError(
      'NESTED_AGGREGATE_FUNCTION',
      '42607',
      `It is not allowed to use an aggregate function in the argument of another aggregate function. (${first})`,
    );
  if (first.startsWith('Binder Error')) return sqlError('DATATYPE_MISMATCH', '42K09', first);
  if (first.startsWith('Constraint Error')) return sqlError('CONSTRAINT_VIOLATION', '23000', first);
  if (first.startsWith('Out of Range Error')) return sqlError('ARITHMETIC_OVERFLOW', '22003', first);
  if (first.startsWith('Invalid Input Error')) return sqlError('INVALID_INPUT', '22023', first);
  if (first.startsWith('Not implemented Error')) return sqlError('UNSUPPORTED_FEATURE', '0A000', first);
  if (first.includes('Type with name')) return sqlError('UNSUPPORTED_DATATYPE', '0A000', first);
  if (first.startsWith('Catalog Error')) return sqlError('TABLE_OR_VIEW_NOT_FOUND', '42P01', first);
  return sqlError('INTERNAL_ERROR', 'XX000', first);
}
