import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@databricks/sdk-experimental';
import { startServer, workspaceClient, type RunningServer } from '@minilake/testing';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('the TypeScript SDK against a real server', () => {
  it('reads the current user', async () => {
    const me = await workspaceClient(server.url).currentUser.me();
    expect(me.userName).toBe('dev@minilake.local');
    expect(me.active).toBe(true);
  });

  it('gets a typed 501 for an endpoint that is not built', async () => {
    const w = workspaceClient(server.url);
    const err = await w.apiClient
      .request({ path: '/api/2.0/no-such-group/x', method: 'GET', headers: new Headers(), raw: false })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).errorCode).toBe('NOT_IMPLEMENTED');
    expect((err as ApiError).statusCode).toBe(501);
  });

  it('creates and lists secret scopes', async () => {
    const w = workspaceClient(server.url);
    await w.secrets.createScope({ scope: 'ts_scope' });
    await w.secrets.putSecret({ scope: 'ts_scope', key: 'k', string_value: 'v' });
    const scopes = [];
    for await (const s of w.secrets.listScopes()) scopes.push(s.name);
    expect(scopes).toContain('ts_scope');
  });
});
