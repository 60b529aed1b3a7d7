/**
 * One row per Databricks type, every spelling both ways: Databricks type text (read and written back),
 * Unity Catalog type_name, DuckDB DDL (written, and read back to the same tree or the nearest one DuckDB
 * has), Spark JSON (written and read back), the Statement API manifest's upper-case text, TCLI and JDBC
 * codes, and the Arrow type a Thrift client gets.
 */
import { describe, expect, it } from 'vitest';
import { arrowType } from '../src/arrow.js';
import {
  columnSize,
  duckDbToDatabricksText,
  fromSparkJson,
  jdbcType,
  parseDatabricksType,
  parseDuckDbType,
  scalarName,
  sparkTypeJson,
  sqlTypeName,
  typeTextOfTypeName,
  structFieldJson,
  thriftTypeId,
  toDatabricksTypeName,
  toDatabricksTypeText,
  toDuckDbTypeText,
  TTypeId,
  upperTypeText,
  type SparkType,
  type TypeNode,
} from '../src/index.js';

interface Row {
  /** Databricks type text as written by a user (any case, any alias). */
  input: string;
  /** As Databricks prints it back (lowercase, canonical). */
  text: string;
  typeName: string;
  duckDb: string;
  /** What reading `duckDb` back gives, when DuckDB keeps less than Databricks (intervals, VOID). */
  duckBack?: string;
  sparkJson: SparkType;
  tcli: number;
  jdbc: number;
  size: number | null;
  arrow: string;
}

const rows: Row[] = [
  {
    input: 'STRING',
    text: 'string',
    typeName: 'STRING',
    duckDb: 'VARCHAR',
    sparkJson: 'string',
    tcli: TTypeId.STRING_TYPE,
    jdbc: 12,
    size: null,
    arrow: 'Utf8',
  },
  {
    input: 'varchar(10)',
    text: 'string',
    typeName: 'STRING',
    duckDb: 'VARCHAR',
    sparkJson: 'string',
    tcli: TTypeId.STRING_TYPE,
    jdbc: 12,
    size: null,
    arrow: 'Utf8',
  },
  {
    input: 'BIGINT',
    text: 'bigint',
    typeName: 'LONG',
    duckDb: 'BIGINT',
    sparkJson: 'long',
    tcli: TTypeId.BIGINT_TYPE,
    jdbc: -5,
    size: 19,
    arrow: 'Int64',
  },
  {
    input: 'long',
    text: 'bigint',
    typeName: 'LONG',
    duckDb: 'BIGINT',
    sparkJson: 'long',
    tcli: TTypeId.BIGINT_TYPE,
    jdbc: -5,
    size: 19,
    arrow: 'Int64',
  },
  {
    input: 'INT',
    text: 'int',
    typeName: 'INT',
    duckDb: 'INTEGER',
    sparkJson: 'integer',
    tcli: TTypeId.INT_TYPE,
    jdbc: 4,
    size: 10,
    arrow: 'Int32',
  },
  {
    input: 'SMALLINT',
    text: 'smallint',
    typeName: 'SHORT',
    duckDb: 'SMALLINT',
    sparkJson: 'short',
    tcli: TTypeId.SMALLINT_TYPE,
    jdbc: 5,
    size: 5,
    arrow: 'Int16',
  },
  {
    input: 'TINYINT',
    text: 'tinyint',
    typeName: 'BYTE',
    duckDb: 'TINYINT',
    sparkJson: 'byte',
    tcli: TTypeId.TINYINT_TYPE,
    jdbc: -6,
    size: 3,
    arrow: 'Int8',
  },
  {
    input: 'DOUBLE',
    text: 'double',
    typeName: 'DOUBLE',
    duckDb: 'DOUBLE',
    sparkJson: 'double',
    tcli: TTypeId.DOUBLE_TYPE,
    jdbc: 8,
    size: 15,
    arrow: 'Float64',
  },
  {
    input: 'FLOAT',
    text: 'float',
    typeName: 'FLOAT',
    duckDb: 'FLOAT',
    sparkJson: 'float',
    tcli: TTypeId.FLOAT_TYPE,
    jdbc: 6,
    size: 7,
    arrow: 'Float32',
  },
  {
    input: 'BOOLEAN',
    text: 'boolean',
    typeName: 'BOOLEAN',
    duckDb: 'BOOLEAN',
    sparkJson: 'boolean',
    tcli: TTypeId.BOOLEAN_TYPE,
    jdbc: 16,
    size: 1,
    arrow: 'Bool',
  },
  {
    input: 'DATE',
    text: 'date',
    typeName: 'DATE',
    duckDb: 'DATE',
    sparkJson: 'date',
    tcli: TTypeId.DATE_TYPE,
    jdbc: 91,
    size: 10,
    arrow: 'Date32<DAY>',
  },
  // An instant: DuckDB TIMESTAMPTZ, Arrow with the session zone.
  {
    input: 'TIMESTAMP',
    text: 'timestamp',
    typeName: 'TIMESTAMP',
    duckDb: 'TIMESTAMPTZ',
    sparkJson: 'timestamp',
    tcli: TTypeId.TIMESTAMP_TYPE,
    jdbc: 93,
    size: 29,
    arrow: 'Timestamp<MICROSECOND, Asia/Tokyo>',
  },
  {
    input: 'TIMESTAMP_LTZ',
    text: 'timestamp',
    typeName: 'TIMESTAMP',
    duckDb: 'TIMESTAMPTZ',
    sparkJson: 'timestamp',
    tcli: TTypeId.TIMESTAMP_TYPE,
    jdbc: 93,
    size: 29,
    arrow: 'Timestamp<MICROSECOND, Asia/Tokyo>',
  },
  // A wall-clock time: DuckDB TIMESTAMP, Arrow without a zone.
  {
    input: 'TIMESTAMP_NTZ',
    text: 'timestamp_ntz',
    typeName: 'TIMESTAMP_NTZ',
    duckDb: 'TIMESTAMP',
    sparkJson: 'timestamp_ntz',
    tcli: TTypeId.TIMESTAMP_TYPE,
    jdbc: 93,
    size: 29,
    arrow: 'Timestamp<MICROSECOND>',
  },
  {
    input: 'BINARY',
    text: 'binary',
    typeName: 'BINARY',
    duckDb: 'BLOB',
    sparkJson: 'binary',
    tcli: TTypeId.BINARY_TYPE,
    jdbc: -2,
    size: null,
    arrow: 'Binary',
  },
  {
    input: 'VARIANT',
    text: 'variant',
    typeName: 'VARIANT',
    duckDb: 'VARIANT',
    sparkJson: 'variant',
    tcli: TTypeId.STRING_TYPE,
    jdbc: 1111,
    size: null,
    arrow: 'Utf8',
  },
  {
    input: 'VOID',
    text: 'void',
    typeName: 'NULL',
    duckDb: 'INTEGER',
    duckBack: 'int',
    sparkJson: 'void',
    tcli: TTypeId.NULL_TYPE,
    jdbc: 0,
    size: null,
    arrow: 'Null',
  },
  {
    input: 'DECIMAL(10,2)',
    text: 'decimal(10,2)',
    typeName: 'DECIMAL',
    duckDb: 'DECIMAL(10,2)',
    sparkJson: 'decimal(10,2)',
    tcli: TTypeId.DECIMAL_TYPE,
    jdbc: 3,
    size: 10,
    arrow: 'Decimal[10e+2]',
  },
  {
    input: 'decimal',
    text: 'decimal(10,0)',
    typeName: 'DECIMAL',
    duckDb: 'DECIMAL(10,0)',
    sparkJson: 'decimal(10,0)',
    tcli: TTypeId.DECIMAL_TYPE,
    jdbc: 3,
    size: 10,
    arrow: 'Decimal[10e0]',
  },
  {
    input: 'NUMERIC(38,38)',
    text: 'decimal(38,38)',
    typeName: 'DECIMAL',
    duckDb: 'DECIMAL(38,38)',
    sparkJson: 'decimal(38,38)',
    tcli: TTypeId.DECIMAL_TYPE,
    jdbc: 3,
    size: 38,
    arrow: 'Decimal[38e+38]',
  },
  // Intervals: DuckDB has one INTERVAL (read back as day-time); Databricks names the fields.
  {
    input: 'INTERVAL YEAR TO MONTH',
    text: 'interval year to month',
    typeName: 'INTERVAL',
    duckDb: 'INTERVAL',
    duckBack: 'interval day to second',
    sparkJson: 'interval year to month',
    tcli: TTypeId.INTERVAL_YEAR_MONTH_TYPE,
    jdbc: 1111,
    size: null,
    arrow: 'Utf8',
  },
  {
    input: 'INTERVAL MONTH',
    text: 'interval month',
    typeName: 'INTERVAL',
    duckDb: 'INTERVAL',
    duckBack: 'interval day to second',
    sparkJson: 'interval month',
    tcli: TTypeId.INTERVAL_YEAR_MONTH_TYPE,
    jdbc: 1111,
    size: null,
    arrow: 'Utf8',
  },
  {
    input: 'INTERVAL DAY TO SECOND',
    text: 'interval day to second',
    typeName: 'INTERVAL',
    duckDb: 'INTERVAL',
    sparkJson: 'interval day to second',
    tcli: TTypeId.INTERVAL_DAY_TIME_TYPE,
    jdbc: 1111,
    size: null,
    arrow: 'Utf8',
  },
  {
    input: 'INTERVAL HOUR TO MINUTE',
    text: 'interval hour to minute',
    typeName: 'INTERVAL',
    duckDb: 'INTERVAL',
    duckBack: 'interval day to second',
    sparkJson: 'interval hour to minute',
    tcli: TTypeId.INTERVAL_DAY_TIME_TYPE,
    jdbc: 1111,
    size: null,
    arrow: 'Utf8',
  },
  {
    input: 'INTERVAL',
    text: 'interval day to second',
    typeName: 'INTERVAL',
    duckDb: 'INTERVAL',
    sparkJson: 'interval day to second',
    tcli: TTypeId.INTERVAL_DAY_TIME_TYPE,
    jdbc: 1111,
    size: null,
    arrow: 'Utf8',
  },
  // Nested types.
  {
    input: 'ARRAY<INT>',
    text: 'array<int>',
    typeName: 'ARRAY',
    duckDb: 'INTEGER[]',
    sparkJson: { type: 'array', elementType: 'integer', containsNull: true },
    tcli: TTypeId.ARRAY_TYPE,
    jdbc: 2003,
    size: null,
    arrow: 'List<Int32>',
  },
  {
    input: 'MAP<STRING, BIGINT>',
    text: 'map<string,bigint>',
    typeName: 'MAP',
    duckDb: 'MAP(VARCHAR, BIGINT)',
    sparkJson: { type: 'map', keyType: 'string', valueType: 'long', valueContainsNull: true },
    tcli: TTypeId.MAP_TYPE,
    jdbc: 2000,
    size: null,
    arrow: 'Map<{key:Utf8, value:Int64}>',
  },
  {
    input: 'STRUCT<a: INT, `b c`: ARRAY<TIMESTAMP_NTZ>>',
    text: 'struct<a:int,`b c`:array<timestamp_ntz>>',
    typeName: 'STRUCT',
    duckDb: 'STRUCT("a" INTEGER, "b c" TIMESTAMP[])',
    sparkJson: {
      type: 'struct',
      fields: [
        { name: 'a', type: 'integer', nullable: true, metadata: {} },
        {
          name: 'b c',
          type: { type: 'array', elementType: 'timestamp_ntz', containsNull: true },
          nullable: true,
          metadata: {},
        },
      ],
    },
    tcli: TTypeId.STRUCT_TYPE,
    jdbc: 2002,
    size: null,
    arrow: 'Struct<{a:Int32, b c:List<Timestamp<MICROSECOND>>}>',
  },
  {
    input: 'map<string,struct<d:decimal(38,0),v:void>>',
    text: 'map<string,struct<d:decimal(38,0),v:void>>',
    typeName: 'MAP',
    duckDb: 'MAP(VARCHAR, STRUCT("d" DECIMAL(38,0), "v" INTEGER))',
    duckBack: 'map<string,struct<d:decimal(38,0),v:int>>',
    sparkJson: {
      type: 'map',
      keyType: 'string',
      valueType: {
        type: 'struct',
        fields: [
          { name: 'd', type: 'decimal(38,0)', nullable: true, metadata: {} },
          { name: 'v', type: 'void', nullable: true, metadata: {} },
        ],
      },
      valueContainsNull: true,
    },
    tcli: TTypeId.MAP_TYPE,
    jdbc: 2000,
    size: null,
    arrow: 'Map<{key:Utf8, value:Struct<{d:Decimal[38e0], v:Utf8}>}>',
  },
];

describe.each(rows)('$input', (r) => {
  const node: TypeNode = parseDatabricksType(r.input);
  it('reads and writes Databricks type text and type_name', () => {
    expect(toDatabricksTypeText(node)).toBe(r.text);
    // A type_name alone names a primitive (Unity Catalog columns without type_text).
    if (node.kind === 'primitive' && node.name !== 'void' && node.name !== 'interval')
      expect(typeTextOfTypeName(r.typeName)).toBe(r.text);
    expect(parseDatabricksType(r.text)).toEqual(node);
    expect(toDatabricksTypeName(node)).toBe(r.typeName);
    expect(upperTypeText(r.text)).toBe(
      r.text.replace(/[a-z_]+/g, (w) =>
        w === 'b' || w === 'c' || w === 'a' || w === 'd' || w === 'v' ? w : w.toUpperCase(),
      ),
    );
  });
  it('writes DuckDB DDL and reads it back', () => {
    expect(toDuckDbTypeText(node)).toBe(r.duckDb);
    expect(toDatabricksTypeText(parseDuckDbType(r.duckDb))).toBe(r.duckBack ?? r.text);
    expect(duckDbToDatabricksText(r.duckDb)).toBe(r.duckBack ?? r.text);
  });
  it('writes Spark JSON and reads it back', () => {
    expect(sparkTypeJson(node)).toEqual(r.sparkJson);
    expect(fromSparkJson(r.sparkJson)).toEqual(node);
    expect(JSON.parse(structFieldJson('c', node))).toEqual({
      name: 'c',
      type: r.sparkJson,
      nullable: true,
      metadata: {},
    });
  });
  it('has its TCLI, JDBC and Arrow types', () => {
    expect(thriftTypeId(node)).toBe(r.tcli);
    expect(jdbcType(node)).toBe(r.jdbc);
    expect(columnSize(node)).toBe(r.size);
    expect(String(arrowType(node, 'Asia/Tokyo'))).toBe(r.arrow);
  });
});

describe('DuckDB-only types', () => {
  it.each([
    ['HUGEINT', 'decimal(38,0)'],
    ['UBIGINT', 'decimal(20,0)'],
    ['UINTEGER', 'bigint'],
    ['USMALLINT', 'int'],
    ['UTINYINT', 'smallint'],
    ['UUID', 'string'],
    ['JSON', 'string'],
    ['TIME', 'string'],
    ['TIMESTAMP_NS', 'timestamp_ntz'],
    ['TIMESTAMP WITH TIME ZONE', 'timestamp'],
    ["ENUM('a', 'b')", 'string'],
    ['"NULL"', 'void'],
  ])('%s reads as %s', (duck, text) => {
    expect(toDatabricksTypeText(parseDuckDbType(duck))).toBe(text);
  });
  it('spells a type it cannot read leniently, never failing DESCRIBE', () => {
    expect(duckDbToDatabricksText('STRUCT(a INTEGER, b SOMETHING)')).toBe('struct<a:int,b:something>');
  });
});

describe('names the thrift and information_schema layers switch on', () => {
  it('splits intervals, calls VOID NULL and maps UC type names to SQL ones', () => {
    expect(scalarName(parseDatabricksType('interval year'))).toBe('INTERVAL_YM');
    expect(scalarName(parseDatabricksType('interval second'))).toBe('INTERVAL_DT');
    expect(scalarName(parseDatabricksType('void'))).toBe('NULL');
    expect(scalarName(parseDatabricksType('decimal(5,1)'))).toBe('DECIMAL');
    expect(['BYTE', 'SHORT', 'LONG', 'TIMESTAMP_NTZ', 'int'].map(sqlTypeName)).toEqual([
      'TINYINT',
      'SMALLINT',
      'BIGINT',
      'TIMESTAMP_NTZ',
      'INT',
    ]);
  });
});
