import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { defaultIdentity, ManualClock, StateDb } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { iamService, IamStore } from '../src/index.js';

let app: Hono;
let store: IamStore;
const me = defaultIdentity.userName;

beforeEach(async () => {
  const s = await serviceApp(iamService);
  app = s.app;
  store = s.instance.state[0] as IamStore;
});

const req = async (method: string, path: string, body?: unknown) => {
  const res = await app.request(path, jsonInit(method, body));
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
};

describe('permissions', () => {
  it('defaults to the current user as owner and admins inheriting CAN_MANAGE', async () => {
    const r = await req('GET', '/api/2.0/permissions/clusters/0101-123456-abcdefgh');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      object_id: '/clusters/0101-123456-abcdefgh',
      object_type: 'cluster',
      access_control_list: [
        {
          user_name: me,
          display_name: defaultIdentity.displayName,
          all_permissions: [{ permission_level: 'CAN_MANAGE', inherited: false }],
        },
        {
          group_name: 'admins',
          all_permissions: [
            { permission_level: 'CAN_MANAGE', inherited: true, inherited_from_object: ['/clusters/'] },
          ],
        },
      ],
    });
    const job = await req('GET', '/api/2.0/permissions/jobs/123');
    expect(job.body!.object_type).toBe('job');
    expect(job.body!.access_control_list[0].all_permissions[0].permission_level).toBe('IS_OWNER');
    const wh = await req('GET', '/api/2.0/permissions/warehouses/abc');
    expect(wh.body).toMatchObject({ object_id: '/sql/warehouses/abc', object_type: 'warehouses' });
    const tokens = await req('GET', '/api/2.0/permissions/authorization/tokens');
    expect(tokens.body).toMatchObject({ object_id: '/authorization/tokens', object_type: 'tokens' });
    expect(tokens.body!.access_control_list).toEqual([
      { group_name: 'admins', all_permissions: [{ permission_level: 'CAN_MANAGE', inherited: false }] },
    ]);
  });

  it('sets (replace) and updates (merge), keeping the job owner', async () => {
    await req('POST', '/api/2.0/preview/scim/v2/Groups', { displayName: 'team' });
    const set = await req('PUT', '/api/2.0/permissions/jobs/7', {
      access_control_list: [{ group_name: 'team', permission_level: 'CAN_VIEW' }],
    });
    expect(set.status).toBe(200);
    const levels = (body: any) =>
      Object.fromEntries(
        body.access_control_list.map((a: any) => [
          a.user_name ?? a.group_name ?? a.service_principal_name,
          a.all_permissions.map((p: any) => p.permission_level),
        ]),
      );
    expect(levels(set.body)).toEqual({ [me]: ['IS_OWNER'], team: ['CAN_VIEW'], admins: ['CAN_MANAGE'] });
    const upd = await req('PATCH', '/api/2.0/permissions/jobs/7', {
      access_control_list: [
        { group_name: 'team', permission_level: 'CAN_MANAGE_RUN' },
        { group_name: 'users', permission_level: 'CAN_VIEW' },
      ],
    });
    expect(levels(upd.body)).toEqual({
      [me]: ['IS_OWNER'],
      team: ['CAN_MANAGE_RUN'],
      users: ['CAN_VIEW'],
      admins: ['CAN_MANAGE'],
    });
    expect(levels((await req('GET', '/api/2.0/permissions/jobs/7')).body)).toEqual(levels(upd.body));
    // another job is untouched
    expect(levels((await req('GET', '/api/2.0/permissions/jobs/8')).body)).toEqual({
      [me]: ['IS_OWNER'],
      admins: ['CAN_MANAGE'],
    });
  });

  it('validates levels, principals and object types', async () => {
    const badLevel = await app.request(
      '/api/2.0/permissions/clusters/c1',
      jsonInit('PUT', { access_control_list: [{ user_name: me, permission_level: 'IS_OWNER' }] }),
    );
    await expectDatabricksError(badLevel, 400, 'INVALID_PARAMETER_VALUE');
    const nobody = await app.request(
      '/api/2.0/permissions/clusters/c1',
      jsonInit('PATCH', {
        access_control_list: [{ user_name: 'ghost@x.com', permission_level: 'CAN_MANAGE' }],
      }),
    );
    await expectDatabricksError(nobody, 400, 'INVALID_PARAMETER_VALUE');
    const badType = await app.request('/api/2.0/permissions/widgets/1');
    await expectDatabricksError(badType, 400, 'INVALID_PARAMETER_VALUE');
    const badId = await app.request('/api/2.0/permissions/registered-models/%zz');
    await expectDatabricksError(badId, 400, 'INVALID_PARAMETER_VALUE');
    const encoded = await req('GET', '/api/2.0/permissions/registered-models/a%20b');
    expect(encoded.body!.object_id).toBe('/registered-models/a b');
  });

  it('lists permission levels per type', async () => {
    const r = await req('GET', '/api/2.0/permissions/clusters/c1/permissionLevels');
    expect(r.body!.permission_levels.map((l: any) => l.permission_level)).toEqual([
      'CAN_ATTACH_TO',
      'CAN_RESTART',
      'CAN_MANAGE',
    ]);
    const t = await req('GET', '/api/2.0/permissions/authorization/tokens/permissionLevels');
    expect(t.body!.permission_levels.map((l: any) => l.permission_level)).toEqual(['CAN_USE', 'CAN_MANAGE']);
  });
});

describe('object hooks', () => {
  it('answers 404 for unknown objects and names the creator as owner once a service registers', async () => {
    const s = await serviceApp(iamService);
    const known = new Map([['5', 'robot-app']]);
    await s.app.request(
      '/api/2.0/preview/scim/v2/ServicePrincipals',
      jsonInit('POST', { applicationId: 'robot-app' }),
    );
    s.instance.api!.registerObjectType('jobs', {
      exists: (id) => known.has(id),
      owner: (id) => known.get(id),
    });
    const missing = await s.app.request('/api/2.0/permissions/jobs/6');
    await expectDatabricksError(missing, 404, 'RESOURCE_DOES_NOT_EXIST');
    const acl = (await (await s.app.request('/api/2.0/permissions/jobs/5')).json()) as any;
    expect(acl.access_control_list[0]).toMatchObject({
      service_principal_name: 'robot-app',
      all_permissions: [{ permission_level: 'IS_OWNER', inherited: false }],
    });
    await s.app.request(
      '/api/2.0/permissions/jobs/5',
      jsonInit('PATCH', { access_control_list: [{ group_name: 'users', permission_level: 'CAN_VIEW' }] }),
    );
    s.instance.api!.dropPermissions('jobs', '5');
    const after = (await (await s.app.request('/api/2.0/permissions/jobs/5')).json()) as any;
    expect(JSON.stringify(after)).not.toContain('CAN_VIEW');
  });
});

describe('tokens', () => {
  it('returns the value once and stores only a hash', async () => {
    const created = await req('POST', '/api/2.0/token/create', { comment: 'ci', lifetime_seconds: 3600 });
    expect(created.status).toBe(200);
    const value = created.body!.token_value as string;
    expect(value).toMatch(/^dapi[0-9a-f]{32}$/);
    const info = created.body!.token_info;
    expect(info.comment).toBe('ci');
    expect(info.expiry_time - info.creation_time).toBe(3_600_000);
    const listed = await req('GET', '/api/2.0/token/list');
    expect(listed.body!.token_infos).toEqual([info]);
    expect(JSON.stringify(listed.body)).not.toContain(value);
    expect(JSON.stringify(store.snapshot())).not.toContain(value);
    expect(store.isIssuedToken(value)).toBe(true);

    const mgmt = await req('GET', '/api/2.0/token-management/tokens');
    expect(mgmt.body!.token_infos[0]).toMatchObject({
      token_id: info.token_id,
      created_by_username: me,
      owner_id: Number(defaultIdentity.userId),
    });
    expect(
      (await req('GET', `/api/2.0/token-management/tokens/${info.token_id}`)).body!.token_info.token_id,
    ).toBe(info.token_id);

    expect(info.token_id).toMatch(/^[0-9a-f]{64}$/);
    expect(
      (
        await req('PATCH', `/api/2.0/token/${info.token_id}`, {
          token: { comment: 'ci-2' },
          update_mask: 'comment',
        })
      ).status,
    ).toBe(200);
    expect((await req('GET', '/api/2.0/token/list')).body!.token_infos[0].comment).toBe('ci-2');

    expect((await req('POST', '/api/2.0/token/delete', { token_id: info.token_id })).status).toBe(200);
    expect((await req('GET', '/api/2.0/token/list')).body!.token_infos).toEqual([]);
    const again = await app.request('/api/2.0/token/delete', jsonInit('POST', { token_id: info.token_id }));
    await expectDatabricksError(again, 404, 'RESOURCE_DOES_NOT_EXIST');
    expect(store.isIssuedToken(value)).toBe(false);
  });

  it('creates on-behalf-of tokens for a service principal', async () => {
    const sp = (await req('POST', '/api/2.0/preview/scim/v2/ServicePrincipals', { displayName: 'bot' }))
      .body!;
    const obo = await req('POST', '/api/2.0/token-management/on-behalf-of/tokens', {
      application_id: sp.applicationId,
      comment: 'bot token',
    });
    expect(obo.status).toBe(200);
    expect(obo.body!.token_info).toMatchObject({ owner_id: Number(sp.id), expiry_time: -1 });
    // not the caller's own token
    expect((await req('GET', '/api/2.0/token/list')).body!.token_infos).toEqual([]);
    await req('DELETE', `/api/2.0/token-management/tokens/${obo.body!.token_info.token_id}`);
    expect((await req('GET', '/api/2.0/token-management/tokens')).body!.token_infos).toEqual([]);
  });

  it('expires tokens on the injected clock', () => {
    const clock = new ManualClock(1_000_000);
    const s = new IamStore(StateDb.memory(), clock, defaultIdentity);
    const { token_value } = s.createToken(10);
    expect(s.isIssuedToken(token_value)).toBe(true);
    clock.advance(11_000);
    expect(s.isIssuedToken(token_value)).toBe(false);
  });
});

describe('persistence', () => {
  it('restores users, groups, ACLs and tokens from a snapshot', async () => {
    await req('POST', '/api/2.0/preview/scim/v2/Users', { userName: 'p@example.com' });
    await req('PATCH', '/api/2.0/permissions/clusters/c9', {
      access_control_list: [{ user_name: 'p@example.com', permission_level: 'CAN_RESTART' }],
    });
    const snap = store.snapshot();
    const other = new IamStore(StateDb.memory(), new ManualClock(0), defaultIdentity);
    other.restore(snap);
    expect(other.list('User', { filter: 'userName eq "p@example.com"' }).totalResults).toBe(1);
    const acl = other.getPermissions(
      { request: 'clusters', objectType: 'cluster', levels: {}, admins: 'CAN_MANAGE' },
      'c9',
    );
    expect(JSON.stringify(acl)).toContain('CAN_RESTART');
  });
});
