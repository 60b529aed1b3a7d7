/**
 * Every Databricks primitive type and its spelling in each vocabulary MiniLake speaks, one row per type: the
 * Unity Catalog ColumnTypeName, the Spark DataType JSON, DuckDB DDL, the TCLIService type id and the JDBC
 * (java.sql.Types) code Thrift reports, and the column size JDBC metadata shows. Decimals and the nested
 * types (array, map, struct) are spelled by the functions that walk the tree; everything else reads this
 * table, so a type is added or corrected in one place.
 *
 * Databricks TIMESTAMP is an instant (DuckDB TIMESTAMPTZ); TIMESTAMP_NTZ is a wall-clock time (DuckDB
 * TIMESTAMP). Intervals are one DuckDB INTERVAL; Databricks names their fields (year-month or day-time).
 */
import type { PrimitiveName, TypeNode } from './tree.js';

export interface PrimitiveSpelling {
  /** Unity Catalog's ColumnTypeName (`type_name`). */
  typeName: string;
  /** Spark's DataType JSON (Delta's schemaString, Unity Catalog's `type_json`). */
  sparkJson: string;
  /** DuckDB DDL (a VOID column is stored as INTEGER, the type DuckDB gives a bare NULL). */
  duckDb: string;
  /** TCLIService TTypeId (TCLIService_types.TTypeId). */
  tcli: number;
  /** java.sql.Types, as Databricks reports DATA_TYPE in JDBC/ODBC metadata. */
  jdbc: number;
  /** COLUMN_SIZE in JDBC metadata (null: not applicable). */
  columnSize: number | null;
}

/** TCLIService TTypeId values (TCLIService_types.TTypeId). */
export const TTypeId = {
  BOOLEAN_TYPE: 0,
  TINYINT_TYPE: 1,
  SMALLINT_TYPE: 2,
  INT_TYPE: 3,
  BIGINT_TYPE: 4,
  FLOAT_TYPE: 5,
  DOUBLE_TYPE: 6,
  STRING_TYPE: 7,
  TIMESTAMP_TYPE: 8,
  BINARY_TYPE: 9,
  ARRAY_TYPE: 10,
  MAP_TYPE: 11,
  STRUCT_TYPE: 12,
  DECIMAL_TYPE: 15,
  NULL_TYPE: 16,
  DATE_TYPE: 17,
  VARCHAR_TYPE: 18,
  CHAR_TYPE: 19,
  INTERVAL_YEAR_MONTH_TYPE: 20,
  INTERVAL_DAY_TIME_TYPE: 21,
} as const;

/** java.sql.Types codes MiniLake reports. */
export const JdbcType = {
  NULL: 0,
  BOOLEAN: 16,
  TINYINT: -6,
  SMALLINT: 5,
  INTEGER: 4,
  BIGINT: -5,
  FLOAT: 6,
  DOUBLE: 8,
  DECIMAL: 3,
  DATE: 91,
  TIMESTAMP: 93,
  BINARY: -2,
  VARCHAR: 12,
  ARRAY: 2003,
  STRUCT: 2002,
  MAP: 2000,
  OTHER: 1111,
} as const;

const row = (
  typeName: string,
  sparkJson: string,
  duckDb: string,
  tcli: number,
  jdbc: number,
  columnSize: number | null = null,
): PrimitiveSpelling => ({ typeName, sparkJson, duckDb, tcli, jdbc, columnSize });

export const PRIMITIVES: Record<PrimitiveName, PrimitiveSpelling> = {
  string: row('STRING', 'string', 'VARCHAR', TTypeId.STRING_TYPE, JdbcType.VARCHAR),
  bigint: row('LONG', 'long', 'BIGINT', TTypeId.BIGINT_TYPE, JdbcType.BIGINT, 19),
  int: row('INT', 'integer', 'INTEGER', TTypeId.INT_TYPE, JdbcType.INTEGER, 10),
  smallint: row('SHORT', 'short', 'SMALLINT', TTypeId.SMALLINT_TYPE, JdbcType.SMALLINT, 5),
  tinyint: row('BYTE', 'byte', 'TINYINT', TTypeId.TINYINT_TYPE, JdbcType.TINYINT, 3),
  double: row('DOUBLE', 'double', 'DOUBLE', TTypeId.DOUBLE_TYPE, JdbcType.DOUBLE, 15),
  float: row('FLOAT', 'float', 'FLOAT', TTypeId.FLOAT_TYPE, JdbcType.FLOAT, 7),
  boolean: row('BOOLEAN', 'boolean', 'BOOLEAN', TTypeId.BOOLEAN_TYPE, JdbcType.BOOLEAN, 1),
  date: row('DATE', 'date', 'DATE', TTypeId.DATE_TYPE, JdbcType.DATE, 10),
  timestamp: row('TIMESTAMP', 'timestamp', 'TIMESTAMPTZ', TTypeId.TIMESTAMP_TYPE, JdbcType.TIMESTAMP, 29),
  timestamp_ntz: row(
    'TIMESTAMP_NTZ',
    'timestamp_ntz',
    'TIMESTAMP',
    TTypeId.TIMESTAMP_TYPE,
    JdbcType.TIMESTAMP,
    29,
  ),
  binary: row('BINARY', 'binary', 'BLOB', TTypeId.BINARY_TYPE, JdbcType.BINARY),
  // The TCLI id of an interval depends on its fields (see intervalKind).
  interval: row('INTERVAL', 'interval', 'INTERVAL', TTypeId.INTERVAL_DAY_TIME_TYPE, JdbcType.OTHER),
  variant: row('VARIANT', 'variant', 'VARIANT', TTypeId.STRING_TYPE, JdbcType.OTHER),
  void: row('NULL', 'void', 'INTEGER', TTypeId.NULL_TYPE, JdbcType.NULL),
};

/** An interval's family: year-month (`interval year to month`, `interval month`) or day-time. */
export function intervalKind(fields: string | undefined): 'YM' | 'DT' {
  return /year|month/.test(fields ?? '') ? 'YM' : 'DT';
}

/** The upper-case name Thrift and JDBC metadata switch on (intervals split into year-month and day-time). */
export function scalarName(t: TypeNode): string {
  switch (t.kind) {
    case 'decimal':
      return 'DECIMAL';
    case 'primitive':
      if (t.name === 'interval') return `INTERVAL_${intervalKind(t.interval)}`;
      return t.name === 'void' ? 'NULL' : t.name.toUpperCase();
    default:
      return t.kind.toUpperCase();
  }
}

/** The TCLIService type id of a type. */
export function thriftTypeId(t: TypeNode): number {
  switch (t.kind) {
    case 'decimal':
      return TTypeId.DECIMAL_TYPE;
    case 'array':
      return TTypeId.ARRAY_TYPE;
    case 'map':
      return TTypeId.MAP_TYPE;
    case 'struct':
      return TTypeId.STRUCT_TYPE;
    case 'primitive':
      if (t.name === 'interval')
        return intervalKind(t.interval) === 'YM'
          ? TTypeId.INTERVAL_YEAR_MONTH_TYPE
          : TTypeId.INTERVAL_DAY_TIME_TYPE;
      return PRIMITIVES[t.name].tcli;
  }
}

/** The java.sql.Types code of a type, as Databricks reports DATA_TYPE. */
export function jdbcType(t: TypeNode): number {
  switch (t.kind) {
    case 'decimal':
      return JdbcType.DECIMAL;
    case 'array':
      return JdbcType.ARRAY;
    case 'map':
      return JdbcType.MAP;
    case 'struct':
      return JdbcType.STRUCT;
    case 'primitive':
      return PRIMITIVES[t.name].jdbc;
  }
}

/** COLUMN_SIZE in JDBC metadata: a decimal's precision, a fixed size for some primitives, else null. */
export function columnSize(t: TypeNode): number | null {
  if (t.kind === 'decimal') return t.precision;
  return t.kind === 'primitive' ? PRIMITIVES[t.name].columnSize : null;
}

/** The SQL type name information_schema.columns.DATA_TYPE shows for a Unity Catalog type_name. */
export function sqlTypeName(typeName: string): string {
  const n = typeName.toUpperCase();
  return SQL_TYPE_NAMES[n] ?? n;
}
const SQL_TYPE_NAMES: Record<string, string> = {
  BYTE: 'TINYINT',
  SHORT: 'SMALLINT',
  LONG: 'BIGINT',
};

/**
 * The Databricks type text of a Unity Catalog type_name given without type_text (LONG -> bigint, CHAR ->
 * string); undefined for DECIMAL (it needs precision and scale), NULL and the nested types.
 */
export function typeTextOfTypeName(typeName: string): string | undefined {
  const n = typeName.toUpperCase();
  if (n === 'CHAR') return 'string';
  for (const [name, p] of Object.entries(PRIMITIVES) as [PrimitiveName, PrimitiveSpelling][])
    if (p.typeName === n && name !== 'void') return name;
  return undefined;
}
