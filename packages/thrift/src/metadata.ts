/**
 * The metadata calls (GetCatalogs, GetSchemas, GetTables, GetColumns, GetFunctions, GetTypeInfo,
 * GetPrimaryKeys, GetCrossReference, GetTableTypes) answered from Unity Catalog through its Api (a peer), with
 * the JDBC column sets Databricks returns. Name arguments are JDBC patterns (`%`, `_`; `*` as on Databricks).
 */
import type { SecurableKind, TableInfo as UcTable, UnityCatalogApi } from '@minilake/unity-catalog';
import type { Visibility } from '@minilake/sql';
import type { ResultColumn } from './results.js';
import { columnSize, JdbcType, jdbcType, scalarName } from '@minilake/datatypes';
import { parseType } from './types.js';

/**
 * Unity Catalog as metadata reads it: its Api (a peer), listings as the REST API shows them; with a
 * `visibility` (MINILAKE_ENFORCE=1, bound to the session's caller), only what that caller may see, by the rule
 * REST lists, SHOW and information_schema filter by. Absent, everything.
 */
export type Uc = Pick<UnityCatalogApi, 'store' | 'getTable'> & { visibility?: Visibility };

export interface MetaResult {
  columns: ResultColumn[];
  rows: unknown[][];
}

const S = (name: string): ResultColumn => ({ name, typeText: 'STRING' });
const I = (name: string): ResultColumn => ({ name, typeText: 'INT' });
const H = (name: string): ResultColumn => ({ name, typeText: 'SMALLINT' });
const B = (name: string): ResultColumn => ({ name, typeText: 'BOOLEAN' });

/** A JDBC search pattern as a predicate (null/empty/`%`/`*` match everything), case-insensitive. */
export function pattern(p: string | null | undefined): (s: string) => boolean {
  if (p === null || p === undefined || p === '' || p === '%' || p === '*') return () => true;
  let re = '^';
  for (let i = 0; i < p.length; i++) {
    const ch = p[i]!;
    if (ch === '\\' && i + 1 < p.length) re += escapeRe(p[++i]!);
    else if (ch === '%' || ch === '*') re += '.*';
    else if (ch === '_') re += '.';
    else re += escapeRe(ch);
  }
  const rx = new RegExp(`${re}$`, 'is');
  return (s) => rx.test(s);
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A listing or lookup, with a name that does not exist (any more) as absent, as a REST 404 was. */
async function orAbsent<T>(read: () => T | Promise<T>, absent: T): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if ((e as { status?: number })?.status === 404) return absent;
    throw e;
  }
}

interface Named {
  name: string;
}

/** Whether the caller may see a securable (always, without a visibility). */
const sees = (uc: Uc, on: SecurableKind, fullName: string) =>
  !uc.visibility || uc.visibility.sees(on, fullName);

async function catalogs(uc: Uc): Promise<string[]> {
  return (uc.store.listCatalogs() as Named[])
    .map((c) => c.name)
    .filter((c) => sees(uc, 'catalog', c))
    .sort();
}

async function schemas(uc: Uc, catalog: string): Promise<string[]> {
  return (await orAbsent(() => uc.store.listSchemas(catalog) as Promise<Named[]>, []))
    .map((s) => s.name)
    .filter((s) => sees(uc, 'schema', `${catalog}.${s}`))
    .sort();
}

async function tables(uc: Uc, catalog: string, schema: string): Promise<UcTable[]> {
  const rows = await orAbsent(() => uc.store.listTables(catalog, schema), []);
  return rows
    .map((r) => JSON.parse(r.json) as UcTable)
    .filter((t) => sees(uc, 'table', `${catalog}.${schema}.${t.name}`))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** One table by name; one the caller may not see is as absent as one that does not exist (no rows). */
async function table(uc: Uc, full: string): Promise<UcTable | undefined> {
  if (!sees(uc, 'table', full)) return undefined;
  return orAbsent(async () => (await uc.getTable(full)) as UcTable, undefined);
}

async function functions(uc: Uc, catalog: string, schema: string) {
  const all = await orAbsent(
    () => uc.store.listFunctions(catalog, schema) as Promise<{ name: string; comment?: string }[]>,
    [],
  );
  return all.filter((f) => sees(uc, 'function', `${catalog}.${schema}.${f.name}`));
}

/** Catalog names matching: an exact name (not a pattern, as JDBC defines catalog arguments) or all. */
async function catalogsFor(uc: Uc, catalog: string | null | undefined): Promise<string[]> {
  const all = await catalogs(uc);
  if (!catalog || catalog === '%' || catalog === '*') return all;
  const m = pattern(catalog);
  return all.filter(m);
}

async function schemasFor(
  uc: Uc,
  catalog: string | null | undefined,
  schema: string | null | undefined,
): Promise<[string, string][]> {
  const out: [string, string][] = [];
  const m = pattern(schema);
  for (const c of await catalogsFor(uc, catalog))
    for (const s of await schemas(uc, c)) if (m(s)) out.push([c, s]);
  return out;
}

export async function getCatalogs(uc: Uc): Promise<MetaResult> {
  return { columns: [S('TABLE_CAT')], rows: (await catalogs(uc)).map((c) => [c]) };
}

export async function getSchemas(
  uc: Uc,
  catalog?: string | null,
  schema?: string | null,
): Promise<MetaResult> {
  const rows = (await schemasFor(uc, catalog, schema)).map(([c, s]) => [s, c]);
  return { columns: [S('TABLE_SCHEM'), S('TABLE_CATALOG')], rows };
}

const TABLE_COLUMNS = [
  'TABLE_CAT',
  'TABLE_SCHEM',
  'TABLE_NAME',
  'TABLE_TYPE',
  'REMARKS',
  'TYPE_CAT',
  'TYPE_SCHEM',
  'TYPE_NAME',
  'SELF_REFERENCING_COL_NAME',
  'REF_GENERATION',
].map(S);

function jdbcTableType(t: string | undefined): string {
  return t === 'VIEW' || t === 'MATERIALIZED_VIEW' ? 'VIEW' : 'TABLE';
}

export async function getTables(
  uc: Uc,
  catalog?: string | null,
  schema?: string | null,
  tableName?: string | null,
  types?: string[] | null,
): Promise<MetaResult> {
  const m = pattern(tableName);
  const wanted = types?.length ? new Set(types.map((t) => t.toUpperCase())) : undefined;
  const rows: unknown[][] = [];
  for (const [c, s] of await schemasFor(uc, catalog, schema))
    for (const t of await tables(uc, c, s)) {
      const type = jdbcTableType(t.table_type);
      if (!m(t.name) || (wanted && !wanted.has(type))) continue;
      rows.push([c, s, t.name, type, t.comment ?? '', null, null, null, null, null]);
    }
  return { columns: TABLE_COLUMNS, rows };
}

const COLUMNS_COLUMNS: ResultColumn[] = [
  S('TABLE_CAT'),
  S('TABLE_SCHEM'),
  S('TABLE_NAME'),
  S('COLUMN_NAME'),
  I('DATA_TYPE'),
  S('TYPE_NAME'),
  I('COLUMN_SIZE'),
  { name: 'BUFFER_LENGTH', typeText: 'TINYINT' },
  I('DECIMAL_DIGITS'),
  I('NUM_PREC_RADIX'),
  I('NULLABLE'),
  S('REMARKS'),
  S('COLUMN_DEF'),
  I('SQL_DATA_TYPE'),
  I('SQL_DATETIME_SUB'),
  I('CHAR_OCTET_LENGTH'),
  I('ORDINAL_POSITION'),
  S('IS_NULLABLE'),
  S('SCOPE_CATALOG'),
  S('SCOPE_SCHEMA'),
  S('SCOPE_TABLE'),
  H('SOURCE_DATA_TYPE'),
  S('IS_AUTO_INCREMENT'),
];

export async function getColumns(
  uc: Uc,
  catalog?: string | null,
  schema?: string | null,
  tableName?: string | null,
  columnName?: string | null,
): Promise<MetaResult> {
  const mt = pattern(tableName);
  const mc = pattern(columnName);
  const rows: unknown[][] = [];
  for (const [c, s] of await schemasFor(uc, catalog, schema))
    for (const listed of await tables(uc, c, s)) {
      if (!mt(listed.name)) continue;
      const t = listed.columns ? listed : await table(uc, `${c}.${s}.${listed.name}`);
      (t?.columns ?? []).forEach((col, i) => {
        if (!mc(col.name)) return;
        const typeText = (col.type_text ?? col.type_name ?? 'string').toUpperCase();
        const db = parseType(typeText);
        const numeric = ['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL'].includes(
          scalarName(db),
        );
        const nullable = col.nullable !== false;
        rows.push([
          c,
          s,
          listed.name,
          col.name,
          jdbcType(db),
          typeText,
          columnSize(db),
          null,
          db.kind === 'decimal' ? db.scale : numeric ? 0 : null,
          numeric ? 10 : null,
          nullable ? 1 : 0,
          col.comment ?? '',
          null,
          null,
          null,
          null,
          // Spark's Thrift server numbers columns from 0 here; Databricks does the same.
          col.position ?? i,
          nullable ? 'YES' : 'NO',
          null,
          null,
          null,
          null,
          'NO',
        ]);
      });
    }
  return { columns: COLUMNS_COLUMNS, rows };
}

export async function getFunctions(
  uc: Uc,
  catalog?: string | null,
  schema?: string | null,
  functionName?: string | null,
): Promise<MetaResult> {
  const m = pattern(functionName);
  const rows: unknown[][] = [];
  for (const [c, s] of await schemasFor(uc, catalog, schema)) {
    for (const f of await functions(uc, c, s))
      if (m(f.name)) rows.push([c, s, f.name, f.comment ?? '', 0, f.name]);
  }
  return {
    columns: [
      S('FUNCTION_CAT'),
      S('FUNCTION_SCHEM'),
      S('FUNCTION_NAME'),
      S('REMARKS'),
      I('FUNCTION_TYPE'),
      S('SPECIFIC_NAME'),
    ],
    rows,
  };
}

export async function getPrimaryKeys(
  uc: Uc,
  catalog?: string | null,
  schema?: string | null,
  tableName?: string | null,
): Promise<MetaResult> {
  const rows: unknown[][] = [];
  if (catalog && schema && tableName) {
    const t = await table(uc, `${catalog}.${schema}.${tableName}`);
    for (const k of t?.table_constraints ?? []) {
      const pk = k.primary_key_constraint;
      if (pk)
        pk.child_columns.forEach((col, i) => rows.push([catalog, schema, tableName, col, i + 1, pk.name]));
    }
  }
  return {
    columns: [
      S('TABLE_CAT'),
      S('TABLE_SCHEM'),
      S('TABLE_NAME'),
      S('COLUMN_NAME'),
      I('KEY_SEQ'),
      S('PK_NAME'),
    ],
    rows,
  };
}

export async function getCrossReference(
  uc: Uc,
  parent: { catalog?: string | null; schema?: string | null; table?: string | null },
  foreign: { catalog?: string | null; schema?: string | null; table?: string | null },
): Promise<MetaResult> {
  const rows: unknown[][] = [];
  if (foreign.catalog && foreign.schema && foreign.table) {
    const t = await table(uc, `${foreign.catalog}.${foreign.schema}.${foreign.table}`);
    for (const k of t?.table_constraints ?? []) {
      const fk = k.foreign_key_constraint;
      if (!fk) continue;
      const [pc, ps, pt] = fk.parent_table.split('.');
      // A key to a table the caller may not see would name it: left out, as that table is.
      if (!sees(uc, 'table', fk.parent_table)) continue;
      if (parent.table && pt !== parent.table) continue;
      if (parent.schema && ps !== parent.schema) continue;
      if (parent.catalog && pc !== parent.catalog) continue;
      fk.child_columns.forEach((col, i) =>
        rows.push([
          pc,
          ps,
          pt,
          fk.parent_columns[i] ?? null,
          foreign.catalog,
          foreign.schema,
          foreign.table,
          col,
          i + 1,
          3,
          3,
          fk.name,
          null,
          7,
        ]),
      );
    }
  }
  return {
    columns: [
      S('PKTABLE_CAT'),
      S('PKTABLE_SCHEM'),
      S('PKTABLE_NAME'),
      S('PKCOLUMN_NAME'),
      S('FKTABLE_CAT'),
      S('FKTABLE_SCHEM'),
      S('FKTABLE_NAME'),
      S('FKCOLUMN_NAME'),
      I('KEY_SEQ'),
      H('UPDATE_RULE'),
      H('DELETE_RULE'),
      S('FK_NAME'),
      S('PK_NAME'),
      H('DEFERRABILITY'),
    ],
    rows,
  };
}

export function getTableTypes(): MetaResult {
  return { columns: [S('TABLE_TYPE')], rows: [['TABLE'], ['VIEW']] };
}

/** GetTypeInfo's rows: name, java.sql.Types code, precision, case sensitive. */
const TYPE_INFO: [string, number, number | null, boolean][] = [
  ['TINYINT', JdbcType.TINYINT, 3, false],
  ['SMALLINT', JdbcType.SMALLINT, 5, false],
  ['INT', JdbcType.INTEGER, 10, false],
  ['BIGINT', JdbcType.BIGINT, 19, false],
  ['FLOAT', JdbcType.FLOAT, 7, false],
  ['DOUBLE', JdbcType.DOUBLE, 15, false],
  ['DECIMAL', JdbcType.DECIMAL, 38, false],
  ['BOOLEAN', JdbcType.BOOLEAN, null, false],
  ['STRING', JdbcType.VARCHAR, null, true],
  ['BINARY', JdbcType.BINARY, null, false],
  ['DATE', JdbcType.DATE, null, false],
  ['TIMESTAMP', JdbcType.TIMESTAMP, null, false],
  ['TIMESTAMP_NTZ', JdbcType.TIMESTAMP, null, false],
  ['INTERVAL', JdbcType.OTHER, null, false],
  ['ARRAY', JdbcType.ARRAY, null, false],
  ['MAP', JdbcType.MAP, null, false],
  ['STRUCT', JdbcType.STRUCT, null, false],
  ['VOID', JdbcType.NULL, null, false],
];

export function getTypeInfo(): MetaResult {
  return {
    columns: [
      S('TYPE_NAME'),
      I('DATA_TYPE'),
      I('PRECISION'),
      S('LITERAL_PREFIX'),
      S('LITERAL_SUFFIX'),
      S('CREATE_PARAMS'),
      H('NULLABLE'),
      B('CASE_SENSITIVE'),
      H('SEARCHABLE'),
      B('UNSIGNED_ATTRIBUTE'),
      B('FIXED_PREC_SCALE'),
      B('AUTO_INCREMENT'),
      S('LOCAL_TYPE_NAME'),
      H('MINIMUM_SCALE'),
      H('MAXIMUM_SCALE'),
      I('SQL_DATA_TYPE'),
      I('SQL_DATETIME_SUB'),
      I('NUM_PREC_RADIX'),
    ],
    rows: TYPE_INFO.map(([name, code, precision, cs]) => [
      name,
      code,
      precision,
      cs ? "'" : null,
      cs ? "'" : null,
      name === 'DECIMAL' ? 'precision,scale' : null,
      1,
      cs,
      3,
      precision === null ? true : false,
      false,
      false,
      name,
      0,
      name === 'DECIMAL' ? 38 : 0,
      null,
      null,
      precision === null ? null : 10,
    ]),
  };
}
