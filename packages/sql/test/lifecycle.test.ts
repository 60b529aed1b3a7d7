import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import { ManualClock, resetInstance, type ServiceContext, type ServiceInstance } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import type { Hono } from 'hono';
import { sqlService, type SqlApi } from '../src/index.js';

interface Body {
  statement_id: string;
  status: { state: string };
  manifest?: {
    total_row_count: number;
    total_chunk_count: number;
    chunks: { chunk_index: number; row_offset: number; row_count: number; byte_count?: number }[];
    total_byte_count?: number;
  };
  result?: {
    chunk_index?: number;
    row_offset?: number;
    data_array?: string[][];
    next_chunk_index?: number;
    next_chunk_internal_link?: string;
    external_links?: {
      external_link: string;
      chunk_index: number;
      row_offset: number;
      row_count: number;
      byte_count: number;
      next_chunk_index?: number;
      next_chunk_internal_link?: string;
    }[];
  };
}

let instance: ServiceInstance | undefined;
afterEach(async () => {
  await instance?.close?.();
  instance = undefined;
});

async function setup(
  config: Record<string, string>,
  clock?: ManualClock,
): Promise<{ app: Hono; ctx: ServiceContext }> {
  const made = await serviceApp(sqlService, { config, ...(clock ? { clock } : {}) });
  instance = made.instance;
  return { app: made.app, ctx: made.ctx };
}

const json = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T;

/** Lets pending async work (engine calls, timers already due) run. */
async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('warehouse state machine on the injected clock', () => {
  it('STARTING -> RUNNING, STOPPING -> STOPPED, start on demand, DELETED', async () => {
    const clock = new ManualClock();
    const { app } = await setup({ MINILAKE_WAREHOUSE_START_DELAY: '5' }, clock);
    const { id } = await json<{ id: string }>(
      app.request('/api/2.0/sql/warehouses', jsonInit('POST', { name: 'w1' })),
    );
    const get = () =>
      json<Record<string, unknown>>(app.request(`/api/2.0/sql/warehouses/${id}`, jsonInit('GET')));
    expect(await get()).toMatchObject({
      state: 'STARTING',
      auto_stop_mins: 120,
      enable_photon: true,
      max_num_clusters: 1,
      min_num_clusters: 1,
      spot_instance_policy: 'COST_OPTIMIZED',
      channel: { name: 'CHANNEL_NAME_CURRENT' },
      warehouse_type: 'CLASSIC',
      cluster_size: 'Small',
      num_clusters: 0,
    });
    clock.advance(4999);
    expect((await get()).state).toBe('STARTING');
    clock.advance(1);
    expect(await get()).toMatchObject({ state: 'RUNNING', num_clusters: 1 });

    await app.request(`/api/2.0/sql/warehouses/${id}/stop`, jsonInit('POST', {}));
    expect((await get()).state).toBe('STOPPING');
    clock.advance(5000);
    expect(await get()).toMatchObject({ state: 'STOPPED', num_clusters: 0 });

    // A statement on a stopped warehouse starts it and stays PENDING until it runs.
    const st = await json<Body>(
      app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: id, statement: 'SELECT 5 AS x', wait_timeout: '0s' }),
      ),
    );
    expect(st.status.state).toBe('PENDING');
    expect((await get()).state).toBe('STARTING');
    const poll = () => json<Body>(app.request(`/api/2.0/sql/statements/${st.statement_id}`, jsonInit('GET')));
    expect((await poll()).status.state).toBe('PENDING');
    clock.advance(5000);
    // The statement's own end (no polling): the warehouse started on the clock step above.
    await (instance!.api as SqlApi).statements.get(st.statement_id)!.done;
    expect((await poll()).status.state).toBe('SUCCEEDED');
    expect((await poll()).result?.data_array).toEqual([['5']]);

    await expectDatabricksError(
      await app.request(`/api/2.0/sql/warehouses/${id}`, jsonInit('POST', { auto_stop_mins: 5 })),
      501,
      'NOT_IMPLEMENTED',
    );
    await expectDatabricksError(
      await app.request(`/api/2.0/sql/warehouses/${id}/edit`, jsonInit('POST', { auto_stop_mins: 5 })),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await app.request(`/api/2.0/sql/warehouses/${id}`, jsonInit('DELETE'));
    expect((await get()).state).toBe('DELETED');
    const list = await json<{ warehouses?: { id: string }[] }>(
      app.request('/api/2.0/sql/warehouses', jsonInit('GET')),
    );
    // Only the starter warehouse, listed from the start.
    expect((list.warehouses ?? []).map((w) => w.id)).toEqual(['dev']);
    await expectDatabricksError(
      await app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: id, statement: 'SELECT 1' }),
      ),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await app.request('/api/2.0/sql/warehouses/nope', jsonInit('GET')),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });

  it('stops an idle warehouse after auto_stop_mins, never while a statement runs', async () => {
    const clock = new ManualClock();
    const { app } = await setup({ MINILAKE_WAREHOUSE_START_DELAY: '5' }, clock);
    const { id } = await json<{ id: string }>(
      app.request('/api/2.0/sql/warehouses', jsonInit('POST', { name: 'idle', auto_stop_mins: 10 })),
    );
    const state = async () =>
      (await json<{ state: string }>(app.request(`/api/2.0/sql/warehouses/${id}`, jsonInit('GET')))).state;
    clock.advance(5000);
    expect(await state()).toBe('RUNNING');

    const st = await json<Body>(
      app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', {
          warehouse_id: id,
          statement: 'SELECT count(*) FROM range(3000000000) a, range(10) b',
          wait_timeout: '0s',
        }),
      ),
    );
    const poll = async () =>
      (await json<Body>(app.request(`/api/2.0/sql/statements/${st.statement_id}`, jsonInit('GET')))).status
        .state;
    await until(async () => (await poll()) === 'RUNNING', 'the statement to run');
    expect(
      (
        await json<{ num_active_sessions: number }>(
          app.request(`/api/2.0/sql/warehouses/${id}`, jsonInit('GET')),
        )
      ).num_active_sessions,
    ).toBe(1);
    clock.advance(11 * 60_000);
    expect(await state()).toBe('RUNNING');
    await app.request(`/api/2.0/sql/statements/${st.statement_id}/cancel`, jsonInit('POST', {}));
    // The countdown starts when the interrupted statement has let go of the warehouse.
    await until(
      async () =>
        (
          await json<{ num_active_sessions: number }>(
            app.request(`/api/2.0/sql/warehouses/${id}`, jsonInit('GET')),
          )
        ).num_active_sessions === 0,
      'the statement to end',
    );
    clock.advance(10 * 60_000 - 1);
    expect(await state()).toBe('RUNNING');
    clock.advance(1);
    expect(await state()).toBe('STOPPING');
    clock.advance(5000);
    expect(await state()).toBe('STOPPED');
  });

  it('stores the workspace warehouse config', async () => {
    const { app } = await setup({});
    const before = await json<{ security_policy: string }>(
      app.request('/api/2.0/sql/config/warehouses', jsonInit('GET')),
    );
    expect(before.security_policy).toBe('NONE');
    const cfg = {
      security_policy: 'DATA_ACCESS_CONTROL',
      sql_configuration_parameters: { configuration_pairs: [{ key: 'ANSI_MODE', value: 'true' }] },
    };
    expect((await app.request('/api/2.0/sql/config/warehouses', jsonInit('PUT', cfg))).status).toBe(200);
    expect(await json(app.request('/api/2.0/sql/config/warehouses', jsonInit('GET')))).toEqual(cfg);
    await expectDatabricksError(
      await app.request('/api/2.0/sql/config/warehouses', jsonInit('PUT', { security_policy: 'OPEN' })),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });

  it('pages the warehouse list without a token on the last page', async () => {
    const { app } = await setup({ MINILAKE_WAREHOUSE_START_DELAY: '0' });
    for (let i = 0; i < 5; i++)
      await app.request('/api/2.0/sql/warehouses', jsonInit('POST', { name: `w${i}` }));
    const seen: string[] = [];
    let token = '';
    for (let pages = 0; pages < 10; pages++) {
      const page = await json<{ warehouses: { name: string }[]; next_page_token?: string }>(
        app.request(
          `/api/2.0/sql/warehouses?page_size=2${token ? `&page_token=${token}` : ''}`,
          jsonInit('GET'),
        ),
      );
      seen.push(...page.warehouses.map((w) => w.name));
      if (!page.next_page_token) break;
      token = page.next_page_token;
    }
    expect(seen).toEqual(['Serverless Starter Warehouse', 'w0', 'w1', 'w2', 'w3', 'w4']);
  });
});

describe('chunked results', () => {
  it('splits INLINE results into chunks linked by next_chunk_index', async () => {
    const { app } = await setup({ MINILAKE_WAREHOUSE_START_DELAY: '0', MINILAKE_SQL_CHUNK_BYTES: '20000' });
    const { id } = await json<{ id: string }>(app.request('/api/2.0/sql/warehouses', jsonInit('POST', {})));
    const first = await json<Body>(
      app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: id, statement: 'SELECT id FROM range(10000)' }),
      ),
    );
    const m = first.manifest!;
    expect(m.total_row_count).toBe(10000);
    expect(m.total_chunk_count).toBeGreaterThan(1);
    expect(m.chunks).toHaveLength(m.total_chunk_count);
    let rows = first.result!.data_array!.length;
    let next = first.result!.next_chunk_internal_link;
    expect(first.result!.next_chunk_index).toBe(1);
    let last = first.result!;
    while (next) {
      last = (await json<Body['result']>(app.request(next, jsonInit('GET'))))!;
      expect(last.data_array![0]![0]).toBe(String(last.row_offset));
      rows += last.data_array!.length;
      next = last.next_chunk_internal_link;
    }
    expect(rows).toBe(10000);
    expect(last.chunk_index).toBe(m.total_chunk_count - 1);
    expect(last.next_chunk_index).toBeUndefined();
    await expectDatabricksError(
      await app.request(`/api/2.0/sql/statements/${first.statement_id}/result/chunks/999`, jsonInit('GET')),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });

  it('spills EXTERNAL_LINKS chunks to files, closes the result after its lifetime and frees the files', async () => {
    const clock = new ManualClock(Date.now());
    const { app, ctx } = await setup(
      {
        MINILAKE_WAREHOUSE_START_DELAY: '0',
        MINILAKE_SQL_CHUNK_BYTES: '100000',
        MINILAKE_SQL_RESULT_TTL: '60',
      },
      clock,
    );
    const { id } = await json<{ id: string }>(app.request('/api/2.0/sql/warehouses', jsonInit('POST', {})));
    clock.advance(0);
    const res = await json<Body>(
      app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', {
          warehouse_id: id,
          statement: "SELECT id, 'row ' || id AS s FROM range(50000)",
          disposition: 'EXTERNAL_LINKS',
          format: 'ARROW_STREAM',
        }),
      ),
    );
    expect(res.status.state).toBe('SUCCEEDED');
    const m = res.manifest!;
    expect(m.total_chunk_count).toBeGreaterThan(1);
    expect(m.total_byte_count).toBe(m.chunks.reduce((a, c) => a + c.byte_count!, 0));
    const dir = path.join(ctx.dataDir, 'sql', 'results', res.statement_id);
    // Every full-size chunk is a file; only a small last chunk may stay in memory.
    expect(readdirSync(dir).length).toBeGreaterThanOrEqual(m.total_chunk_count - 1);

    let total = 0;
    for (let n = 0; n < m.total_chunk_count; n++) {
      const chunk = await json<Body['result']>(
        app.request(`/api/2.0/sql/statements/${res.statement_id}/result/chunks/${n}`, jsonInit('GET')),
      );
      const link = chunk!.external_links![0]!;
      expect(link.chunk_index).toBe(n);
      const u = new URL(link.external_link);
      const table = tableFromIPC(
        new Uint8Array(await (await app.request(u.pathname + u.search)).arrayBuffer()),
      );
      expect(table.numRows).toBe(link.row_count);
      expect(table.getChild('id')!.get(0)).toBe(BigInt(link.row_offset));
      total += table.numRows;
    }
    expect(total).toBe(50000);

    const link = res.result!.external_links![0]!.external_link;
    clock.advance(16 * 60 * 1000); // links expire after 15 minutes; the result after its TTL (60 s here)
    const u = new URL(link);
    const expired = await app.request(u.pathname + u.search);
    expect(expired.status).toBe(403);
    const closed = await json<Body>(
      app.request(`/api/2.0/sql/statements/${res.statement_id}`, jsonInit('GET')),
    );
    expect(closed.status.state).toBe('CLOSED');
    expect(closed.manifest).toBeUndefined();
    await until(() => !existsSync(dir), 'the result files to be freed');
    await expectDatabricksError(
      await app.request(`/api/2.0/sql/statements/${res.statement_id}/result/chunks/0`, jsonInit('GET')),
      400,
      'INVALID_STATE',
    );
  });

  it('fails an INLINE result over the 25 MiB limit like Databricks', async () => {
    const { app } = await setup({ MINILAKE_WAREHOUSE_START_DELAY: '0' });
    const { id } = await json<{ id: string }>(app.request('/api/2.0/sql/warehouses', jsonInit('POST', {})));
    const res = await json<Body & { status: { error?: { error_code: string; message: string } } }>(
      app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', {
          warehouse_id: id,
          statement: "SELECT repeat('x', 1000) AS s FROM range(30000)",
          wait_timeout: '50s',
        }),
      ),
    );
    expect(res.status.state).toBe('FAILED');
    expect(res.status.error?.message).toMatch(/25 MiB/);
  });

  it('reset cancels running statements and empties warehouses and history', async () => {
    const { app } = await setup({ MINILAKE_WAREHOUSE_START_DELAY: '0' });
    const { id } = await json<{ id: string }>(app.request('/api/2.0/sql/warehouses', jsonInit('POST', {})));
    const st = await json<Body>(
      app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', {
          warehouse_id: id,
          statement: 'SELECT count(*) FROM range(3000000000) a, range(10) b',
          wait_timeout: '0s',
        }),
      ),
    );
    await resetInstance(instance!);
    await expectDatabricksError(
      await app.request(`/api/2.0/sql/statements/${st.statement_id}`, jsonInit('GET')),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    const hist = await json<{ res?: unknown[] }>(
      app.request('/api/2.0/sql/history/queries', jsonInit('GET')),
    );
    expect(hist.res ?? []).toHaveLength(0);
    const list = await json<{ warehouses?: { id: string }[] }>(
      app.request('/api/2.0/sql/warehouses', jsonInit('GET')),
    );
    // Only the starter warehouse, listed from the start.
    expect((list.warehouses ?? []).map((w) => w.id)).toEqual(['dev']);
  });
});

describe('statement handle cap (MINILAKE_SQL_MAX_STATEMENTS)', () => {
  it('keeps the newest finished statements and forgets the oldest early', async () => {
    const { app } = await setup({ MINILAKE_SQL_MAX_STATEMENTS: '3' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const st = await json<Body>(
        app.request(
          '/api/2.0/sql/statements',
          jsonInit('POST', { warehouse_id: 'dev', statement: `SELECT ${i} AS x`, wait_timeout: '30s' }),
        ),
      );
      expect(st.status.state).toBe('SUCCEEDED');
      ids.push(st.statement_id);
    }
    const status = async (id: string) => (await app.request(`/api/2.0/sql/statements/${id}`)).status;
    expect(await status(ids[0]!)).toBe(404);
    expect(await status(ids[1]!)).toBe(404);
    const newest = await json<Body>(app.request(`/api/2.0/sql/statements/${ids[4]!}`));
    expect(newest.result?.data_array).toEqual([['4']]);
    expect(await status(ids[2]!)).toBe(200);
  });
});
