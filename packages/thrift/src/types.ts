/**
 * Databricks type text (`DECIMAL(10,2)`, `ARRAY<STRUCT<a: INT, b: STRING>>`, `MAP<STRING, BIGINT>`) parsed
 * into a tree, and the Arrow and TCLIService types Databricks uses for each on the Thrift wire.
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

export type DbType =
  | { kind: 'array'; element: DbType }
  | { kind: 'map'; key: DbType; value: DbType }
  | { kind: 'struct'; fields: { name: string; type: DbType }[] }
  | { kind: 'scalar'; name: string; precision?: number; scale?: number };

/** Parses Databricks type text; anything it does not understand becomes a STRING scalar. */
export function parseType(text: string): DbType {
  let pos = 0;
  const s = text;
  const ws = () => {
    while (pos < s.length && /\s/.test(s[pos]!)) pos++;
  };
  const word = (): string => {
    ws();
    if (s[pos] === '`') {
      const end = s.indexOf('`', pos + 1);
      const w = s.slice(pos + 1, end < 0 ? s.length : end);
      pos = end < 0 ? s.length : end + 1;
      return w;
    }
    const start = pos;
    while (pos < s.length && /[A-Za-z0-9_]/.test(s[pos]!)) pos++;
    return s.slice(start, pos);
  };
  const expect = (c: string) => {
    ws();
    if (s[pos] === c) pos++;
  };
  const type = (): DbType => {
    const name = word().toUpperCase();
    ws();
    if (name === 'ARRAY' && s[pos] === '<') {
      pos++;
      const element = type();
      expect('>');
      return { kind: 'array', element };
    }
    if (name === 'MAP' && s[pos] === '<') {
      pos++;
      const key = type();
      expect(',');
      const value = type();
      expect('>');
      return { kind: 'map', key, value };
    }
    if (name === 'STRUCT' && s[pos] === '<') {
      pos++;
      const fields: { name: string; type: DbType }[] = [];
      ws();
      while (pos < s.length && s[pos] !== '>') {
        const fname = word();
        expect(':');
        const ftype = type();
        // A field may carry NOT NULL or COMMENT '...': skip to the next field.
        ws();
        while (pos < s.length && s[pos] !== ',' && s[pos] !== '>') {
          if (s[pos] === "'") {
            const end = s.indexOf("'", pos + 1);
            pos = end < 0 ? s.length : end + 1;
          } else pos++;
        }
        fields.push({ name: fname, type: ftype });
        if (s[pos] === ',') pos++;
        ws();
      }
      expect('>');
      return { kind: 'struct', fields };
    }
    if (s[pos] === '(') {
      const end = s.indexOf(')', pos);
      const args = s
        .slice(pos + 1, end < 0 ? s.length : end)
        .split(',')
        .map((x) => Number(x.trim()));
      pos = end < 0 ? s.length : end + 1;
      const out: DbType = { kind: 'scalar', name };
      if (Number.isFinite(args[0])) out.precision = args[0]!;
      if (Number.isFinite(args[1])) out.scale = args[1]!;
      return out;
    }
    if (name === 'INTERVAL') {
      // INTERVAL DAY TO SECOND, INTERVAL YEAR TO MONTH, INTERVAL DAY ...
      const start = pos;
      while (pos < s.length && /[A-Za-z ]/.test(s[pos]!)) pos++;
      const rest = s.slice(start, pos).trim().toUpperCase();
      return { kind: 'scalar', name: /YEAR|MONTH/.test(rest) ? 'INTERVAL_YM' : 'INTERVAL_DT' };
    }
    return { kind: 'scalar', name: name || 'STRING' };
  };
  return type();
}

const SCALAR_NAMES: Record<string, string> = {
  BYTE: 'TINYINT',
  SHORT: 'SMALLINT',
  INTEGER: 'INT',
  LONG: 'BIGINT',
  DEC: 'DECIMAL',
  NUMERIC: 'DECIMAL',
  REAL: 'FLOAT',
  VOID: 'NULL',
};

export function scalarName(t: DbType): string {
  if (t.kind !== 'scalar') return t.kind.toUpperCase();
  return SCALAR_NAMES[t.name] ?? t.name;
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
      // Decimals inside nested values travel as their text (a builder for nested Decimal128 is not worth it).
      return nested ? new Utf8() : new Decimal(t.scale ?? 0, t.precision ?? 10, 128);
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
    case 'VARCHAR':
      return TTypeId.VARCHAR_TYPE;
    case 'CHAR':
      return TTypeId.CHAR_TYPE;
    case 'INTERVAL_YM':
      return TTypeId.INTERVAL_YEAR_MONTH_TYPE;
    case 'INTERVAL_DT':
      return TTypeId.INTERVAL_DAY_TIME_TYPE;
    default:
      return TTypeId.STRING_TYPE;
  }
}
