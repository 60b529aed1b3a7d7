/**
 * What the command handlers (commands/*.ts) share: the stages they call back into for embedded queries, Unity
 * Catalog name rules, name resolution against the session, catalog listings and synthetic results.
 */
import { duckDbToDatabricksText } from '@minilake/datatypes';
import type { DuckDBResultLike } from '../types.js';
import { namePattern } from '@minilake/core';
import { literal } from '@minilake/engine-duckdb';
import { checkName, type Need } from '@minilake/unity-catalog';
import { Cursor } from '../tokens.js';
import { sqlError } from '../sql-error.js';
import type { Session } from '../session.js';
import { MACRO_DB } from '../macros.js';

/**
 * Unity Catalog's own name rule (checkName) for names SQL DDL creates, checked BEFORE anything runs, so that
 * SQL cannot create an object the REST API could not list or get.
 */
export function validNames(parts: string[], what: string): void {
  const labels =
    parts.length === 3 ? ['catalog', 'schema', what] : parts.length === 2 ? ['schema', what] : [what];
  parts.forEach((p, i) => {
    try {
      checkName(labels[i] ?? what, p);
    } catch (e) {
      throw sqlError('INVALID_PARAMETER_VALUE', '22023', e instanceof Error ? e.message : String(e));
    }
  });
}

export interface CommandStages {
  /** Translates Databricks SQL text to DuckDB SQL with its bound values. */
  translateOnly(text: string): Promise<{ sql: string; values: Record<string, unknown> }>;
  /** Runs Databricks SQL text through the normal translation path. */
  exec(text: string, materialize: boolean): Promise<DuckDBResultLike>;
  /** Runs Databricks DML text and returns the affected row count. */
  count(text: string): Promise<bigint>;
}

export type Outcome = DuckDBResultLike | undefined;

export const INTERNAL_DBS = new Set(['system', 'temp', 'memory', MACRO_DB]);

/** DuckDB type text -> Databricks type text as DESCRIBE prints it (the one vocabulary's lenient reading). */
export const sparkType = duckDbToDatabricksText;

/** Resolves [cat.]schema / [[cat.]schema.]table against the session into Databricks names. */
export function resolveTable(
  s: Session,
  parts: string[],
): { catalog: string; schema: string; table: string } {
  if (parts.length === 1) return { catalog: s.catalog, schema: s.schema, table: parts[0]! };
  if (parts.length === 2) return { catalog: s.catalog, schema: parts[0]!, table: parts[1]! };
  return { catalog: parts[0]!, schema: parts[1]!, table: parts[2]! };
}

/** Databricks SHOW ... LIKE: '*' any chars, '|' alternatives, case-insensitive (one parser, in core). */
export const likeToRegex = (pattern: string): RegExp => namePattern(pattern, 'show');

export async function listCatalogs(s: Session): Promise<string[]> {
  const r = await s.conn.runAndReadAll(
    'SELECT database_name FROM duckdb_databases() WHERE NOT internal ORDER BY database_name',
  );
  const out: string[] = [];
  for (const [alias] of r.getRows()) {
    const a = String(alias);
    if (INTERNAL_DBS.has(a) || a.startsWith('__')) continue;
    out.push(catalogName(s, a));
  }
  return out.sort();
}

export function catalogName(s: Session, alias: string): string {
  const known = s.engine.catalogForAlias?.(alias);
  if (known) return known;
  const i = alias.lastIndexOf('__');
  if (i > 0 && s.engine.alias(alias.slice(0, i)) === alias) return alias.slice(0, i);
  return alias;
}

/** MINILAKE_ENFORCE=1: refuses (INSUFFICIENT_PERMISSIONS) what the caller may not do; nothing otherwise. */
export async function authorize(s: Session, need: Need): Promise<void> {
  if (s.authorize) await s.authorize(need);
}

/**
 * MINILAKE_ENFORCE=1: a metadata read of a table (DESCRIBE [EXTENDED|DETAIL|HISTORY|AS JSON], SHOW COLUMNS,
 * SHOW TBLPROPERTIES, SHOW CREATE TABLE) that the caller may not see, by the rule SHOW and information_schema
 * filter by, is refused as Databricks refuses it: INSUFFICIENT_PERMISSIONS naming the first of USE CATALOG,
 * USE SCHEMA, SELECT it lacks (what its docs require to view an object with SQL). A table it sees is
 * described as before; a temporary view or a name Unity Catalog does not know is left to the command.
 */
export async function authorizeMetadataRead(
  s: Session,
  t: { catalog: string; schema: string; table: string },
): Promise<void> {
  if (!s.authorize || !s.visibility) return;
  const fullName = `${t.catalog}.${t.schema}.${t.table}`;
  if (s.visibility.sees('table', fullName)) return;
  await s.authorize({ on: 'table', fullName, privilege: 'SELECT' });
}

/**
 * MINILAKE_ENFORCE=1: DESCRIBE CATALOG / DESCRIBE SCHEMA of a namespace the caller may not see is refused as the
 * REST GET of it is (INSUFFICIENT_PERMISSIONS naming USE CATALOG, then USE SCHEMA); SHOW SCHEMAS / SHOW TABLES
 * in it list nothing instead, as the REST lists filter.
 */
export async function authorizeNamespaceRead(
  s: Session,
  on: 'catalog' | 'schema',
  fullName: string,
): Promise<void> {
  if (!s.authorize || !s.visibility) return;
  if (s.visibility.sees(on, fullName)) return;
  await s.authorize({ on, fullName, privilege: 'BROWSE' });
}

/**
 * A table or view named in SQL to be changed (DROP, ALTER, COMMENT ON; TRUNCATE and INSERT OVERWRITE): one of a
 * read-only catalog (samples) is refused for everyone, as every other write to it is. With MINILAKE_ENFORCE=1
 * it also needs `privilege` (ownership, or MODIFY), asked only of a table that exists: a missing one is the
 * statement's own error to report (or nothing, with IF EXISTS).
 */
export async function authorizeTable(
  s: Session,
  parts: string[],
  privilege: 'OWNER' | 'MODIFY',
): Promise<void> {
  const t = resolveTable(s, parts);
  s.uc?.checkWritable(`${t.catalog}.${t.schema}.${t.table}`);
  if (!s.authorize) return;
  if (
    !(await tableExists(s, t.catalog, t.schema, t.table)) &&
    !(await s.uc?.describeTable(`${t.catalog}.${t.schema}.${t.table}`))
  )
    return;
  const fullName = `${t.catalog}.${t.schema}.${t.table}`;
  await s.authorize({ on: 'table', fullName, privilege });
}

export async function tableExists(s: Session, cat: string, sch: string, tbl: string): Promise<boolean> {
  const r = await s.conn.runAndReadAll(
    `SELECT 1 FROM duckdb_tables() WHERE database_name = $d AND schema_name = $s AND table_name = $t
     UNION ALL SELECT 1 FROM duckdb_views() WHERE database_name = $d AND schema_name = $s AND view_name = $t AND NOT internal`,
    { d: s.engine.alias(cat), s: sch, t: tbl },
  );
  return r.getRows().length > 0;
}

export const tableNotFound = (name: string): Error =>
  sqlError(
    'TABLE_OR_VIEW_NOT_FOUND',
    '42P01',
    `The table or view \`${name}\` cannot be found. Verify the spelling and correctness of the schema and catalog.`,
  );

export async function ensureCatalog(s: Session, name: string): Promise<void> {
  const r = await s.conn.runAndReadAll('SELECT 1 FROM duckdb_databases() WHERE database_name = $d', {
    d: s.engine.alias(name),
  });
  if (r.getRows().length === 0)
    throw sqlError(
      'NO_SUCH_CATALOG_EXCEPTION',
      '42704',
      `Catalog '${name}' was not found. Please verify the catalog name.`,
    );
}

export async function ensureSchema(s: Session, cat: string, sch: string): Promise<void> {
  await ensureCatalog(s, cat);
  const r = await s.conn.runAndReadAll(
    'SELECT 1 FROM duckdb_schemas() WHERE database_name = $d AND schema_name = $s',
    { d: s.engine.alias(cat), s: sch },
  );
  if (r.getRows().length === 0)
    throw sqlError(
      'SCHEMA_NOT_FOUND',
      '42704',
      `The schema \`${cat}\`.\`${sch}\` cannot be found. Verify the spelling and correctness of the schema and catalog.`,
    );
}

/**
 * A result with no columns, as Databricks answers DDL and USE: DuckDB's "nothing" return type (which the
 * Statement API renders as an empty schema), from a statement that changes nothing here (it sets the time zone
 * the connection has).
 */
export function emptyResult(s: Session): Promise<DuckDBResultLike> {
  return s.conn.stream(`SET TimeZone = ${literal(s.timeZone)}`);
}

export function optionalLike(c: Cursor): RegExp | undefined {
  c.accept('LIKE');
  const t = c.peek();
  if (t?.type === 'STRING') {
    c.i++;
    return likeToRegex(t.text);
  }
  return undefined;
}

export async function columnsOf(
  s: Session,
  cat: string,
  sch: string,
  tbl: string,
): Promise<{ name: string; type: string; comment: string | null }[]> {
  const r = await s.conn.runAndReadAll(
    `SELECT column_name, data_type, comment FROM duckdb_columns()
     WHERE database_name = $d AND schema_name = $s AND table_name = $t ORDER BY column_index`,
    { d: s.engine.alias(cat), s: sch, t: tbl },
  );
  const rows = r.getRows();
  if (rows.length === 0) throw tableNotFound(`${cat}.${sch}.${tbl}`);
  return rows.map((x) => ({
    name: String(x[0]),
    type: sparkType(String(x[1])),
    comment: x[2] == null ? null : String(x[2]),
  }));
}

export async function ucTable(
  s: Session,
  t: { catalog: string; schema: string; table: string },
): Promise<{ comment?: string; properties?: Record<string, string> } | undefined> {
  if (!s.uc) return undefined;
  try {
    return (await s.uc.getTable(`${t.catalog}.${t.schema}.${t.table}`)) as {
      comment?: string;
      properties?: Record<string, string>;
    };
  } catch {
    return undefined;
  }
}

/** Reads `COMMENT 'x'`, `LOCATION 'x'`, `TBLPROPERTIES (...)`, `WITH DBPROPERTIES (...)` style options. */
/** `('k' = 'v', ...)`; with `keysOnly` (UNSET), `('k', ...)` and the values are empty. */
export function readProperties(c: Cursor, keysOnly = false): Record<string, string> {
  const g = c.group();
  const props: Record<string, string> = {};
  const inner = new Cursor(c.tokens.slice(g.from, g.to), c.text);
  while (!inner.done()) {
    const k = inner.peek()!.type === 'STRING' ? inner.string() : inner.qualifiedName().join('.');
    if (keysOnly) {
      props[k] = '';
      if (inner.peek()?.type === 'COMMA') inner.i++;
      continue;
    }
    inner.accept('=');
    if (inner.peek()?.type === 'EQ') inner.i++;
    const vt = inner.peek();
    if (!vt) inner.syntax('expected a property value');
    inner.i++;
    props[k] = vt!.text;
    if (inner.peek()?.type === 'COMMA') inner.i++;
  }
  return props;
}

export function alreadyExists(e: unknown): boolean {
  const code =
    (e as { errorCode?: string; error_code?: string })?.errorCode ??
    (e as { error_code?: string })?.error_code;
  return typeof code === 'string' && code.endsWith('ALREADY_EXISTS');
}

export function ucError(e: unknown): Error {
  const code = (e as { errorCode?: string })?.errorCode ?? '';
  const msg = e instanceof Error ? e.message : String(e);
  if (code.endsWith('ALREADY_EXISTS'))
    return sqlError(
      code.includes('SCHEMA') ? 'SCHEMA_ALREADY_EXISTS' : 'CATALOG_ALREADY_EXISTS',
      '42P06',
      msg,
    );
  if (code.endsWith('DOES_NOT_EXIST') || code === 'NOT_FOUND')
    return sqlError(code.includes('SCHEMA') ? 'SCHEMA_NOT_FOUND' : 'NO_SUCH_CATALOG_EXCEPTION', '42704', msg);
  return e instanceof Error ? e : new Error(msg);
}
