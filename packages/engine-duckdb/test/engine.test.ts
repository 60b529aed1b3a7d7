import { mkdtempSync } from 'node:fs';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuckDbEngine,
  catalogAlias,
  catalogAliasToName,
  catalogFileName,
  databricksToDuckDbType,
  duckDbTypeToDatabricks,
  normalizeDatabricksType,
  mayChangeCatalog,
  parseDatabricksType,
  parseDuckDbType,
  quoteIdent,
  toDatabricksTypeText,
} from '../src/index.js';

let engine: DuckDbEngine;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ml-duck-'));
  engine = await DuckDbEngine.open({ dir, memoryLimit: '512MB', threads: 2 });
});
afterAll(async () => engine.close());

describe('aliases and files', () => {
  it('maps reserved names to safe aliases, injectively', () => {
    expect(catalogAlias('main')).toBe('main__ml');
    expect(catalogAlias('system')).toBe('system__ml');
    expect(catalogAlias('sales')).toBe('sales');
    expect(catalogAlias('main__ml')).toBe('main__ml__ml');
    for (const n of ['main', 'temp', 'x', 'main__ml', 'a__ml', 'memory'])
      expect(catalogAliasToName(catalogAlias(n))).toBe(n);
  });
  it('keeps hostile names out of file paths', () => {
    for (const n of ['../../etc', 'a/b', 'x"; DROP TABLE y; --', 'é'.repeat(300), '..'])
      expect(catalogFileName(n)).not.toMatch(/[/\\]|\.\.|"/);
    expect(catalogFileName('x'.repeat(300)).length).toBeLessThan(200);
  });
  it('quotes identifiers', () => {
    expect(quoteIdent('default')).toBe('"default"');
    expect(quoteIdent('a"b')).toBe('"a""b"');
  });
});

describe('catalogs', () => {
  it('attaches main under an alias and runs native three-part names', async () => {
    await engine.attachCatalog('main');
    expect(engine.hasCatalog('main')).toBe(true);
    expect(engine.catalogForAlias('main__ml')).toBe('main');
    const a = quoteIdent(engine.alias('main'));
    await engine.run(`CREATE SCHEMA IF NOT EXISTS ${a}."default"`);
    await engine.run(`CREATE TABLE ${a}."default".t (id BIGINT, amount DECIMAL(10,2))`);
    await engine.run(`INSERT INTO ${a}."default".t VALUES ($id, 1.5)`, { id: 7 });
    expect(await engine.all(`SELECT id, amount::VARCHAR AS amount FROM ${a}."default".t`)).toEqual([
      { id: 7, amount: '1.50' },
    ]);
    expect(existsSync(path.join(dir, 'catalogs', 'main.duckdb'))).toBe(true);
  });
  it('detaches and deletes files; reset empties everything', async () => {
    await engine.attachCatalog('gone');
    await engine.detachCatalog('gone', { deleteFile: true });
    expect(engine.hasCatalog('gone')).toBe(false);
    expect(existsSync(path.join(dir, 'catalogs', 'gone.duckdb'))).toBe(false);
    await engine.attachCatalog('weird "name";');
    expect(engine.catalogNames()).toContain('weird "name";');
    await engine.reset();
    expect(engine.catalogNames()).toEqual([]);
  });
  it('re-attaches existing files with their data', async () => {
    await engine.attachCatalog('keep');
    await engine.run(`CREATE TABLE "keep".main.k AS SELECT 42 AS v`);
    await engine.detachCatalog('keep');
    await engine.attachCatalog('keep');
    expect(await engine.all(`SELECT v FROM "keep".main.k`)).toEqual([{ v: 42 }]);
  });
  it('moves the catalog epoch on DDL through any leased connection, not on reads', async () => {
    await engine.attachCatalog('epoch');
    const e0 = engine.catalogEpoch;
    await engine.all(`SELECT comment, 'x' AS word FROM duckdb_tables() WHERE database_name = 'epoch'`);
    expect(engine.catalogEpoch).toBe(e0);
    await engine.withConnection(async (conn) => {
      await conn.run(`CREATE TABLE "epoch".main.x (a INT)`);
    });
    expect(engine.catalogEpoch).toBeGreaterThan(e0);
    const e1 = engine.catalogEpoch;
    const { conn, release } = await engine.acquire();
    const prepared = await conn.prepare(`DROP TABLE "epoch".main.x`);
    await prepared.run();
    release();
    expect(engine.catalogEpoch).toBeGreaterThan(e1);
    expect(mayChangeCatalog('select 1; commit')).toBe(true);
    expect(mayChangeCatalog('SELECT CASE WHEN a THEN 1 END FROM t')).toBe(false);
    expect(mayChangeCatalog(`USE "main__ml"."default"; SET search_path = 'x'`)).toBe(false);
  });
  it('logs described changes so caches can patch, and refuses to describe unknown ones', async () => {
    await engine.attachCatalog('described');
    const e0 = engine.catalogEpoch;
    expect(engine.changesSince(e0)).toEqual([]);
    const change = { catalog: 'described', schema: 'main', name: 'd' };
    await engine.withConnection((conn) => conn.run(`CREATE TABLE "described".main.d (a INT)`), { change });
    const seen = engine.changesSince(e0)!;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((c) => c === change)).toBe(true);
    const e1 = engine.catalogEpoch;
    await engine.run(`DROP TABLE "described".main.d`);
    expect(engine.changesSince(e0)).toBeUndefined();
    expect(engine.changesSince(e1)).toBeUndefined();
    expect(engine.changesSince(engine.catalogEpoch)).toEqual([]);
    expect(engine.changesSince(engine.catalogEpoch + 1)).toBeUndefined();
  });
  it('interrupts a running query', async () => {
    const { conn, release } = await engine.acquire();
    try {
      const p = conn.run('SELECT count(*) FROM range(10000000000) a');
      setTimeout(() => conn.interrupt(), 50);
      await expect(p).rejects.toThrow(/interrupt/i);
    } finally {
      release();
    }
  });
});

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
