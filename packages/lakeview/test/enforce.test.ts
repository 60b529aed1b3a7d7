/**
 * MINILAKE_ENFORCE=1 over Lakeview dashboards: CAN_READ < CAN_RUN < CAN_EDIT < CAN_MANAGE, checked through
 * iam's evaluation as the principals the host authenticates (runAsPrincipal). The creator manages its
 * dashboard; another user is refused (403) until granted; list shows only what the caller may read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { runAsPrincipal, type Principal } from '@minilake/core';
import { iamService, type IamStore } from '@minilake/iam';
import { sqlService } from '@minilake/sql';
import { sqlObjectsService } from '@minilake/sql-objects';
import { jsonInit, serviceApp } from '@minilake/testing';
import { workspaceService } from '@minilake/workspace';
import { lakeviewService } from '../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const D = '/api/2.0/lakeview/dashboards';

let app: Hono;
let iamApp: Hono;
let iamStore: IamStore;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  const iam = await serviceApp(iamService, { config: { MINILAKE_ENFORCE: '1' } });
  const sql = await serviceApp(sqlService, { config: { MINILAKE_WAREHOUSE_START_DELAY: '0' } });
  const ws = await serviceApp(workspaceService, {});
  const objects = await serviceApp(sqlObjectsService, {
    peers: new Map<string, unknown>([['sql', sql.instance.api]]),
  });
  const lv = await serviceApp(lakeviewService, {
    peers: new Map<string, unknown>([
      ['iam', iam.instance.api],
      ['sql', sql.instance.api],
      ['workspace', ws.instance.api],
      ['sql-objects', objects.instance.api],
    ]),
  });
  closers.push(
    () => sql.instance.close?.(),
    () => objects.instance.close?.(),
    () => lv.instance.close?.(),
  );
  app = lv.app;
  iamApp = iam.app;
  iamStore = iam.instance.state[0] as IamStore;
});
afterAll(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function user(userName: string): Promise<Principal> {
  const r = await iamApp.request('/api/2.0/preview/scim/v2/Users', jsonInit('POST', { userName }));
  expect(r.status).toBe(201);
  return iamStore.directory.principalById(((await r.json()) as { id: string }).id)!;
}
const call = async (who: Principal, method: string, p: string, body?: unknown) => {
  const r = await runAsPrincipal(who, () => app.request(p, jsonInit(method, body)));
  const text = await r.text();
  return { status: r.status, body: (text ? JSON.parse(text) : {}) as Any };
};
const grant = async (id: string, userName: string, level: string) => {
  const r = await iamApp.request(
    `/api/2.0/permissions/dashboards/${id}`,
    jsonInit('PATCH', { access_control_list: [{ user_name: userName, permission_level: level }] }),
  );
  expect(r.status, await r.text()).toBe(200);
};

describe('dashboard permissions (MINILAKE_ENFORCE=1)', () => {
  it('CAN_READ reads, CAN_EDIT updates and publishes, CAN_MANAGE trashes; list filtered', async () => {
    const alice = await user('da@example.com');
    const bob = await user('db@example.com');
    const made = await call(alice, 'POST', D, { display_name: 'alice dash', parent_path: '/Shared' });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.dashboard_id as string;
    expect((await call(alice, 'POST', `${D}/${id}/published`, {})).status).toBe(200);

    const refused = await call(bob, 'GET', `${D}/${id}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error_code: 'PERMISSION_DENIED',
      message: `User db@example.com does not have Read or Admin permissions on dashboard ${id}`,
    });
    expect((await call(bob, 'GET', `${D}/${id}/published`)).status).toBe(403);
    expect((await call(bob, 'GET', D)).body.dashboards ?? []).toEqual([]);
    expect((await call(alice, 'GET', D)).body.dashboards).toHaveLength(1);

    await grant(id, 'db@example.com', 'CAN_READ');
    expect((await call(bob, 'GET', `${D}/${id}`)).status).toBe(200);
    expect((await call(bob, 'GET', `${D}/${id}/published`)).status).toBe(200);
    expect((await call(bob, 'GET', D)).body.dashboards).toHaveLength(1);
    const noEdit = await call(bob, 'PATCH', `${D}/${id}`, { display_name: 'renamed' });
    expect(noEdit.status).toBe(403);
    expect(noEdit.body.message).toBe(
      `User db@example.com does not have Edit or Admin permissions on dashboard ${id}`,
    );
    expect((await call(bob, 'POST', `${D}/${id}/published`, {})).status).toBe(403);

    await grant(id, 'db@example.com', 'CAN_EDIT');
    expect((await call(bob, 'PATCH', `${D}/${id}`, { display_name: 'renamed' })).status).toBe(200);
    expect((await call(bob, 'POST', `${D}/${id}/published`, {})).status).toBe(200);
    expect((await call(bob, 'DELETE', `${D}/${id}`)).status).toBe(403);
    // The ACL itself needs CAN_MANAGE (iam's permissions API).
    const acl = await runAsPrincipal(bob, () => iamApp.request(`/api/2.0/permissions/dashboards/${id}`));
    expect(acl.status).toBe(403);

    await grant(id, 'db@example.com', 'CAN_MANAGE');
    expect((await call(bob, 'DELETE', `${D}/${id}`)).status).toBe(200);
    // An unknown dashboard is a 404 before any refusal.
    expect((await call(bob, 'GET', `${D}/0123456789abcdef0123456789abcdef`)).status).toBe(404);
  });
});
