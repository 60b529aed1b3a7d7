/**
 * Workspace object permissions (MINILAKE_ENFORCE=1) through the routes: which level each operation needs
 * (access.ts), home folders, /Shared, creators, inheritance from folders, and list filtering. The caller is
 * set per request as the host's MINILAKE_AUTH=tokens does; the configured identity is the admin.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { runAsPrincipal, type Principal } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { iamService } from '@minilake/iam';
import { workspaceService } from '../src/index.js';

const ALICE = '/Users/alice@example.com';
let iam: Hono;
let ws: Hono;
let bob: Principal;
let alice: Principal;
const b64 = (s: string) => Buffer.from(s).toString('base64');

beforeEach(async () => {
  const i = await serviceApp(iamService, { config: { MINILAKE_ENFORCE: '1' } });
  iam = i.app;
  const scim = async (userName: string): Promise<Principal> => {
    const r = await iam.request('/api/2.0/preview/scim/v2/Users', jsonInit('POST', { userName }));
    expect(r.status).toBe(201);
    const { id } = (await r.json()) as { id: string };
    return { kind: 'user', userName, id, displayName: userName, groups: ['users'] };
  };
  alice = await scim('alice@example.com');
  bob = await scim('bob@example.com');
  ws = (await serviceApp(workspaceService, { peers: new Map([['iam', i.instance.api]]) })).app;
});

/** A request as `who` (the admin when absent); answers the status and the JSON body. */
async function call(who: Principal | undefined, method: 'GET' | 'POST', route: string, body: object) {
  const go = () =>
    method === 'GET'
      ? ws.request(`${route}?${new URLSearchParams(body as Record<string, string>).toString()}`)
      : ws.request(route, jsonInit('POST', body));
  const r = await (who ? runAsPrincipal(who, go) : go());
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
const status = (who: Principal | undefined, path: string) =>
  call(who, 'GET', '/api/2.0/workspace/get-status', { path });
const exp = (who: Principal | undefined, path: string) =>
  call(who, 'GET', '/api/2.0/workspace/export', { path });
const list = (who: Principal | undefined, path: string) =>
  call(who, 'GET', '/api/2.0/workspace/list', { path });
const put = (who: Principal | undefined, path: string, text: string, overwrite = false) =>
  call(who, 'POST', '/api/2.0/workspace/import', {
    path,
    content: b64(text),
    format: 'SOURCE',
    language: 'PYTHON',
    overwrite,
  });
const mkdirs = (who: Principal | undefined, path: string) =>
  call(who, 'POST', '/api/2.0/workspace/mkdirs', { path });
const del = (who: Principal | undefined, path: string, recursive = false) =>
  call(who, 'POST', '/api/2.0/workspace/delete', { path, recursive });
const names = (r: { body: Record<string, unknown> }) =>
  ((r.body.objects ?? []) as { path: string }[]).map((o) => o.path);

async function grant(type: string, path: string, who: Principal, level: string) {
  const id = (await status(undefined, path)).body.object_id as number;
  const r = await iam.request(
    `/api/2.0/permissions/${type}/${id}`,
    jsonInit('PATCH', { access_control_list: [{ user_name: who.userName, permission_level: level }] }),
  );
  expect(r.status).toBe(200);
}

describe('workspace objects (MINILAKE_ENFORCE=1)', () => {
  it("refuses everything on another user's home folder, with Databricks' 403", async () => {
    expect((await put(alice, `${ALICE}/nb`, 'print(1)')).status).toBe(200);
    const r = await status(bob, `${ALICE}/nb`);
    expect(r).toMatchObject({
      status: 403,
      body: {
        error_code: 'PERMISSION_DENIED',
        message: `User "bob@example.com" does not have Read permissions on notebook ${ALICE}/nb. Please contact the owner or an administrator for access.`,
      },
    });
    // The /Workspace prefix is kept in the message, as other workspace errors keep it.
    expect((await status(bob, `/Workspace${ALICE}/nb`)).body.message).toContain(
      `notebook /Workspace${ALICE}/nb.`,
    );
    expect((await exp(bob, `${ALICE}/nb`)).status).toBe(403);
    expect((await list(bob, ALICE)).status).toBe(403);
    expect((await put(bob, `${ALICE}/nb`, 'x', true)).status).toBe(403);
    expect((await put(bob, `${ALICE}/nb2`, 'x')).body.message).toContain('Manage permissions on directory');
    expect((await mkdirs(bob, `${ALICE}/a/b`)).status).toBe(403);
    expect((await del(bob, `${ALICE}/nb`)).status).toBe(403);
    const raw = await runAsPrincipal(bob, () => ws.request(`/api/2.0/workspace-files${ALICE}/nb`));
    expect(raw.status).toBe(403);
    // Its owner and the admin do all of it.
    expect((await exp(alice, `${ALICE}/nb`)).status).toBe(200);
    expect((await status(undefined, `${ALICE}/nb`)).status).toBe(200);
    expect((await del(alice, `${ALICE}/nb`)).status).toBe(200);
  });

  it('gives each level exactly its operations, inherited down folders', async () => {
    await mkdirs(alice, `${ALICE}/proj/sub`);
    await put(alice, `${ALICE}/proj/sub/nb`, 'print(1)');
    const nb = `${ALICE}/proj/sub/nb`;

    await grant('directories', `${ALICE}/proj`, bob, 'CAN_READ');
    expect((await status(bob, nb)).status).toBe(200);
    expect((await exp(bob, nb)).status).toBe(200);
    expect(names(await list(bob, `${ALICE}/proj`))).toEqual([`${ALICE}/proj/sub`]);
    expect((await put(bob, nb, 'x', true)).body.message).toContain(
      'does not have Edit permissions on notebook',
    );

    await grant('directories', `${ALICE}/proj`, bob, 'CAN_RUN');
    expect((await put(bob, nb, 'x', true)).status).toBe(403);

    await grant('notebooks', nb, bob, 'CAN_EDIT');
    expect((await put(bob, nb, 'print(2)', true)).status).toBe(200);
    expect((await put(bob, `${ALICE}/proj/sub/new`, 'x')).status).toBe(403);
    expect((await del(bob, nb)).body.message).toContain('does not have Manage permissions on notebook');

    await grant('directories', `${ALICE}/proj`, bob, 'CAN_MANAGE');
    expect((await put(bob, `${ALICE}/proj/sub/new`, 'x')).status).toBe(200);
    expect((await mkdirs(bob, `${ALICE}/proj/sub/x/y`)).status).toBe(200);
    expect((await del(bob, nb)).status).toBe(200);
    // Still nothing above the grant.
    expect((await list(bob, ALICE)).status).toBe(403);
  });

  it('lists only what the caller may read; /, /Users and /Shared are everyone', async () => {
    await put(undefined, '/Shared/nb', 'print(1)');
    expect(names(await list(bob, '/Users'))).toEqual(['/Users/bob@example.com']);
    expect(names(await list(bob, '/'))).toEqual(['/Shared', '/Users']);
    // /Shared is everyone's to manage: edit, create, delete what another put there.
    expect((await put(bob, '/Shared/nb', 'x', true)).status).toBe(200);
    expect((await mkdirs(bob, '/Shared/team/a')).status).toBe(200);
    expect((await del(bob, '/Shared/nb')).status).toBe(200);
    // The root is the admins'.
    expect((await mkdirs(bob, '/top')).status).toBe(403);
    expect((await mkdirs(undefined, '/top')).status).toBe(200);
  });

  it("makes an object its creator's where someone else's folder let it be created", async () => {
    await grant('directories', ALICE, bob, 'CAN_MANAGE');
    expect((await put(bob, `${ALICE}/bobs`, 'print(1)')).status).toBe(200);
    // Alice takes the folder grant back: bob still manages what he created.
    const id = (await status(undefined, ALICE)).body.object_id as number;
    await iam.request(`/api/2.0/permissions/directories/${id}`, jsonInit('PUT', { access_control_list: [] }));
    expect((await list(bob, ALICE)).status).toBe(403);
    expect((await exp(bob, `${ALICE}/bobs`)).status).toBe(200);
    const nbId = (await status(undefined, `${ALICE}/bobs`)).body.object_id as number;
    const acl = await runAsPrincipal(bob, () => iam.request(`/api/2.0/permissions/notebooks/${nbId}`));
    expect(acl.status).toBe(200);
    expect(JSON.stringify(await acl.json())).toContain('"user_name":"bob@example.com"');
    expect((await del(bob, `${ALICE}/bobs`)).status).toBe(200);
  });
});
