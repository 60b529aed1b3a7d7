import {
  databricksToDuckDbType,
  duckDbTypeToDatabricks,
  normalizeDatabricksType,
  parseDatabricksType,
  parseDuckDbType,
  toDatabricksTypeText,
} from '../src/index.js';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbEngine } from '@minilake/engine-duckdb';

let engine: DuckDbEngine;
beforeAll(async () => {
  engine = await DuckDbEngine.open({ dir: mkdtempSync(path.join(os.tmpdir(), 'ml-uc-types-')), threads: 2 });
});
afterAll(async () => engine.close());

describe('type mapping', () => {
  const cases: [string, string, string, string][] = [
    // databricks input, duckdb DDL, databricks type_text out, type_name
    ['STRING', 'VARCHAR', 'string', 'STRING'],
    ['LONG', 'BIGINT', 'bigint', 'LONG'],
    ['BIGINT', 'BIGINT', 'bigint', 'LONG'],
    ['INT', 'INTEGER', 'int', 'INT'],
    ['SHORT', 'SMALLINT', 'smallint', 'SHORT'],
    ['BYTE', 'TINYINT', 'tinyint', 'BYTE'],
    ['DOUBLE', 'DOUBLE', 'double', 'DOUBLE'],
    ['FLOAT', 'FLOAT', 'float', 'FLOAT'],
    ['BOOLEAN', 'BOOLEAN', 'boolean', 'BOOLEAN'],
    ['DATE', 'DATE', 'date', 'DATE'],
    ['TIMESTAMP', 'TIMESTAMPTZ', 'timestamp', 'TIMESTAMP'],
    ['TIMESTAMP_NTZ', 'TIMESTAMP', 'timestamp_ntz', 'TIMESTAMP_NTZ'],
    ['DECIMAL(10,2)', 'DECIMAL(10,2)', 'decimal(10,2)', 'DECIMAL'],
    ['BINARY', 'BLOB', 'binary', 'BINARY'],
    ['ARRAY<INT>', 'INTEGER[]', 'array<int>', 'ARRAY'],
    ['MAP<STRING,BIGINT>', 'MAP(VARCHAR, BIGINT)', 'map<string,bigint>', 'MAP'],
    ['STRUCT<a:INT,b:STRING>', 'STRUCT("a" INTEGER, "b" VARCHAR)', 'struct<a:int,b:string>', 'STRUCT'],
    ['INTERVAL', 'INTERVAL', 'interval day to second', 'INTERVAL'],
    ['VARIANT', 'VARIANT', 'variant', 'VARIANT'],
    [
      'struct<`x y`:array<map<string,decimal(38,0)>>>',
      'STRUCT("x y" MAP(VARCHAR, DECIMAL(38,0))[])',
      'struct<`x y`:array<map<string,decimal(38,0)>>>',
      'STRUCT',
    ],
  ];
  it.each(cases)('%s round-trips through a real table', async (dbx, duck, text, name) => {
    expect(databricksToDuckDbType(dbx)).toBe(duck);
    await engine.attachCatalog('types');
    await engine.run(`CREATE OR REPLACE TABLE "types".main.t (c ${duck})`);
    const [row] = await engine.all(
      `SELECT data_type FROM duckdb_columns() WHERE database_name = 'types' AND table_name = 't'`,
    );
    const info = duckDbTypeToDatabricks(String(row!.data_type), { name: 'c' });
    expect(info.type_text).toBe(text);
    expect(info.type_name).toBe(name);
    expect(JSON.parse(info.type_json).name).toBe('c');
    expect(normalizeDatabricksType(text)).toBe(text);
  });
  it('produces Spark StructField JSON', () => {
    expect(JSON.parse(duckDbTypeToDatabricks('DECIMAL(10,2)', { name: 'amount' }).type_json)).toEqual({
      name: 'amount',
      type: 'decimal(10,2)',
      nullable: true,
      metadata: {},
    });
    expect(
      JSON.parse(duckDbTypeToDatabricks('MAP(VARCHAR, INTEGER[])', { name: 'm' }).type_json).type,
    ).toEqual({
      type: 'map',
      keyType: 'string',
      valueType: { type: 'array', elementType: 'integer', containsNull: true },
      valueContainsNull: true,
    });
    const d = duckDbTypeToDatabricks('DECIMAL(10,2)');
    expect([d.type_precision, d.type_scale]).toEqual([10, 2]);
  });
  it('maps DuckDB-only types to Spark types', () => {
    expect(duckDbTypeToDatabricks('HUGEINT').type_text).toBe('decimal(38,0)');
    expect(duckDbTypeToDatabricks('UUID').type_text).toBe('string');
    expect(duckDbTypeToDatabricks('TIMESTAMP WITH TIME ZONE').type_text).toBe('timestamp');
    expect(duckDbTypeToDatabricks('INTEGER[3]').type_text).toBe('array<int>');
    expect(duckDbTypeToDatabricks("ENUM('a', 'b')").type_text).toBe('string');
  });
  it('rejects bad type text', () => {
    for (const bad of ['NOPE', 'ARRAY<INT', 'DECIMAL(50,2)', 'INT; DROP TABLE x', 'STRUCT<a:INT>>'])
      expect(() => databricksToDuckDbType(bad)).toThrow();
  });
});

describe('type text tokenizer', () => {
  it('reads doubled quotes in names and backslash escapes in strings', () => {
    expect(parseDatabricksType('struct<`a``b`:int>')).toMatchObject({
      kind: 'struct',
      fields: [{ name: 'a`b' }],
    });
    expect(parseDuckDbType('STRUCT("a""b" INTEGER)')).toMatchObject({
      kind: 'struct',
      fields: [{ name: 'a"b' }],
    });
    expect(toDatabricksTypeText(parseDatabricksType("struct<a:int COMMENT 'it\\'s'>"))).toBe(
      "struct<a:int comment 'it\\'s'>",
    );
    expect(() => parseDatabricksType('struct<`a:int>')).toThrow(/Unterminated quoted name/);
  });
});
