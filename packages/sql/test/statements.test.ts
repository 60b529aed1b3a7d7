import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import type { Hono } from 'hono';
import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { duckDbEngine } from '@minilake/engine-duckdb';
import { sqlService, type SqlApi, type SqlSettings } from '../src/index.js';

let app: Hono;
let instance: ServiceInstance;
let ctx: ServiceContext<SqlSettings>;
let wh: string;

const post = (path: string, body: unknown) => app.request(path, jsonInit('POST', body));
const get = (path: string) => app.request(path, jsonInit('GET'));

interface StatementBody {
  statement_id: string;
  status: { state: string; error?: { error_code: string; message: string }; sql_state?: string };
  manifest?: {
    format: string;
    schema: {
      column_count: number;
      columns: {
        name: string;
        position: number;
        type_name: string;
        type_text: string;
        type_precision?: number;
        type_scale?: number;
      }[];
    };
    total_row_count: number;
    total_chunk_count: number;
    total_byte_count?: number;
    chunks?: { chunk_index: number; row_offset: number; row_count: number; byte_count?: number }[];
    truncated: boolean;
  };
  result?: {
    data_array?: (string | null)[][];
    chunk_index?: number;
    next_chunk_index?: number;
    next_chunk_internal_link?: string;
    external_links?: {
      external_link: string;
      expiration: string;
      chunk_index: number;
      row_count: number;
      byte_count: number;
      next_chunk_index?: number;
    }[];
  };
}

async function run(statement: string, extra: Record<string, unknown> = {}): Promise<StatementBody> {
  const res = await post('/api/2.0/sql/statements', {
    warehouse_id: wh,
    statement,
    wait_timeout: '30s',
    ...extra,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as StatementBody;
}

beforeAll(async () => {
  const made = await serviceApp(sqlService, { config: { MINILAKE_WAREHOUSE_START_DELAY: '0' } });
  app = made.app;
  instance = made.instance;
  ctx = made.ctx;
  const res = await post('/api/2.0/sql/warehouses', { name: 'unit', cluster_size: 'Small' });
  wh = ((await res.json()) as { id: string }).id;
});
afterAll(async () => {
  await instance.close?.();
});

describe('statement execution', () => {
  it('returns string values and Databricks types', async () => {
    const r = await run(
      "SELECT 1 AS one, 'a' AS s, CAST(2.50 AS DECIMAL(10,2)) AS d, DATE '2024-01-04' AS dt, true AS b, NULL::INT AS n, 1.0::DOUBLE AS x",
    );
    expect(r.status.state).toBe('SUCCEEDED');
    expect(r.result?.data_array).toEqual([['1', 'a', '2.50', '2024-01-04', 'true', null, '1.0']]);
    const cols = r.manifest!.schema.columns;
    expect(cols.map((c) => c.type_name)).toEqual([
      'INT',
      'STRING',
      'DECIMAL',
      'DATE',
      'BOOLEAN',
      'INT',
      'DOUBLE',
    ]);
    expect(cols[2]).toMatchObject({
      name: 'd',
      position: 2,
      type_text: 'DECIMAL(10,2)',
      type_precision: 10,
      type_scale: 2,
    });
    expect(r.manifest).toMatchObject({
      format: 'JSON_ARRAY',
      total_row_count: 1,
      total_chunk_count: 1,
      truncated: false,
    });
  });

  it('renders nested values as JSON text', async () => {
    const r = await run("SELECT [1,2] AS a, {'k': 'v', 'n': 1} AS s, MAP {'x': 1} AS m");
    expect(r.result?.data_array).toEqual([['[1,2]', '{"k":"v","n":1}', '{"x":1}']]);
  });

  it('answers a zero-row result with result {} and no chunks', async () => {
    const r = await run('SELECT * FROM range(10) WHERE id > 100');
    expect(r.status.state).toBe('SUCCEEDED');
    expect(r.manifest).toMatchObject({ total_row_count: 0, total_chunk_count: 0 });
    expect(r.result).toEqual({});
  });

  it('reports a SQL failure as HTTP 200 FAILED with an error and a sql_state', async () => {
    const r = await run('SELECT * FROM no_such_table_xyz');
    expect(r.status.state).toBe('FAILED');
    expect(r.status.error?.error_code).toBeTruthy();
    expect(r.status.error?.message).toMatch(/no_such_table_xyz/);
    expect(r.status.sql_state).toMatch(/^[0-9A-Z]{5}$/);
  });

  it('current_user() is the caller, current_database() the schema', async () => {
    const r = await run('SELECT current_user(), current_database()');
    expect(r.manifest?.schema?.columns?.map((c) => c.name)).toEqual(['current_user()', 'current_database()']);
    expect(r.result?.data_array).toEqual([['dev@minilake.local', 'default']]);
  });

  it('applies row_limit and sets truncated', async () => {
    const r = await run('SELECT id FROM range(5000)', { row_limit: 3 });
    expect(r.result?.data_array).toEqual([['0'], ['1'], ['2']]);
    expect(r.manifest).toMatchObject({ total_row_count: 3, truncated: true });
    const exact = await run('SELECT id FROM range(3)', { row_limit: 3 });
    expect(exact.manifest?.truncated).toBe(false);
    const bytes = await run('SELECT id FROM range(100000)', { byte_limit: 1000 });
    expect(bytes.manifest?.truncated).toBe(true);
    expect(bytes.manifest!.total_row_count).toBeLessThan(100000);
    // Checked per row, not per 2048-row batch: the rows returned stay within the limit.
    const rows = bytes.result?.data_array ?? [];
    expect(rows.length).toBe(bytes.manifest!.total_row_count);
    expect(rows.reduce((n, r) => n + JSON.stringify(r).length + 1, 0)).toBeLessThanOrEqual(1000);
    expect(rows.length).toBeGreaterThan(100);
  });

  it('validates wait_timeout, format/disposition and the warehouse', async () => {
    for (const wt of ['4s', '51s', '10', 'abc']) {
      await expectDatabricksError(
        await post('/api/2.0/sql/statements', { warehouse_id: wh, statement: 'SELECT 1', wait_timeout: wt }),
        400,
        'INVALID_PARAMETER_VALUE',
      );
    }
    await expectDatabricksError(
      await post('/api/2.0/sql/statements', { warehouse_id: wh, statement: 'SELECT 1', format: 'CSV' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await post('/api/2.0/sql/statements', { warehouse_id: 'nope', statement: 'SELECT 1' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await get('/api/2.0/sql/statements/00000000-0000-0000-0000-000000000000'),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });

  it('runs asynchronously with wait_timeout 0s and cancels a long query', async () => {
    const res = await post('/api/2.0/sql/statements', {
      warehouse_id: wh,
      statement: 'SELECT count(*) FROM range(3000000000) a, range(10) b',
      wait_timeout: '0s',
    });
    const body = (await res.json()) as StatementBody;
    expect(['PENDING', 'RUNNING']).toContain(body.status.state);
    for (let i = 0; i < 500; i++) {
      const now = (await (await get(`/api/2.0/sql/statements/${body.statement_id}`)).json()) as StatementBody;
      if (now.status.state === 'RUNNING') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const cancel = await post(`/api/2.0/sql/statements/${body.statement_id}/cancel`, {});
    expect(cancel.status).toBe(200);
    const after = (await (await get(`/api/2.0/sql/statements/${body.statement_id}`)).json()) as StatementBody;
    expect(after.status.state).toBe('CANCELED');
    // DuckDB really stopped: every pooled connection can be leased again at once (the runaway query
    // would otherwise hold one for minutes).
    const engine = await duckDbEngine(ctx);
    const leases = await Promise.race([
      Promise.all(Array.from({ length: 8 }, () => engine.acquire())),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('a connection is still busy')), 10_000),
      ),
    ]);
    for (const l of leases) l.release();
    const r = await run('SELECT 42 AS x');
    expect(r.result?.data_array).toEqual([['42']]);
  });

  it('polls an async statement to SUCCEEDED', async () => {
    const res = await post('/api/2.0/sql/statements', {
      warehouse_id: wh,
      statement: 'SELECT count(*) AS c FROM range(2000000)',
      wait_timeout: '0s',
    });
    const { statement_id } = (await res.json()) as StatementBody;
    // The statement's own end, then the client's GET (no polling in real time).
    await (instance.api as SqlApi).statements.get(statement_id)!.done;
    const body = (await (await get(`/api/2.0/sql/statements/${statement_id}`)).json()) as StatementBody;
    expect(body.status.state).toBe('SUCCEEDED');
    expect(body.result?.data_array).toEqual([['2000000']]);
  });

  it('serves ARROW_STREAM, CSV and JSON_ARRAY through external links without auth', async () => {
    const arrow = await run(
      "SELECT id, id * 1.5::DOUBLE AS d, 'n' || id AS s, CAST(id AS DECIMAL(10,2)) AS m FROM range(1000)",
      {
        disposition: 'EXTERNAL_LINKS',
        format: 'ARROW_STREAM',
      },
    );
    expect(arrow.manifest).toMatchObject({
      format: 'ARROW_STREAM',
      total_row_count: 1000,
      total_chunk_count: 1,
    });
    const link = arrow.result!.external_links![0]!;
    expect(new Date(link.expiration).getTime()).toBeGreaterThan(Date.now());
    const url = new URL(link.external_link);
    const bytes = new Uint8Array(await (await app.request(url.pathname + url.search)).arrayBuffer());
    expect(bytes.byteLength).toBe(link.byte_count);
    const table = tableFromIPC(bytes);
    expect(table.numRows).toBe(1000);
    expect(table.getChild('id')!.get(999)).toBe(999n);
    expect(table.getChild('s')!.get(5)).toBe('n5');
    expect(table.getChild('d')!.get(2)).toBe(3);
    expect(String(table.getChild('m')!.type)).toMatch(/Decimal/);

    const csv = await run("SELECT id, CASE WHEN id = 1 THEN NULL ELSE 'a,b' END AS s FROM range(3)", {
      disposition: 'EXTERNAL_LINKS',
      format: 'CSV',
    });
    const cu = new URL(csv.result!.external_links![0]!.external_link);
    expect(await (await app.request(cu.pathname + cu.search)).text()).toBe(
      'id,s\r\n0,"a,b"\r\n1,null\r\n2,"a,b"\r\n',
    );

    const json = await run('SELECT id FROM range(3)', {
      disposition: 'EXTERNAL_LINKS',
      format: 'JSON_ARRAY',
    });
    const ju = new URL(json.result!.external_links![0]!.external_link);
    expect(await (await app.request(ju.pathname + ju.search)).json()).toEqual([['0'], ['1'], ['2']]);

    // The signature covers the expiry: a stretched link is refused.
    const stretched = new URL(ju);
    stretched.searchParams.set('expires', String(Date.now() + 10 * 3600_000));
    expect((await app.request(stretched.pathname + stretched.search)).status).toBe(404);
  });
});

describe('Arrow conversion', () => {
  it('keeps nulls, short and long strings, unicode, booleans, dates and timestamps', async () => {
    const r = await run(
      'SELECT CASE WHEN id % 3 = 0 THEN NULL ELSE id END AS n, ' +
        "CASE WHEN id % 4 = 0 THEN NULL WHEN id % 2 = 0 THEN 'short_' || id ELSE 'a much longer string than twelve bytes ✓ ' || id END AS s, " +
        "id % 2 = 0 AS b, DATE '2024-01-01' + id::INT AS d, CAST(id AS DECIMAL(20,3)) AS m " +
        'FROM range(5000)',
      { disposition: 'EXTERNAL_LINKS', format: 'ARROW_STREAM' },
    );
    const u = new URL(r.result!.external_links![0]!.external_link);
    const t = tableFromIPC(new Uint8Array(await (await app.request(u.pathname + u.search)).arrayBuffer()));
    expect(t.numRows).toBe(5000);
    for (const i of [0, 1, 2, 3, 4, 5, 4097, 4999]) {
      expect(t.getChild('n')!.get(i)).toBe(i % 3 === 0 ? null : BigInt(i));
      const s =
        i % 4 === 0 ? null : i % 2 === 0 ? `short_${i}` : `a much longer string than twelve bytes ✓ ${i}`;
      expect(t.getChild('s')!.get(i)).toBe(s);
      expect(t.getChild('b')!.get(i)).toBe(i % 2 === 0);
    }
    expect(new Date(t.getChild('d')!.get(31) as number).toISOString().slice(0, 10)).toBe('2024-02-01');
    expect(String(t.getChild('m')!.type)).toMatch(/Decimal/);
  });
});

describe('unsigned and huge integers', () => {
  it('widen in Arrow to the types the manifest announces', async () => {
    const sql =
      'SELECT 200::UTINYINT AS a, 60000::USMALLINT AS b, 4000000000::UINTEGER AS c, ' +
      '18446744073709551615::UBIGINT AS d, 170141183460469231731687303715884105727::HUGEINT AS e, NULL::UINTEGER AS f';
    const inline = await run(sql);
    expect(inline.status.state, JSON.stringify(inline.status)).toBe('SUCCEEDED');
    expect(inline.manifest!.schema.columns.map((c) => c.type_text)).toEqual([
      'SMALLINT',
      'INT',
      'BIGINT',
      'DECIMAL(20,0)',
      'DECIMAL(38,0)',
      'BIGINT',
    ]);
    expect(inline.result?.data_array).toEqual([
      ['200', '60000', '4000000000', '18446744073709551615', '170141183460469231731687303715884105727', null],
    ]);
    const r = await run(sql, { disposition: 'EXTERNAL_LINKS', format: 'ARROW_STREAM' });
    const u = new URL(r.result!.external_links![0]!.external_link);
    const t = tableFromIPC(new Uint8Array(await (await app.request(u.pathname + u.search)).arrayBuffer()));
    expect(t.schema.fields.map((f) => String(f.type))).toEqual([
      'Int16',
      'Int32',
      'Int64',
      'Decimal[20e0]',
      'Decimal[38e0]',
      'Int64',
    ]);
    expect(t.getChild('a')!.get(0)).toBe(200);
    expect(t.getChild('c')!.get(0)).toBe(4000000000n);
    expect(t.getChild('f')!.get(0)).toBeNull();
  });
});

describe('warehouses and history', () => {
  it('lists data sources as a bare array', async () => {
    const res = await get('/api/2.0/preview/sql/data_sources');
    const body = (await res.json()) as { warehouse_id: string }[];
    expect(Array.isArray(body)).toBe(true);
    expect(body.some((d) => d.warehouse_id === wh)).toBe(true);
  });

  it('records statements in query history', async () => {
    await run('SELECT 7 AS seven');
    const res = await get(
      `/api/2.0/sql/history/queries?filter_by.warehouse_ids=${wh}&filter_by.statuses=FINISHED&max_results=2`,
    );
    const body = (await res.json()) as {
      res: { query_text: string; status: string }[];
      has_next_page: boolean;
      next_page_token?: string;
    };
    expect(body.res).toHaveLength(2);
    expect(body.res[0]!.query_text).toBe('SELECT 7 AS seven');
    expect(body.has_next_page).toBe(true);
    const next = await get(
      `/api/2.0/sql/history/queries?filter_by.warehouse_ids=${wh}&filter_by.statuses=FINISHED&max_results=2&page_token=${body.next_page_token}`,
    );
    const page2 = (await next.json()) as { res: { query_text: string }[] };
    expect(page2.res.length).toBeGreaterThan(0);
    expect(page2.res[0]!.query_text).not.toBe('SELECT 7 AS seven');

    const seven = body.res[0] as unknown as { query_start_time_ms: number };
    const inRange = (await (
      await get(
        `/api/2.0/sql/history/queries?filter_by.query_start_time_range.start_time_ms=${seven.query_start_time_ms}&filter_by.query_start_time_range.end_time_ms=${seven.query_start_time_ms}`,
      )
    ).json()) as { res: { query_text: string }[] };
    expect(inRange.res.map((q) => q.query_text)).toContain('SELECT 7 AS seven');
    const future = (await (
      await get(
        `/api/2.0/sql/history/queries?filter_by.query_start_time_range.start_time_ms=${Date.now() + 3600_000}`,
      )
    ).json()) as { res?: unknown[]; has_next_page?: boolean };
    expect(future.res ?? []).toHaveLength(0);
  });
});
