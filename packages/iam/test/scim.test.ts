import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { defaultIdentity } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { iamService, type IamStore } from '../src/index.js';

let app: Hono;
let store: IamStore;
const SCIM = '/api/2.0/preview/scim/v2';

beforeEach(async () => {
  const s = await serviceApp(iamService);
  app = s.app;
  store = s.instance.state[0] as IamStore;
});

const req = async (method: string, path: string, body?: unknown) => {
  const res = await app.request(path, jsonInit(method, body));
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : undefined, res };
};
const createUser = async (userName: string, extra: Record<string, unknown> = {}) => {
  const r = await req('POST', `${SCIM}/Users`, { userName, ...extra });
  expect(r.status).toBe(201);
  return r.body!;
};

describe('/Me', () => {
  it('is the current user from Users, with the org id header', async () => {
    const res = await app.request(`${SCIM}/Me`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-databricks-org-id')).toBe(defaultIdentity.workspaceId);
    const me = (await res.json()) as Record<string, any>;
    expect(me.userName).toBe(defaultIdentity.userName);
    const listed = await req(
      'GET',
      `${SCIM}/Users?filter=${encodeURIComponent(`userName eq "${me.userName}"`)}`,
    );
    expect(listed.body!.Resources).toEqual([me]);
    expect(me.groups.map((g: any) => g.display).sort()).toEqual(['admins', 'users']);
  });

  it('follows changes to the user record and survives reset', async () => {
    const me = (await (await app.request(`${SCIM}/Me`)).json()) as Record<string, any>;
    await req('PATCH', `${SCIM}/Users/${me.id}`, {
      Operations: [{ op: 'replace', path: 'displayName', value: 'Renamed' }],
    });
    const after = (await (await app.request(`${SCIM}/Me`)).json()) as Record<string, any>;
    expect(after.displayName).toBe('Renamed');
    await store.reset();
    const reset = (await (await app.request(`${SCIM}/Me`)).json()) as Record<string, any>;
    expect(reset.displayName).toBe(defaultIdentity.displayName);
    expect((await req('GET', `${SCIM}/Users`)).body!.totalResults).toBe(1);
  });
});

describe('Users', () => {
  it('creates, reads, replaces and deletes', async () => {
    const u = await createUser('alice@example.com', { displayName: 'Alice' });
    expect(u.id).toMatch(/^\d+$/);
    expect(u.schemas).toContain('urn:ietf:params:scim:schemas:core:2.0:User');
    expect(u.active).toBe(true);
    expect(u.emails[0].value).toBe('alice@example.com');
    const got = await req('GET', `${SCIM}/Users/${u.id}`);
    expect(got.body).toEqual(u);
    const put = await req('PUT', `${SCIM}/Users/${u.id}`, {
      userName: 'alice@example.com',
      displayName: 'A2',
    });
    expect(put.status).toBe(200);
    expect(put.body!.displayName).toBe('A2');
    expect((await req('DELETE', `${SCIM}/Users/${u.id}`)).status).toBe(204);
    const gone = await req('GET', `${SCIM}/Users/${u.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ status: '404', error_code: 'RESOURCE_DOES_NOT_EXIST' });
    expect(gone.body!.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
  });

  it('rejects a duplicate userName (case-insensitively) with 409', async () => {
    await createUser('bob@example.com');
    const dup = await app.request(`${SCIM}/Users`, jsonInit('POST', { userName: 'BOB@example.com' }));
    const body = await expectDatabricksError(dup, 409, 'RESOURCE_ALREADY_EXISTS');
    expect(body).toMatchObject({ status: '409', scimType: 'uniqueness' });
  });

  it('requires a userName', async () => {
    const r = await app.request(`${SCIM}/Users`, jsonInit('POST', { displayName: 'x' }));
    await expectDatabricksError(r, 400, 'INVALID_PARAMETER_VALUE');
  });

  it('pages with a 1-based startIndex that is always echoed', async () => {
    for (let i = 1; i <= 12; i++) await createUser(`u${i}@example.com`);
    const p = await req('GET', `${SCIM}/Users?startIndex=11&count=5`);
    expect(p.body).toMatchObject({ startIndex: 11, totalResults: 13, itemsPerPage: 3 });
    expect(p.body!.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:ListResponse']);
    const past = await req('GET', `${SCIM}/Users?startIndex=1000&count=5`);
    expect(past.body).toMatchObject({ startIndex: 1000, Resources: [] });
    // walking the pages the way the SDK iterator does sees everyone once
    const seen: string[] = [];
    let start = 1;
    for (let guard = 0; guard < 10; guard++) {
      const page = await req('GET', `${SCIM}/Users?startIndex=${start}&count=5`);
      if (page.body!.Resources.length === 0) break;
      seen.push(...page.body!.Resources.map((r: any) => r.userName));
      start = page.body!.startIndex + page.body!.Resources.length;
    }
    expect(seen).toHaveLength(13);
    expect(new Set(seen).size).toBe(13);
  });

  it('filters with eq, co, sw, ne, pr, and/or and parentheses', async () => {
    await createUser('u7@example.com', { displayName: 'Seven', externalId: 'ext-7' });
    await createUser('u8@example.com', { displayName: 'Eight' });
    await createUser('zed@other.org', { displayName: 'Zed' });
    const names = async (filter: string) =>
      (await req('GET', `${SCIM}/Users?filter=${encodeURIComponent(filter)}`)).body!.Resources.map(
        (r: any) => r.userName,
      );
    expect(await names('userName eq "u7@example.com"')).toEqual(['u7@example.com']);
    expect(await names('userName eq "U7@EXAMPLE.COM"')).toEqual(['u7@example.com']);
    expect(await names('userName co "example"')).toEqual(['u7@example.com', 'u8@example.com']);
    expect(await names('displayName sw "Z"')).toEqual(['zed@other.org']);
    expect(await names('externalId pr')).toEqual(['u7@example.com']);
    expect(await names('userName sw "u" and displayName eq "Eight"')).toEqual(['u8@example.com']);
    expect(
      await names('(displayName eq "Seven" or displayName eq "Zed") and userName ne "zed@other.org"'),
    ).toEqual(['u7@example.com']);
    expect(await names('emails.value eq "zed@other.org"')).toEqual(['zed@other.org']);
    expect(await names("displayName eq 'Zed'")).toEqual(['zed@other.org']);
    const bad = await app.request(`${SCIM}/Users?filter=${encodeURIComponent('userName eq')}`);
    const body = await expectDatabricksError(bad, 400, 'INVALID_PARAMETER_VALUE');
    expect(body).toMatchObject({ scimType: 'invalidFilter' });
  });

  it('sorts and projects attributes', async () => {
    await createUser('b@example.com');
    await createUser('a@example.com');
    const sorted = await req('GET', `${SCIM}/Users?sortBy=userName&sortOrder=descending&attributes=userName`);
    expect(sorted.body!.Resources.map((r: any) => r.userName)).toEqual([
      defaultIdentity.userName,
      'b@example.com',
      'a@example.com',
    ]);
    expect(Object.keys(sorted.body!.Resources[0]).sort()).toEqual(['id', 'schemas', 'userName']);
    const excl = await req('GET', `${SCIM}/Users?excludedAttributes=emails,groups`);
    expect(excl.body!.Resources[0].emails).toBeUndefined();
    expect(excl.body!.Resources[0].userName).toBeDefined();
  });

  it('patches active, name, entitlements and roles', async () => {
    const u = await createUser('carol@example.com');
    const r = await req('PATCH', `${SCIM}/Users/${u.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [
        { op: 'replace', path: 'active', value: false },
        { op: 'add', path: 'entitlements', value: [{ value: 'allow-cluster-create' }] },
        { op: 'add', path: 'roles', value: [{ value: 'arn:aws:iam::1:instance-profile/x' }] },
        { op: 'replace', path: 'name.givenName', value: 'Carol' },
      ],
    });
    expect(r.status).toBe(204);
    let got = (await req('GET', `${SCIM}/Users/${u.id}`)).body!;
    expect(got.active).toBe(false);
    expect(got.entitlements).toEqual([{ value: 'allow-cluster-create' }]);
    expect(got.roles).toHaveLength(1);
    expect(got.name.givenName).toBe('Carol');
    await req('PATCH', `${SCIM}/Users/${u.id}`, {
      Operations: [
        { op: 'remove', path: 'entitlements[value eq "allow-cluster-create"]' },
        { op: 'replace', value: { active: true, displayName: 'C' } },
      ],
    });
    got = (await req('GET', `${SCIM}/Users/${u.id}`)).body!;
    expect(got.entitlements).toBeUndefined();
    expect(got.active).toBe(true);
    expect(got.displayName).toBe('C');
    const bad = await app.request(
      `${SCIM}/Users/${u.id}`,
      jsonInit('PATCH', { Operations: [{ op: 'replace', path: 'nonsense', value: 1 }] }),
    );
    await expectDatabricksError(bad, 400, 'INVALID_PARAMETER_VALUE');
    const missing = await app.request(
      `${SCIM}/Users/999`,
      jsonInit('PATCH', { Operations: [{ op: 'replace', path: 'active', value: false }] }),
    );
    await expectDatabricksError(missing, 404, 'RESOURCE_DOES_NOT_EXIST');
  });
});

describe('Groups and service principals', () => {
  it('keeps membership consistent between groups and principals', async () => {
    const u = await createUser('dave@example.com');
    const sp = (await req('POST', `${SCIM}/ServicePrincipals`, { displayName: 'robot' })).body!;
    expect(sp.applicationId).toMatch(/^[0-9a-f-]{36}$/);
    const g = await req('POST', `${SCIM}/Groups`, { displayName: 'data-eng', members: [{ value: u.id }] });
    expect(g.status).toBe(201);
    expect(g.body!.members).toEqual([{ display: 'dave@example.com', value: u.id, $ref: `Users/${u.id}` }]);
    expect(g.body!.meta).toEqual({ resourceType: 'WorkspaceGroup' });
    const gid = g.body!.id as string;

    await req('PATCH', `${SCIM}/Groups/${gid}`, {
      Operations: [{ op: 'add', path: 'members', value: [{ value: sp.id }] }],
    });
    let user = (await req('GET', `${SCIM}/Users/${u.id}`)).body!;
    expect(user.groups.map((x: any) => x.display)).toContain('data-eng');
    const robot = (await req('GET', `${SCIM}/ServicePrincipals/${sp.id}`)).body!;
    expect(robot.groups.map((x: any) => x.value)).toContain(gid);

    await req('PATCH', `${SCIM}/Groups/${gid}`, {
      Operations: [{ op: 'remove', path: `members[value eq "${u.id}"]` }],
    });
    user = (await req('GET', `${SCIM}/Users/${u.id}`)).body!;
    expect(user.groups.map((x: any) => x.display)).not.toContain('data-eng');
    expect((await req('GET', `${SCIM}/Groups/${gid}`)).body!.members.map((m: any) => m.value)).toEqual([
      sp.id,
    ]);

    // deleting a member removes it from its groups
    await req('DELETE', `${SCIM}/ServicePrincipals/${sp.id}`);
    expect((await req('GET', `${SCIM}/Groups/${gid}`)).body!.members).toEqual([]);

    const dup = await app.request(`${SCIM}/Groups`, jsonInit('POST', { displayName: 'data-eng' }));
    await expectDatabricksError(dup, 409, 'RESOURCE_ALREADY_EXISTS');
    const badMember = await app.request(
      `${SCIM}/Groups/${gid}`,
      jsonInit('PATCH', { Operations: [{ op: 'add', path: 'members', value: [{ value: '42' }] }] }),
    );
    await expectDatabricksError(badMember, 404, 'RESOURCE_DOES_NOT_EXIST');
  });

  it('filters groups by displayName and service principals by applicationId', async () => {
    await req('POST', `${SCIM}/Groups`, { displayName: 'analysts' });
    const sp = (await req('POST', `${SCIM}/ServicePrincipals`, { applicationId: 'app-1', displayName: 'x' }))
      .body!;
    const groups = await req(
      'GET',
      `${SCIM}/Groups?filter=${encodeURIComponent('displayName eq "analysts"')}`,
    );
    expect(groups.body!.Resources.map((g: any) => g.displayName)).toEqual(['analysts']);
    const sps = await req(
      'GET',
      `${SCIM}/ServicePrincipals?filter=${encodeURIComponent('applicationId eq "app-1"')}`,
    );
    expect(sps.body!.Resources.map((s: any) => s.id)).toEqual([sp.id]);
    // an unquoted value, as the Python SDK's own tests send it and Databricks accepts it
    await req('POST', `${SCIM}/Groups`, { displayName: 'any-abc123' });
    const unquoted = await req(
      'GET',
      `${SCIM}/Groups?filter=${encodeURIComponent('displayName eq any-abc123')}`,
    );
    expect(unquoted.status).toBe(200);
    expect(unquoted.body!.Resources.map((g: any) => g.displayName)).toEqual(['any-abc123']);
    const none = await req(
      'GET',
      `${SCIM}/Groups?filter=${encodeURIComponent('displayName eq any-nothing')}`,
    );
    expect(none.body!.Resources).toEqual([]);
    const both = await req(
      'GET',
      `${SCIM}/ServicePrincipals?filter=${encodeURIComponent('applicationId eq app-1 and displayName eq x')}`,
    );
    expect(both.body!.Resources.map((s: any) => s.id)).toEqual([sp.id]);
    // still a malformed filter: a value is missing, or an operator is unknown
    for (const f of ['displayName eq', 'displayName zz any-abc123', 'displayName eq (x)']) {
      const res = await app.request(`${SCIM}/Groups?filter=${encodeURIComponent(f)}`);
      const err = await expectDatabricksError(res, 400, 'INVALID_PARAMETER_VALUE');
      expect(err).toMatchObject({ scimType: 'invalidFilter' });
    }
    const dup = await app.request(`${SCIM}/ServicePrincipals`, jsonInit('POST', { applicationId: 'app-1' }));
    await expectDatabricksError(dup, 409, 'RESOURCE_ALREADY_EXISTS');
  });
});
