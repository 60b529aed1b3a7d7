/**
 * Commands handled in our own code rather than by translation: namespace (USE), catalog listings (SHOW,
 * DESCRIBE) with Databricks' output columns, Unity Catalog DDL, Delta-only clauses and commands.
 * Each is recognised from the token stream (polyglot's tokenizer), never from regexes over the text.
 */
import { namePattern } from '@minilake/core';
import { duckDbTypeToDatabricks } from '@minilake/engine-duckdb';
import { Cursor, type SplitStatement } from './tokens.js';
import { sqlError, unsupported } from './sql-error.js';
import { quoteIdent, valuesResult, type Cell, type Session } from './session.js';
import type { DuckDBResultLike, TableMetadata } from './types.js';
import { MACRO_DB } from './macros.js';
import { isVolumePath } from './translate.js';
import { resolveVolumes } from './volumes.js';
import { checkName } from '@minilake/unity-catalog';

/**
 * Unity Catalog's own name rule (checkName) for names SQL DDL creates, checked BEFORE anything runs, so that
 * SQL cannot create an object the REST API could not list or get.
 */
function validNames(parts: string[], what: string): void {
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

export interface InterceptHooks {
  /** Translates Databricks SQL text to DuckDB SQL with its bound values. */
  translateOnly(text: string): Promise<{ sql: string; values: Record<string, unknown> }>;
  /** Runs Databricks SQL text through the normal translation path. */
  exec(text: string, materialize: boolean): Promise<DuckDBResultLike>;
  /** Runs Databricks DML text and returns the affected row count. */
  count(text: string): Promise<bigint>;
}

type Outcome = DuckDBResultLike | undefined;

const INTERNAL_DBS = new Set(['system', 'temp', 'memory', MACRO_DB]);

/** DuckDB type text -> Spark type text (as DESCRIBE prints it), with the engine's mapping when it parses. */
export function sparkType(t: string): string {
  try {
    return duckDbTypeToDatabricks(t).type_text;
  } catch {
    return localSparkType(t);
  }
}

function localSparkType(t: string): string {
  const u = t.trim();
  if (u.endsWith('[]')) return `array<${sparkType(u.slice(0, -2))}>`;
  const up = u.toUpperCase();
  if (up.startsWith('DECIMAL')) return u.toLowerCase().replaceAll(' ', '');
  if (up.startsWith('MAP(') || up.startsWith('STRUCT(')) {
    const inner = u.slice(u.indexOf('(') + 1, -1);
    const parts: string[] = [];
    let depth = 0;
    let cur = '';
    for (const ch of inner) {
      if (ch === '(' || ch === '[') depth++;
      if (ch === ')' || ch === ']') depth--;
      if (ch === ',' && depth === 0) {
        parts.push(cur.trim());
        cur = '';
      } else cur += ch;
    }
    if (cur.trim()) parts.push(cur.trim());
    if (up.startsWith('MAP(')) return `map<${sparkType(parts[0] ?? '')},${sparkType(parts[1] ?? '')}>`;
    const fields = parts.map((p) => {
      let name: string;
      let rest: string;
      if (p.startsWith('"')) {
        const end = p.indexOf('"', 1);
        name = p.slice(1, end);
        rest = p.slice(end + 1);
      } else {
        const sp = p.indexOf(' ');
        name = p.slice(0, sp);
        rest = p.slice(sp + 1);
      }
      return `${name}:${sparkType(rest)}`;
    });
    return `struct<${fields.join(',')}>`;
  }
  const map: Record<string, string> = {
    VARCHAR: 'string',
    INTEGER: 'int',
    BIGINT: 'bigint',
    SMALLINT: 'smallint',
    TINYINT: 'tinyint',
    DOUBLE: 'double',
    FLOAT: 'float',
    BOOLEAN: 'boolean',
    DATE: 'date',
    'TIMESTAMP WITH TIME ZONE': 'timestamp',
    TIMESTAMP: 'timestamp_ntz',
    BLOB: 'binary',
    INTERVAL: 'interval',
    HUGEINT: 'decimal(38,0)',
    UBIGINT: 'decimal(20,0)',
    UINTEGER: 'bigint',
    USMALLINT: 'int',
    UTINYINT: 'smallint',
    UUID: 'string',
    JSON: 'string',
    '"NULL"': 'void',
    NULL: 'void',
  };
  return map[up] ?? u.toLowerCase();
}

/** Resolves [cat.]schema / [[cat.]schema.]table against the session into Databricks names. */
function resolveTable(s: Session, parts: string[]): { catalog: string; schema: string; table: string } {
  if (parts.length === 1) return { catalog: s.catalog, schema: s.schema, table: parts[0]! };
  if (parts.length === 2) return { catalog: s.catalog, schema: parts[0]!, table: parts[1]! };
  return { catalog: parts[0]!, schema: parts[1]!, table: parts[2]! };
}

// Databricks SHOW ... LIKE: '*' any chars, '|' alternatives, case-insensitive (one parser, in core).
const likeToRegex = (pattern: string): RegExp => namePattern(pattern, 'show');

async function listCatalogs(s: Session): Promise<string[]> {
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

function catalogName(s: Session, alias: string): string {
  const known = s.engine.catalogForAlias?.(alias);
  if (known) return known;
  const i = alias.lastIndexOf('__');
  if (i > 0 && s.engine.alias(alias.slice(0, i)) === alias) return alias.slice(0, i);
  return alias;
}

async function tableExists(s: Session, cat: string, sch: string, tbl: string): Promise<boolean> {
  const r = await s.conn.runAndReadAll(
    `SELECT 1 FROM duckdb_tables() WHERE database_name = $d AND schema_name = $s AND table_name = $t
     UNION ALL SELECT 1 FROM duckdb_views() WHERE database_name = $d AND schema_name = $s AND view_name = $t AND NOT internal`,
    { d: s.engine.alias(cat), s: sch, t: tbl },
  );
  return r.getRows().length > 0;
}

const tableNotFound = (name: string): Error =>
  sqlError(
    'TABLE_OR_VIEW_NOT_FOUND',
    '42P01',
    `The table or view \`${name}\` cannot be found. Verify the spelling and correctness of the schema and catalog.`,
  );

export async function intercept(stmt: SplitStatement, s: Session, h: InterceptHooks): Promise<Outcome> {
  const c = new Cursor(stmt.tokens, stmt.text);
  // Delta time travel: polyglot drops it after a table function, so refuse it wherever it appears.
  for (let k = 0; k + 2 < stmt.tokens.length; k++) {
    if ((c.is('VERSION', k) || c.is('TIMESTAMP', k)) && c.is('AS', k + 1) && c.is('OF', k + 2))
      throw unsupported('Delta time travel (VERSION AS OF / TIMESTAMP AS OF)');
  }
  // Clear errors for Delta/Spark clauses DuckDB would only report as a syntax error.
  for (let k = 0; k + 1 < stmt.tokens.length; k++) {
    if ((c.is('SHALLOW', k) || c.is('DEEP', k)) && c.is('CLONE', k + 1))
      throw unsupported('SHALLOW/DEEP CLONE');
    if (c.is('AS', k) && c.is('IDENTITY', k + 1))
      throw unsupported('Identity columns (GENERATED ... AS IDENTITY)');
    if (c.is('REPLACE', k) && c.is('WHERE', k + 1)) throw unsupported('INSERT ... REPLACE WHERE');
    if ((c.is('SORT', k) || c.is('DISTRIBUTE', k)) && c.is('BY', k + 1))
      throw unsupported('SORT BY / DISTRIBUTE BY');
  }
  if (
    c.is('INSERT') &&
    stmt.tokens.some((t, k) => k > 0 && c.is('PARTITION', k) && stmt.tokens[k + 1]?.type === 'L_PAREN')
  )
    throw unsupported('INSERT ... PARTITION (...)');
  const first = c.peek()?.text.toUpperCase();
  switch (first) {
    case 'USE':
      return use(c, s);
    case 'SHOW':
      return show(c, s);
    case 'DESCRIBE':
    case 'DESC':
      return describe(c, s);
    case 'CREATE':
      return create(c, s, h);
    case 'DROP':
      return drop(c, s);
    case 'ALTER':
      return alter(c, s, h);
    case 'COMMENT':
      return commentOn(c, s);
    case 'INSERT':
      return insertOverwrite(c, s, h);
    case 'OPTIMIZE':
      return optimize(c, s);
    case 'VACUUM':
      return vacuum(c, s);
    case 'GRANT':
    case 'REVOKE':
      return grant(c, s);
    case 'ANALYZE':
    case 'REFRESH':
    case 'CACHE':
    case 'UNCACHE':
    case 'MSCK':
      return emptyResult(s);
    case 'SET':
      return setCommand(c, s);
    case 'EXPLAIN':
      return explain(c, s, h);
    case 'COPY':
      // DuckDB's COPY ... TO/FROM runs (translated, volume paths mapped); Databricks' COPY INTO does not.
      if (c.is('INTO', 1))
        throw unsupported('COPY INTO (use INSERT INTO ... SELECT * FROM read_csv(...) / read_parquet(...))');
      return copy(c, s, h);
    default:
      return undefined;
  }
}

/**
 * DuckDB's `COPY <table | (query)> TO | FROM '<path>' [options]`: the query is translated, the table name
 * resolved like any table, a `/Volumes/...` path mapped to the volume's directory; options pass as written.
 */
async function copy(c: Cursor, s: Session, h: InterceptHooks): Promise<Outcome> {
  c.expect('COPY');
  let source: string;
  let values: Record<string, unknown> = {};
  if (c.peek()?.type === 'L_PAREN') {
    const g = c.group();
    const t = await h.translateOnly(c.slice(g.from, g.to));
    source = `(${t.sql})`;
    values = t.values;
  } else {
    const t = resolveTable(s, c.qualifiedName());
    source = `${quoteIdent(s.engine.alias(t.catalog))}.${quoteIdent(t.schema)}.${quoteIdent(t.table)}`;
    if (c.peek()?.type === 'L_PAREN') {
      const g = c.group();
      source += ` (${c.slice(g.from, g.to)})`;
    }
  }
  const dir = c.accept('TO') ? 'TO' : c.accept('FROM') ? 'FROM' : c.syntax('expected TO or FROM');
  let file = c.string();
  if (isVolumePath(file)) file = (await resolveVolumes([file], s)).get(file)!;
  const sql = `COPY ${source} ${dir} '${file.replaceAll("'", "''")}' ${c.rest()}`;
  return s.conn.stream(sql, Object.keys(values).length > 0 ? values : undefined);
}

async function use(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('USE');
  if (c.accept('CATALOG')) {
    const name = c.ident();
    await ensureCatalog(s, name);
    s.catalog = name;
    s.schema = 'default';
  } else {
    if (!c.accept('SCHEMA')) c.accept('DATABASE');
    const parts = c.qualifiedName();
    if (parts.length > 2) c.syntax('expected [catalog.]schema');
    const cat = parts.length === 2 ? parts[0]! : s.catalog;
    const sch = parts[parts.length - 1]!;
    await ensureSchema(s, cat, sch);
    s.catalog = cat;
    s.schema = sch;
  }
  if (!c.done()) c.syntax('unexpected input');
  await s.applyNamespace();
  return emptyResult(s);
}

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
 * Statement API renders as an empty schema), from a statement that changes nothing here (UTC is the session
 * time zone already).
 */
function emptyResult(s: Session): Promise<DuckDBResultLike> {
  return s.conn.stream("SET TimeZone = 'UTC'");
}

function optionalLike(c: Cursor): RegExp | undefined {
  c.accept('LIKE');
  const t = c.peek();
  if (t?.type === 'STRING') {
    c.i++;
    return likeToRegex(t.text);
  }
  return undefined;
}

async function show(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('SHOW');
  if (c.accept('CATALOGS')) {
    const like = optionalLike(c);
    const cats = (await listCatalogs(s)).filter((n) => !like || like.test(n));
    return valuesResult(
      s,
      [{ name: 'catalog', type: 'VARCHAR' }],
      cats.map((n) => [n]),
    );
  }
  if (c.accept('SCHEMAS') || c.accept('DATABASES')) {
    let cat = s.catalog;
    if (c.accept('FROM') || c.accept('IN')) cat = c.ident();
    const like = optionalLike(c);
    await ensureCatalog(s, cat);
    const r = await s.conn.runAndReadAll(
      'SELECT schema_name FROM duckdb_schemas() WHERE database_name = $d AND NOT internal ORDER BY schema_name',
      { d: s.engine.alias(cat) },
    );
    const names = r
      .getRows()
      .map((x) => String(x[0]))
      .filter((n) => n !== 'main' || cat === 'system')
      .filter((n) => !like || like.test(n));
    return valuesResult(
      s,
      [{ name: 'databaseName', type: 'VARCHAR' }],
      names.map((n) => [n]),
    );
  }
  if (c.accept('TABLES') || c.accept('VIEWS')) {
    const views = c.tokens[c.i - 1]!.text.toUpperCase() === 'VIEWS';
    let cat = s.catalog;
    let sch = s.schema;
    if (c.accept('FROM') || c.accept('IN')) {
      const p = c.qualifiedName();
      if (p.length === 2) [cat, sch] = [p[0]!, p[1]!];
      else sch = p[0]!;
    }
    const like = optionalLike(c);
    await ensureSchema(s, cat, sch);
    const r = await s.conn.runAndReadAll(
      views
        ? 'SELECT view_name, temporary FROM duckdb_views() WHERE database_name = $d AND schema_name = $s AND NOT internal ORDER BY 1'
        : `SELECT table_name, temporary FROM duckdb_tables() WHERE database_name = $d AND schema_name = $s
           UNION ALL SELECT view_name, temporary FROM duckdb_views() WHERE database_name = $d AND schema_name = $s AND NOT internal ORDER BY 1`,
      { d: s.engine.alias(cat), s: sch },
    );
    const rows: Cell[][] = r
      .getRows()
      .filter((x) => !like || like.test(String(x[0])))
      .map((x) => (views ? [sch, String(x[0]), Boolean(x[1])] : [sch, String(x[0]), Boolean(x[1])]));
    return valuesResult(
      s,
      views
        ? [
            { name: 'namespace', type: 'VARCHAR' },
            { name: 'viewName', type: 'VARCHAR' },
            { name: 'isTemporary', type: 'BOOLEAN' },
          ]
        : [
            { name: 'database', type: 'VARCHAR' },
            { name: 'tableName', type: 'VARCHAR' },
            { name: 'isTemporary', type: 'BOOLEAN' },
          ],
      rows,
    );
  }
  if (c.accept('COLUMNS')) {
    if (!c.accept('FROM')) c.accept('IN');
    const parts = c.qualifiedName();
    if (c.accept('FROM') || c.accept('IN')) parts.unshift(...c.qualifiedName());
    const t = resolveTable(s, parts);
    const cols = await columnsOf(s, t.catalog, t.schema, t.table);
    return valuesResult(
      s,
      [{ name: 'col_name', type: 'VARCHAR' }],
      cols.map((x) => [x.name]),
    );
  }
  if (
    c.accept('USER', 'FUNCTIONS') ||
    c.accept('SYSTEM', 'FUNCTIONS') ||
    c.accept('ALL', 'FUNCTIONS') ||
    c.accept('FUNCTIONS')
  ) {
    const like = optionalLike(c);
    const r = await s.conn.runAndReadAll(
      "SELECT DISTINCT function_name FROM duckdb_functions() WHERE database_name = 'system' AND function_name NOT LIKE '%\\_%' ESCAPE '\\' OR function_name LIKE '%\\_%' ESCAPE '\\' AND database_name = 'system' ORDER BY 1",
    );
    const names = r
      .getRows()
      .map((x) => String(x[0]))
      .filter((n) => /^[a-z]/.test(n) && (!like || like.test(n)));
    return valuesResult(
      s,
      [{ name: 'function', type: 'VARCHAR' }],
      names.map((n) => [n]),
    );
  }
  if (c.accept('VOLUMES')) {
    return valuesResult(
      s,
      [
        { name: 'database', type: 'VARCHAR' },
        { name: 'volume_name', type: 'VARCHAR' },
      ],
      [],
    );
  }
  if (c.accept('CREATE', 'TABLE')) throw unsupported('SHOW CREATE TABLE');
  if (c.accept('TBLPROPERTIES')) {
    const parts = c.qualifiedName();
    const t = resolveTable(s, parts);
    if (!(await tableExists(s, t.catalog, t.schema, t.table))) throw tableNotFound(parts.join('.'));
    if (!s.uc?.getTable) throw unsupported('SHOW TBLPROPERTIES without Unity Catalog');
    const props = Object.entries((await ucTable(s, t))?.properties ?? {}).sort(([a], [b]) =>
      a.localeCompare(b),
    );
    return valuesResult(
      s,
      [
        { name: 'key', type: 'VARCHAR' },
        { name: 'value', type: 'VARCHAR' },
      ],
      props,
    );
  }
  if (c.accept('GRANTS') || c.accept('GRANT')) throw unsupported('SHOW GRANTS');
  if (c.accept('PARTITIONS')) throw unsupported('SHOW PARTITIONS');
  return undefined;
}

async function columnsOf(
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

async function ucTable(
  s: Session,
  t: { catalog: string; schema: string; table: string },
): Promise<{ comment?: string; properties?: Record<string, string> } | undefined> {
  if (!s.uc?.getTable) return undefined;
  try {
    return (await s.uc.getTable(`${t.catalog}.${t.schema}.${t.table}`)) as {
      comment?: string;
      properties?: Record<string, string>;
    };
  } catch {
    return undefined;
  }
}

async function describe(c: Cursor, s: Session): Promise<Outcome> {
  c.i++;
  if (c.accept('CATALOG')) {
    c.accept('EXTENDED');
    const name = c.ident();
    await ensureCatalog(s, name);
    return valuesResult(
      s,
      [
        { name: 'info_name', type: 'VARCHAR' },
        { name: 'info_value', type: 'VARCHAR' },
      ],
      [
        ['Catalog Name', name],
        ['Comment', ''],
        ['Owner', ''],
        ['Catalog Type', 'Regular'],
      ],
    );
  }
  if (c.accept('SCHEMA') || c.accept('DATABASE')) {
    c.accept('EXTENDED');
    const p = c.qualifiedName();
    const cat = p.length === 2 ? p[0]! : s.catalog;
    const sch = p[p.length - 1]!;
    await ensureSchema(s, cat, sch);
    return valuesResult(
      s,
      [
        { name: 'database_description_item', type: 'VARCHAR' },
        { name: 'database_description_value', type: 'VARCHAR' },
      ],
      [
        ['Catalog Name', cat],
        ['Namespace Name', sch],
        ['Comment', ''],
        ['Owner', ''],
      ],
    );
  }
  if (c.accept('HISTORY')) throw unsupported('DESCRIBE HISTORY (Delta table history)');
  if (c.accept('DETAIL')) throw unsupported('DESCRIBE DETAIL');
  if (c.accept('FUNCTION')) throw unsupported('DESCRIBE FUNCTION');
  if (c.accept('QUERY') || c.is('SELECT') || c.is('WITH')) throw unsupported('DESCRIBE QUERY');
  c.accept('TABLE');
  const extended = c.accept('EXTENDED') || c.accept('FORMATTED');
  const parts = c.qualifiedName();
  if (!c.done()) throw unsupported('DESCRIBE of a single column or partition');
  const t = resolveTable(s, parts);
  const cols = await columnsOf(s, t.catalog, t.schema, t.table);
  const rows: Cell[][] = cols.map((x) => [x.name, x.type, x.comment]);
  if (extended) {
    rows.push(
      ['', '', ''],
      ['# Detailed Table Information', '', ''],
      ['Catalog', t.catalog, ''],
      ['Database', t.schema, ''],
      ['Table', t.table, ''],
      ['Type', 'MANAGED', ''],
      ['Provider', 'delta', ''],
    );
    const info = await ucTable(s, t);
    if (info?.comment) rows.push(['Comment', info.comment, '']);
    const props = Object.entries(info?.properties ?? {});
    if (props.length)
      rows.push(['Table Properties', `[${props.map(([k, v]) => `${k}=${v}`).join(',')}]`, '']);
  }
  return valuesResult(
    s,
    [
      { name: 'col_name', type: 'VARCHAR' },
      { name: 'data_type', type: 'VARCHAR' },
      { name: 'comment', type: 'VARCHAR' },
    ],
    rows,
  );
}

/** Reads `COMMENT 'x'`, `LOCATION 'x'`, `TBLPROPERTIES (...)`, `WITH DBPROPERTIES (...)` style options. */
function readProperties(c: Cursor): Record<string, string> {
  const g = c.group();
  const props: Record<string, string> = {};
  const inner = new Cursor(c.tokens.slice(g.from, g.to), c.text);
  while (!inner.done()) {
    const k = inner.peek()!.type === 'STRING' ? inner.string() : inner.qualifiedName().join('.');
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

async function create(c: Cursor, s: Session, h: InterceptHooks): Promise<Outcome> {
  c.expect('CREATE');
  if (c.accept('CATALOG')) {
    const ifNot = c.accept('IF', 'NOT', 'EXISTS');
    const name = c.ident();
    validNames([name], 'catalog');
    let comment: string | undefined;
    while (!c.done()) {
      if (c.accept('COMMENT')) comment = c.string();
      else if (c.accept('MANAGED', 'LOCATION')) c.string();
      else if (c.accept('DEFAULT', 'COLLATION')) c.ident();
      else c.syntax('unexpected input');
    }
    if (!s.uc?.createCatalog) throw unsupported('CREATE CATALOG without Unity Catalog');
    try {
      await s.uc.createCatalog({ name, ...(comment !== undefined ? { comment } : {}) });
    } catch (e) {
      if (!(ifNot && alreadyExists(e))) throw ucError(e);
    }
    return emptyResult(s);
  }
  if (c.is('SCHEMA') || c.is('DATABASE')) {
    c.i++;
    const ifNot = c.accept('IF', 'NOT', 'EXISTS');
    const p = c.qualifiedName();
    const cat = p.length === 2 ? p[0]! : s.catalog;
    const name = p[p.length - 1]!;
    validNames(p, 'schema');
    let comment: string | undefined;
    while (!c.done()) {
      if (c.accept('COMMENT')) comment = c.string();
      else if (c.accept('MANAGED', 'LOCATION') || c.accept('LOCATION')) c.string();
      else if (c.accept('WITH', 'DBPROPERTIES') || c.accept('DBPROPERTIES')) readProperties(c);
      else c.syntax('unexpected input');
    }
    if (s.uc?.createSchema) {
      try {
        await s.uc.createSchema({ catalog_name: cat, name, ...(comment !== undefined ? { comment } : {}) });
      } catch (e) {
        if (!(ifNot && alreadyExists(e))) throw ucError(e);
      }
    } else {
      await ensureCatalog(s, cat);
      await s.conn.run(
        `CREATE SCHEMA ${ifNot ? 'IF NOT EXISTS ' : ''}${quoteIdent(s.engine.alias(cat))}.${quoteIdent(name)}`,
      );
    }
    return emptyResult(s);
  }
  if (c.is('VOLUME') || (c.is('EXTERNAL') && c.is('VOLUME', 1)))
    throw unsupported('CREATE VOLUME in SQL (use the Unity Catalog volumes API)');
  // CREATE [OR REPLACE] [TEMP|TEMPORARY|EXTERNAL] TABLE ... : strip the Delta/Databricks clauses that DuckDB
  // does not know and keep comment/properties in Unity Catalog metadata.
  const start = 0;
  c.accept('OR', 'REPLACE');
  c.accept('EXTERNAL');
  const temp = c.accept('TEMPORARY') || c.accept('TEMP');
  if (c.accept('VIEW') || c.accept('MATERIALIZED', 'VIEW')) {
    // Views run translated; only their name is checked here.
    c.accept('IF', 'NOT', 'EXISTS');
    if (!temp) validNames(c.qualifiedName(), 'view');
    return undefined;
  }
  if (!c.accept('TABLE')) return undefined;
  c.accept('IF', 'NOT', 'EXISTS');
  const nameParts = c.qualifiedName();
  if (!temp) validNames(nameParts, 'table');
  const keep: [number, number][] = [[start, c.i]];
  const columnComments: [string, string][] = [];
  if (c.peek()?.type === 'L_PAREN') {
    const g0 = c.i;
    const g = c.group();
    keep.push([g0, c.i]);
    // Column comments (`id INT COMMENT 'pk'`): polyglot drops them; keep them as DuckDB column comments.
    let depth = 0;
    let colStart = g.from;
    for (let k = g.from; k < g.to; k++) {
      const t = c.tokens[k]!;
      if (t.type === 'L_PAREN' || t.type === 'LT') depth++;
      else if (t.type === 'R_PAREN' || t.type === 'GT') depth--;
      else if (t.type === 'COMMA' && depth === 0) colStart = k + 1;
      else if (
        depth === 0 &&
        t.text.toUpperCase() === 'COMMENT' &&
        c.tokens[k + 1]?.type === 'STRING' &&
        c.isIdent(colStart - c.i)
      ) {
        columnComments.push([c.tokens[colStart]!.text, c.tokens[k + 1]!.text]);
      }
    }
  }
  const meta: TableMetadata = {};
  let asSelect = false;
  while (!c.done()) {
    if (c.accept('USING')) meta.data_source_format = c.ident().toUpperCase();
    else if (c.accept('PARTITIONED', 'BY') || c.accept('CLUSTER', 'BY')) {
      const partitioned = c.tokens[c.i - 2]!.text.toUpperCase() === 'PARTITIONED';
      if (c.peek()?.type === 'L_PAREN') {
        const g = c.group();
        const cols: string[] = [];
        for (let k = g.from; k < g.to; k++) {
          const t = c.tokens[k]!;
          if (t.type !== 'COMMA' && (k === g.from || c.tokens[k - 1]!.type === 'COMMA')) cols.push(t.text);
        }
        if (partitioned) meta.partition_columns = cols;
      } else c.ident();
    } else if (c.accept('COMMENT')) meta.comment = c.string();
    else if (c.accept('TBLPROPERTIES')) meta.properties = readProperties(c);
    else if (c.accept('OPTIONS')) readProperties(c);
    else if (c.accept('LOCATION')) {
      meta.storage_location = c.string();
      meta.table_type = 'EXTERNAL';
    } else if (c.is('AS')) {
      keep.push([c.i, c.tokens.length]);
      asSelect = true;
      break;
    } else if (c.is('SELECT') || c.is('WITH') || c.is('VALUES')) {
      keep.push([c.i, c.i]);
      keep[keep.length - 1] = [c.i, c.tokens.length];
      // Spark allows CTAS without AS only after options; add it back.
      const text = keep.map(([a, b]) => c.slice(a, b)).join(' ');
      return runCreate(s, h, text.trimEnd(), nameParts, meta, temp, columnComments, true);
    } else return undefined;
  }
  const text = keep.map(([a, b]) => c.slice(a, b)).join(' ');
  return runCreate(s, h, text, nameParts, meta, temp, columnComments, asSelect);
}

async function runCreate(
  s: Session,
  h: InterceptHooks,
  text: string,
  nameParts: string[],
  meta: TableMetadata,
  temp: boolean,
  columnComments: [string, string][] = [],
  asSelect = false,
): Promise<Outcome> {
  // CTAS reports how many rows it wrote, as Databricks does.
  const ctas = asSelect ? await h.count(text) : (await h.exec(text, true), undefined);
  const t = resolveTable(s, nameParts);
  const ref = `${quoteIdent(s.engine.alias(t.catalog))}.${quoteIdent(t.schema)}.${quoteIdent(t.table)}`;
  for (const [col, comment] of columnComments) {
    // DuckDB's COMMENT ON takes no parameters: a quoted literal ('' escaping is complete for DuckDB strings).
    await s.conn.run(`COMMENT ON COLUMN ${ref}.${quoteIdent(col)} IS '${comment.replaceAll("'", "''")}'`);
  }
  if (!temp && (Object.keys(meta).length > 0 || s.uc?.setTableMetadata)) {
    await setMeta(s, t, { data_source_format: 'DELTA', table_type: 'MANAGED', ...meta });
  }
  if (ctas !== undefined)
    return valuesResult(
      s,
      [
        { name: 'num_affected_rows', type: 'BIGINT' },
        { name: 'num_inserted_rows', type: 'BIGINT' },
      ],
      [[ctas, ctas]],
    );
  return emptyResult(s);
}

async function setMeta(
  s: Session,
  t: { catalog: string; schema: string; table: string },
  meta: TableMetadata,
): Promise<void> {
  const clean = meta;
  if (s.uc?.setTableMetadata) {
    await s.uc.setTableMetadata(`${t.catalog}.${t.schema}.${t.table}`, clean);
  } else if (clean.comment !== undefined) {
    // DuckDB's COMMENT ON takes no parameters: a quoted string literal ('' escaping is complete for DuckDB).
    await s.conn.run(
      `COMMENT ON TABLE ${quoteIdent(s.engine.alias(t.catalog))}.${quoteIdent(t.schema)}.${quoteIdent(t.table)} IS '${clean.comment.replaceAll("'", "''")}'`,
    );
  }
}

function alreadyExists(e: unknown): boolean {
  const code =
    (e as { errorCode?: string; error_code?: string })?.errorCode ??
    (e as { error_code?: string })?.error_code;
  return typeof code === 'string' && code.endsWith('ALREADY_EXISTS');
}

function ucError(e: unknown): Error {
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

async function drop(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('DROP');
  const isCatalog = c.accept('CATALOG');
  if (!isCatalog && !(c.accept('SCHEMA') || c.accept('DATABASE'))) return undefined;
  const ifExists = c.accept('IF', 'EXISTS');
  const p = c.qualifiedName();
  const cascade = c.accept('CASCADE');
  c.accept('RESTRICT');
  if (!c.done()) c.syntax('unexpected input');
  try {
    if (isCatalog) {
      if (!s.uc?.deleteCatalog) throw unsupported('DROP CATALOG without Unity Catalog');
      await s.uc.deleteCatalog(p[0]!, cascade);
    } else {
      const cat = p.length === 2 ? p[0]! : s.catalog;
      const sch = p[p.length - 1]!;
      if (s.uc?.deleteSchema) await s.uc.deleteSchema(`${cat}.${sch}`, cascade);
      else
        await s.conn.run(
          `DROP SCHEMA ${ifExists ? 'IF EXISTS ' : ''}${quoteIdent(s.engine.alias(cat))}.${quoteIdent(sch)}${cascade ? ' CASCADE' : ''}`,
        );
    }
  } catch (e) {
    const code = (e as { errorCode?: string })?.errorCode ?? '';
    if (ifExists && (code.endsWith('DOES_NOT_EXIST') || code === 'NOT_FOUND')) return emptyResult(s);
    throw ucError(e);
  }
  return emptyResult(s);
}

async function alter(c: Cursor, s: Session, h: InterceptHooks): Promise<Outcome> {
  c.expect('ALTER');
  if (!c.accept('TABLE')) return undefined;
  const nameParts = c.qualifiedName();
  const nameText = c.slice(2, c.i);
  if (
    c.accept('ADD', 'COLUMNS') ||
    (c.is('ADD') && c.is('COLUMN', 1) && c.peek(2)?.type === 'L_PAREN' && c.accept('ADD', 'COLUMN'))
  ) {
    const g = c.group();
    // Split the column list on top-level commas and add them one by one (DuckDB: one column per statement).
    let depth = 0;
    let from = g.from;
    const defs: [number, number][] = [];
    for (let k = g.from; k < g.to; k++) {
      const ty = c.tokens[k]!.type;
      if (ty === 'L_PAREN' || ty === 'LT') depth++;
      else if (ty === 'R_PAREN' || ty === 'GT') depth--;
      else if (ty === 'COMMA' && depth === 0) {
        defs.push([from, k]);
        from = k + 1;
      }
    }
    defs.push([from, g.to]);
    for (const [a, b] of defs) {
      // Column comments are not DuckDB syntax in ALTER: drop `COMMENT '...'` from the definition.
      let end = b;
      for (let k = a; k < b - 1; k++) {
        if (c.tokens[k]!.text.toUpperCase() === 'COMMENT' && c.tokens[k + 1]!.type === 'STRING') {
          end = k;
          break;
        }
      }
      await h.exec(`ALTER TABLE ${nameText} ADD COLUMN ${c.slice(a, end)}`, true);
    }
    return emptyResult(s);
  }
  if (c.accept('SET', 'TBLPROPERTIES')) {
    const props = readProperties(c);
    const t = resolveTable(s, nameParts);
    if (!(await tableExists(s, t.catalog, t.schema, t.table))) throw tableNotFound(nameParts.join('.'));
    await setMeta(s, t, { properties: props });
    return emptyResult(s);
  }
  if (c.accept('UNSET', 'TBLPROPERTIES')) return emptyResult(s);
  if (c.accept('RENAME', 'TO')) {
    const to = c.qualifiedName();
    validNames([to[to.length - 1]!], 'table');
    const t = resolveTable(s, nameParts);
    const fromRef = `${quoteIdent(s.engine.alias(t.catalog))}.${quoteIdent(t.schema)}.${quoteIdent(t.table)}`;
    await s.conn.run(`ALTER TABLE ${fromRef} RENAME TO ${quoteIdent(to[to.length - 1]!)}`);
    return emptyResult(s);
  }
  if (c.accept('CLUSTER', 'BY') || c.accept('SET', 'OWNER') || c.accept('OWNER', 'TO')) return emptyResult(s);
  return undefined;
}

async function commentOn(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('COMMENT', 'ON');
  if (c.accept('TABLE')) {
    const parts = c.qualifiedName();
    c.expect('IS');
    const text = c.peek()?.type === 'STRING' ? c.string() : (c.expect('NULL'), '');
    const t = resolveTable(s, parts);
    if (!(await tableExists(s, t.catalog, t.schema, t.table))) throw tableNotFound(parts.join('.'));
    await setMeta(s, t, { comment: text });
    return emptyResult(s);
  }
  if (
    c.accept('CATALOG') ||
    c.accept('SCHEMA') ||
    c.accept('DATABASE') ||
    c.accept('COLUMN') ||
    c.accept('VOLUME')
  ) {
    throw unsupported('COMMENT ON other than TABLE');
  }
  return undefined;
}

async function insertOverwrite(c: Cursor, s: Session, h: InterceptHooks): Promise<Outcome> {
  c.expect('INSERT');
  if (!c.accept('OVERWRITE')) return undefined;
  c.accept('TABLE');
  const nameStart = c.i;
  c.qualifiedName();
  const nameText = c.slice(nameStart, c.i);
  if (c.is('PARTITION')) throw unsupported('INSERT OVERWRITE ... PARTITION');
  if (c.accept('REPLACE', 'WHERE')) throw unsupported('INSERT ... REPLACE WHERE');
  const rest = c.rest();
  // Atomic like Delta's overwrite; inside the caller's own transaction, that one already covers it.
  const own = !s.inTransaction;
  if (own) await s.conn.run('BEGIN TRANSACTION');
  let n: bigint;
  try {
    await h.exec(`DELETE FROM ${nameText}`, true);
    n = await h.count(`INSERT INTO ${nameText} ${rest}`);
    if (own) await s.conn.run('COMMIT');
  } catch (e) {
    if (own) await s.conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
  return valuesResult(
    s,
    [
      { name: 'num_affected_rows', type: 'BIGINT' },
      { name: 'num_inserted_rows', type: 'BIGINT' },
    ],
    [[n, n]],
  );
}

async function optimize(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('OPTIMIZE');
  const parts = c.qualifiedName();
  const t = resolveTable(s, parts);
  if (!(await tableExists(s, t.catalog, t.schema, t.table))) throw tableNotFound(parts.join('.'));
  // Delta compaction has nothing to do on DuckDB storage: report zero files touched.
  const r = await s.conn.stream(
    `SELECT $p AS path, {'numFilesAdded': 0::BIGINT, 'numFilesRemoved': 0::BIGINT, 'filesAdded': {'min': NULL::BIGINT, 'max': NULL::BIGINT, 'avg': 0.0::DOUBLE, 'totalFiles': 0::BIGINT, 'totalSize': 0::BIGINT}, 'partitionsOptimized': 0::BIGINT, 'totalConsideredFiles': 0::BIGINT, 'totalFilesSkipped': 0::BIGINT} AS metrics`,
    { p: `${t.catalog}.${t.schema}.${t.table}` },
  );
  return r;
}

async function vacuum(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('VACUUM');
  const parts = c.qualifiedName();
  const t = resolveTable(s, parts);
  if (!(await tableExists(s, t.catalog, t.schema, t.table))) throw tableNotFound(parts.join('.'));
  return valuesResult(s, [{ name: 'path', type: 'VARCHAR' }], [[`${t.catalog}.${t.schema}.${t.table}`]]);
}

async function grant(c: Cursor, s: Session): Promise<Outcome> {
  const isGrant = c.accept('GRANT');
  if (!isGrant) c.expect('REVOKE');
  const privs: string[] = [];
  let cur: string[] = [];
  while (!c.done() && !c.is('ON')) {
    const t = c.peek()!;
    c.i++;
    if (t.type === 'COMMA') {
      privs.push(cur.join('_').toUpperCase());
      cur = [];
    } else cur.push(t.text);
  }
  if (cur.length) privs.push(cur.join('_').toUpperCase());
  c.expect('ON');
  let type = 'TABLE';
  for (const kw of ['CATALOG', 'SCHEMA', 'DATABASE', 'TABLE', 'VIEW', 'VOLUME', 'FUNCTION', 'EXTERNAL']) {
    if (c.accept(kw)) {
      type = kw === 'DATABASE' ? 'SCHEMA' : kw === 'VIEW' ? 'TABLE' : kw;
      if (kw === 'EXTERNAL') {
        c.accept('LOCATION');
        type = 'EXTERNAL_LOCATION';
      }
      break;
    }
  }
  const parts = c.qualifiedName();
  if (!(c.accept('TO') || c.accept('FROM'))) c.syntax(isGrant ? 'expected TO' : 'expected FROM');
  const principal = c.ident();
  let full: string;
  if (type === 'TABLE') {
    const t = resolveTable(s, parts);
    full = `${t.catalog}.${t.schema}.${t.table}`;
  } else if (type === 'SCHEMA') full = parts.length === 2 ? parts.join('.') : `${s.catalog}.${parts[0]}`;
  else full = parts.join('.');
  if (!s.uc?.updatePermissions) throw unsupported('GRANT/REVOKE without Unity Catalog');
  const privileges = privs.map((p) => (p === 'ALL_PRIVILEGES' ? 'ALL_PRIVILEGES' : p));
  await s.uc.updatePermissions(type.toLowerCase(), full, [
    isGrant ? { principal, add: privileges } : { principal, remove: privileges },
  ]);
  return emptyResult(s);
}

/** EXPLAIN [EXTENDED|FORMATTED|COST|CODEGEN] stmt: one `plan` column, as Databricks answers. */
async function explain(c: Cursor, s: Session, h: InterceptHooks): Promise<Outcome> {
  c.expect('EXPLAIN');
  while (['EXTENDED', 'FORMATTED', 'COST', 'CODEGEN'].some((w) => c.is(w))) c.i++;
  const t = await h.translateOnly(c.rest());
  const r = await s.conn.runAndReadAll(
    `EXPLAIN ${t.sql}`,
    Object.keys(t.values).length ? t.values : undefined,
  );
  const plan = r
    .getRows()
    .map((row) => String(row[row.length - 1] ?? ''))
    .join('\n');
  return valuesResult(s, [{ name: 'plan', type: 'VARCHAR' }], [[`== Physical Plan ==\n${plan}`]]);
}

async function setCommand(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('SET');
  if (c.is('TIME') || c.is('VARIABLE') || c.is('VAR'))
    throw unsupported(`SET ${c.peek()!.text.toUpperCase()}`);
  const from = c.i;
  while (!c.done() && c.peek()!.type !== 'EQ') c.i++;
  const key = c.slice(from, c.i).replaceAll(' ', '');
  let value = '';
  if (!c.done()) {
    c.i++;
    value = c.rest();
    if (value.startsWith("'") && value.endsWith("'")) value = value.slice(1, -1);
  }
  return valuesResult(
    s,
    [
      { name: 'key', type: 'VARCHAR' },
      { name: 'value', type: 'VARCHAR' },
    ],
    [[key, value || '<undefined>']],
  );
}
