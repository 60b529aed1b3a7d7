import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { ManualClock } from '@minilake/core';
import { sqlService, type SqlApi } from '@minilake/sql';
import { jsonInit, serviceApp } from '@minilake/testing';
import { workspaceAdminService, type WorkspaceAdminApi } from '@minilake/workspace-admin';
import { sqlObjectsService, type SqlObjectsApi } from '../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

let app: Hono;
let admin: Hono;
let sql: SqlApi;
let hook: Server;
let hookUrl: string;
let devSource: string;
let api: SqlObjectsApi;
const received: { body: Any; auth: string | undefined }[] = [];
const clock = new ManualClock(Date.now());

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Any }> {
  const res = await app.request(path, jsonInit(method, body));
  return { status: res.status, body: await res.json() };
}

async function sqlRun(statement: string) {
  const out = await sql.statements.run({ statement, warehouseId: 'dev' });
  expect(out.state, JSON.stringify(out.error)).toBe('SUCCEEDED');
}

beforeAll(async () => {
  const s = await serviceApp(sqlService, { config: { MINILAKE_WAREHOUSE_START_DELAY: '0' } });
  sql = s.instance.api as SqlApi;
  const wa = await serviceApp(workspaceAdminService, {});
  admin = wa.app;
  const made = await serviceApp(sqlObjectsService, {
    clock,
    peers: new Map<string, unknown>([
      ['sql', sql],
      ['workspace-admin', wa.instance.api as WorkspaceAdminApi],
    ]),
  });
  app = made.app;
  api = made.instance.api as SqlObjectsApi;
  hook = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      received.push({ body: JSON.parse(text), auth: req.headers.authorization });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  await sqlRun('CREATE TABLE so_orders (id INT, amount DOUBLE)');
  await sqlRun('INSERT INTO so_orders VALUES (1, 10.0), (2, 20.0)');
  // The legacy API names warehouses by data source id: the SQL service's, as GET data_sources lists it.
  devSource = sql.dataSources().find((d) => d.warehouseId === 'dev')!.id;
});

afterAll(() => new Promise<void>((r) => hook.close(() => r())));

describe('queries', () => {
  it('creates, gets, lists with paging, updates with update_mask, trashes', async () => {
    const made = await call('POST', '/api/2.0/sql/queries', {
      query: {
        display_name: 'Orders',
        query_text: 'SELECT count(*) AS n FROM so_orders WHERE amount > :min',
        warehouse_id: 'dev',
        description: 'count',
        parameters: [{ name: 'min', title: 'Min', numeric_value: { value: 5 } }],
      },
    });
    expect(made.status).toBe(200);
    const q = made.body;
    expect(q).toMatchObject({
      display_name: 'Orders',
      warehouse_id: 'dev',
      lifecycle_state: 'ACTIVE',
      owner_user_name: expect.any(String),
      parameters: [{ name: 'min', numeric_value: { value: 5 } }],
    });
    expect(q.create_time).toMatch(/^\d{4}-\d\d-\d\dT/);
    for (let i = 0; i < 3; i++)
      await call('POST', '/api/2.0/sql/queries', {
        query: { display_name: `q${i}`, query_text: 'SELECT 1' },
      });
    const p1 = await call('GET', '/api/2.0/sql/queries?page_size=2');
    expect(p1.body.results).toHaveLength(2);
    expect(p1.body.next_page_token).toBeTruthy();
    const p2 = await call('GET', `/api/2.0/sql/queries?page_size=2&page_token=${p1.body.next_page_token}`);
    expect(p2.body.results).toHaveLength(2);
    expect(p2.body.next_page_token).toBeUndefined();

    // Only masked fields change; a masked field absent from the body is cleared.
    const upd = await call('PATCH', `/api/2.0/sql/queries/${q.id}`, {
      update_mask: 'display_name,description',
      query: { display_name: 'Orders v2', query_text: 'SELECT 2' },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.display_name).toBe('Orders v2');
    expect(upd.body.description).toBeUndefined();
    expect(upd.body.query_text).toContain('so_orders');
    const noMask = await call('PATCH', `/api/2.0/sql/queries/${q.id}`, { query: { display_name: 'x' } });
    expect(noMask.status).toBe(400);
    const badMask = await call('PATCH', `/api/2.0/sql/queries/${q.id}`, { update_mask: 'id', query: {} });
    expect(badMask.body.error_code).toBe('INVALID_PARAMETER_VALUE');

    const byApi = await api.runQuery(q.id, { parameters: { min: '5' } });
    expect(byApi).toMatchObject({ state: 'SUCCEEDED', rows: [['2']] });
    await expect(api.runQuery('nope')).rejects.toMatchObject({ errorCode: 'RESOURCE_DOES_NOT_EXIST' });
    const run = await call('POST', `/_minilake/sql/queries/${q.id}/run`, { parameters: { min: '15' } });
    expect(run.body).toMatchObject({ state: 'SUCCEEDED', row_count: 1 });

    expect((await call('DELETE', `/api/2.0/sql/queries/${p2.body.results[1].id}`)).status).toBe(200);
    const gone = await call('GET', `/api/2.0/sql/queries/${p2.body.results[1].id}`);
    expect(gone.body.lifecycle_state).toBe('TRASHED');
    expect((await call('GET', '/api/2.0/sql/queries')).body.results).toHaveLength(3);
    expect((await call('GET', '/api/2.0/sql/queries/nope')).status).toBe(404);
  });

  it('legacy queries are the same store, with legacy parameters', async () => {
    const made = await call('POST', '/api/2.0/preview/sql/queries', {
      data_source_id: devSource,
      name: 'Legacy',
      query: 'SELECT :p AS v',
      options: { parameters: [{ name: 'p', title: 'P', type: 'text', value: 'hello' }] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toMatchObject({
      name: 'Legacy',
      data_source_id: devSource,
      options: { parameters: [{ type: 'text', value: 'hello' }] },
    });
    const now = await call('GET', `/api/2.0/sql/queries/${made.body.id}`);
    expect(now.body).toMatchObject({
      warehouse_id: 'dev',
      parameters: [{ name: 'p', text_value: { value: 'hello' } }],
    });
    const list = await call('GET', '/api/2.0/preview/sql/queries?page_size=2&page=1');
    expect(list.body).toMatchObject({ page: 1, page_size: 2 });
    expect(list.body.count).toBeGreaterThanOrEqual(4);
    await call('DELETE', `/api/2.0/preview/sql/queries/${made.body.id}`);
    expect((await call('GET', `/api/2.0/preview/sql/queries/${made.body.id}`)).body.is_archived).toBe(true);
    await call('POST', `/api/2.0/preview/sql/queries/trash/${made.body.id}`);
    expect((await call('GET', `/api/2.0/sql/queries/${made.body.id}`)).body.lifecycle_state).toBe('ACTIVE');
  });
});

describe('alerts', () => {
  it('evaluates the real result, triggers after an INSERT and calls the webhook', async () => {
    const dest = await admin.request(
      '/api/2.0/notification-destinations',
      jsonInit('POST', {
        display_name: 'hook',
        config: { generic_webhook: { url: hookUrl, username: 'u', password: 'p' } },
      }),
    );
    const destId = ((await dest.json()) as Any).id;
    const q = await call('POST', '/api/2.0/sql/queries', {
      query: {
        display_name: 'Total',
        query_text: 'SELECT sum(amount) AS total FROM so_orders',
        warehouse_id: 'dev',
      },
    });
    const a = await call('POST', '/api/2.0/sql/alerts', {
      alert: {
        display_name: 'Big total',
        query_id: q.body.id,
        condition: {
          op: 'GREATER_THAN',
          operand: { column: { name: 'total' } },
          threshold: { value: { double_value: 100 } },
        },
      },
    });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ state: 'UNKNOWN', lifecycle_state: 'ACTIVE' });
    const subs = { subscriptions: [{ destination_id: destId }, { user_name: 'someone@example.com' }] };
    const ok = await call('POST', `/_minilake/sql/alerts/${a.body.id}/evaluate`, subs);
    expect(ok.body).toMatchObject({ alert: { state: 'OK' }, value: '30.0', notified: false });
    expect(received).toHaveLength(0);

    await sqlRun('INSERT INTO so_orders VALUES (3, 500.0)');
    const hit = await call('POST', `/_minilake/sql/alerts/${a.body.id}/evaluate`, subs);
    expect(hit.body.alert.state).toBe('TRIGGERED');
    expect(hit.body.alert.trigger_time).toBeTruthy();
    expect(hit.body.notified).toBe(true);
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toMatchObject({ alert_id: a.body.id, state: 'TRIGGERED', value: '530.0' });
    expect(received[0]!.auth).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(hit.body.deliveries[1]).toMatchObject({ delivered: false });

    // Still triggered: no second notification without seconds_to_retrigger (the Api jobs' alert task uses).
    const again = await api.evaluateAlert(a.body.id, { subscriptions: subs.subscriptions });
    expect(again).toMatchObject({
      alert: { state: 'TRIGGERED' },
      verdict: { value: '530.0' },
      notified: false,
    });
    expect(received).toHaveLength(1);

    const legacy = await call('GET', `/api/2.0/preview/sql/alerts/${a.body.id}`);
    expect(legacy.body).toMatchObject({
      state: 'triggered',
      options: { column: 'total', op: '>', value: 100 },
    });
    expect(legacy.body.last_triggered_at).toBeTruthy();

    const upd = await call('PATCH', `/api/2.0/sql/alerts/${a.body.id}`, {
      update_mask: 'condition',
      alert: {
        condition: {
          op: 'LESS_THAN',
          operand: { column: { name: 'total' } },
          threshold: { value: { double_value: 1 } },
        },
      },
    });
    expect(upd.body.condition.op).toBe('LESS_THAN');
    expect((await call('DELETE', `/api/2.0/sql/alerts/${a.body.id}`)).status).toBe(200);
    expect((await call('GET', `/api/2.0/sql/alerts/${a.body.id}`)).body.lifecycle_state).toBe('TRASHED');
  });

  it('legacy alerts: empty result state and the refresh schedule on the clock', async () => {
    const q = await call('POST', '/api/2.0/preview/sql/queries', {
      data_source_id: devSource,
      name: 'Empty',
      query: 'SELECT id FROM so_orders WHERE id > 100',
      schedule: { interval: 60 },
    });
    const a = await call('POST', '/api/2.0/preview/sql/alerts', {
      name: 'empty',
      query_id: q.body.id,
      options: { column: 'id', op: '>', value: '1', empty_result_state: 'triggered' },
      rearm: 30,
    });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ state: 'unknown', rearm: 30, options: { op: '>', value: '1' } });
    clock.advance(60_000);
    await api.idle();
    expect((await call('GET', `/api/2.0/preview/sql/alerts/${a.body.id}`)).body.state).toBe('triggered');
    const all = await call('GET', '/api/2.0/preview/sql/alerts');
    expect(Array.isArray(all.body)).toBe(true);
    expect((await call('DELETE', `/api/2.0/preview/sql/alerts/${a.body.id}`)).status).toBe(200);
    expect((await call('GET', `/api/2.0/preview/sql/alerts/${a.body.id}`)).status).toBe(404);
    const bad = await call('POST', '/api/2.0/preview/sql/alerts', {
      name: 'x',
      query_id: q.body.id,
      options: { column: 'id', op: '~', value: 1 },
    });
    expect(bad.status).toBe(400);
  });
});

describe('alerts v2', () => {
  it('evaluates on its Quartz schedule on the clock, aggregates, and notifies its subscriptions', async () => {
    const dest = await admin.request(
      '/api/2.0/notification-destinations',
      jsonInit('POST', { display_name: 'hook2', config: { generic_webhook: { url: hookUrl } } }),
    );
    const destId = ((await dest.json()) as Any).id;
    const made = await call('POST', '/api/2.0/alerts', {
      display_name: 'v2 total',
      query_text: 'SELECT amount FROM so_orders',
      warehouse_id: 'dev',
      evaluation: {
        comparison_operator: 'GREATER_THAN',
        source: { name: 'amount', aggregation: 'SUM' },
        threshold: { value: { double_value: 1000 } },
        notification: { subscriptions: [{ destination_id: destId }] },
      },
      schedule: { quartz_cron_schedule: '0 * * * * ?', timezone_id: 'UTC' },
    });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ lifecycle_state: 'ACTIVE', evaluation: { state: 'UNKNOWN' } });
    const get = async () => (await call('GET', `/api/2.0/alerts/${made.body.id}`)).body;
    const before = received.length;
    clock.advance(60_000);
    await api.idle();
    expect((await get()).evaluation.state).toBe('OK');
    expect((await get()).evaluation.last_evaluated_at).toBeTruthy();
    await sqlRun('INSERT INTO so_orders VALUES (4, 2000.0)');
    clock.advance(60_000);
    await api.idle();
    expect((await get()).evaluation.state).toBe('TRIGGERED');
    expect(received).toHaveLength(before + 1);
    expect(received.at(-1)!.body).toMatchObject({ alert_id: made.body.id, state: 'TRIGGERED' });

    const paused = await app.request(
      `/api/2.0/alerts/${made.body.id}?update_mask=schedule`,
      jsonInit('PATCH', {
        schedule: { quartz_cron_schedule: '0 * * * * ?', timezone_id: 'UTC', pause_status: 'PAUSED' },
      }),
    );
    expect(paused.status).toBe(200);
    expect((await call('GET', '/api/2.0/alerts')).body.alerts).toHaveLength(1);
    const bad = await call('POST', '/api/2.0/alerts', {
      display_name: 'x',
      query_text: 'SELECT 1',
      warehouse_id: 'dev',
      evaluation: {
        comparison_operator: 'EQUAL',
        source: { name: 'a' },
        threshold: { value: { double_value: 1 } },
      },
      schedule: { quartz_cron_schedule: 'nope' },
    });
    expect(bad.status).toBe(400);
    await call('DELETE', `/api/2.0/alerts/${made.body.id}`);
    expect((await get()).lifecycle_state).toBe('DELETED');
    expect((await call('GET', '/api/2.0/alerts')).body.alerts ?? []).toHaveLength(0);
  });
});

describe('legacy dashboards', () => {
  it('dashboards with widgets over visualizations, as the Terraform provider reads them', async () => {
    const q = await call('POST', '/api/2.0/preview/sql/queries', {
      data_source_id: devSource,
      name: 'Viz',
      query: 'SELECT 1 AS x',
    });
    const viz = await call('POST', '/api/2.0/preview/sql/visualizations', {
      query_id: q.body.id,
      type: 'CHART',
      name: 'chart',
      options: { globalSeriesType: 'column' },
    });
    expect(viz.body).toMatchObject({ type: 'CHART', name: 'chart' });
    const withViz = await call('GET', `/api/2.0/preview/sql/queries/${q.body.id}`);
    expect(withViz.body.visualizations).toMatchObject([
      { id: viz.body.id, options: { globalSeriesType: 'column' } },
    ]);
    const d = await call('POST', '/api/2.0/preview/sql/dashboards', { name: 'My dash', tags: ['a'] });
    expect(d.body).toMatchObject({ name: 'My dash', slug: 'my-dash', tags: ['a'] });
    const w = await call('POST', '/api/2.0/preview/sql/widgets', {
      dashboard_id: d.body.id,
      visualization_id: viz.body.id,
      options: { position: { col: 0, row: 0, sizeX: 3, sizeY: 4 } },
      width: 1,
    });
    const t = await call('POST', '/api/2.0/preview/sql/widgets', {
      dashboard_id: d.body.id,
      text: 'hello',
      options: {},
      width: 1,
    });
    const got = await call('GET', `/api/2.0/preview/sql/dashboards/${d.body.id}`);
    expect(got.body.widgets).toHaveLength(2);
    expect(got.body.widgets[0]).toMatchObject({
      id: w.body.id,
      visualization: { id: viz.body.id, query: { id: q.body.id } },
    });
    expect(got.body.widgets[1]).toMatchObject({ id: t.body.id, text: 'hello' });
    await call('POST', `/api/2.0/preview/sql/widgets/${t.body.id}`, {
      dashboard_id: d.body.id,
      text: 'bye',
      options: {},
      width: 1,
    });
    expect((await call('GET', `/api/2.0/preview/sql/dashboards/${d.body.id}`)).body.widgets[1].text).toBe(
      'bye',
    );
    await call('DELETE', `/api/2.0/preview/sql/widgets/${t.body.id}`);
    await call('DELETE', `/api/2.0/preview/sql/dashboards/${d.body.id}`);
    expect((await call('GET', `/api/2.0/preview/sql/dashboards/${d.body.id}`)).body.is_archived).toBe(true);
    expect((await call('GET', '/api/2.0/preview/sql/dashboards')).body.results).toHaveLength(0);
  });
});
