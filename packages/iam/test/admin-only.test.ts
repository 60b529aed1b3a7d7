/**
 * SCIM writes and token management are workspace admins' (MINILAKE_AUTH=tokens makes the caller a real
 * principal): a user who is not in `admins` is refused 403 in SCIM's or Databricks' error shape, reads (/Me,
 * get and list users) stay open, and an admin keeps every call. Without authentication the caller is the
 * configured user, an admin, so nothing changes there.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { runAsPrincipal, type Principal } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { iamService, type IamStore } from '../src/index.js';

let app: Hono;
let store: IamStore;
const SCIM = '/api/2.0/preview/scim/v2';

beforeEach(async () => {
  const s = await serviceApp(iamService, {});
  app = s.app;
  store = s.instance.state[0] as IamStore;
});

const req = async (who: Principal | undefined, method: string, path: string, body?: unknown) => {
  const run = () => app.request(path, body === undefined ? { method } : jsonInit(method, body));
  const res = who ? await runAsPrincipal(who, run) : await run();
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
};

async function user(userName: string): Promise<Principal> {
  const r = await req(undefined, 'POST', `${SCIM}/Users`, { userName });
  expect(r.status).toBe(201);
  return store.directory.principalById(r.body!.id as string)!;
}

describe('admin-only SCIM writes and token management', () => {
  it('refuses a non-admin every SCIM write, in SCIM error form, and keeps reads open', async () => {
    const alice = await user('alice@example.com');
    const bob = await user('bob@example.com');
    const writes: [string, string, unknown][] = [
      ['POST', `${SCIM}/Users`, { userName: 'eve@example.com' }],
      ['PUT', `${SCIM}/Users/${bob.id}`, { userName: 'bob@example.com', displayName: 'B' }],
      [
        'PATCH',
        `${SCIM}/Users/${bob.id}`,
        {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'replace', path: 'displayName', value: 'B' }],
        },
      ],
      ['DELETE', `${SCIM}/Users/${bob.id}`, undefined],
      ['POST', `${SCIM}/Groups`, { displayName: 'g' }],
      ['POST', `${SCIM}/ServicePrincipals`, { displayName: 'robot' }],
    ];
    for (const [method, path, body] of writes) {
      const r = await req(alice, method, path, body);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toEqual({
        error_code: 'PERMISSION_DENIED',
        message: 'User not authorized.',
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        detail: 'User not authorized.',
        status: '403',
      });
    }
    expect(store.directory.principalById(bob.id)).toBeDefined();
    expect((await req(alice, 'GET', `${SCIM}/Me`)).body!.userName).toBe('alice@example.com');
    expect((await req(alice, 'GET', `${SCIM}/Users/${bob.id}`)).status).toBe(200);
    expect((await req(alice, 'GET', `${SCIM}/Users`)).status).toBe(200);
    expect((await req(alice, 'GET', `${SCIM}/Groups`)).status).toBe(200);
  });

  it('refuses a non-admin token management, keeps its own tokens, and lets admins manage', async () => {
    const alice = await user('alice@example.com');
    const sp = await req(undefined, 'POST', `${SCIM}/ServicePrincipals`, { displayName: 'robot' });
    const appId = sp.body!.applicationId as string;
    const own = await req(alice, 'POST', '/api/2.0/token/create', { comment: 'mine' });
    expect(own.status).toBe(200);
    expect((await req(alice, 'GET', '/api/2.0/token/list')).body!.token_infos).toHaveLength(1);
    const denied = {
      error_code: 'PERMISSION_DENIED',
      message: 'Only Admins can access token management APIs.',
    };
    for (const [method, path, body] of [
      ['POST', '/api/2.0/token-management/on-behalf-of/tokens', { application_id: appId }],
      ['GET', '/api/2.0/token-management/tokens', undefined],
      ['GET', `/api/2.0/token-management/tokens/${own.body!.token_info.token_id as string}`, undefined],
      ['DELETE', `/api/2.0/token-management/tokens/${own.body!.token_info.token_id as string}`, undefined],
    ] as const) {
      const r = await req(alice, method, path, body);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toEqual(denied);
    }
    // The configured user (an admin) manages everyone's tokens.
    const obo = await req(undefined, 'POST', '/api/2.0/token-management/on-behalf-of/tokens', {
      application_id: appId,
    });
    expect(obo.status).toBe(200);
    const all = await req(undefined, 'GET', '/api/2.0/token-management/tokens');
    expect(all.body!.token_infos).toHaveLength(2);
  });

  it("refuses a non-admin a service principal's OAuth secrets, which would let them act as it", async () => {
    const alice = await user('alice@example.com');
    const sp = await req(undefined, 'POST', `${SCIM}/ServicePrincipals`, { displayName: 'robot' });
    const secrets = `/api/2.0/accounts/servicePrincipals/${sp.body!.id as string}/credentials/secrets`;
    for (const [method, path] of [
      ['POST', secrets],
      ['GET', secrets],
      ['DELETE', `${secrets}/1`],
    ] as const) {
      const r = await req(alice, method, path, method === 'POST' ? {} : undefined);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body!.error_code).toBe('PERMISSION_DENIED');
    }
    expect((await req(undefined, 'POST', secrets, {})).status).toBe(200);
  });
});
