import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { ident } from '@minilake/engine-duckdb';
import { unityCatalogService, type UnityCatalogApi } from '../src/index.js';

const B = '/api/2.1/unity-catalog';
let app: Hono;
let api: UnityCatalogApi;
let close: (() => Promise<void> | void) | undefined;
let dataDir: string;

const req = async (method: string, p: string, body?: unknown) => {
  const res = await app.request(p, jsonInit(method, body));
  return res;
};
const ok = async (method: string, p: string, body?: unknown) => {
  const res = await req(method, p, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Record<string, any>;
};

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'ml-uc-'));
  const s = await serviceApp(unityCatalogService, { dataDir });
  app = s.app;
  api = s.instance.api!;
  close = s.instance.close;
});
afterAll(async () => {
  await close?.();
  await api.engine.close();
});

describe('catalogs', () => {
  it('creates a catalog with a default schema, rejects duplicates and hostile names', async () => {
    const cat = await ok('POST', `${B}/catalogs`, { name: 'sales', comment: 'c', properties: { a: 'b' } });
    expect(cat).toMatchObject({
      name: 'sales',
      comment: 'c',
      properties: { a: 'b' },
      catalog_type: 'MANAGED_CATALOG',
    });
    await ok('GET', `${B}/schemas/sales.default`);
    await expectDatabricksError(
      await req('POST', `${B}/catalogs`, { name: 'sales' }),
      409,
      'CATALOG_ALREADY_EXISTS',
    );
    await expectDatabricksError(await req('GET', `${B}/catalogs/nope_cat`), 404, 'CATALOG_DOES_NOT_EXIST');
    for (const bad of ['x"; DROP TABLE y; --', 'a.b', '..', 'x'.repeat(300), 'a/b', "it's", ''])
      await expectDatabricksError(
        await req('POST', `${B}/catalogs`, { name: bad }),
        400,
        'INVALID_PARAMETER_VALUE',
      );
    expect(existsSync(path.join(dataDir, 'duckdb', 'catalogs', 'sales.duckdb'))).toBe(true);
  });
  it('keeps hostile names out of SQL and the file system', async () => {
    const cat = await ok('POST', `${B}/catalogs`, { name: 'Café_Ünï' });
    expect(cat.name).toBe('café_ünï');
    await ok('POST', `${B}/volumes`, {
      name: 'ß',
      catalog_name: 'café_ünï',
      schema_name: 'default',
      volume_type: 'MANAGED',
    });
    expect(existsSync(path.join(dataDir, 'volumes', 'café_ünï', 'default', 'ß'))).toBe(true);
    for (const p of [
      `${B}/schemas/main.${encodeURIComponent('x"; DROP SCHEMA y; --')}`,
      `${B}/tables/main.default.${encodeURIComponent("t' OR 1=1")}`,
      `${B}/tables/main..t`,
      `${B}/volumes/main.default.${'v'.repeat(300)}`,
      `${B}/functions/a.b`,
    ])
      await expectDatabricksError(await req('GET', p), 400, 'INVALID_PARAMETER_VALUE');
    for (const name of ['..', 'a/../../b', 'x\u0000y', 'sp ace'])
      await expectDatabricksError(
        await req('POST', `${B}/volumes`, {
          name,
          catalog_name: 'main',
          schema_name: 'default',
          volume_type: 'MANAGED',
        }),
        400,
        'INVALID_PARAMETER_VALUE',
      );
    await ok('DELETE', `${B}/catalogs/café_ünï?force=true`);
    expect(existsSync(path.join(dataDir, 'volumes', 'café_ünï'))).toBe(false);
  });
  it('answers concurrent creates of one name with one 200 and 409s', async () => {
    const codes = await Promise.all(
      Array.from({ length: 5 }, () => req('POST', `${B}/catalogs`, { name: 'race' }).then((r) => r.status)),
    );
    expect(codes.sort()).toEqual([200, 409, 409, 409, 409]);
    const tcodes = await Promise.all(
      Array.from({ length: 4 }, () =>
        req('POST', `${B}/tables`, {
          name: 't',
          catalog_name: 'race',
          schema_name: 'default',
          columns: [{ name: 'a', type_text: 'int' }],
        }).then((r) => r.status),
      ),
    );
    expect(tcodes.sort()).toEqual([200, 409, 409, 409]);
    const scodes = await Promise.all(
      Array.from({ length: 3 }, () =>
        req('POST', `${B}/schemas`, { name: 'rs', catalog_name: 'race' }).then((r) => r.status),
      ),
    );
    expect(scodes.sort()).toEqual([200, 409, 409]);
    const vcodes = await Promise.all(
      Array.from({ length: 3 }, () =>
        req('POST', `${B}/volumes`, {
          name: 'rv',
          catalog_name: 'race',
          schema_name: 'default',
          volume_type: 'MANAGED',
        }).then((r) => r.status),
      ),
    );
    expect(vcodes.sort()).toEqual([200, 409, 409]);
  });
  it('updates comment, properties, owner and renames', async () => {
    await ok('POST', `${B}/catalogs`, { name: 'ren_a' });
    await ok('POST', `${B}/schemas`, { name: 's', catalog_name: 'ren_a' });
    await api.engine.run(`CREATE TABLE ${ident(api.engine.alias('ren_a'))}.s.t AS SELECT 5 AS v`);
    api.engine.notifyChange(); // DDL run behind the API's back: its runner tells the engine
    const u = await ok('PATCH', `${B}/catalogs/ren_a`, {
      comment: 'x',
      properties: { k: 'v' },
      owner: 'bob',
      new_name: 'ren_b',
    });
    expect(u).toMatchObject({ name: 'ren_b', comment: 'x', owner: 'bob', properties: { k: 'v' } });
    await expectDatabricksError(await req('GET', `${B}/catalogs/ren_a`), 404, 'CATALOG_DOES_NOT_EXIST');
    expect(await api.engine.all(`SELECT v FROM ren_b.s.t`)).toEqual([{ v: 5 }]);
    const t = await ok('GET', `${B}/tables/ren_b.s.t`);
    expect(t.columns[0]).toMatchObject({ name: 'v', type_text: 'int', type_name: 'INT' });
  });
  it('refuses to delete a non-empty catalog without force', async () => {
    await ok('POST', `${B}/catalogs`, { name: 'full_cat' });
    await ok('DELETE', `${B}/catalogs/full_cat`).catch(() => undefined);
    await ok('POST', `${B}/catalogs`, { name: 'full_cat2' });
    await ok('POST', `${B}/schemas`, { name: 'x', catalog_name: 'full_cat2' });
    await expectDatabricksError(await req('DELETE', `${B}/catalogs/full_cat2`), 400, 'INVALID_STATE');
    await ok('DELETE', `${B}/catalogs/full_cat2?force=true`);
    expect(existsSync(path.join(dataDir, 'duckdb', 'catalogs', 'full_cat2.duckdb'))).toBe(false);
  });
  it('pages exactly like Databricks', async () => {
    for (let i = 0; i < 5; i++) await ok('POST', `${B}/catalogs`, { name: `pg_${i}` });
    const all = await ok('GET', `${B}/catalogs`);
    expect(all.next_page_token).toBeUndefined();
    let token = '';
    const seen: string[] = [];
    for (let n = 0; n < 50; n++) {
      const page = await ok('GET', `${B}/catalogs?max_results=2${token ? `&page_token=${token}` : ''}`);
      seen.push(...page.catalogs.map((c: { name: string }) => c.name));
      if (!page.next_page_token) break;
      token = page.next_page_token;
    }
    expect(seen).toEqual(all.catalogs.map((c: { name: string }) => c.name));
    await expectDatabricksError(
      await req('GET', `${B}/catalogs?max_results=-1`),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    expect((await ok('GET', `${B}/catalogs?max_results=0`)).catalogs.length).toBe(all.catalogs.length);
  });
});

describe('schemas and tables', () => {
  it('runs the acceptance flow', async () => {
    await ok('POST', `${B}/schemas`, { name: 'store', catalog_name: 'main' });
    await expectDatabricksError(
      await req('POST', `${B}/schemas`, { name: 'store', catalog_name: 'main' }),
      409,
      'SCHEMA_ALREADY_EXISTS',
    );
    await expectDatabricksError(
      await req('POST', `${B}/schemas`, { name: 'x', catalog_name: 'nope' }),
      404,
      'CATALOG_DOES_NOT_EXIST',
    );
    const created = await ok('POST', `${B}/tables`, {
      name: 'orders',
      catalog_name: 'main',
      schema_name: 'store',
      table_type: 'MANAGED',
      data_source_format: 'DELTA',
      columns: [
        { name: 'id', type_text: 'BIGINT', type_name: 'LONG', position: 0, comment: 'pk' },
        { name: 'customer', type_text: 'STRING', type_name: 'STRING', position: 1 },
        { name: 'amount', type_text: 'DECIMAL(10,2)', type_name: 'DECIMAL', position: 2 },
      ],
    });
    expect(created.table_id).toMatch(/^[0-9a-f-]{36}$/);
    const t = await ok('GET', `${B}/tables/main.store.orders`);
    expect(t.columns.map((c: any) => `${c.name}:${c.type_text}`).join(',')).toBe(
      'id:bigint,customer:string,amount:decimal(10,2)',
    );
    expect(t.columns[0]).toMatchObject({ comment: 'pk', type_name: 'LONG', position: 0, nullable: true });
    expect(t.columns[2]).toMatchObject({ type_precision: 10, type_scale: 2 });
    expect(t).toMatchObject({
      table_type: 'MANAGED',
      data_source_format: 'DELTA',
      properties: {},
      table_id: created.table_id,
    });
    await expectDatabricksError(
      await req('POST', `${B}/tables`, {
        name: 'orders',
        catalog_name: 'main',
        schema_name: 'store',
        columns: [{ name: 'a', type_text: 'int' }],
      }),
      409,
      'TABLE_ALREADY_EXISTS',
    );
    await api.engine.run(`INSERT INTO main__ml.store.orders VALUES (1, 'a', 2.5)`);
    // SQL-created objects appear at once, SQL-dropped ones disappear
    await api.engine.run(`CREATE TABLE main__ml.store.viasql AS SELECT 1 AS x`);
    api.engine.notifyChange(); // DDL run behind the API's back: its runner tells the engine
    await api.engine.run(`CREATE VIEW main__ml.store.v1 AS SELECT * FROM main__ml.store.orders`);
    api.engine.notifyChange(); // DDL run behind the API's back: its runner tells the engine
    const v = await ok('GET', `${B}/tables/main.store.v1`);
    expect(v.table_type).toBe('VIEW');
    const viasql = await ok('GET', `${B}/tables/main.store.viasql`);
    expect((await ok('GET', `${B}/tables/main.store.viasql`)).table_id).toBe(viasql.table_id);
    const list = await ok('GET', `${B}/tables?catalog_name=main&schema_name=store`);
    expect(list.tables.map((x: any) => x.name)).toEqual(['orders', 'v1', 'viasql']);
    expect((await ok('GET', `${B}/tables/main.store.viasql/exists`)).table_exists).toBe(true);
    await api.engine.run(`DROP TABLE main__ml.store.viasql`);
    api.engine.notifyChange(); // DDL run behind the API's back: its runner tells the engine
    await expectDatabricksError(
      await req('GET', `${B}/tables/main.store.viasql`),
      404,
      'TABLE_DOES_NOT_EXIST',
    );
    expect((await ok('GET', `${B}/tables/main.store.viasql/exists`)).table_exists).toBe(false);
    await api.engine.run(`CREATE SCHEMA main__ml.sqlschema`);
    api.engine.notifyChange(); // DDL run behind the API's back: its runner tells the engine
    await ok('GET', `${B}/schemas/main.sqlschema`);
    const sums = await ok('GET', `${B}/table-summaries?catalog_name=main&schema_name_pattern=st%25`);
    expect(sums.tables).toEqual([
      { full_name: 'main.store.orders', table_type: 'MANAGED' },
      { full_name: 'main.store.v1', table_type: 'VIEW' },
    ]);
    await expectDatabricksError(await req('GET', `${B}/tables/main.nope.t`), 404, 'SCHEMA_DOES_NOT_EXIST');
    await expectDatabricksError(await req('GET', `${B}/tables/main.store.nope`), 404, 'TABLE_DOES_NOT_EXIST');
    await expectDatabricksError(await req('DELETE', `${B}/schemas/main.store`), 400, 'INVALID_STATE');
  });
  it('updates its metadata cache in place for its own creates and still sees SQL changes at once', async () => {
    await ok('POST', `${B}/catalogs`, { name: 'inc' });
    await ok('POST', `${B}/schemas`, { catalog_name: 'inc', name: 'warm' });
    // Warm the cache, then create through the API: these are patched in, not rebuilt.
    expect((await ok('GET', `${B}/tables?catalog_name=inc&schema_name=warm`)).tables ?? []).toEqual([]);
    await ok('POST', `${B}/schemas`, { catalog_name: 'inc', name: 'Fresh' });
    const created = await ok('POST', `${B}/tables`, {
      catalog_name: 'inc',
      schema_name: 'fresh',
      name: 't1',
      table_type: 'MANAGED',
      data_source_format: 'DELTA',
      columns: [
        {
          name: 'id',
          type_text: 'bigint',
          type_name: 'LONG',
          position: 0,
          nullable: false,
          comment: 'the id',
        },
        { name: 'tags', type_text: 'array<string>', type_name: 'ARRAY', position: 1 },
      ],
    });
    expect(created.columns).toMatchObject([
      { name: 'id', type_text: 'bigint', nullable: false, comment: 'the id', position: 0 },
      { name: 'tags', type_text: 'array<string>', nullable: true, position: 1 },
    ]);
    const listed = await ok('GET', `${B}/tables?catalog_name=inc&schema_name=fresh`);
    expect(listed.tables.map((t: { name: string }) => t.name)).toEqual(['t1']);
    expect(listed.tables[0].columns).toEqual(created.columns);
    // A SQL change right after is visible at once (a full rebuild).
    await api.engine.run(`ALTER TABLE inc.fresh.t1 ADD COLUMN extra DOUBLE`);
    api.engine.notifyChange(); // DDL run behind the API's back: its runner tells the engine
    await api.engine.run(`CREATE TABLE inc.fresh.t0 AS SELECT 1 AS x`);
    api.engine.notifyChange(); // DDL run behind the API's back: its runner tells the engine
    const after = await ok('GET', `${B}/tables/inc.fresh.t1`);
    expect(after.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'tags', 'extra']);
    expect(after.columns[0].comment).toBe('the id');
    const names = (await ok('GET', `${B}/tables?catalog_name=inc&schema_name=fresh`)).tables.map(
      (t: { name: string }) => t.name,
    );
    expect(names).toEqual(['t0', 't1']);
    // And an API create after the SQL change patches the rebuilt view.
    await ok('POST', `${B}/tables`, {
      catalog_name: 'inc',
      schema_name: 'fresh',
      name: 't2',
      table_type: 'MANAGED',
      columns: [{ name: 'v', type_text: 'int', type_name: 'INT', position: 0 }],
    });
    const all = (await ok('GET', `${B}/tables?catalog_name=inc&schema_name=fresh`)).tables;
    expect(all.map((t: { name: string }) => t.name)).toEqual(['t0', 't1', 't2']);
    // Listed rows are cached: an update must show in the next list.
    await ok('PATCH', `${B}/tables/inc.fresh.t1`, { comment: 'now commented' });
    const page1 = await ok('GET', `${B}/tables?catalog_name=inc&schema_name=fresh&max_results=2`);
    expect(page1.tables.map((t: { name: string }) => t.name)).toEqual(['t0', 't1']);
    expect(page1.tables[1].comment).toBe('now commented');
    const page2 = await ok(
      'GET',
      `${B}/tables?catalog_name=inc&schema_name=fresh&max_results=2&page_token=${page1.next_page_token}`,
    );
    expect(page2.tables.map((t: { name: string }) => t.name)).toEqual(['t2']);
    expect(page2.next_page_token).toBeUndefined();
    await api.engine.run(`DROP TABLE inc.fresh.t2`);
    api.engine.notifyChange(); // DDL run behind the API's back: its runner tells the engine
    await expectDatabricksError(await req('GET', `${B}/tables/inc.fresh.t2`), 404, 'TABLE_DOES_NOT_EXIST');
  });
  it('pages 23 schemas in pages of 10 with no token on the last page', async () => {
    await ok('POST', `${B}/catalogs`, { name: 'pages' });
    for (let i = 1; i <= 23; i++) await ok('POST', `${B}/schemas`, { name: `s${i}`, catalog_name: 'pages' });
    let tok = '';
    let n = 0;
    let pages = 0;
    for (;;) {
      const r = await ok(
        'GET',
        `${B}/schemas?catalog_name=pages&max_results=10${tok ? `&page_token=${tok}` : ''}`,
      );
      n += r.schemas.length;
      pages++;
      if (!r.next_page_token) break;
      tok = r.next_page_token;
      expect(pages).toBeLessThan(10);
    }
    expect([n, pages]).toEqual([24, 3]);
  });
  it('creates EXTERNAL tables as metadata and round-trips every type', async () => {
    const types = [
      'STRING',
      'BIGINT',
      'INT',
      'SHORT',
      'BYTE',
      'DOUBLE',
      'FLOAT',
      'BOOLEAN',
      'DATE',
      'TIMESTAMP',
      'TIMESTAMP_NTZ',
      'DECIMAL(10,2)',
      'BINARY',
      'ARRAY<INT>',
      'MAP<STRING,INT>',
      'STRUCT<a:INT,b:STRING>',
      'INTERVAL DAY TO SECOND',
      'VARIANT',
    ];
    const expected = [
      'string',
      'bigint',
      'int',
      'smallint',
      'tinyint',
      'double',
      'float',
      'boolean',
      'date',
      'timestamp',
      'timestamp_ntz',
      'decimal(10,2)',
      'binary',
      'array<int>',
      'map<string,int>',
      'struct<a:int,b:string>',
      'interval day to second',
      'variant',
    ];
    const columns = types.map((t, i) => ({ name: `c${i}`, type_text: t, position: i }));
    for (const table_type of ['MANAGED', 'EXTERNAL']) {
      await ok('POST', `${B}/tables`, {
        name: `types_${table_type.toLowerCase()}`,
        catalog_name: 'main',
        schema_name: 'default',
        table_type,
        storage_location: table_type === 'EXTERNAL' ? '/tmp/some/where' : undefined,
        columns,
      });
      const t = await ok('GET', `${B}/tables/main.default.types_${table_type.toLowerCase()}`);
      expect(t.columns.map((c: any) => c.type_text)).toEqual(expected);
      expect(t.table_type).toBe(table_type);
    }
    const rows = await api.engine.all(
      `SELECT data_type FROM duckdb_columns() WHERE database_name = 'main__ml' AND table_name = 'types_managed' ORDER BY column_index`,
    );
    expect(rows.map((r) => r.data_type)).toContain('DECIMAL(10,2)');
    await expectDatabricksError(
      await req('POST', `${B}/tables`, {
        name: 'bad',
        catalog_name: 'main',
        schema_name: 'default',
        columns: [{ name: 'a', type_text: 'INT); DROP TABLE x; --' }],
      }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });
});

describe('volumes, functions, grants, metastore', () => {
  it('creates managed volumes with a directory and removes it', async () => {
    const vol = await ok('POST', `${B}/volumes`, {
      name: 'raw',
      catalog_name: 'main',
      schema_name: 'default',
      volume_type: 'MANAGED',
    });
    const dir = path.join(dataDir, 'volumes', 'main', 'default', 'raw');
    expect(existsSync(dir)).toBe(true);
    expect(vol.storage_location).toBe(`file://${dir}`);
    expect(await api.volumeDirectory('main', 'default', 'raw')).toBe(dir);
    await expectDatabricksError(
      await req('POST', `${B}/volumes`, {
        name: 'raw',
        catalog_name: 'main',
        schema_name: 'default',
        volume_type: 'MANAGED',
      }),
      409,
      'RESOURCE_ALREADY_EXISTS',
    );
    const r = await ok('PATCH', `${B}/volumes/main.default.raw`, { new_name: 'raw2', comment: 'c' });
    expect(r).toMatchObject({ name: 'raw2', comment: 'c' });
    expect((await ok('GET', `${B}/volumes?catalog_name=main&schema_name=default`)).volumes.length).toBe(1);
    await ok('DELETE', `${B}/volumes/main.default.raw2`);
    expect(existsSync(path.join(dataDir, 'volumes', 'main', 'default', 'raw2'))).toBe(false);
    await expectDatabricksError(
      await req('GET', `${B}/volumes/main.default.raw2`),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await req('POST', `${B}/volumes`, {
        name: 'ext',
        catalog_name: 'main',
        schema_name: 'default',
        volume_type: 'EXTERNAL',
        storage_location: 'file:///tmp/../etc',
      }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });
  it('turns SQL functions into DuckDB macros', async () => {
    await ok('POST', `${B}/functions`, {
      function_info: {
        name: 'plus_one',
        catalog_name: 'main',
        schema_name: 'default',
        input_params: { parameters: [{ name: 'x', type_text: 'int', type_name: 'INT', position: 0 }] },
        data_type: 'INT',
        full_data_type: 'INT',
        routine_body: 'SQL',
        routine_definition: 'x + 1',
        parameter_style: 'S',
        is_deterministic: true,
        sql_data_access: 'CONTAINS_SQL',
        is_null_call: false,
        security_type: 'DEFINER',
        specific_name: 'plus_one',
      },
    });
    expect(await api.engine.all(`SELECT main__ml."default".plus_one(1) AS v`)).toEqual([{ v: 2 }]);
    await ok('POST', `${B}/functions`, {
      function_info: {
        name: 'nums',
        catalog_name: 'main',
        schema_name: 'default',
        input_params: { parameters: [{ name: 'n', type_text: 'int', position: 0 }] },
        data_type: 'TABLE_TYPE',
        full_data_type: 'TABLE(v BIGINT)',
        return_params: { parameters: [{ name: 'v', type_text: 'bigint', position: 0 }] },
        routine_body: 'SQL',
        routine_definition: 'SELECT range AS v FROM range(n)',
      },
    });
    expect(await api.engine.all(`SELECT count(*) AS n FROM main__ml."default".nums(3)`)).toEqual([{ n: 3 }]);
    const f = await ok('GET', `${B}/functions/main.default.plus_one`);
    expect(f).toMatchObject({
      full_name: 'main.default.plus_one',
      routine_definition: 'x + 1',
      data_type: 'INT',
    });
    expect((await ok('GET', `${B}/functions?catalog_name=main&schema_name=default`)).functions.length).toBe(
      2,
    );
    await expectDatabricksError(
      await req('POST', `${B}/functions`, {
        function_info: {
          name: 'evil',
          catalog_name: 'main',
          schema_name: 'default',
          routine_body: 'SQL',
          routine_definition: '1); DROP TABLE main__ml.store.orders; SELECT (1',
        },
      }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await ok('DELETE', `${B}/functions/main.default.plus_one`);
    await expect(api.engine.all(`SELECT main__ml."default".plus_one(1) AS v`)).rejects.toThrow();
    await expectDatabricksError(
      await req('GET', `${B}/functions/main.default.plus_one`),
      404,
      'FUNCTION_DOES_NOT_EXIST',
    );
  });
  it('stores grants with inheritance', async () => {
    const p = await ok('PATCH', `${B}/permissions/catalog/main`, {
      changes: [{ principal: 'data-eng', add: ['USE_CATALOG', 'SELECT'] }],
    });
    expect(p.privilege_assignments).toEqual([
      { principal: 'data-eng', privileges: ['SELECT', 'USE_CATALOG'] },
    ]);
    await ok('PATCH', `${B}/permissions/TABLE/main.store.orders`, {
      changes: [{ principal: 'data-eng', add: ['MODIFY'] }],
    });
    const eff = await ok('GET', `${B}/effective-permissions/table/main.store.orders?principal=data-eng`);
    expect(eff.privilege_assignments[0].privileges).toEqual([
      { privilege: 'SELECT', inherited_from_type: 'CATALOG', inherited_from_name: 'main' },
      { privilege: 'USE_CATALOG', inherited_from_type: 'CATALOG', inherited_from_name: 'main' },
      { privilege: 'MODIFY' },
    ]);
    await ok('PATCH', `${B}/permissions/catalog/main`, {
      changes: [{ principal: 'data-eng', remove: ['SELECT'] }],
    });
    expect((await ok('GET', `${B}/permissions/catalog/main`)).privilege_assignments[0].privileges).toEqual([
      'USE_CATALOG',
    ]);
    await expectDatabricksError(
      await req('GET', `${B}/permissions/table/main.store.nope`),
      404,
      'TABLE_DOES_NOT_EXIST',
    );
  });
  it('answers the metastore endpoints and temporary credentials', async () => {
    const sum = await ok('GET', `${B}/metastore_summary`);
    const asg = await ok('GET', `${B}/current-metastore-assignment`);
    expect(asg.metastore_id).toBe(sum.metastore_id);
    expect((await ok('GET', `${B}/metastores`)).metastores[0].metastore_id).toBe(sum.metastore_id);
    await ok('GET', `${B}/metastores/${sum.metastore_id}`);
    await expectDatabricksError(
      await req('POST', `${B}/temporary-table-credentials`, { table_id: 'x', operation: 'READ' }),
      404,
      'TABLE_DOES_NOT_EXIST',
    );
    await ok('POST', `${B}/temporary-path-credentials`, { url: 'file:///tmp/x', operation: 'PATH_READ' });
  });
  it('reset drops catalog files and volume dirs', async () => {
    await ok('POST', `${B}/volumes`, {
      name: 'v',
      catalog_name: 'main',
      schema_name: 'default',
      volume_type: 'MANAGED',
    });
    const s = await serviceApp(unityCatalogService, {
      dataDir: mkdtempSync(path.join(os.tmpdir(), 'ml-uc-r-')),
    });
    const a2 = s.instance.api!;
    await a2.createCatalog({ name: 'r1' });
    await a2.deleteCatalog('main', true);
    for (const m of s.instance.state) await m.reset();
    await s.instance.afterReset?.();
    // A reset workspace is a new one: its built-in catalogs again, main included.
    expect(a2.engine.catalogNames()).toEqual(['hive_metastore', 'main', 'samples']);
    expect(existsSync(path.join(s.ctx.dataDir, 'duckdb', 'catalogs', 'r1.duckdb'))).toBe(false);
    await s.instance.close?.();
    await a2.engine.close();
  });
});
