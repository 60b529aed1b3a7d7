/**
 * MINILAKE_ENFORCE=1 over queries and alerts (current and legacy paths), legacy dashboards and Alerts V2: CAN_VIEW < CAN_RUN < CAN_EDIT <
 * CAN_MANAGE, checked through iam's evaluation as the principals the host authenticates (runAsPrincipal).
 * The creator manages what it creates; another user is refused (403) until granted; lists show only what the
 * caller may view.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { runAsPrincipal, type Principal } from '@minilake/core';
import { iamService, type IamStore } from '@minilake/iam';
import { sqlService } from '@minilake/sql';
import { jsonInit, serviceApp } from '@minilake/testing';
import { sqlObjectsService } from '../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

let app: Hono;
let iamApp: Hono;
let iamStore: IamStore;

beforeAll(async () => {
  const iam = await serviceApp(iamService, { config: { MINILAKE_ENFORCE: '1' } });
  const sql = await serviceApp(sqlService, { config: { MINILAKE_WAREHOUSE_START_DELAY: '0' } });
  const made = await serviceApp(sqlObjectsService, {
    peers: new Map<string, unknown>([
      ['iam', iam.instance.api],
      ['sql', sql.instance.api],
    ]),
  });
  app = made.app;
  iamApp = iam.app;
  iamStore = iam.instance.state[0] as IamStore;
});

async function user(userName: string): Promise<Principal> {
  const r = await iamApp.request('/api/2.0/preview/scim/v2/Users', jsonInit('POST', { userName }));
  expect(r.status).toBe(201);
  return iamStore.directory.principalById(((await r.json()) as { id: string }).id)!;
}

const call = async (who: Principal, method: string, p: string, body?: unknown) => {
  const r = await runAsPrincipal(who, () => app.request(p, jsonInit(method, body)));
  return { status: r.status, body: (await r.json()) as Any };
};
const grant = async (path: string, userName: string, level: string) => {
  const r = await iamApp.request(
    `/api/2.0/permissions/${path}`,
    jsonInit('PATCH', { access_control_list: [{ user_name: userName, permission_level: level }] }),
  );
  expect(r.status, await r.text()).toBe(200);
};

describe('query and alert permissions (MINILAKE_ENFORCE=1)', () => {
  it('queries: CAN_VIEW to read, CAN_EDIT to update, CAN_MANAGE to trash; lists filtered', async () => {
    const alice = await user('qa@example.com');
    const bob = await user('qb@example.com');
    const made = await call(alice, 'POST', '/api/2.0/sql/queries', {
      query: { display_name: 'mine', warehouse_id: 'dev', query_text: 'SELECT 1' },
    });
    expect(made.status).toBe(200);
    expect(made.body.owner_user_name).toBe('qa@example.com');
    const id = made.body.id as string;
    const Q = `/api/2.0/sql/queries/${id}`;
    const LQ = `/api/2.0/preview/sql/queries/${id}`;

    const refused = await call(bob, 'GET', Q);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error_code: 'PERMISSION_DENIED',
      message: `User qb@example.com does not have View or Owner or Admin permissions on query ${id}`,
    });
    expect((await call(bob, 'GET', LQ)).status).toBe(403);
    expect((await call(bob, 'GET', '/api/2.0/sql/queries')).body.results ?? []).toEqual([]);
    expect((await call(bob, 'GET', '/api/2.0/preview/sql/queries')).body.count).toBe(0);
    expect((await call(alice, 'GET', '/api/2.0/sql/queries')).body.results).toHaveLength(1);

    await grant(`queries/${id}`, 'qb@example.com', 'CAN_VIEW');
    expect((await call(bob, 'GET', Q)).status).toBe(200);
    expect((await call(bob, 'GET', LQ)).status).toBe(200);
    expect((await call(bob, 'GET', '/api/2.0/sql/queries')).body.results).toHaveLength(1);
    const noEdit = await call(bob, 'PATCH', Q, { query: { display_name: 'x' }, update_mask: 'display_name' });
    expect(noEdit.status).toBe(403);
    expect(noEdit.body.message).toBe(
      `User qb@example.com does not have Edit or Owner or Admin permissions on query ${id}`,
    );
    expect((await call(bob, 'POST', LQ, { name: 'x' })).status).toBe(403);

    await grant(`sql/queries/${id}`, 'qb@example.com', 'CAN_EDIT');
    expect(
      (await call(bob, 'PATCH', Q, { query: { display_name: 'edited' }, update_mask: 'display_name' }))
        .status,
    ).toBe(200);
    expect((await call(bob, 'DELETE', Q)).status).toBe(403);
    expect((await call(bob, 'DELETE', LQ)).status).toBe(403);

    await grant(`queries/${id}`, 'qb@example.com', 'CAN_MANAGE');
    expect((await call(bob, 'DELETE', Q)).status).toBe(200);
  });

  it('alerts: the same levels, on the current and legacy paths', async () => {
    const alice = await user('aa@example.com');
    const bob = await user('ab@example.com');
    const q = await call(alice, 'POST', '/api/2.0/sql/queries', {
      query: { display_name: 'for alert', warehouse_id: 'dev', query_text: 'SELECT 1 AS n' },
    });
    const made = await call(alice, 'POST', '/api/2.0/sql/alerts', {
      alert: {
        display_name: 'a',
        query_id: q.body.id,
        condition: {
          op: 'GREATER_THAN',
          operand: { column: { name: 'n' } },
          threshold: { value: { double_value: 0 } },
        },
      },
    });
    expect(made.status).toBe(200);
    const id = made.body.id as string;
    const A = `/api/2.0/sql/alerts/${id}`;
    const LA = `/api/2.0/preview/sql/alerts/${id}`;
    const refused = await call(bob, 'GET', A);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      `User ab@example.com does not have View or Owner or Admin permissions on alert ${id}`,
    );
    expect((await call(bob, 'GET', LA)).status).toBe(403);
    expect((await call(bob, 'GET', '/api/2.0/sql/alerts')).body.results ?? []).toEqual([]);
    expect(await call(bob, 'GET', '/api/2.0/preview/sql/alerts')).toEqual({ status: 200, body: [] });

    await grant(`alerts/${id}`, 'ab@example.com', 'CAN_RUN');
    expect((await call(bob, 'GET', A)).status).toBe(200);
    expect((await call(bob, 'GET', '/api/2.0/preview/sql/alerts')).body).toHaveLength(1);
    expect(
      (await call(bob, 'PATCH', A, { alert: { display_name: 'b' }, update_mask: 'display_name' })).status,
    ).toBe(403);
    await grant(`alerts/${id}`, 'ab@example.com', 'CAN_EDIT');
    expect(
      (await call(bob, 'PATCH', A, { alert: { display_name: 'b' }, update_mask: 'display_name' })).status,
    ).toBe(200);
    expect((await call(bob, 'DELETE', LA)).status).toBe(403);
    expect((await call(bob, 'DELETE', A)).status).toBe(403);
    // An unknown alert is a 404 before any refusal.
    expect((await call(bob, 'GET', '/api/2.0/sql/alerts/00000000-0000-0000-0000-000000000000')).status).toBe(
      404,
    );
    await grant(`alerts/${id}`, 'ab@example.com', 'CAN_MANAGE');
    expect((await call(bob, 'DELETE', A)).status).toBe(200);
  });
});

describe('legacy dashboards and Alerts V2 permissions (MINILAKE_ENFORCE=1)', () => {
  it('legacy dashboards: view, edit (widgets too), manage; a visualization is its query to edit', async () => {
    const alice = await user('da@example.com');
    const bob = await user('db@example.com');
    const made = await call(alice, 'POST', '/api/2.0/preview/sql/dashboards', { name: 'board' });
    expect(made.status).toBe(200);
    const id = made.body.id as string;
    const D = `/api/2.0/preview/sql/dashboards/${id}`;
    const refused = await call(bob, 'GET', D);
    expect(refused.status).toBe(403);
    expect(refused.body.error_code).toBe('PERMISSION_DENIED');
    expect(refused.body.message).toContain(id);
    expect((await call(bob, 'GET', '/api/2.0/preview/sql/dashboards')).body.count).toBe(0);
    expect((await call(alice, 'GET', '/api/2.0/preview/sql/dashboards')).body.count).toBe(1);
    const widget = { dashboard_id: id, text: 'hi', options: {}, width: 1 };
    expect((await call(bob, 'POST', '/api/2.0/preview/sql/widgets', widget)).status).toBe(403);

    await grant(`dbsql-dashboards/${id}`, 'db@example.com', 'CAN_VIEW');
    expect((await call(bob, 'GET', D)).status).toBe(200);
    expect((await call(bob, 'POST', D, { name: 'renamed' })).status).toBe(403);
    const w = await call(alice, 'POST', '/api/2.0/preview/sql/widgets', widget);
    expect(w.status).toBe(200);
    expect((await call(bob, 'DELETE', `/api/2.0/preview/sql/widgets/${w.body.id}`)).status).toBe(403);

    await grant(`dbsql-dashboards/${id}`, 'db@example.com', 'CAN_EDIT');
    expect((await call(bob, 'POST', D, { name: 'renamed' })).status).toBe(200);
    expect((await call(bob, 'DELETE', `/api/2.0/preview/sql/widgets/${w.body.id}`)).status).toBe(200);
    expect((await call(bob, 'DELETE', D)).status).toBe(403);
    await grant(`dbsql-dashboards/${id}`, 'db@example.com', 'CAN_MANAGE');
    expect((await call(bob, 'DELETE', D)).status).toBe(200);

    const q = await call(alice, 'POST', '/api/2.0/sql/queries', {
      query: { display_name: 'viz', warehouse_id: 'dev', query_text: 'SELECT 1' },
    });
    const viz = { query_id: q.body.id, type: 'TABLE', name: 't', options: {} };
    expect((await call(bob, 'POST', '/api/2.0/preview/sql/visualizations', viz)).status).toBe(403);
    const v = await call(alice, 'POST', '/api/2.0/preview/sql/visualizations', viz);
    expect(v.status).toBe(200);
    expect((await call(bob, 'DELETE', `/api/2.0/preview/sql/visualizations/${v.body.id}`)).status).toBe(403);
    await grant(`queries/${q.body.id}`, 'db@example.com', 'CAN_EDIT');
    expect((await call(bob, 'DELETE', `/api/2.0/preview/sql/visualizations/${v.body.id}`)).status).toBe(200);
  });

  it('Alerts V2: CAN_READ to read, CAN_EDIT to update, CAN_MANAGE to delete; lists filtered', async () => {
    const alice = await user('va@example.com');
    const bob = await user('vb@example.com');
    const made = await call(alice, 'POST', '/api/2.0/alerts', {
      display_name: 'v2',
      query_text: 'SELECT 1 AS value',
      warehouse_id: 'dev',
      evaluation: {
        comparison_operator: 'GREATER_THAN',
        source: { name: 'value' },
        threshold: { value: { double_value: 0 } },
      },
      schedule: { quartz_cron_schedule: '0 0 9 10 1 ?', timezone_id: 'UTC' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const A = `/api/2.0/alerts/${made.body.id}`;
    expect((await call(bob, 'GET', A)).status).toBe(403);
    expect((await call(bob, 'GET', '/api/2.0/alerts')).body.alerts ?? []).toEqual([]);
    expect((await call(alice, 'GET', '/api/2.0/alerts')).body.alerts).toHaveLength(1);
    await grant(`alertsv2/${made.body.id}`, 'vb@example.com', 'CAN_READ');
    expect((await call(bob, 'GET', A)).status).toBe(200);
    const rename = { display_name: 'renamed' };
    expect((await call(bob, 'PATCH', `${A}?update_mask=display_name`, rename)).status).toBe(403);
    await grant(`alertsv2/${made.body.id}`, 'vb@example.com', 'CAN_EDIT');
    expect((await call(bob, 'PATCH', `${A}?update_mask=display_name`, rename)).status).toBe(200);
    expect((await call(bob, 'DELETE', A)).status).toBe(403);
    await grant(`alertsv2/${made.body.id}`, 'vb@example.com', 'CAN_MANAGE');
    expect((await call(bob, 'DELETE', A)).status).toBe(200);
  });
});
