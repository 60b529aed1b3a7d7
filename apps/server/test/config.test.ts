import { describe, expect, it } from 'vitest';
import { ConfigError, createMinilake, parseConfig, serviceNames } from '../src/index.js';

describe('configuration', () => {
  it('has embedded defaults', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      port: 8000,
      host: '127.0.0.1',
      persist: false,
      logLevel: 'info',
      wasmOptimize: false,
    });
    expect(parseConfig({ MINILAKE_WASM_OPTIMIZE: '1' }).wasmOptimize).toBe(true);
    expect(c.services).toEqual(serviceNames);
  });

  it('flags win over the environment', () => {
    expect(parseConfig({ MINILAKE_PORT: '9000' }, { port: '0', host: '0.0.0.0' })).toMatchObject({
      port: 0,
      host: '0.0.0.0',
    });
  });

  it('fails fast listing every bad value', () => {
    let err: unknown;
    try {
      parseConfig({
        MINILAKE_PORT: 'eighty',
        MINILAKE_PERSIST: 'perhaps',
        MINILAKE_SERVICES: 'secrets,nope',
        MINILAKE_LOG_LEVEL: 'loud',
        MINILAKE_WASM_OPTIMIZE: 'turbo',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toContain('MINILAKE_PORT');
    expect(problems).toContain('MINILAKE_PERSIST');
    expect(problems).toContain('nope');
    expect(problems).toContain('Valid: ');
    expect(problems).toContain('MINILAKE_LOG_LEVEL');
    expect(problems).toContain('MINILAKE_WASM_OPTIMIZE');
  });
});

describe('composition in process', () => {
  it('mounts only the selected services; the rest of /api is 501', async () => {
    const ml = await createMinilake(
      parseConfig({ MINILAKE_SERVICES: 'secrets', MINILAKE_LOG_LEVEL: 'silent' }),
    );
    try {
      expect(ml.services).toEqual(['secrets']);
      expect((await ml.app.request('/api/2.0/secrets/scopes/list')).status).toBe(200);
      const res = await ml.app.request('/api/2.1/unity-catalog/catalogs');
      expect(res.status).toBe(501);
      expect(await (res.json() as Promise<any>)).toMatchObject({ error_code: 'NOT_IMPLEMENTED' });
      const services = await ((await ml.app.request('/_minilake/services')).json() as Promise<any>);
      expect(services.enabled).toEqual(['secrets']);
    } finally {
      await ml.close();
    }
  });

  it('reset empties every service, or only the named ones', async () => {
    const ml = await createMinilake(parseConfig({ MINILAKE_LOG_LEVEL: 'silent' }));
    try {
      const create = (scope: string) =>
        ml.app.request('/api/2.0/secrets/scopes/create', { method: 'POST', body: JSON.stringify({ scope }) });
      expect((await create('s1')).status).toBe(200);
      expect((await ml.app.request('/_minilake/reset?services=nope', { method: 'POST' })).status).toBe(400);
      expect((await ml.app.request('/_minilake/reset?services=secrets', { method: 'POST' })).status).toBe(
        200,
      );
      expect(await ((await ml.app.request('/api/2.0/secrets/scopes/list')).json() as Promise<any>)).toEqual({
        scopes: [],
      });
      await create('s2');
      expect((await ml.app.request('/_minilake/reset', { method: 'POST' })).status).toBe(200);
      expect(await ((await ml.app.request('/api/2.0/secrets/scopes/list')).json() as Promise<any>)).toEqual({
        scopes: [],
      });
    } finally {
      await ml.close();
    }
  });

  it('identity: /Me carries the org id header and agrees with the well-known config', async () => {
    const ml = await createMinilake(
      parseConfig({
        MINILAKE_LOG_LEVEL: 'silent',
        MINILAKE_WORKSPACE_ID: '42',
        MINILAKE_USER: 'ana@example.com',
      }),
    );
    try {
      const me = await ml.app.request('/api/2.0/preview/scim/v2/Me');
      expect(me.headers.get('x-databricks-org-id')).toBe('42');
      expect((await (me.json() as Promise<any>)).userName).toBe('ana@example.com');
      const wk = await ((
        await ml.app.request('http://localhost/.well-known/databricks-config')
      ).json() as Promise<any>);
      expect(wk.workspace_id).toBe('42');
    } finally {
      await ml.close();
    }
  });

  it('the CLI telemetry upload is accepted and counted, as the CLI expects', async () => {
    const ml = await createMinilake(parseConfig({ MINILAKE_LOG_LEVEL: 'silent' }));
    try {
      const res = await ml.app.request('/telemetry-ext', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ uploadTime: 1, items: [], protoLogs: ['{"a":1}', '{"b":2}'] }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ errors: [], numProtoSuccess: 2 });
    } finally {
      await ml.close();
    }
  });

  it('a path with .. in a file API never escapes (Databricks-shaped 4xx)', async () => {
    const ml = await createMinilake(parseConfig({ MINILAKE_LOG_LEVEL: 'silent' }));
    try {
      const res = await ml.app.request('/api/2.0/secrets/list?scope=..%2F..%2Fetc');
      expect(res.status).toBe(404);
      expect((await (res.json() as Promise<any>)).error_code).toBe('RESOURCE_DOES_NOT_EXIST');
    } finally {
      await ml.close();
    }
  });
});
