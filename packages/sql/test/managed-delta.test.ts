/**
 * MANAGED tables as Delta folders (`MINILAKE_MANAGED_FORMAT=delta`), through the Statement API and the Unity
 * Catalog API in process: the real unity-catalog and sql services on one DuckDB engine. Spark (when installed
 * by `bash packages/engine-spark/install.sh`) reads what MiniLake wrote and appends to it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { locateInstall, settingsFrom } from '@minilake/engine-spark';
import { jsonInit, repoRoot } from '@minilake/testing';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSqlApps } from './statement-app.js';

const install = await locateInstall(settingsFrom({ MINILAKE_CACHE: process.env.MINILAKE_CACHE })).catch(
  () => undefined,
);

interface TableOut {
  table_type: string;
  data_source_format: string;
  storage_location: string;
  table_id: string;
  columns: { name: string; type_name: string; partition_index?: number }[];
}

describe('MANAGED Delta tables (MINILAKE_MANAGED_FORMAT=delta)', () => {
  let dataDir: string;
  let ucApp: Hono;
  let sqlApp: Hono;
  let wh: string;
  const closers: (() => unknown)[] = [];

  const q = async (statement: string, parameters?: { name: string; value: string; type?: string }[]) => {
    const res = await sqlApp.request(
      '/api/2.0/sql/statements',
      jsonInit('POST', {
        warehouse_id: wh,
        statement,
        wait_timeout: '30s',
        catalog: 'mc',
        ...(parameters ? { parameters } : {}),
      }),
    );
    return (await res.json()) as {
      status: { state: string; error?: { message: string; error_code?: string } };
      result?: { data_array?: unknown[][] };
    };
  };
  const rows = async (statement: string, parameters?: { name: string; value: string; type?: string }[]) => {
    const r = await q(statement, parameters);
    if (r.status.state !== 'SUCCEEDED') throw new Error(`${statement}: ${JSON.stringify(r.status)}`);
    return r.result?.data_array ?? [];
  };
  const table = async (full: string) => {
    const res = await ucApp.request(`/api/2.1/unity-catalog/tables/${full}`);
    return { status: res.status, body: (await res.json()) as TableOut };
  };
  const folderOf = (t: TableOut) => t.storage_location.replace(/^file:\/\//, '');

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ml-managed-delta-'));
    const apps = await catalogSqlApps(dataDir, { MINILAKE_MANAGED_FORMAT: 'delta' });
    closers.push(() => apps.close());
    ({ ucApp, sqlApp, wh } = apps);
    await ucApp.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: 'mc' }));
    await ucApp.request(
      '/api/2.1/unity-catalog/schemas',
      jsonInit('POST', { name: 'sales', catalog_name: 'mc' }),
    );
  }, 120_000);

  afterAll(async () => {
    for (const c of closers) await c();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('CREATE TABLE without LOCATION lays a Delta folder under the storage root, reported MANAGED', async () => {
    await rows('CREATE TABLE sales.orders (id BIGINT, item STRING, qty INT) PARTITIONED BY (item)');
    const { status, body } = await table('mc.sales.orders');
    expect(status).toBe(200);
    expect(body.table_type).toBe('MANAGED');
    expect(body.data_source_format).toBe('DELTA');
    const schemaId = (
      (await (await ucApp.request('/api/2.1/unity-catalog/schemas/mc.sales')).json()) as {
        schema_id: string;
      }
    ).schema_id;
    expect(folderOf(body)).toBe(
      path.join(dataDir, 'unity-catalog', '__unitystorage', 'schemas', schemaId, 'tables', body.table_id),
    );
    expect(existsSync(path.join(folderOf(body), '_delta_log', '00000000000000000000.json'))).toBe(true);
    expect(body.columns.map((c) => `${c.name}:${c.type_name}`)).toEqual([
      'id:LONG',
      'item:STRING',
      'qty:INT',
    ]);
    expect(body.columns[1]!.partition_index).toBe(0);
    // Listed like any table, and an IF NOT EXISTS create is a no-op.
    await rows('CREATE TABLE IF NOT EXISTS sales.orders (id BIGINT)');
    const list = (await (
      await ucApp.request('/api/2.1/unity-catalog/tables?catalog_name=mc&schema_name=sales')
    ).json()) as { tables: { name: string; table_type: string }[] };
    expect(list.tables.map((t) => `${t.name}:${t.table_type}`)).toEqual(['orders:MANAGED']);
  });

  it('runs INSERT, UPDATE, DELETE, MERGE, time travel and DESCRIBE HISTORY on it', async () => {
    await rows("INSERT INTO sales.orders VALUES (1, 'apple', 3), (2, 'pear', 1), (3, 'apple', 7)");
    await rows("UPDATE sales.orders SET qty = qty + 10 WHERE item = 'pear'");
    await rows('DELETE FROM sales.orders WHERE id = 3');
    await rows(
      `MERGE INTO sales.orders t USING (SELECT 1 AS id, 'apple' AS item, 5 AS qty UNION ALL SELECT 4, 'fig', 2) s
       ON t.id = s.id WHEN MATCHED THEN UPDATE SET qty = s.qty WHEN NOT MATCHED THEN INSERT *`,
    );
    expect(await rows('SELECT id, item, qty FROM sales.orders ORDER BY id')).toEqual([
      ['1', 'apple', '5'],
      ['2', 'pear', '11'],
      ['4', 'fig', '2'],
    ]);
    expect(await rows('SELECT count(*) FROM mc.sales.orders VERSION AS OF 1')).toEqual([['3']]);
    const hist = await rows('DESCRIBE HISTORY sales.orders');
    expect(hist.map((r) => r[0])).toEqual(['4', '3', '2', '1', '0']);
    const detail = (await rows('DESCRIBE DETAIL sales.orders'))[0]!;
    expect(detail).toContain('delta');
  });

  it('CTAS makes a MANAGED Delta table too; other formats stay DuckDB tables', async () => {
    expect(await rows('CREATE TABLE sales.big AS SELECT id, item FROM sales.orders WHERE qty > 2')).toEqual([
      ['2', '2'],
    ]);
    const big = await table('mc.sales.big');
    expect([big.body.table_type, big.body.data_source_format]).toEqual(['MANAGED', 'DELTA']);
    expect(existsSync(path.join(folderOf(big.body), '_delta_log'))).toBe(true);
    expect(await rows('SELECT item FROM sales.big ORDER BY id')).toEqual([['apple'], ['pear']]);
    await rows('CREATE TABLE sales.raw (id INT) USING PARQUET');
    const raw = await table('mc.sales.raw');
    expect(raw.body.storage_location).toMatch(/\.duckdb$/);
  });

  it('the Tables API creates MANAGED tables as Delta folders too', async () => {
    const res = await ucApp.request(
      '/api/2.1/unity-catalog/tables',
      jsonInit('POST', {
        name: 'api_made',
        catalog_name: 'mc',
        schema_name: 'sales',
        table_type: 'MANAGED',
        data_source_format: 'DELTA',
        columns: [
          { name: 'k', type_name: 'STRING', type_text: 'string', position: 0 },
          { name: 'v', type_name: 'DOUBLE', type_text: 'double', position: 1 },
        ],
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as TableOut;
    expect(existsSync(path.join(folderOf(body), '_delta_log'))).toBe(true);
    await rows("INSERT INTO sales.api_made VALUES ('a', 1.5)");
    expect(await rows('SELECT k, v FROM sales.api_made')).toEqual([['a', '1.5']]);
  });

  it('TIMESTAMP AS OF takes an expression, folded once, resolved to the latest commit at or before it', async () => {
    await rows('CREATE TABLE sales.tt (id INT)');
    for (const v of [1, 2, 3]) await rows(`INSERT INTO sales.tt VALUES (${v})`);
    // Commit times: version v at 2024-01-0(v+1) midnight UTC (the table has no in-commit timestamps).
    const log = path.join(folderOf((await table('mc.sales.tt')).body), '_delta_log');
    for (const v of [0, 1, 2, 3]) {
      const when = new Date(Date.UTC(2024, 0, 1 + v));
      await utimes(path.join(log, `${String(v).padStart(20, '0')}.json`), when, when);
    }
    const count = async (asOf: string, parameters?: { name: string; value: string; type?: string }[]) =>
      (await rows(`SELECT count(*) FROM sales.tt TIMESTAMP AS OF ${asOf}`, parameters))[0]![0];
    expect(await count("date_sub(DATE'2024-01-04', 1)")).toBe('2');
    expect(await count("CAST('2024-01-02 12:00' AS TIMESTAMP) + INTERVAL 1 HOUR")).toBe('1');
    expect(await count("'2024-01-04'")).toBe('3');
    expect(await count("to_timestamp('04/01/2024', 'dd/MM/yyyy')")).toBe('3');
    expect(await count(':ts', [{ name: 'ts', value: '2024-01-03 06:00:00', type: 'TIMESTAMP' }])).toBe('2');
    expect(
      (
        await rows('SELECT count(*) FROM sales.tt VERSION AS OF :v', [{ name: 'v', value: '1', type: 'INT' }])
      )[0]![0],
    ).toBe('1');
    const fail = async (asOf: string) =>
      (await q(`SELECT * FROM sales.tt TIMESTAMP AS OF ${asOf}`)).status.error?.message ?? '';
    expect(await fail("DATE'2024-01-04' - INTERVAL 10 DAYS")).toMatch(
      /^\[DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION\]/,
    );
    expect(await fail('current_timestamp() - INTERVAL 1 HOUR')).toMatch(
      /^\[DELTA_TIMESTAMP_GREATER_THAN_COMMIT\]/,
    );
    expect(await fail("concat('not a ', 'time')")).toMatch(/^\[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR\.INPUT\]/);
    expect(await fail('rand()')).toMatch(/^\[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR\.NON_DETERMINISTIC\]/);
    expect(await fail('(SELECT max(id) FROM sales.tt)')).toMatch(
      /^\[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR\.UNEVALUABLE\]/,
    );
  });

  it('a repeated aggregate keeps Spark result types (the type probe is cached by snapshot)', async () => {
    await rows('CREATE TABLE sales.dec (x DECIMAL(10,2))');
    await rows('INSERT INTO sales.dec VALUES (1.25), (2.50)');
    const typeOf = async () => {
      const res = await sqlApp.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: wh, statement: 'SELECT sum(x) FROM sales.dec', catalog: 'mc' }),
      );
      const b = (await res.json()) as {
        manifest: { schema: { columns: { type_text: string }[] } };
        result: { data_array: unknown[][] };
      };
      return [b.manifest.schema.columns[0]!.type_text, b.result.data_array[0]![0]];
    };
    expect(await typeOf()).toEqual(['DECIMAL(20,2)', '3.75']);
    expect(await typeOf()).toEqual(['DECIMAL(20,2)', '3.75']);
    await rows('INSERT INTO sales.dec VALUES (1.00)');
    expect(await typeOf()).toEqual(['DECIMAL(20,2)', '4.75']);
  });

  it.skipIf(!install)(
    'Spark reads the folder MiniLake wrote and appends to it; SQL sees the append',
    async () => {
      const dir = folderOf((await table('mc.sales.orders')).body);
      const out = await promisify(execFile)(
        install!.python,
        [
          path.join(repoRoot, 'packages/delta/test/fixtures/spark_sql.py'),
          install!.jars.join(','),
          `SELECT id, item, qty FROM delta.\`${dir}\` ORDER BY id`,
          `INSERT INTO delta.\`${dir}\` VALUES (5, 'kiwi', 9)`,
        ],
        { timeout: 420_000, maxBuffer: 16 * 1024 * 1024 },
      );
      expect(JSON.parse(out.stdout.trim().split('\n')[0]!)).toEqual([
        ['1', 'apple', '5'],
        ['2', 'pear', '11'],
        ['4', 'fig', '2'],
      ]);
      expect(await rows('SELECT qty FROM sales.orders WHERE id = 5')).toEqual([['9']]);
    },
    480_000,
  );

  it('DROP TABLE deletes the folder; DROP SCHEMA CASCADE deletes the rest', async () => {
    const orders = folderOf((await table('mc.sales.orders')).body);
    await rows('DROP TABLE sales.orders');
    expect((await table('mc.sales.orders')).status).toBe(404);
    expect(existsSync(orders)).toBe(false);
    expect((await q('SELECT * FROM sales.orders')).status.state).toBe('FAILED');
    const big = folderOf((await table('mc.sales.big')).body);
    await rows('DROP SCHEMA sales CASCADE');
    expect(existsSync(big)).toBe(false);
    // The schema's folder goes with it.
    expect(existsSync(path.dirname(path.dirname(big)))).toBe(false);
  });
});
