/**
 * Unity Catalog DDL handled by MiniLake itself: CREATE/DROP/ALTER of catalogs, schemas, tables and views (the
 * engine runs the data part, Unity Catalog records the metadata), COMMENT ON, INSERT OVERWRITE, GRANT/REVOKE.
 */
import { parseDatabricksType, structFieldJson } from '@minilake/datatypes';
import type { TableMetadataInput as TableMetadata } from '@minilake/unity-catalog';
import { ident, literal, qualified } from '@minilake/engine-duckdb';
import { Cursor } from '../tokens.js';
import { unsupported } from '../sql-error.js';
import { valuesResult, type Session } from '../session.js';
import { deltaCtas, deltaInsertOverwrite, deltaTableOf } from './delta-write.js';
import {
  type CommandStages,
  type Outcome,
  alreadyExists,
  authorize,
  authorizeTable,
  emptyResult,
  ensureCatalog,
  readProperties,
  resolveTable,
  tableExists,
  tableNotFound,
  ucError,
  validNames,
} from './common.js';

export async function create(c: Cursor, s: Session, h: CommandStages): Promise<Outcome> {
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
    if (!s.uc) throw unsupported('CREATE CATALOG without Unity Catalog');
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
    let properties: Record<string, string> | undefined;
    while (!c.done()) {
      if (c.accept('COMMENT')) comment = c.string();
      else if (c.accept('MANAGED', 'LOCATION') || c.accept('LOCATION')) c.string();
      else if (c.accept('WITH', 'DBPROPERTIES') || c.accept('DBPROPERTIES') || c.accept('WITH', 'PROPERTIES'))
        properties = { ...properties, ...readProperties(c) };
      else c.syntax('unexpected input');
    }
    if (s.uc) {
      try {
        await s.uc.createSchema({
          catalog_name: cat,
          name,
          ...(comment !== undefined ? { comment } : {}),
          ...(properties ? { properties } : {}),
        });
      } catch (e) {
        if (!(ifNot && alreadyExists(e))) throw ucError(e);
      }
    } else {
      await ensureCatalog(s, cat);
      await s.conn.run(
        `CREATE SCHEMA ${ifNot ? 'IF NOT EXISTS ' : ''}${qualified(s.engine.alias(cat), name)}`,
      );
    }
    return emptyResult(s);
  }
  if (c.is('VOLUME') || (c.is('EXTERNAL') && c.is('VOLUME', 1)))
    throw unsupported('CREATE VOLUME in SQL (use the Unity Catalog volumes API)');
  // CREATE [OR REPLACE] [TEMP|TEMPORARY|EXTERNAL] TABLE ... : strip the Delta/Databricks clauses that DuckDB
  // does not know and keep comment/properties in Unity Catalog metadata.
  const start = 0;
  const orReplace = c.accept('OR', 'REPLACE');
  c.accept('EXTERNAL');
  const temp = c.accept('TEMPORARY') || c.accept('TEMP');
  if (c.accept('VIEW') || c.accept('MATERIALIZED', 'VIEW')) {
    // Views run translated (SELECT on what they read is checked there); only their name is checked here.
    c.accept('IF', 'NOT', 'EXISTS');
    const parts = c.qualifiedName();
    if (!temp) {
      validNames(parts, 'view');
      await authorizeCreate(s, parts);
    }
    return undefined;
  }
  if (!c.accept('TABLE')) return undefined;
  const ifNotExists = c.accept('IF', 'NOT', 'EXISTS');
  const nameParts = c.qualifiedName();
  if (!temp) {
    validNames(nameParts, 'table');
    await authorizeCreate(s, nameParts);
  }
  const keep: [number, number][] = [[start, c.i]];
  const columnComments: [string, string][] = [];
  let columnGroup: { from: number; to: number } | undefined;
  if (c.peek()?.type === 'L_PAREN') {
    const g0 = c.i;
    const g = c.group();
    columnGroup = g;
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
  // With MANAGED Delta tables on, a table without LOCATION (USING DELTA or no USING, as on Databricks where
  // Delta is the default) is a MANAGED Delta folder; any other format stays a DuckDB table.
  const managedDelta =
    !temp &&
    !meta.storage_location &&
    s.uc?.managedFormat === 'DELTA' &&
    (meta.data_source_format ?? 'DELTA') === 'DELTA';
  if (
    !temp &&
    !asSelect &&
    columnGroup &&
    (meta.storage_location || managedDelta) &&
    (meta.data_source_format ?? 'DELTA') === 'DELTA' &&
    s.uc
  ) {
    const t = resolveTable(s, nameParts);
    if (ifNotExists && (await deltaTableOf(s, nameParts).catch(() => undefined))) return emptyResult(s);
    await s.uc.createDeltaTable({
      catalog_name: t.catalog,
      schema_name: t.schema,
      name: t.table,
      ...(meta.storage_location ? { storage_location: meta.storage_location } : {}),
      fields: deltaFields(c, columnGroup, new Map(columnComments)),
      partition_columns: meta.partition_columns ?? [],
      ...(meta.comment ? { comment: meta.comment } : {}),
      ...(meta.properties ? { properties: meta.properties } : {}),
    });
    return emptyResult(s);
  }
  if (
    !temp &&
    asSelect &&
    (meta.storage_location || managedDelta) &&
    (meta.data_source_format ?? 'DELTA') === 'DELTA' &&
    s.uc
  ) {
    c.expect('AS');
    return deltaCtas(s, h, {
      nameParts,
      query: c.rest(),
      ...(meta.storage_location ? { location: meta.storage_location } : {}),
      partitionColumns: meta.partition_columns ?? [],
      orReplace,
      ...(meta.comment ? { comment: meta.comment } : {}),
      ...(meta.properties ? { properties: meta.properties } : {}),
    });
  }
  const text = keep.map(([a, b]) => c.slice(a, b)).join(' ');
  return runCreate(s, h, text, nameParts, meta, temp, columnComments, asSelect);
}

export async function runCreate(
  s: Session,
  h: CommandStages,
  text: string,
  nameParts: string[],
  meta: TableMetadata,
  temp: boolean,
  columnComments: [string, string][] = [],
  asSelect = false,
): Promise<Outcome> {
  // The engine's table and Unity Catalog's record are made together or not at all: the engine's part runs in
  // a transaction that commits only once Unity Catalog accepted the record (its checks: the catalog exists,
  // is writable), so a statement that reports FAILED leaves no table the catalog cannot see. Inside the
  // text's own BEGIN, that transaction is the text's (rolled back when the statement fails: index.ts).
  const own = !s.inTransaction;
  let ctas: bigint | undefined;
  const make = async () => {
    if (own) await s.conn.run('BEGIN TRANSACTION');
    try {
      // CTAS reports how many rows it wrote, as Databricks does.
      ctas = asSelect ? await h.count(text) : (await h.exec(text, true), undefined);
      const t = resolveTable(s, nameParts);
      const ref = qualified(s.engine.alias(t.catalog), t.schema, t.table);
      for (const [col, comment] of columnComments) {
        // DuckDB's COMMENT ON takes no parameters: a quoted literal ('' escaping is complete for DuckDB strings).
        await s.conn.run(`COMMENT ON COLUMN ${ref}.${ident(col)} IS ${literal(comment)}`);
      }
      if (!temp && (Object.keys(meta).length > 0 || s.uc)) {
        await setMeta(s, t, { data_source_format: 'DELTA', table_type: 'MANAGED', ...meta });
      }
      if (own) {
        await s.conn.run('COMMIT');
        // Told while Unity Catalog still holds its drops: a reconcile whose snapshot missed the uncommitted
        // table sees the epoch move and drops nothing.
        s.engine.notifyChange?.();
      }
    } catch (e) {
      if (own) await s.conn.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
  };
  // Unity Catalog drops no record while the table is uncommitted (its record is set inside the transaction).
  if (s.uc && !temp) await s.uc.together(make);
  else await make();
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

export async function setMeta(
  s: Session,
  t: { catalog: string; schema: string; table: string },
  meta: TableMetadata,
): Promise<void> {
  const clean = meta;
  if (s.uc) {
    await s.uc.setTableMetadata(`${t.catalog}.${t.schema}.${t.table}`, clean);
  } else if (clean.comment !== undefined) {
    // DuckDB's COMMENT ON takes no parameters: a quoted string literal ('' escaping is complete for DuckDB).
    await s.conn.run(
      `COMMENT ON TABLE ${qualified(s.engine.alias(t.catalog), t.schema, t.table)} IS ${literal(clean.comment)}`,
    );
  }
}

/**
 * DROP TABLE of a Delta table Unity Catalog holds without an engine object (EXTERNAL: the files stay;
 * MANAGED Delta: its folder goes). Any other table is DuckDB's to drop (undefined).
 */
/** CREATE TABLE / VIEW (MINILAKE_ENFORCE=1): CREATE TABLE on the schema, as Databricks checks both. */
async function authorizeCreate(s: Session, parts: string[]): Promise<void> {
  const t = resolveTable(s, parts);
  await authorize(s, { on: 'schema', fullName: `${t.catalog}.${t.schema}`, privilege: 'CREATE_TABLE' });
}

async function dropDeltaTable(c: Cursor, s: Session): Promise<Outcome> {
  c.accept('IF', 'EXISTS');
  const parts = c.qualifiedName();
  await authorizeTable(s, parts, 'OWNER');
  c.accept('PURGE');
  if (!c.done() || !s.uc) return undefined;
  if (!(await deltaTableOf(s, parts).catch(() => undefined))) return undefined;
  const t = resolveTable(s, parts);
  try {
    await s.uc.deleteTable(`${t.catalog}.${t.schema}.${t.table}`.toLowerCase());
  } catch (e) {
    throw ucError(e);
  }
  return emptyResult(s);
}

export async function drop(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('DROP');
  if (c.accept('TABLE')) return dropDeltaTable(c, s);
  if (c.accept('VIEW')) {
    // The engine drops the view (translated); ownership is checked here first.
    c.accept('IF', 'EXISTS');
    await authorizeTable(s, c.qualifiedName(), 'OWNER');
    return undefined;
  }
  const isCatalog = c.accept('CATALOG');
  if (!isCatalog && !(c.accept('SCHEMA') || c.accept('DATABASE'))) return undefined;
  const ifExists = c.accept('IF', 'EXISTS');
  const p = c.qualifiedName();
  const cascade = c.accept('CASCADE');
  c.accept('RESTRICT');
  if (!c.done()) c.syntax('unexpected input');
  try {
    if (isCatalog) {
      if (!s.uc) throw unsupported('DROP CATALOG without Unity Catalog');
      await s.uc.deleteCatalog(p[0]!, cascade);
    } else {
      const cat = p.length === 2 ? p[0]! : s.catalog;
      const sch = p[p.length - 1]!;
      if (s.uc) await s.uc.deleteSchema(`${cat}.${sch}`, cascade);
      else
        await s.conn.run(
          `DROP SCHEMA ${ifExists ? 'IF EXISTS ' : ''}${qualified(s.engine.alias(cat), sch)}${cascade ? ' CASCADE' : ''}`,
        );
    }
  } catch (e) {
    const code = (e as { errorCode?: string })?.errorCode ?? '';
    if (ifExists && (code.endsWith('DOES_NOT_EXIST') || code === 'NOT_FOUND')) return emptyResult(s);
    throw ucError(e);
  }
  return emptyResult(s);
}

export async function alter(c: Cursor, s: Session, h: CommandStages): Promise<Outcome> {
  c.expect('ALTER');
  const isCatalog = c.accept('CATALOG');
  if (isCatalog || c.accept('SCHEMA') || c.accept('DATABASE')) return alterNamespace(c, s, isCatalog);
  if (c.accept('VIEW')) {
    await authorizeTable(s, c.qualifiedName(), 'OWNER');
    return undefined;
  }
  if (!c.accept('TABLE')) return undefined;
  const nameParts = c.qualifiedName();
  const nameText = c.slice(2, c.i);
  await authorizeTable(s, nameParts, 'OWNER');
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
    const fromRef = qualified(s.engine.alias(t.catalog), t.schema, t.table);
    await s.conn.run(`ALTER TABLE ${fromRef} RENAME TO ${ident(to[to.length - 1]!)}`);
    return emptyResult(s);
  }
  if (c.accept('CLUSTER', 'BY') || c.accept('SET', 'OWNER') || c.accept('OWNER', 'TO')) return emptyResult(s);
  return undefined;
}

export async function commentOn(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('COMMENT', 'ON');
  if (c.accept('TABLE')) {
    const parts = c.qualifiedName();
    c.expect('IS');
    const text = c.peek()?.type === 'STRING' ? c.string() : (c.expect('NULL'), '');
    const t = resolveTable(s, parts);
    await authorizeTable(s, parts, 'OWNER');
    if (!(await tableExists(s, t.catalog, t.schema, t.table))) throw tableNotFound(parts.join('.'));
    await setMeta(s, t, { comment: text });
    return emptyResult(s);
  }
  const isCatalog = c.accept('CATALOG');
  if (isCatalog || c.accept('SCHEMA') || c.accept('DATABASE')) {
    const parts = c.qualifiedName();
    c.expect('IS');
    const text = c.peek()?.type === 'STRING' ? c.string() : (c.expect('NULL'), '');
    await updateNamespace(s, isCatalog, parts, { comment: text });
    return emptyResult(s);
  }
  if (c.accept('COLUMN') || c.accept('VOLUME')) throw unsupported('COMMENT ON COLUMN or VOLUME');
  return undefined;
}

/** Comment, properties or owner of a catalog or a schema, in Unity Catalog (where the API reads them). */
async function updateNamespace(
  s: Session,
  isCatalog: boolean,
  parts: string[],
  u: {
    comment?: string;
    properties?: Record<string, string>;
    properties_to_remove?: string[];
    owner?: string;
  },
): Promise<void> {
  if (!s.uc) throw unsupported(`Changing a ${isCatalog ? 'catalog' : 'schema'} without Unity Catalog`);
  try {
    if (isCatalog) {
      if (parts.length !== 1) throw unsupported('a qualified catalog name');
      await s.uc.updateCatalog(parts[0]!, u);
    } else {
      if (parts.length > 2) throw unsupported('a schema name of more than two parts');
      await s.uc.updateSchema(parts.length === 2 ? parts.join('.') : `${s.catalog}.${parts[0]}`, u);
    }
  } catch (e) {
    throw ucError(e);
  }
}

/** ALTER CATALOG / SCHEMA: SET [DB]PROPERTIES, UNSET [DB]PROPERTIES, [SET] OWNER TO, COMMENT. */
async function alterNamespace(c: Cursor, s: Session, isCatalog: boolean): Promise<Outcome> {
  const parts = c.qualifiedName();
  if (c.accept('SET', 'DBPROPERTIES') || c.accept('SET', 'PROPERTIES') || c.accept('SET', 'OPTIONS'))
    await updateNamespace(s, isCatalog, parts, { properties: readProperties(c) });
  else if (c.accept('UNSET', 'DBPROPERTIES') || c.accept('UNSET', 'PROPERTIES')) {
    c.accept('IF', 'EXISTS');
    await updateNamespace(s, isCatalog, parts, {
      properties_to_remove: Object.keys(readProperties(c, true)),
    });
  } else if (c.accept('SET', 'OWNER', 'TO') || c.accept('OWNER', 'TO'))
    await updateNamespace(s, isCatalog, parts, {
      owner: c.peek()?.type === 'STRING' ? c.string() : c.ident(),
    });
  else if (c.accept('COMMENT')) await updateNamespace(s, isCatalog, parts, { comment: c.string() });
  else return undefined;
  if (!c.done()) c.syntax('unexpected input');
  return emptyResult(s);
}

export async function insertOverwrite(c: Cursor, s: Session, h: CommandStages): Promise<Outcome> {
  c.expect('INSERT');
  if (!c.accept('OVERWRITE')) return undefined;
  c.accept('TABLE');
  const nameStart = c.i;
  const parts = c.qualifiedName();
  const nameText = c.slice(nameStart, c.i);
  await authorizeTable(s, parts, 'MODIFY');
  const delta = await deltaInsertOverwrite(c, s, h, parts);
  if (delta) return delta;
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

export async function grant(c: Cursor, s: Session): Promise<Outcome> {
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
  if (!s.uc) throw unsupported('GRANT/REVOKE without Unity Catalog');
  const privileges = privs.map((p) => (p === 'ALL_PRIVILEGES' ? 'ALL_PRIVILEGES' : p));
  await s.uc.updatePermissions(type.toLowerCase(), full, [
    isGrant ? { principal, add: privileges } : { principal, remove: privileges },
  ]);
  return emptyResult(s);
}

/** Keywords that end a column's type in a column definition. */
const COLUMN_TYPE_END = new Set([
  'NOT',
  'NULL',
  'COMMENT',
  'DEFAULT',
  'GENERATED',
  'CONSTRAINT',
  'PRIMARY',
  'MASK',
]);

/** The Spark StructFields (Delta schemaString entries) of a CREATE TABLE column list. */
function deltaFields(c: Cursor, g: { from: number; to: number }, comments: Map<string, string>): unknown[] {
  const segments: [number, number][] = [];
  let depth = 0;
  let from = g.from;
  for (let k = g.from; k < g.to; k++) {
    const t = c.tokens[k]!;
    if (t.type === 'L_PAREN' || t.type === 'LT') depth++;
    else if (t.type === 'R_PAREN' || t.type === 'GT') depth--;
    else if (t.type === 'COMMA' && depth === 0) {
      segments.push([from, k]);
      from = k + 1;
    }
  }
  if (from < g.to) segments.push([from, g.to]);
  return segments.map(([a, b]) => {
    const name = c.tokens[a]!.text;
    let end = a + 1;
    let d = 0;
    while (end < b) {
      const t = c.tokens[end]!;
      if (t.type === 'L_PAREN' || t.type === 'LT') d++;
      else if (t.type === 'R_PAREN' || t.type === 'GT') d--;
      else if (d === 0 && COLUMN_TYPE_END.has(t.text.toUpperCase())) break;
      end++;
    }
    const typeText = c.slice(a + 1, end).trim();
    let node;
    try {
      node = parseDatabricksType(typeText);
    } catch {
      throw unsupported(`The data type ${typeText} (column ${name}) in a Delta table`);
    }
    const rest = c.slice(end, b).toUpperCase();
    const comment = comments.get(name);
    return JSON.parse(
      structFieldJson(name, node, {
        nullable: !/\bNOT\s+NULL\b/.test(rest),
        ...(comment ? { comment } : {}),
      }),
    );
  });
}
