/** Namespace and catalog listings answered by MiniLake itself: USE, SHOW ..., DESCRIBE ... with Databricks' columns. */
import { describeDelta } from './delta-describe.js';
import { Cursor } from '../tokens.js';
import { unsupported } from '../sql-error.js';
import { valuesResult, type Cell, type Session } from '../session.js';
import { describeJson } from './describe-json.js';
import {
  type Outcome,
  columnsOf,
  emptyResult,
  ensureCatalog,
  ensureSchema,
  listCatalogs,
  optionalLike,
  resolveTable,
  tableExists,
  tableNotFound,
  ucTable,
} from './common.js';

export async function use(c: Cursor, s: Session): Promise<Outcome> {
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

export async function show(c: Cursor, s: Session): Promise<Outcome> {
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
    if (!s.uc) throw unsupported('SHOW TBLPROPERTIES without Unity Catalog');
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

export async function describe(c: Cursor, s: Session): Promise<Outcome> {
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
  if (c.accept('HISTORY')) return describeDelta(c, s, 'HISTORY');
  if (c.accept('DETAIL')) return describeDelta(c, s, 'DETAIL');
  if (c.accept('FUNCTION')) throw unsupported('DESCRIBE FUNCTION');
  if (c.accept('QUERY') || c.is('SELECT') || c.is('WITH')) throw unsupported('DESCRIBE QUERY');
  c.accept('TABLE');
  const extended = c.accept('EXTENDED') || c.accept('FORMATTED');
  const parts = c.qualifiedName();
  if (c.is('AS') && c.is('JSON', 1) && c.tokens.length === c.i + 2) return describeJson(s, parts, extended);
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
