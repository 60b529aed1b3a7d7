/**
 * Issue 30, first slice, in process: MINILAKE_AUTH=tokens (who a token is, 401 for the rest, /Me as the
 * caller, OAuth M2M for a service principal, token expiry by the clock) and /_minilake/faults. The default
 * ("any token is the default user") is checked too, since it must not change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { defaultIdentity, ManualClock, requestPrincipal } from '@minilake/core';
import { installAuth } from '../src/host/auth.js';
import { Faults } from '../src/host/faults.js';
import { createMinilake, parseConfig, type Minilake } from '../src/index.js';

const ADMIN = 'test-admin-token';
type Json = Record<string, any>;

async function call(ml: Minilake, token: string | undefined, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const res = await ml.app.request(path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Json };
}

describe('MINILAKE_AUTH=any (the default)', () => {
  it('accepts no token and any token as the configured user', async () => {
    const ml = await createMinilake(parseConfig({ MINILAKE_SERVICES: 'iam', MINILAKE_LOG_LEVEL: 'silent' }));
    try {
      expect((await call(ml, undefined, 'GET', '/api/2.0/preview/scim/v2/Me')).body.userName).toBe(
        'dev@minilake.local',
      );
      expect((await call(ml, 'anything', 'GET', '/api/2.0/token/list')).status).toBe(200);
    } finally {
      await ml.close();
    }
  });
});

describe('MINILAKE_AUTH=tokens', () => {
  const clock = new ManualClock(Date.now());
  let ml: Minilake;
  let sp: { id: string; app: string; token: string };

  beforeAll(async () => {
    ml = await createMinilake(
      parseConfig({
        MINILAKE_SERVICES: 'secrets',
        MINILAKE_AUTH: 'tokens',
        MINILAKE_ADMIN_TOKEN: ADMIN,
        MINILAKE_LOG_LEVEL: 'silent',
      }),
      { clock },
    );
    const created = await call(ml, ADMIN, 'POST', '/api/2.0/preview/scim/v2/ServicePrincipals', {
      displayName: 'ci-bot',
    });
    expect(created.status).toBe(201);
    const obo = await call(ml, ADMIN, 'POST', '/api/2.0/token-management/on-behalf-of/tokens', {
      application_id: created.body.applicationId,
      lifetime_seconds: 600,
    });
    expect(obo.status).toBe(200);
    sp = { id: created.body.id, app: created.body.applicationId, token: obo.body.token_value };
  });
  afterAll(() => ml.close());

  it('turns iam on', () => expect(ml.services).toContain('iam'));

  it('answers 401 without a token and for a made-up one, as Databricks does', async () => {
    for (const token of [undefined, 'made-up']) {
      const r = await call(ml, token, 'GET', '/api/2.0/secrets/scopes/list');
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error_code: '401', message: expect.any(String) });
      expect(r.headers.get('x-databricks-reason-phrase')).toBe(r.body.message);
    }
  });

  it('leaves probes, discovery and the OAuth metadata open', async () => {
    for (const p of [
      '/_minilake/health',
      '/_minilake/ready',
      '/.well-known/databricks-config',
      '/oidc/.well-known/oauth-authorization-server',
    ])
      expect((await call(ml, undefined, 'GET', p)).status, p).toBe(200);
    const cfg = (await call(ml, undefined, 'GET', '/.well-known/databricks-config')).body;
    const meta = (await call(ml, undefined, 'GET', '/oidc/.well-known/oauth-authorization-server')).body;
    expect(meta.token_endpoint).toBe(`${cfg.oidc_endpoint}/v1/token`);
  });

  it('maps the admin token to the configured user and an on-behalf-of token to its service principal', async () => {
    expect((await call(ml, ADMIN, 'GET', '/api/2.0/preview/scim/v2/Me')).body.userName).toBe(
      'dev@minilake.local',
    );
    const me = await call(ml, sp.token, 'GET', '/api/2.0/preview/scim/v2/Me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: sp.id, userName: sp.app });
  });

  it('gives a token created by a service principal to it, and refuses it once deleted', async () => {
    const created = await call(ml, sp.token, 'POST', '/api/2.0/token/create', { comment: 'own' });
    expect(created.status).toBe(200);
    const own = await call(ml, sp.token, 'GET', '/api/2.0/token/list');
    expect(own.body.token_infos.map((t: Json) => t.comment)).toContain('own');
    const admins = await call(ml, ADMIN, 'GET', '/api/2.0/token/list');
    expect(admins.body.token_infos ?? []).not.toContainEqual(expect.objectContaining({ comment: 'own' }));
    const value = created.body.token_value as string;
    expect((await call(ml, value, 'GET', '/api/2.0/preview/scim/v2/Me')).body.userName).toBe(sp.app);
    await call(ml, ADMIN, 'DELETE', `/api/2.0/token-management/tokens/${created.body.token_info.token_id}`);
    expect((await call(ml, value, 'GET', '/api/2.0/preview/scim/v2/Me')).status).toBe(401);
  });

  it('refuses an expired token (by the clock)', async () => {
    const short = await call(ml, ADMIN, 'POST', '/api/2.0/token/create', { lifetime_seconds: 60 });
    const value = short.body.token_value as string;
    expect((await call(ml, value, 'GET', '/api/2.0/token/list')).status).toBe(200);
    clock.advance(61_000);
    expect((await call(ml, value, 'GET', '/api/2.0/token/list')).status).toBe(401);
  });

  it('exchanges a service principal secret for a token with client_credentials', async () => {
    const secret = await call(
      ml,
      ADMIN,
      'POST',
      `/api/2.0/accounts/servicePrincipals/${sp.id}/credentials/secrets`,
      {},
    );
    expect(secret.status).toBe(200);
    expect(secret.body).toMatchObject({ status: 'ACTIVE', secret: expect.stringMatching(/^dose/) });
    const listed = await call(
      ml,
      ADMIN,
      'GET',
      `/api/2.0/accounts/servicePrincipals/${sp.id}/credentials/secrets`,
    );
    expect(listed.body.secrets).toHaveLength(1);
    expect(listed.body.secrets[0].secret).toBeUndefined();

    const exchange = (user: string, pass: string, grant = 'client_credentials') =>
      ml.app.request('/oidc/v1/token', {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: `grant_type=${grant}&scope=all-apis`,
      });
    const ok = await exchange(sp.app, secret.body.secret);
    expect(ok.status).toBe(200);
    const tok = (await ok.json()) as Json;
    expect(tok).toMatchObject({ token_type: 'Bearer', expires_in: 3600, access_token: expect.any(String) });
    expect((await call(ml, tok.access_token, 'GET', '/api/2.0/preview/scim/v2/Me')).body.userName).toBe(
      sp.app,
    );

    const bad = await exchange(sp.app, 'wrong');
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
    expect((await exchange(sp.app, secret.body.secret, 'password')).status).toBe(400);

    await call(
      ml,
      ADMIN,
      'DELETE',
      `/api/2.0/accounts/servicePrincipals/${sp.id}/credentials/secrets/${secret.body.id}`,
    );
    expect((await exchange(sp.app, secret.body.secret)).status).toBe(401);
  });

  describe('faults', () => {
    it('lets only an admin manage them', async () => {
      expect((await call(ml, sp.token, 'GET', '/_minilake/faults')).status).toBe(403);
      expect((await call(ml, undefined, 'GET', '/_minilake/faults')).status).toBe(401);
    });

    it('fires count times on the exact method and path with the Databricks body, then lets requests through', async () => {
      const f = await call(ml, ADMIN, 'POST', '/_minilake/faults', {
        method: 'GET',
        path: '/api/2.0/secrets/scopes/list',
        status: 429,
        error_code: 'REQUEST_LIMIT_EXCEEDED',
        message: 'slow down',
        count: 2,
        retry_after_seconds: 1,
      });
      expect(f.status).toBe(200);
      // Another method, or a path that only starts the same, is not matched by an exact fault.
      expect((await call(ml, ADMIN, 'GET', '/api/2.0/secrets/scopes/listx')).status).not.toBe(429);
      for (let i = 0; i < 2; i++) {
        const r = await call(ml, ADMIN, 'GET', '/api/2.0/secrets/scopes/list');
        expect(r.status).toBe(429);
        expect(r.body).toEqual({ error_code: 'REQUEST_LIMIT_EXCEEDED', message: 'slow down' });
        expect(r.headers.get('retry-after')).toBe('1');
      }
      expect((await call(ml, ADMIN, 'GET', '/api/2.0/secrets/scopes/list')).status).toBe(200);
      const listed = await call(ml, ADMIN, 'GET', '/_minilake/faults');
      expect(listed.body.faults).toContainEqual(
        expect.objectContaining({ id: f.body.id, path: '/api/2.0/secrets/scopes/list', count: 2, used: 2 }),
      );
    });

    it('matches a prefix when the path ends in *, and DELETE clears them', async () => {
      await call(ml, ADMIN, 'POST', '/_minilake/faults', { path: '/api/2.0/secrets/*', status: 503 });
      const r = await call(ml, ADMIN, 'POST', '/api/2.0/secrets/scopes/create', { scope: 'x' });
      expect(r.status).toBe(503);
      expect(r.body.error_code).toBe('TEMPORARILY_UNAVAILABLE');
      expect((await call(ml, ADMIN, 'DELETE', '/_minilake/faults')).status).toBe(200);
      expect((await call(ml, ADMIN, 'GET', '/_minilake/faults')).body.faults).toEqual([]);
      expect((await call(ml, ADMIN, 'POST', '/api/2.0/secrets/scopes/create', { scope: 'x' })).status).toBe(
        200,
      );
    });

    it('are cleared by a full reset', async () => {
      await call(ml, ADMIN, 'POST', '/_minilake/faults', { path: '/api/2.0/secrets/scopes/list' });
      expect((await call(ml, ADMIN, 'POST', '/_minilake/reset?services=secrets')).status).toBe(200);
      expect((await call(ml, ADMIN, 'GET', '/_minilake/faults')).body.faults).toHaveLength(1);
      expect((await call(ml, ADMIN, 'POST', '/_minilake/reset')).status).toBe(200);
      expect((await call(ml, ADMIN, 'GET', '/_minilake/faults')).body.faults).toEqual([]);
    });

    it('delays a request by latency_ms on the clock, then lets it through when it has no status', async () => {
      await call(ml, ADMIN, 'POST', '/_minilake/faults', {
        method: 'GET',
        path: '/api/2.0/secrets/scopes/list',
        latency_ms: 5000,
        count: 1,
      });
      let done = false;
      const pending = call(ml, ADMIN, 'GET', '/api/2.0/secrets/scopes/list').finally(() => (done = true));
      // Wait until the request is held by the fault, then move the clock past its latency.
      for (let i = 0; i < 1000; i++) {
        const f = (await call(ml, ADMIN, 'GET', '/_minilake/faults')).body.faults[0];
        if (f.used === 1) break;
        await new Promise((r) => setImmediate(r));
      }
      clock.advance(4000);
      await new Promise((r) => setImmediate(r));
      expect(done).toBe(false);
      clock.advance(1000);
      expect((await pending).status).toBe(200);
      await call(ml, ADMIN, 'DELETE', '/_minilake/faults');
    });

    it('fires with its probability', () => {
      const never = new Faults(() => 0.9);
      never.add({ target: 'http', path: '/x', probability: 0.5, error_code: 'E', message: 'm' });
      expect(never.take('GET', '/x')).toBeUndefined();
      const always = new Faults(() => 0.1);
      always.add({ target: 'http', path: '/x', probability: 0.5, error_code: 'E', message: 'm' });
      expect(always.take('GET', '/x')).toMatchObject({ status: 503, used: 1 });
    });

    it('fails job tasks by task key and statements by text, each its count of times', () => {
      const f = new Faults();
      f.add({ target: 'task', task_key: 'etl_*', error_code: 'E', message: 'task down', count: 1 });
      f.add({ target: 'statement', statement: 'from big', error_code: 'INTERNAL_ERROR', message: 'boom' });
      expect(f.takeAt('task', 'other')).toBeUndefined();
      expect(f.takeAt('task', 'etl_daily')).toEqual({ error_code: 'E', message: 'task down' });
      expect(f.takeAt('task', 'etl_daily')).toBeUndefined();
      expect(f.takeAt('statement', 'SELECT * FROM Big')).toEqual({
        error_code: 'INTERNAL_ERROR',
        message: 'boom',
      });
      // A request never matches a task or statement fault, nor a task a statement's.
      expect(f.take('GET', '/etl_daily')).toBeUndefined();
      expect(f.takeAt('task', 'from big')).toBeUndefined();
    });

    it("refuses a fault that lacks its target's field or mixes targets", async () => {
      for (const [body, word] of [
        [{ target: 'task' }, 'needs task_key'],
        [{ target: 'statement', statement: 'x', path: '/a' }, 'takes no path'],
        [{ path: '/a', task_key: 'k' }, 'takes no task_key'],
        [{ target: 'disk', path: '/a' }, 'target'],
      ] as const) {
        const r = await call(ml, ADMIN, 'POST', '/_minilake/faults', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.message).toContain(word);
      }
    });

    it('refuses a bad fault with 400 naming the field', async () => {
      const r = await call(ml, ADMIN, 'POST', '/_minilake/faults', { path: 'no-slash', status: 200 });
      expect(r.status).toBe(400);
      expect(r.body.error_code).toBe('INVALID_PARAMETER_VALUE');
    });
  });
});

describe('MINILAKE_AUTH=tokens with MCP', () => {
  it("serves MCP's in-process REST calls as the authenticated caller", async () => {
    const ml = await createMinilake(
      parseConfig({
        MINILAKE_SERVICES: 'secrets',
        MINILAKE_MCP: '1',
        MINILAKE_AUTH: 'tokens',
        MINILAKE_ADMIN_TOKEN: ADMIN,
        MINILAKE_LOG_LEVEL: 'silent',
      }),
    );
    try {
      const rpc = (token: string | undefined) =>
        ml.app.request('http://localhost/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'create_secret_scope', arguments: { scope: 'via-mcp' } },
          }),
        });
      expect((await rpc(undefined)).status).toBe(401);
      const res = await rpc(ADMIN);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect(text).toContain('\\"created\\":true');
      const scopes = await call(ml, ADMIN, 'GET', '/api/2.0/secrets/scopes/list');
      expect(scopes.body.scopes).toContainEqual(expect.objectContaining({ name: 'via-mcp' }));
    } finally {
      await ml.close();
    }
  });
});

describe('installAuth', () => {
  it("accepts the host's own token (its Spark processes') as the configured user, beside the admin token", async () => {
    const app = new Hono();
    installAuth(app, {
      identity: defaultIdentity,
      adminToken: 'adm',
      hostToken: 'host-own',
      authenticator: async () => (t) =>
        t === 'issued' ? { kind: 'user', userName: 'u@x', id: '7', displayName: 'u', groups: [] } : undefined,
    });
    app.get('/api/2.0/who', (c) => c.json({ who: requestPrincipal()?.userName ?? null }));
    const who = async (token?: string) => {
      const res = await app.request(
        '/api/2.0/who',
        token ? { headers: { authorization: `Bearer ${token}` } } : {},
      );
      return res.status === 200 ? ((await res.json()) as { who: string }).who : res.status;
    };
    expect(await who('host-own')).toBe(defaultIdentity.userName);
    expect(await who('adm')).toBe(defaultIdentity.userName);
    expect(await who('issued')).toBe('u@x');
    expect(await who('other')).toBe(401);
    expect(await who()).toBe(401);
  });
});
