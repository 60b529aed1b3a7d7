import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { defaultIdentity, ManualClock, StateDb } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { iamService, IamStore, type IamApi, type ObjectTypeDefinition } from '../src/index.js';

let app: Hono;
let store: IamStore;
let iamApi: IamApi;
const me = defaultIdentity.userName;

/** The definitions the owning packages (compute, jobs, sql) register, as they register them. */
const CLUSTERS: ObjectTypeDefinition = {
  request: 'clusters',
  objectType: 'cluster',
  levels: ['CAN_ATTACH_TO', 'CAN_RESTART', 'CAN_MANAGE'],
  owner: 'CAN_MANAGE',
  admins: 'CAN_MANAGE',
};
const JOBS: ObjectTypeDefinition = {
  request: 'jobs',
  objectType: 'job',
  levels: ['CAN_VIEW', 'CAN_MANAGE_RUN', 'IS_OWNER', 'CAN_MANAGE'],
  owner: 'IS_OWNER',
  admins: 'CAN_MANAGE',
};
const WAREHOUSES: ObjectTypeDefinition = {
  request: ['sql/warehouses', 'warehouses'],
  objectType: 'warehouses',
  levels: ['CAN_USE', 'CAN_MANAGE', 'CAN_MONITOR', 'CAN_VIEW', 'IS_OWNER'],
  owner: 'IS_OWNER',
  admins: 'CAN_MANAGE',
};
const anyId = { exists: () => true };

beforeEach(async () => {
  const s = await serviceApp(iamService);
  app = s.app;
  store = s.instance.state[0] as IamStore;
  iamApi = s.instance.api!;
  // Stand-ins for owners that know every id: this file tests iam's ACL rules, not the owners' ids.
  for (const def of [CLUSTERS, JOBS, WAREHOUSES]) s.instance.api!.registerObjectType(def, anyId);
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

  it('a principal named twice keeps the last level; a job keeps exactly one owner (the CLI factcheck)', async () => {
    const s = await serviceApp(iamService);
    s.instance.api!.registerObjectType({ ...JOBS, ownerRequired: true }, anyId);
    s.instance.api!.registerObjectType(WAREHOUSES, anyId);
    await s.app.request(
      '/api/2.0/preview/scim/v2/Users',
      jsonInit('POST', { userName: 'deco@example.com', displayName: 'Deco' }),
    );
    const put = async (type: string, id: string, user: string, levels: string[], owner = true) => {
      const acl = levels.map((permission_level) => ({ user_name: user, permission_level }));
      if (owner && type === 'jobs' && user !== me)
        acl.unshift({ user_name: me, permission_level: 'IS_OWNER' });
      const res = await s.app.request(
        `/api/2.0/permissions/${type}/${id}`,
        jsonInit('PUT', { access_control_list: acl }),
      );
      const body = (await res.json()) as any;
      if (res.status !== 200) return `${res.status} ${body.message}`;
      return body.access_control_list
        .filter((a: any) => a.user_name === user)
        .flatMap((a: any) =>
          a.all_permissions.filter((p: any) => !p.inherited).map((p: any) => p.permission_level),
        )
        .join(', ');
    };
    const u = 'deco@example.com';
    expect(await put('jobs', '1', u, ['CAN_VIEW', 'CAN_MANAGE_RUN'])).toBe('CAN_MANAGE_RUN');
    expect(await put('jobs', '1', u, ['CAN_MANAGE_RUN', 'CAN_VIEW'])).toBe('CAN_VIEW');
    expect(await put('jobs', '1', u, ['CAN_VIEW', 'CAN_MANAGE_RUN', 'CAN_MANAGE'])).toBe('CAN_MANAGE');
    expect(await put('jobs', '1', u, ['CAN_MANAGE', 'CAN_MANAGE_RUN'])).toBe('CAN_MANAGE_RUN');
    expect(await put('jobs', '1', me, ['CAN_MANAGE', 'IS_OWNER'])).toBe('IS_OWNER');
    expect(await put('jobs', '1', me, ['IS_OWNER', 'CAN_MANAGE'])).toBe(
      '400 The job must have exactly one owner.',
    );
    expect(await put('jobs', '1', u, ['CAN_VIEW'], false)).toBe('400 The job must have exactly one owner.');
    expect(await put('sql/warehouses', 'w', u, ['CAN_VIEW', 'CAN_USE'])).toBe('CAN_USE');
    expect(await put('sql/warehouses', 'w', u, ['CAN_USE', 'CAN_VIEW'])).toBe('CAN_VIEW');
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
    const badId = await app.request('/api/2.0/permissions/jobs/%zz');
    await expectDatabricksError(badId, 400, 'INVALID_PARAMETER_VALUE');
    const encoded = await req('GET', '/api/2.0/permissions/jobs/a%20b');
    expect(encoded.body!.object_id).toBe('/jobs/a b');
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

describe('object types registered by their packages', () => {
  it('knows only its own singletons until a package registers a type', async () => {
    const alone = await serviceApp(iamService);
    for (const path of [
      'jobs/123',
      'clusters/0101-123456-abcdefgh',
      'warehouses/abc',
      'sql/warehouses/abc',
    ]) {
      const res = await alone.app.request(`/api/2.0/permissions/${path}`);
      const body = await expectDatabricksError(res, 400, 'INVALID_PARAMETER_VALUE');
      expect(body.message).toBe(
        `request_object_type is not recognized: ${path.split('/').slice(0, -1).join('/')}`,
      );
    }
    const put = await alone.app.request(
      '/api/2.0/permissions/jobs/1',
      jsonInit('PUT', { access_control_list: [] }),
    );
    await expectDatabricksError(put, 400, 'INVALID_PARAMETER_VALUE');
    expect((await alone.app.request('/api/2.0/permissions/authorization/tokens')).status).toBe(200);
    expect((await alone.app.request('/api/2.0/permissions/authorization/passwords')).status).toBe(200);
  });

  it('serves a registered type under every request name, keyed by the first', async () => {
    const s = await serviceApp(iamService);
    const api: IamApi = s.instance.api!;
    const known = new Set(['wh1']);
    api.registerObjectType(WAREHOUSES, { exists: (id) => known.has(id) });
    const missing = await s.app.request('/api/2.0/permissions/warehouses/0123456789abcdef');
    await expectDatabricksError(missing, 404, 'RESOURCE_DOES_NOT_EXIST');
    await s.app.request(
      '/api/2.0/permissions/sql/warehouses/wh1',
      jsonInit('PATCH', { access_control_list: [{ group_name: 'users', permission_level: 'CAN_USE' }] }),
    );
    const viaAlias = (await (await s.app.request('/api/2.0/permissions/warehouses/wh1')).json()) as any;
    expect(viaAlias).toMatchObject({ object_id: '/sql/warehouses/wh1', object_type: 'warehouses' });
    expect(viaAlias.access_control_list.find((a: any) => a.group_name === 'users')).toEqual({
      group_name: 'users',
      all_permissions: [{ permission_level: 'CAN_USE', inherited: false }],
    });
    expect(viaAlias.access_control_list.find((a: any) => a.group_name === 'admins')).toEqual({
      group_name: 'admins',
      all_permissions: [
        { permission_level: 'CAN_MANAGE', inherited: true, inherited_from_object: ['/sql/warehouses/'] },
      ],
    });
    const levels = (await (
      await s.app.request('/api/2.0/permissions/warehouses/wh1/permissionLevels')
    ).json()) as any;
    expect(levels.permission_levels).toContainEqual({
      permission_level: 'CAN_MONITOR',
      description: 'Can monitor',
    });
    expect(api.permissions('warehouses', 'wh1')).toMatchObject({ object_id: '/sql/warehouses/wh1' });
    expect(api.permissions('warehouses', 'nope')).toBeUndefined();
    api.dropPermissions('warehouses', 'wh1');
    const dropped = (await (await s.app.request('/api/2.0/permissions/sql/warehouses/wh1')).json()) as any;
    expect(JSON.stringify(dropped)).not.toContain('CAN_USE');
  });

  it('refuses a definition whose owner or admins level is not one of its levels', async () => {
    const s = await serviceApp(iamService);
    expect(() => s.instance.api!.registerObjectType({ ...JOBS, owner: 'CAN_FLY' }, anyId)).toThrow(
      /CAN_FLY is not a level/,
    );
    expect(() =>
      s.instance.api!.registerObjectType({ ...JOBS, request: 'authorization/tokens' }, anyId),
    ).toThrow(/belongs to iam/);
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
    s.instance.api!.registerObjectType(JOBS, {
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
    expect(store.tokens.isIssued(value)).toBe(true);

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
    expect(store.tokens.isIssued(value)).toBe(false);
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
    const { token_value } = s.tokens.createToken(10);
    expect(s.tokens.isIssued(token_value)).toBe(true);
    clock.advance(11_000);
    expect(s.tokens.isIssued(token_value)).toBe(false);
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
    expect(other.directory.list('User', { filter: 'userName eq "p@example.com"' }).totalResults).toBe(1);
    const acl = other.permissions.get(
      {
        request: 'clusters',
        objectType: 'cluster',
        levels: {},
        admins: 'CAN_MANAGE',
        adminsFrom: '/clusters/',
        rank: {},
        noun: 'cluster',
      },
      'c9',
    );
    expect(JSON.stringify(acl)).toContain('CAN_RESTART');
  });
});

describe('authenticate and minted tokens', () => {
  it('maps a token minted for a creator named by applicationId to that service principal, not the admin', async () => {
    const sp = await req('POST', '/api/2.0/preview/scim/v2/ServicePrincipals', { displayName: 'runner' });
    const app = sp.body!.applicationId as string;
    const api = iamApi;
    const minted = api.mintToken({ userName: app }, { lifetimeSeconds: 60, comment: 'run' });
    expect(api.authenticate(minted.value)).toMatchObject({ kind: 'service_principal', userName: app });
    expect(api.authenticate('dapi-unknown')).toBeUndefined();
    api.revokeToken(minted.tokenId);
    expect(api.authenticate(minted.value)).toBeUndefined();
  });
});
