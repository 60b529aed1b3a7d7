import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { ManualClock, resetInstance } from '@minilake/core';
import { sqlService, type SqlApi } from '@minilake/sql';
import { sqlObjectsService } from '@minilake/sql-objects';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { workspaceService, type WorkspaceApi } from '@minilake/workspace';
import { workspaceAdminService, type WorkspaceAdminApi } from '@minilake/workspace-admin';
import { lakeviewService, type LakeviewApi } from '../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const ME = 'dev@minilake.local';
const HOME = `/Users/${ME}`;
const D = '/api/2.0/lakeview/dashboards';

/** A webhook receiver: what subscribers' notification destinations get. */
let hook: Server;
let hookUrl = '';
const received: Any[] = [];
beforeAll(async () => {
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((r) => hook.close(() => r())));

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function boot() {
  const clock = new ManualClock(Date.now());
  // The statement service waits on its own (system) clock; lakeview's schedules run on the manual one.
  const sql = await serviceApp(sqlService, { config: { MINILAKE_WAREHOUSE_START_DELAY: '0' } });
  const ws = await serviceApp(workspaceService, { clock });
  const admin = await serviceApp(workspaceAdminService, { clock });
  const objects = await serviceApp(sqlObjectsService, {
    peers: new Map<string, unknown>([['sql', sql.instance.api]]),
  });
  const lv = await serviceApp(lakeviewService, {
    clock,
    peers: new Map<string, unknown>([
      ['sql', sql.instance.api],
      ['workspace', ws.instance.api],
      ['workspace-admin', admin.instance.api],
      ['sql-objects', objects.instance.api],
    ]),
  });
  closers.push(
    () => sql.instance.close?.(),
    () => objects.instance.close?.(),
    () => lv.instance.close?.(),
  );
  const call = async (app: Hono, method: string, p: string, body?: unknown, status = 200): Promise<Any> => {
    const res = await app.request(p, jsonInit(method, body));
    const text = await res.text();
    expect(res.status, `${method} ${p}: ${text}`).toBe(status);
    return text ? JSON.parse(text) : {};
  };
  const statements = (sql.instance.api as SqlApi).statements;
  const run = async (statement: string) => {
    const r = await statements.run({ statement, warehouseId: 'dev' }, 30_000);
    expect(r.state, `${statement}: ${r.error?.message}`).toBe('SUCCEEDED');
    return r.rows ?? [];
  };
  return {
    clock,
    lv: (m: string, p: string, b?: unknown, s?: number) => call(lv.app, m, p, b, s),
    lvApp: lv.app,
    ws: (m: string, p: string, b?: unknown, s?: number) => call(ws.app, m, p, b, s),
    wsApp: ws.app,
    admin: (m: string, p: string, b?: unknown) => call(admin.app, m, p, b),
    legacy: (m: string, p: string, b?: unknown) => call(objects.app, m, p, b),
    api: lv.instance.api as LakeviewApi,
    instance: lv.instance,
    wsApi: ws.instance.api as WorkspaceApi,
    adminApi: admin.instance.api as WorkspaceAdminApi,
    run,
    sql: sql.app,
  };
}

const counter = (query: string, expression = 'SUM(`amount`)') =>
  JSON.stringify({
    datasets: [{ name: 'ds1', displayName: 'Sales', queryLines: [query] }],
    pages: [
      {
        name: 'p1',
        displayName: 'Overview',
        layout: [
          {
            widget: {
              name: 'total',
              queries: [
                {
                  name: 'main_query',
                  query: { datasetName: 'ds1', fields: [{ name: 'v', expression }], disaggregated: false },
                },
              ],
              spec: { version: 2, widgetType: 'counter', encodings: { value: { fieldName: 'v' } } },
            },
            position: { x: 0, y: 0, width: 2, height: 3 },
          },
        ],
      },
    ],
  });

describe('dashboards', () => {
  it('create, get, update with the etag, trash and restore, with the workspace entry in step', async () => {
    const b = await boot();
    const d = await b.lv('POST', D, {
      display_name: 'Sales',
      parent_path: `/Workspace${HOME}`,
      warehouse_id: 'dev',
      serialized_dashboard: counter('SELECT 1 AS amount'),
    });
    expect(d.dashboard_id).toMatch(/^[0-9a-f]{32}$/);
    expect(d).toMatchObject({
      display_name: 'Sales',
      parent_path: HOME,
      path: `${HOME}/Sales.lvdash.json`,
      lifecycle_state: 'ACTIVE',
      warehouse_id: 'dev',
    });
    expect(new Date(d.create_time).toISOString()).toBe(d.create_time);
    // pages without pageType get it, which re-serializes; one trailing newline
    const stored = JSON.parse(d.serialized_dashboard);
    expect(stored.pages[0].pageType).toBe('PAGE_TYPE_CANVAS');
    expect(d.serialized_dashboard.endsWith('}\n')).toBe(true);
    const got = await b.lv('GET', `${D}/${d.dashboard_id}`);
    expect(got).toEqual(d);
    const st = await b.ws('GET', `/api/2.0/workspace/get-status?path=${encodeURIComponent(d.path)}`);
    expect(st).toMatchObject({ object_type: 'DASHBOARD', resource_id: d.dashboard_id, path: d.path });

    // a rename moves the entry; the etag changes on every write and a stale one is refused
    const u = await b.lv('PATCH', `${D}/${d.dashboard_id}`, {
      display_name: 'Revenue',
      etag: d.etag,
      warehouse_id: 'dev',
    });
    expect(u.etag).not.toBe(d.etag);
    expect(u.path).toBe(`${HOME}/Revenue.lvdash.json`);
    expect(u.serialized_dashboard).toBe(d.serialized_dashboard);
    expect((await b.lv('GET', `${D}/${d.dashboard_id}`)).etag).toBe(u.etag); // reads keep it
    await expectDatabricksError(
      await b.lvApp.request(`${D}/${d.dashboard_id}`, jsonInit('PATCH', { display_name: 'X', etag: d.etag })),
      409,
      'ABORTED',
    );
    await expectDatabricksError(
      await b.wsApp.request(`/api/2.0/workspace/get-status?path=${encodeURIComponent(d.path)}`),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    // update replaces warehouse_id (absent clears it)
    const u2 = await b.lv('PATCH', `${D}/${d.dashboard_id}`, { display_name: 'Revenue' });
    expect(u2.warehouse_id).toBeUndefined();

    await b.lv('DELETE', `${D}/${d.dashboard_id}`);
    const t = await b.lv('GET', `${D}/${d.dashboard_id}`);
    expect(t.lifecycle_state).toBe('TRASHED');
    await expectDatabricksError(
      await b.lvApp.request(`${D}/${d.dashboard_id}`, { method: 'DELETE' }),
      403,
      'PERMISSION_DENIED',
    );
    await expectDatabricksError(
      await b.wsApp.request(`/api/2.0/workspace/get-status?path=${encodeURIComponent(u.path)}`),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await b.lv('PATCH', `${D}/${d.dashboard_id}`, { display_name: 'Nope' }, 400);
    const r = await b.lv('POST', `/_minilake/lakeview/dashboards/${d.dashboard_id}/restore`);
    expect(r.lifecycle_state).toBe('ACTIVE');
    expect(
      (await b.ws('GET', `/api/2.0/workspace/get-status?path=${encodeURIComponent(u.path)}`)).resource_id,
    ).toBe(d.dashboard_id);
  });

  it('answers Databricks errors for bad input and loses nothing', async () => {
    const b = await boot();
    const bad = async (body: unknown, status: number, code: string, p = D) =>
      expectDatabricksError(await b.lvApp.request(p, jsonInit('POST', body)), status, code);
    await bad({ serialized_dashboard: '{}' }, 400, 'INVALID_PARAMETER_VALUE'); // no display_name
    await bad({ display_name: 'x', serialized_dashboard: '{not json' }, 400, 'INVALID_PARAMETER_VALUE');
    await bad({ display_name: 'x', serialized_dashboard: '[1]' }, 400, 'INVALID_PARAMETER_VALUE');
    await bad({ display_name: 'a/b' }, 400, 'INVALID_PARAMETER_VALUE');
    await bad({ display_name: 'x', parent_path: `${HOME}/missing` }, 404, 'RESOURCE_DOES_NOT_EXIST');
    await bad({ display_name: 'x', parent_path: `${HOME}/../../etc` }, 400, 'INVALID_PARAMETER_VALUE');
    await b.lv('POST', D, { display_name: 'twice' });
    await bad({ display_name: 'twice' }, 409, 'RESOURCE_ALREADY_EXISTS');
    await expectDatabricksError(await b.lvApp.request(`${D}/0123`), 404, 'RESOURCE_DOES_NOT_EXIST');
    await expectDatabricksError(await b.lvApp.request(`${D}/0123/published`), 404, 'RESOURCE_DOES_NOT_EXIST');
    expect((await b.lv('GET', D)).dashboards).toHaveLength(1);
    // no serialized_dashboard: one empty page, as the editor starts a dashboard
    const e = await b.lv('GET', `${D}/${(await b.lv('GET', D)).dashboards[0].dashboard_id}`);
    expect(JSON.parse(e.serialized_dashboard).pages[0].displayName).toBe('New Page');
  });

  it('sets datasets catalog and schema from dataset_catalog / dataset_schema', async () => {
    const b = await boot();
    const d = await b.lv('POST', `${D}?dataset_catalog=cat&dataset_schema=sch`, {
      display_name: 'ns',
      serialized_dashboard: counter('SELECT 1 AS amount'),
    });
    expect(JSON.parse(d.serialized_dashboard).datasets[0]).toMatchObject({ catalog: 'cat', schema: 'sch' });
  });

  it('lists with paging, trashed ones only on request, without the fields list leaves out', async () => {
    const b = await boot();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await b.lv('POST', D, { display_name: `d${i}` })).dashboard_id);
      b.clock.advance(1);
    }
    await b.lv('DELETE', `${D}/${ids[0]}`);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const p = await b.lv('GET', `${D}?page_size=2${token ? `&page_token=${token}` : ''}`);
      for (const x of p.dashboards) {
        expect(x.serialized_dashboard).toBeUndefined();
        expect(x.etag).toBeUndefined();
        seen.push(x.dashboard_id);
      }
      token = p.next_page_token;
    } while (token);
    expect(seen).toEqual(ids.slice(1));
    const all = await b.lv('GET', `${D}?show_trashed=true&view=DASHBOARD_VIEW_BASIC`);
    expect(all.dashboards.map((x: Any) => x.dashboard_id)).toEqual(ids);
    expect(all.next_page_token).toBeUndefined();
  });

  it('publishes a revision that keeps the draft of the moment; trash drops it', async () => {
    const b = await boot();
    const d = await b.lv('POST', D, {
      display_name: 'Pub',
      warehouse_id: 'dev',
      serialized_dashboard: counter('SELECT 1 AS amount'),
    });
    const p = await b.lv('POST', `${D}/${d.dashboard_id}/published`, {
      embed_credentials: false,
      warehouse_id: 'dev',
    });
    expect(p).toMatchObject({ display_name: 'Pub', embed_credentials: false, warehouse_id: 'dev' });
    expect(Date.parse(p.revision_create_time)).toBeGreaterThanOrEqual(Date.parse(d.update_time));
    expect(await b.lv('GET', `${D}/${d.dashboard_id}/published`)).toEqual(p);
    await b.lv('PATCH', `${D}/${d.dashboard_id}`, {
      display_name: 'Pub',
      serialized_dashboard: counter('SELECT 2 AS amount'),
    });
    const content = await b.lv('GET', `/_minilake/lakeview/dashboards/${d.dashboard_id}/published/content`);
    expect(content.serialized_dashboard).toContain('SELECT 1 AS amount');
    // revert brings the draft back to the published revision
    const reverted = await b.lv('POST', `${D}/${d.dashboard_id}/revert`, {});
    expect(reverted.dashboard.serialized_dashboard).toContain('SELECT 1 AS amount');
    await b.lv('DELETE', `${D}/${d.dashboard_id}/published`);
    await expectDatabricksError(
      await b.lvApp.request(`${D}/${d.dashboard_id}/published`),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await b.lv('POST', `${D}/${d.dashboard_id}/published`, { embed_credentials: true });
    await b.lv('DELETE', `${D}/${d.dashboard_id}`);
    await expectDatabricksError(
      await b.lvApp.request(`${D}/${d.dashboard_id}/published`),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });
});

describe('dashboards as workspace objects', () => {
  it('import of a .lvdash.json makes a dashboard, export gives it back, delete trashes it', async () => {
    const b = await boot();
    const content = counter('SELECT 3 AS amount');
    await b.ws('POST', '/api/2.0/workspace/mkdirs', { path: `${HOME}/dash` });
    await b.ws('POST', '/api/2.0/workspace/import', {
      path: `${HOME}/dash/Imported.lvdash.json`,
      content: Buffer.from(content).toString('base64'),
      format: 'AUTO',
    });
    const st = await b.ws(
      'GET',
      `/api/2.0/workspace/get-status?path=${encodeURIComponent(`${HOME}/dash/Imported.lvdash.json`)}`,
    );
    expect(st.object_type).toBe('DASHBOARD');
    const d = await b.lv('GET', `${D}/${st.resource_id}`);
    expect(d).toMatchObject({
      display_name: 'Imported',
      parent_path: `${HOME}/dash`,
      lifecycle_state: 'ACTIVE',
    });
    const exp = await b.ws(
      'GET',
      `/api/2.0/workspace/export?path=${encodeURIComponent(d.path)}&format=SOURCE`,
    );
    expect(Buffer.from(exp.content, 'base64').toString()).toBe(d.serialized_dashboard);
    await b.ws('POST', '/api/2.0/workspace/delete', { path: `${HOME}/dash`, recursive: true });
    expect((await b.lv('GET', `${D}/${d.dashboard_id}`)).lifecycle_state).toBe('TRASHED');
  });
});

describe('refresh, schedules and subscriptions', () => {
  it('runs every widget through the statement service and notifies webhook subscribers on schedule', async () => {
    const b = await boot();
    await b.run('CREATE OR REPLACE TABLE lv_sales (region STRING, amount BIGINT)');
    await b.run("INSERT INTO lv_sales VALUES ('n', 400), ('s', 317), ('e', 200), ('w', 96)");
    const dest = await b.admin('POST', '/api/2.0/notification-destinations', {
      display_name: 'hook',
      config: { generic_webhook: { url: hookUrl } },
    });
    const d = await b.lv('POST', D, {
      display_name: 'Scheduled',
      warehouse_id: 'dev',
      serialized_dashboard: counter("SELECT * FROM lv_sales WHERE region <> 'w'"),
    });
    const sched = await b.lv('POST', `${D}/${d.dashboard_id}/schedules`, {
      display_name: 'hourly',
      cron_schedule: { quartz_cron_expression: '0 0 * * * ?', timezone_id: 'UTC' },
    });
    expect(sched).toMatchObject({ dashboard_id: d.dashboard_id, pause_status: 'UNPAUSED' });
    const sub = await b.lv('POST', `${D}/${d.dashboard_id}/schedules/${sched.schedule_id}/subscriptions`, {
      subscriber: { destination_subscriber: { destination_id: dest.id } },
    });
    expect(sub.subscriber.destination_subscriber.destination_id).toBe(dest.id);
    expect((await b.lv('GET', `${D}/${d.dashboard_id}/schedules`)).schedules).toHaveLength(1);
    expect(
      (await b.lv('GET', `${D}/${d.dashboard_id}/schedules/${sched.schedule_id}/subscriptions`))
        .subscriptions,
    ).toHaveLength(1);
    await b.lv(
      'POST',
      `${D}/${d.dashboard_id}/schedules/${sched.schedule_id}/subscriptions`,
      { subscriber: {} },
      400,
    );
    await b.lv(
      'POST',
      `${D}/${d.dashboard_id}/schedules`,
      { cron_schedule: { quartz_cron_expression: 'nope' } },
      400,
    );

    const before = received.length;
    b.clock.advance(3_600_000); // the top of the next hour passes
    await expect.poll(() => received.length, { timeout: 20_000 }).toBeGreaterThan(before);
    const note = received.at(-1);
    expect(note).toMatchObject({
      dashboard_id: d.dashboard_id,
      schedule_id: sched.schedule_id,
      status: 'SUCCESS',
      statements: 1,
    });
    const status = await b.lv('GET', `/_minilake/lakeview/dashboards/${d.dashboard_id}/status`);
    expect(status.last_refresh).toMatchObject({ statements: 1, failed: 0 });
    // query history has the widget's statement, with the dataset's text in it
    const h = (await (await b.sql.request('/api/2.0/sql/history/queries?max_results=100')).json()) as Any;
    expect(
      h.res.some(
        (q: Any) => q.query_text.includes("region <> 'w'") && q.query_text.includes('SUM(`amount`)'),
      ),
    ).toBe(true);

    // the API's refresh (dashboard_task): a failing widget is reported per page
    const broken = await b.lv('POST', D, {
      display_name: 'Broken',
      warehouse_id: 'dev',
      serialized_dashboard: counter('SELECT * FROM missing'),
    });
    const r = await b.api.refresh(broken.dashboard_id, {
      subscribers: [{ destination_id: dest.id }, { user_name: ME }],
    });
    expect(r.ok).toBe(false);
    expect(r.pages[0]!.widget_error_details[0]!.message).toMatch(/missing|not found/i);
    expect(r.deliveries.map((x) => x.delivered)).toEqual([true, false]);

    // paused: disarmed; deleted: gone
    await b.lv('PUT', `${D}/${d.dashboard_id}/schedules/${sched.schedule_id}`, { pause_status: 'PAUSED' });
    const n = received.length;
    b.clock.advance(3_600_000);
    await new Promise((res) => setTimeout(res, 200));
    expect(received.length).toBe(n);
    await b.lv('DELETE', `${D}/${d.dashboard_id}/schedules/${sched.schedule_id}`);
    await expectDatabricksError(
      await b.lvApp.request(`${D}/${d.dashboard_id}/schedules/${sched.schedule_id}`),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });

  it('a reset stops the schedules; a restored snapshot arms its schedules again', async () => {
    const b = await boot();
    await b.run('CREATE OR REPLACE TABLE lv_reset (amount BIGINT)');
    await b.run('INSERT INTO lv_reset VALUES (5)');
    const dest = await b.admin('POST', '/api/2.0/notification-destinations', {
      display_name: 'hook',
      config: { generic_webhook: { url: hookUrl } },
    });
    const d = await b.lv('POST', D, {
      display_name: 'Reset',
      warehouse_id: 'dev',
      serialized_dashboard: counter('SELECT * FROM lv_reset'),
    });
    const sched = await b.lv('POST', `${D}/${d.dashboard_id}/schedules`, {
      cron_schedule: { quartz_cron_expression: '0 0 * * * ?', timezone_id: 'UTC' },
    });
    await b.lv('POST', `${D}/${d.dashboard_id}/schedules/${sched.schedule_id}/subscriptions`, {
      subscriber: { destination_subscriber: { destination_id: dest.id } },
    });
    const ours = () => received.filter((x) => x.schedule_id === sched.schedule_id).length;
    // As the host does: the state modules' snapshot, then a reset (beforeReset, modules, afterReset).
    const saved = b.instance.state.map((m) => [m, m.snapshot()] as const);
    await resetInstance(b.instance);
    await b.lv('GET', `${D}/${d.dashboard_id}`, undefined, 404);
    b.clock.advance(3_600_000);
    await new Promise((res) => setTimeout(res, 200));
    expect(ours()).toBe(0); // no timer outlived the reset
    // A restore: beforeReset and the modules emptied, the snapshot back, then afterRestore.
    await b.instance.beforeReset?.();
    for (const [m, data] of saved) {
      await m.reset();
      await m.restore(data);
    }
    await b.instance.afterRestore?.();
    expect((await b.lv('GET', `${D}/${d.dashboard_id}/schedules`)).schedules).toHaveLength(1);
    b.clock.advance(3_600_000);
    await expect.poll(ours, { timeout: 20_000 }).toBe(1);
  });

  it('computes grouped fields, filters and counters in SQL', async () => {
    const b = await boot();
    await b.run('CREATE OR REPLACE TABLE lv_t (region STRING, amount BIGINT)');
    await b.run("INSERT INTO lv_t VALUES ('n', 4), ('n', 6), ('s', 3), (NULL, 1)");
    const { planWidget } = await import('../src/plan.js');
    const dash = {
      datasets: [{ name: 'ds', queryLines: ['SELECT * FROM lv_t -- trailing comment'] }],
      pages: [
        {
          name: 'p',
          layout: [
            {
              widget: {
                name: 'bars',
                queries: [
                  {
                    name: 'main_query',
                    query: {
                      datasetName: 'ds',
                      fields: [
                        { name: 'region', expression: '`region`' },
                        { name: 'sum(amount)', expression: 'SUM(`amount`)' },
                        { name: 'count(*)', expression: 'COUNT(`*`)' },
                      ],
                      disaggregated: false,
                    },
                  },
                ],
                spec: {
                  widgetType: 'bar',
                  encodings: { x: { fieldName: 'region' }, y: { fieldName: 'sum(amount)' } },
                },
              },
              position: { x: 0, y: 0, width: 3, height: 4 },
            },
            {
              widget: {
                name: 'pick',
                queries: [
                  {
                    name: 'f',
                    query: {
                      datasetName: 'ds',
                      fields: [
                        { name: 'region', expression: '`region`' },
                        {
                          name: 'region_associativity',
                          expression: 'COUNT_IF(`associative_filter_predicate_group`)',
                        },
                      ],
                      disaggregated: false,
                    },
                  },
                ],
                spec: {
                  widgetType: 'filter-multi-select',
                  encodings: { fields: [{ fieldName: 'region', queryName: 'f' }] },
                },
              },
              position: { x: 3, y: 0, width: 2, height: 1 },
            },
          ],
        },
      ],
    };
    const exec = async (w: Any, sel = {}) => {
      const [q] = planWidget(dash, w, sel);
      const res = await b.sql.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', {
          statement: q!.compiled.statement,
          warehouse_id: 'dev',
          parameters: q!.compiled.parameters,
          wait_timeout: '30s',
        }),
      );
      const body = (await res.json()) as Any;
      expect(body.status.state, JSON.stringify(body.status)).toBe('SUCCEEDED');
      return body.result.data_array;
    };
    const bars = dash.pages[0]!.layout[0]!.widget;
    expect(await exec(bars)).toEqual([
      ['n', '10', '2'],
      ['s', '3', '1'],
      [null, '1', '1'],
    ]);
    const pick = dash.pages[0]!.layout[1]!.widget;
    expect(await exec(pick)).toEqual([
      ['n', '2'],
      ['s', '1'],
      [null, '1'],
    ]);
    // a filter selection narrows the other widgets (NULL is a value too), never its own list
    expect(await exec(bars, { pick: { values: ['s', null] } })).toEqual([
      ['s', '3', '1'],
      [null, '1', '1'],
    ]);
    expect((await exec(pick, { pick: { values: ['s'] } })).length).toBe(3);
  });
});

describe('migrate', () => {
  it('makes a Lakeview dashboard of a legacy one: a dataset per query, widgets where they were', async () => {
    const b = await boot();
    const q = await b.legacy('POST', '/api/2.0/preview/sql/queries', {
      name: 'nums',
      query: 'SELECT {{ n }} AS x, 2 AS y',
      data_source_id: undefined,
    });
    const viz = await b.legacy('POST', '/api/2.0/preview/sql/visualizations', {
      query_id: q.id,
      type: 'COUNTER',
      name: 'the x',
      options: { counterColName: 'x' },
    });
    const dash = await b.legacy('POST', '/api/2.0/preview/sql/dashboards', { name: 'Old one' });
    await b.legacy('POST', '/api/2.0/preview/sql/widgets', {
      dashboard_id: dash.id,
      visualization_id: viz.id,
      options: { position: { col: 2, row: 1, sizeX: 2, sizeY: 3 } },
      width: 1,
    });
    await b.legacy('POST', '/api/2.0/preview/sql/widgets', {
      dashboard_id: dash.id,
      text: '# Title',
      width: 1,
      options: {},
    });
    const m = await b.lv('POST', `${D}/migrate`, {
      source_dashboard_id: dash.id,
      update_parameter_syntax: true,
    });
    expect(m).toMatchObject({
      display_name: 'Old one',
      lifecycle_state: 'ACTIVE',
      path: `${HOME}/Old one.lvdash.json`,
    });
    const s = JSON.parse(m.serialized_dashboard);
    expect(s.datasets).toHaveLength(1);
    expect(s.datasets[0].queryLines[0]).toBe('SELECT :n AS x, 2 AS y');
    const layout = s.pages[0].layout;
    expect(layout[0].position).toEqual({ x: 2, y: 1, width: 2, height: 3 });
    expect(layout[0].widget.spec.widgetType).toBe('counter');
    expect(layout[1].widget.textbox_spec).toBe('# Title');
    await expectDatabricksError(
      await b.lvApp.request(`${D}/migrate`, jsonInit('POST', { source_dashboard_id: 'nope' })),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });
});
