/**
 * The Arrow and TCLIService types Databricks uses on the Thrift wire for each Databricks type (the text is
 * read into a tree by Unity Catalog's parser).
 */
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  List,
  Map_,
  Null,
  Struct,
  TimestampMicrosecond,
  Utf8,
  type DataType,
} from 'apache-arrow';
import { parseDatabricksType } from '@minilake/unity-catalog';

/** Unity Catalog's type tree (the engine's neutral one); thrift reads type text with UC's parser. */
export type DbType = ReturnType<typeof parseDatabricksType>;

const STRING: DbType = { kind: 'primitive', name: 'string' };

/**
 * Parses Databricks type text with Unity Catalog's parser. Thrift stays lenient: result columns must always
 * reach the client, so text the parser rejects travels as a STRING rather than failing the statement.
 */
export function parseType(text: string): DbType {
  try {
    return parseDatabricksType(text);
  } catch {
    return STRING;
  }
}

/** ARRAY, MAP and STRUCT: the types that travel as JSON text unless the client takes them as Arrow. */
export const isComplex = (t: DbType): boolean =>
  t.kind === 'array' || t.kind === 'map' || t.kind === 'struct';

/** The upper-case Databricks name thrift switches on (intervals split into year-month and day-time). */
export function scalarName(t: DbType): string {
  switch (t.kind) {
    case 'decimal':
      return 'DECIMAL';
    case 'primitive':
      if (t.name === 'interval') return /year|month/.test(t.interval ?? '') ? 'INTERVAL_YM' : 'INTERVAL_DT';
      return t.name === 'void' ? 'NULL' : t.name.toUpperCase();
    default:
      return t.kind.toUpperCase();
  }
}

/** The Arrow type Databricks sends with native Arrow types (timestamps in the session time zone). */
export function arrowType(t: DbType, timeZone: string, nested = false): DataType {
  switch (t.kind) {
    case 'array':
      return new List(new Field('element', arrowType(t.element, timeZone, true), true));
    case 'map':
      return new Map_(
        new Field(
          'entries',
          new Struct([
            new Field('key', arrowType(t.key, timeZone, true), false),
            new Field('value', arrowType(t.value, timeZone, true), true),
          ] as never),
          false,
        ),
      );
    case 'struct':
      return new Struct(t.fields.map((f) => new Field(f.name, arrowType(f.type, timeZone, true), true)));
  }
  switch (scalarName(t)) {
    case 'BOOLEAN':
      return new Bool();
    case 'TINYINT':
      return new Int8();
    case 'SMALLINT':
      return new Int16();
    case 'INT':
      return new Int32();
    case 'BIGINT':
      return new Int64();
    case 'FLOAT':
      return new Float32();
    case 'DOUBLE':
      return new Float64();
    case 'DATE':
      return new DateDay();
    case 'TIMESTAMP':
      return new TimestampMicrosecond(timeZone);
    case 'TIMESTAMP_NTZ':
      return new TimestampMicrosecond();
    case 'BINARY':
      return new Binary();
    case 'NULL':
      return nested ? new Utf8() : new Null();
    case 'DECIMAL':
      return t.kind !== 'decimal' ? new Utf8() : new Decimal(t.scale, t.precision, 128);
    default:
      return new Utf8();
  }
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

export function thriftTypeId(t: DbType): number {
  switch (scalarName(t)) {
    case 'ARRAY':
      return TTypeId.ARRAY_TYPE;
    case 'MAP':
      return TTypeId.MAP_TYPE;
    case 'STRUCT':
      return TTypeId.STRUCT_TYPE;
    case 'BOOLEAN':
      return TTypeId.BOOLEAN_TYPE;
    case 'TINYINT':
      return TTypeId.TINYINT_TYPE;
    case 'SMALLINT':
      return TTypeId.SMALLINT_TYPE;
    case 'INT':
      return TTypeId.INT_TYPE;
    case 'BIGINT':
      return TTypeId.BIGINT_TYPE;
    case 'FLOAT':
      return TTypeId.FLOAT_TYPE;
    case 'DOUBLE':
      return TTypeId.DOUBLE_TYPE;
    case 'TIMESTAMP':
    case 'TIMESTAMP_NTZ':
      return TTypeId.TIMESTAMP_TYPE;
    case 'BINARY':
      return TTypeId.BINARY_TYPE;
    case 'DECIMAL':
      return TTypeId.DECIMAL_TYPE;
    case 'NULL':
      return TTypeId.NULL_TYPE;
    case 'DATE':
      return TTypeId.DATE_TYPE;
    case 'INTERVAL_YM':
      return TTypeId.INTERVAL_YEAR_MONTH_TYPE;
    case 'INTERVAL_DT':
      return TTypeId.INTERVAL_DAY_TIME_TYPE;
    default:
      return TTypeId.STRING_TYPE;
  }
}
