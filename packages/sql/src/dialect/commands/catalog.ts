/** Namespace and catalog listings answered by MiniLake itself: USE, SHOW ..., DESCRIBE ... with Databricks' columns. */
import { describeDelta } from './delta-describe.js';
import { Cursor } from '../tokens.js';
import { unsupported } from '../sql-error.js';
import { valuesResult, type Cell, type Session } from '../session.js';
import { describeJson } from './describe-json.js';
import {
  type Outcome,
  authorizeMetadataRead,
  authorizeNamespaceRead,
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

/** `a.b` or `` `a.b`.c `` as the name parts IDENTIFIER('...') names. */
function splitName(text: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '`') {
      if (quoted && text[i + 1] === '`') {
        cur += '`';
        i++;
      } else quoted = !quoted;
    } else if (ch === '.' && !quoted) {
      parts.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  parts.push(cur.trim());
  return parts;
}

/** USE's name: a name, a string literal (`USE CATALOG 'main'`) or IDENTIFIER('a.b'), as Databricks takes. */
function useName(c: Cursor): string[] {
  if (c.peek()?.type === 'STRING') return [c.string()];
  if (c.is('IDENTIFIER') && c.peek(1)?.type === 'L_PAREN') {
    c.i += 2;
    const parts = splitName(c.string());
    if (c.peek()?.type !== 'R_PAREN') c.syntax("expected ')'");
    c.i++;
    if (parts.some((x) => x === '')) c.syntax('expected a name in IDENTIFIER');
    return parts;
  }
  return c.qualifiedName();
}

export async function use(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('USE');
  if (c.accept('CATALOG')) {
    const names = useName(c);
    if (names.length !== 1) c.syntax('expected a catalog name');
    const name = names[0]!;
    await ensureCatalog(s, name);
    s.catalog = name;
    s.schema = 'default';
  } else {
    if (!c.accept('SCHEMA')) c.accept('DATABASE');
    const parts = useName(c);
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
    const cats = (await listCatalogs(s)).filter(
      (n) => (!like || like.test(n)) && (!s.visibility || s.visibility.sees('catalog', n)),
    );
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
      .filter((n) => !like || like.test(n))
      .filter((n) => !s.visibility || s.visibility.sees('schema', `${cat}.${n}`));
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
    const found = r.getRows().map((x) => [String(x[0]), Boolean(x[1])] as [string, boolean]);
    if (!views && s.uc) {
      // Tables Unity Catalog holds without an engine object (Delta folders, the samples before first read):
      // SHOW TABLES lists what the catalog API lists.
      const have = new Set(found.map(([n]) => n.toLowerCase()));
      const listed = await s.uc.store
        .listTables(cat, sch, { columns: true, properties: true })
        .catch(() => []);
      for (const { key } of listed) if (!have.has(key.toLowerCase())) found.push([key, false]);
      found.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    }
    // The session's temporary views are its own; anything else only when the caller may see it.
    const vis = s.visibility;
    const rows: Cell[][] = found
      .filter(
        ([n, temp]) => (!like || like.test(n)) && (temp || !vis || vis.sees('table', `${cat}.${sch}.${n}`)),
      )
      .map(([n, temp]) => [sch, n, temp]);
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
    await authorizeMetadataRead(s, t);
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
  if (c.accept('CREATE', 'TABLE')) {
    // Refused for a table the caller may not see before saying it is not supported, as it would be refused.
    if (!c.done()) await authorizeMetadataRead(s, resolveTable(s, c.qualifiedName()));
    throw unsupported('SHOW CREATE TABLE');
  }
  if (c.accept('TBLPROPERTIES')) {
    const parts = c.qualifiedName();
    const t = resolveTable(s, parts);
    await authorizeMetadataRead(s, t);
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

interface NamespaceInfo {
  comment?: string;
  owner?: string;
  storage_location?: string;
  storage_root?: string;
  properties?: Record<string, string>;
}
const namespaceInfo = (x: unknown): NamespaceInfo => (x && typeof x === 'object' ? (x as NamespaceInfo) : {});

/** Spark's rendering of a namespace's properties: `((k1,v1), (k2,v2))`, sorted by key. */
const sparkProperties = (p: Record<string, string> | undefined): string =>
  `(${Object.entries(p ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `(${k},${v})`)
    .join(', ')})`;

export async function describe(c: Cursor, s: Session): Promise<Outcome> {
  c.i++;
  if (c.accept('CATALOG')) {
    const extended = c.accept('EXTENDED');
    const name = c.ident();
    await ensureCatalog(s, name);
    await authorizeNamespaceRead(s, 'catalog', name);
    const info = namespaceInfo(s.uc?.getCatalog(name));
    const rows: Cell[][] = [
      ['Catalog Name', name],
      ['Comment', info.comment ?? ''],
      ['Owner', info.owner ?? ''],
      ['Catalog Type', 'Regular'],
    ];
    if (extended) rows.push(['Properties', sparkProperties(info.properties)]);
    return valuesResult(
      s,
      [
        { name: 'info_name', type: 'VARCHAR' },
        { name: 'info_value', type: 'VARCHAR' },
      ],
      rows,
    );
  }
  if (c.accept('SCHEMA') || c.accept('DATABASE')) {
    const extended = c.accept('EXTENDED');
    const p = c.qualifiedName();
    const cat = p.length === 2 ? p[0]! : s.catalog;
    const sch = p[p.length - 1]!;
    await ensureSchema(s, cat, sch);
    await authorizeNamespaceRead(s, 'schema', `${cat}.${sch}`);
    // What Unity Catalog records of the schema (comment, owner, DBPROPERTIES), as Spark's DESCRIBE prints it.
    const info = namespaceInfo(await s.uc?.getSchema(`${cat}.${sch}`).catch(() => undefined));
    const rows: Cell[][] = [
      ['Catalog Name', cat],
      ['Namespace Name', sch],
      ['Comment', info.comment ?? ''],
    ];
    const location = await s.uc?.store.schemaLocation(`${cat}.${sch}`).catch(() => undefined);
    if (location) rows.push(['Location', location]);
    rows.push(['Owner', info.owner ?? '']);
    if (extended) rows.push(['Properties', sparkProperties(info.properties)]);
    return valuesResult(
      s,
      [
        { name: 'database_description_item', type: 'VARCHAR' },
        { name: 'database_description_value', type: 'VARCHAR' },
      ],
      rows,
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
  await authorizeMetadataRead(s, t);
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
