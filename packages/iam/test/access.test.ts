/**
 * MINILAKE_ENFORCE=1, the rules iam owns: which level a principal holds on an object (levels ordered per
 * type, the creator's ownership, groups nested, `users`, `admins`, inheritance down parents), and the
 * refusal when it lacks one. Driven through IamApi.can / check, as the owning services call them, as the
 * principals the host would authenticate.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { runAsPrincipal, type Principal } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { iamService, IamStore, type IamApi } from '../src/index.js';

let app: Hono;
let store: IamStore;
let iam: IamApi;
/** Who created which object: the owning service's record. */
const creators = new Map<string, string>();
/** Which folder each workspace object is in. */
const parents = new Map<string, string>();

beforeEach(async () => {
  const s = await serviceApp(iamService, { config: { MINILAKE_ENFORCE: '1' } });
  app = s.app;
  store = s.instance.state[0] as IamStore;
  iam = s.instance.api!;
  creators.clear();
  parents.clear();
  iam.registerObjectType(
    {
      request: 'jobs',
      objectType: 'job',
      levels: ['CAN_VIEW', 'CAN_MANAGE_RUN', 'IS_OWNER', 'CAN_MANAGE'],
      owner: 'IS_OWNER',
      ownerRequired: true,
      admins: 'CAN_MANAGE',
      order: ['CAN_VIEW', 'CAN_MANAGE_RUN', 'CAN_MANAGE', 'IS_OWNER'],
      noun: 'job',
    },
    { exists: () => true, owner: (id) => creators.get(id) },
  );
  for (const request of ['directories', 'notebooks'])
    iam.registerObjectType(
      {
        request,
        objectType: request.slice(0, -1),
        levels: ['CAN_READ', 'CAN_RUN', 'CAN_EDIT', 'CAN_MANAGE'],
        owner: 'CAN_MANAGE',
        admins: 'CAN_MANAGE',
        adminsFrom: '/directories/0',
      },
      {
        exists: () => true,
        owner: (id) => creators.get(id),
        parent: (id) => (parents.has(id) ? { request: 'directories', id: parents.get(id)! } : undefined),
      },
    );
});

const req = async (method: string, path: string, body?: unknown) => {
  const res = await app.request(path, jsonInit(method, body));
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
};

async function user(userName: string): Promise<Principal> {
  const r = await req('POST', '/api/2.0/preview/scim/v2/Users', { userName });
  expect(r.status).toBe(201);
  return store.directory.principalById(r.body!.id as string)!;
}
async function sp(displayName: string): Promise<Principal> {
  const r = await req('POST', '/api/2.0/preview/scim/v2/ServicePrincipals', { displayName });
  expect(r.status).toBe(201);
  return store.directory.principalById(r.body!.id as string)!;
}
async function group(displayName: string, memberIds: string[]): Promise<string> {
  const r = await req('POST', '/api/2.0/preview/scim/v2/Groups', {
    displayName,
    members: memberIds.map((value) => ({ value })),
  });
  expect(r.status).toBe(201);
  return r.body!.id as string;
}
const grant = async (path: string, entry: Record<string, string>) =>
  expect((await req('PATCH', `/api/2.0/permissions/${path}`, { access_control_list: [entry] })).status).toBe(
    200,
  );
/** Re-reads a principal (its groups change as groups do), as the host does per request. */
const fresh = (p: Principal) => store.directory.principalById(p.id)!;
const can = (p: Principal, type: string, id: string, level: string) =>
  runAsPrincipal(fresh(p), () => iam.can(type, id, level));

describe('object permissions (MINILAKE_ENFORCE=1)', () => {
  it('is on', () => expect(iam.enforcing).toBe(true));

  it('orders levels per type: a stronger level grants the weaker ones, not the stronger', async () => {
    const alice = await user('alice@example.com');
    creators.set('1', 'dev@minilake.local');
    await grant('jobs/1', { user_name: 'alice@example.com', permission_level: 'CAN_MANAGE_RUN' });
    expect(can(alice, 'jobs', '1', 'CAN_VIEW')).toBe(true);
    expect(can(alice, 'jobs', '1', 'CAN_MANAGE_RUN')).toBe(true);
    expect(can(alice, 'jobs', '1', 'CAN_MANAGE')).toBe(false);
    expect(can(alice, 'jobs', '1', 'IS_OWNER')).toBe(false);
  });

  it('gives the creator the owner level until an ACL is set, and only the creator', async () => {
    const alice = await user('alice@example.com');
    const bob = await user('bob@example.com');
    creators.set('2', 'alice@example.com');
    expect(can(alice, 'jobs', '2', 'CAN_MANAGE')).toBe(true);
    expect(can(alice, 'jobs', '2', 'IS_OWNER')).toBe(true);
    expect(can(bob, 'jobs', '2', 'CAN_VIEW')).toBe(false);
    // An object whose creator is unknown is nobody's: asking does not make the caller its owner.
    expect(can(bob, 'jobs', '3', 'CAN_VIEW')).toBe(false);
  });

  it('passes the admins group everywhere', async () => {
    const root = await user('root@example.com');
    const adminsId = store.directory.list('Group', { filter: 'displayName eq "admins"' }).Resources[0]!
      .id as string;
    await req('PATCH', `/api/2.0/preview/scim/v2/Groups/${adminsId}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: 'members', value: [{ value: root.id }] }],
    });
    creators.set('4', 'nobody@example.com');
    expect(can(root, 'jobs', '4', 'IS_OWNER')).toBe(true);
  });

  it('counts grants to groups, nested groups and `users`', async () => {
    const carol = await user('carol@example.com');
    const robot = await sp('robot');
    const inner = await group('inner', [carol.id, robot.id]);
    await group('outer', [inner]);
    creators.set('5', 'dev@minilake.local');
    expect(can(carol, 'jobs', '5', 'CAN_VIEW')).toBe(false);
    await grant('jobs/5', { group_name: 'outer', permission_level: 'CAN_MANAGE_RUN' });
    expect(can(carol, 'jobs', '5', 'CAN_MANAGE_RUN')).toBe(true);
    expect(can(robot, 'jobs', '5', 'CAN_MANAGE_RUN')).toBe(true);
    creators.set('6', 'dev@minilake.local');
    const dave = await user('dave@example.com');
    await grant('jobs/6', { group_name: 'users', permission_level: 'CAN_VIEW' });
    expect(can(dave, 'jobs', '6', 'CAN_VIEW')).toBe(true);
    expect(can(dave, 'jobs', '6', 'CAN_MANAGE_RUN')).toBe(false);
  });

  it('names a service principal by its applicationId, and a user entry is no service principal grant', async () => {
    const robot = await sp('robot');
    creators.set('7', 'dev@minilake.local');
    await grant('jobs/7', { service_principal_name: robot.userName, permission_level: 'CAN_MANAGE' });
    expect(can(robot, 'jobs', '7', 'CAN_MANAGE')).toBe(true);
    expect(can(robot, 'jobs', '7', 'IS_OWNER')).toBe(false);
  });

  it('inherits down folders: a folder grant reaches the notebooks below it, a notebook grant stays put', async () => {
    const erin = await user('erin@example.com');
    for (const id of ['10', '11', '12']) creators.set(id, 'dev@minilake.local');
    parents.set('11', '10'); // folder 11 in folder 10
    parents.set('12', '11'); // notebook 12 in folder 11
    expect(can(erin, 'notebooks', '12', 'CAN_READ')).toBe(false);
    await grant('directories/10', { user_name: 'erin@example.com', permission_level: 'CAN_RUN' });
    expect(can(erin, 'notebooks', '12', 'CAN_RUN')).toBe(true);
    expect(can(erin, 'notebooks', '12', 'CAN_EDIT')).toBe(false);
    await grant('notebooks/12', { user_name: 'erin@example.com', permission_level: 'CAN_EDIT' });
    expect(can(erin, 'notebooks', '12', 'CAN_EDIT')).toBe(true);
    expect(can(erin, 'directories', '11', 'CAN_EDIT')).toBe(false);
  });

  it("inherits across types: an experiment takes its folder's levels that it has too", async () => {
    const fay = await user('fay@example.com');
    iam.registerObjectType(
      {
        request: 'experiments',
        objectType: 'mlflowExperiment',
        levels: ['CAN_READ', 'CAN_EDIT', 'CAN_MANAGE'],
        owner: 'CAN_MANAGE',
        admins: 'CAN_MANAGE',
        noun: 'experiment',
      },
      {
        exists: () => true,
        owner: () => 'dev@minilake.local',
        parent: () => ({ request: 'directories', id: '20' }),
      },
    );
    creators.set('20', 'dev@minilake.local');
    // CAN_RUN is no experiment level: it gives nothing there.
    await grant('directories/20', { user_name: 'fay@example.com', permission_level: 'CAN_RUN' });
    expect(can(fay, 'experiments', '5', 'CAN_READ')).toBe(false);
    await grant('directories/20', { user_name: 'fay@example.com', permission_level: 'CAN_EDIT' });
    expect(can(fay, 'experiments', '5', 'CAN_EDIT')).toBe(true);
    expect(can(fay, 'experiments', '5', 'CAN_MANAGE')).toBe(false);
    expect(() => runAsPrincipal(fresh(fay), () => iam.check('experiments', '5', 'CAN_MANAGE'))).toThrow(
      'User fay@example.com does not have Manage or Admin permissions on experiment 5',
    );
  });

  it('refuses with Databricks PERMISSION_DENIED naming the caller, the level and the object', async () => {
    const robot = await sp('robot');
    creators.set('8', 'dev@minilake.local');
    let caught: unknown;
    try {
      runAsPrincipal(fresh(robot), () => iam.check('jobs', '8', 'CAN_MANAGE_RUN'));
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({
      status: 403,
      errorCode: 'PERMISSION_DENIED',
      message: `User ${robot.userName} does not have Manage Run or Owner or Admin permissions on job 8`,
    });
  });

  it("words a refusal as the type declares Databricks' own (jobs, recorded by the Databricks CLI)", async () => {
    iam.registerObjectType(
      {
        request: 'jobs',
        objectType: 'job',
        levels: ['CAN_VIEW', 'CAN_MANAGE_RUN', 'IS_OWNER', 'CAN_MANAGE'],
        owner: 'IS_OWNER',
        admins: 'CAN_MANAGE',
        order: ['CAN_VIEW', 'CAN_MANAGE_RUN', 'CAN_MANAGE', 'IS_OWNER'],
        noun: 'job',
        refusal: {
          words: { CAN_VIEW: 'View', CAN_MANAGE: 'Admin', CAN_MANAGE_RUN: 'Manage Run', IS_OWNER: 'Owner' },
          order: ['CAN_VIEW', 'CAN_MANAGE', 'CAN_MANAGE_RUN', 'IS_OWNER'],
        },
        aclNoun: 'Job with ID: ElasticJobId({id})',
      },
      { exists: () => true, owner: (id) => creators.get(id) },
    );
    const robot = await sp('robot');
    creators.set('8', 'dev@minilake.local');
    const refusal = (level: string) => () =>
      runAsPrincipal(fresh(robot), () => iam.check('jobs', '8', level));
    expect(refusal('CAN_VIEW')).toThrow(
      `User ${robot.userName} does not have View or Admin or Manage Run or Owner permissions on job 8`,
    );
    expect(refusal('CAN_MANAGE')).toThrow(
      `User ${robot.userName} does not have Admin or Owner permissions on job 8`,
    );
    const acl = await runAsPrincipal(fresh(robot), () => app.request('/api/2.0/permissions/jobs/8'));
    expect((await expectDatabricksError(acl, 403, 'PERMISSION_DENIED')).message).toBe(
      `${robot.userName} does not have Manage permissions on Job with ID: ElasticJobId(8). Please contact the owner or an administrator for access.`,
    );
  });

  it('lets only a CAN_MANAGE holder read or change an ACL', async () => {
    const frank = await user('frank@example.com');
    creators.set('9', 'dev@minilake.local');
    const as = (p: Principal, method: string, body?: unknown) =>
      runAsPrincipal(fresh(p), () => app.request('/api/2.0/permissions/jobs/9', jsonInit(method, body)));
    await expectDatabricksError(await as(frank, 'GET'), 403, 'PERMISSION_DENIED');
    await grant('jobs/9', { user_name: 'frank@example.com', permission_level: 'CAN_MANAGE' });
    expect((await as(frank, 'GET')).status).toBe(200);
    // permissionLevels is open to everyone.
    const dora = await user('dora@example.com');
    expect(
      (await runAsPrincipal(fresh(dora), () => app.request('/api/2.0/permissions/jobs/9/permissionLevels')))
        .status,
    ).toBe(200);
  });

  it('evaluates an ACL another service keeps (secret scopes): names, groups, users, admins, order', async () => {
    const gina = await user('gina@example.com');
    const robot = await sp('robot');
    await group('readers', [robot.id]);
    const ORDER = ['READ', 'WRITE', 'MANAGE'];
    const holds = (p: Principal, acl: { principal: string; level: string }[], level: string) =>
      runAsPrincipal(fresh(p), () => iam.holdsIn(acl, ORDER, level));
    expect(holds(gina, [{ principal: 'gina@example.com', level: 'WRITE' }], 'READ')).toBe(true);
    expect(holds(gina, [{ principal: 'gina@example.com', level: 'WRITE' }], 'MANAGE')).toBe(false);
    expect(holds(robot, [{ principal: 'readers', level: 'READ' }], 'READ')).toBe(true);
    expect(holds(robot, [{ principal: robot.userName, level: 'MANAGE' }], 'MANAGE')).toBe(true);
    expect(holds(gina, [{ principal: 'readers', level: 'MANAGE' }], 'READ')).toBe(false);
    expect(holds(gina, [{ principal: 'users', level: 'READ' }], 'READ')).toBe(true);
    const admin = store.directory.principalById(store.directory.meId())!;
    expect(runAsPrincipal(admin, () => iam.holdsIn([], ORDER, 'MANAGE'))).toBe(true);
  });

  it('checks nothing without MINILAKE_ENFORCE=1', async () => {
    const s = await serviceApp(iamService);
    const api = s.instance.api!;
    api.registerObjectType(
      { request: 'jobs', objectType: 'job', levels: ['CAN_VIEW'], admins: 'CAN_VIEW' },
      { exists: () => true },
    );
    expect(api.enforcing).toBe(false);
    const robot = await sp('robot');
    expect(runAsPrincipal(robot, () => api.can('jobs', '1', 'CAN_VIEW'))).toBe(true);
  });
});
