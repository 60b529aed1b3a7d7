/**
 * MINILAKE_ENFORCE=1 over the pipelines API: CAN_VIEW < CAN_RUN < CAN_MANAGE < IS_OWNER, checked through
 * iam's evaluation, as the principals the host authenticates (runAsPrincipal). The creator owns its pipeline;
 * another user is refused (403 PERMISSION_DENIED) until granted, and list shows only what it may view.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { runAsPrincipal, type Principal, type SharedResource } from '@minilake/core';
import { iamService, type IamStore } from '@minilake/iam';
import { jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService } from '@minilake/unity-catalog';
import { workspaceService } from '@minilake/workspace';
import { pipelinesService } from '../src/index.js';

let app: Hono;
let iamApp: Hono;
let iamStore: IamStore;
let close: () => Promise<void>;

beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pl-enforce-'));
  const shared = new Map<string, Promise<SharedResource>>();
  const iam = await serviceApp(iamService, { dataDir, config: { MINILAKE_ENFORCE: '1' } });
  const uc = await serviceApp(unityCatalogService, { dataDir, sharedResources: shared });
  const ws = await serviceApp(workspaceService, { dataDir, sharedResources: shared });
  const pl = await serviceApp(pipelinesService, {
    dataDir,
    sharedResources: shared,
    peers: new Map<string, unknown>([
      ['iam', iam.instance.api],
      ['unity-catalog', uc.instance.api],
      ['workspace', ws.instance.api],
    ]),
    // No Spark here: an update fails at once, which is enough to prove who may start one.
    config: { MINILAKE_SPARK_PYTHON: path.join(dataDir, 'no-such-python') },
  });
  app = pl.app;
  iamApp = iam.app;
  iamStore = iam.instance.state[0] as IamStore;
  close = async () => {
    await pl.instance.close?.();
    await ws.instance.close?.();
    await uc.instance.close?.();
    await iam.instance.close?.();
  };
});
afterAll(() => close());

async function user(userName: string): Promise<Principal> {
  const r = await iamApp.request('/api/2.0/preview/scim/v2/Users', jsonInit('POST', { userName }));
  expect(r.status).toBe(201);
  return iamStore.directory.principalById(((await r.json()) as { id: string }).id)!;
}

/** A request as `who` (undefined: the configured admin, as without authentication). */
const call = async (who: Principal | undefined, method: string, p: string, body?: unknown) => {
  const run = () => app.request(p, body === undefined ? { method } : jsonInit(method, body));
  const r = who ? await runAsPrincipal(who, run) : await run();
  return { status: r.status, body: (await r.json()) as Record<string, any> };
};
const grant = async (id: string, userName: string, level: string) => {
  const r = await iamApp.request(
    `/api/2.0/permissions/pipelines/${id}`,
    jsonInit('PATCH', { access_control_list: [{ user_name: userName, permission_level: level }] }),
  );
  expect(r.status, await r.text()).toBe(200);
};

describe('pipeline permissions (MINILAKE_ENFORCE=1)', () => {
  it('the creator owns; others need CAN_VIEW, CAN_RUN, CAN_MANAGE; list shows what one may view', async () => {
    const alice = await user('alice@example.com');
    const bob = await user('bob@example.com');
    const created = await call(alice, 'POST', '/api/2.0/pipelines', {
      name: 'alice-pl',
      catalog: 'main',
      schema: 's',
    });
    expect(created.status).toBe(200);
    const id = created.body.pipeline_id as string;
    const base = `/api/2.0/pipelines/${id}`;
    expect((await call(alice, 'GET', base)).body.creator_user_name).toBe('alice@example.com');

    const refused = await call(bob, 'GET', base);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error_code: 'PERMISSION_DENIED',
      message: `User bob@example.com does not have View or Owner or Admin permissions on pipeline ${id}`,
    });
    for (const [m, p] of [
      ['GET', `${base}/events`],
      ['GET', `${base}/updates`],
    ] as const)
      expect((await call(bob, m, p)).status).toBe(403);
    expect((await call(bob, 'GET', '/api/2.0/pipelines')).body.statuses).toEqual([]);
    // An unknown pipeline is still a 404, not a refusal.
    expect((await call(bob, 'GET', '/api/2.0/pipelines/00000000-0000-0000-0000-000000000000')).status).toBe(
      404,
    );

    await grant(id, 'bob@example.com', 'CAN_VIEW');
    expect((await call(bob, 'GET', base)).status).toBe(200);
    expect((await call(bob, 'GET', `${base}/events`)).status).toBe(200);
    expect(
      ((await call(bob, 'GET', '/api/2.0/pipelines')).body.statuses as { pipeline_id: string }[]).map(
        (s) => s.pipeline_id,
      ),
    ).toEqual([id]);
    const noRun = await call(bob, 'POST', `${base}/updates`, { validate_only: true });
    expect(noRun.status).toBe(403);
    expect(noRun.body.message).toBe(
      `User bob@example.com does not have Run or Owner or Admin permissions on pipeline ${id}`,
    );
    expect((await call(bob, 'POST', `${base}/stop`, {})).status).toBe(403);

    await grant(id, 'bob@example.com', 'CAN_RUN');
    const started = await call(bob, 'POST', `${base}/updates`, { validate_only: true });
    expect(started.status).toBe(200);
    expect((await call(bob, 'POST', `${base}/stop`, {})).status).toBe(200);
    const noEdit = await call(bob, 'PUT', base, { id, name: 'renamed', catalog: 'main', schema: 's' });
    expect(noEdit.status).toBe(403);
    expect((await call(bob, 'DELETE', base)).status).toBe(403);
    // The ACL itself needs CAN_MANAGE (iam's permissions API).
    const acl = await runAsPrincipal(bob, () => iamApp.request(`/api/2.0/permissions/pipelines/${id}`));
    expect(acl.status).toBe(403);

    await grant(id, 'bob@example.com', 'CAN_MANAGE');
    expect((await call(bob, 'PUT', base, { id, name: 'renamed', catalog: 'main', schema: 's' })).status).toBe(
      200,
    );
    expect((await call(bob, 'DELETE', base)).status).toBe(200);
  });

  it('admins pass every check', async () => {
    const carol = await user('carol@example.com');
    const { body } = await call(carol, 'POST', '/api/2.0/pipelines', {
      name: 'carol-pl',
      catalog: 'main',
      schema: 's',
    });
    const admin = await call(undefined, 'GET', `/api/2.0/pipelines/${body.pipeline_id as string}`);
    expect(admin.status).toBe(200);
    expect(admin.body.creator_user_name).toBe('carol@example.com');
  });
});
