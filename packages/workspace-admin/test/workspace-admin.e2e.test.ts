import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@databricks/sdk-experimental';
import { startServer, uniqueName, workspaceClient, type RunningServer } from '@minilake/testing';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

async function all<T>(it: AsyncIterable<T>, max = 1000): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) {
    out.push(x);
    if (out.length >= max) break;
  }
  return out;
}

// The TypeScript SDK 0.17.0 sends no body with PATCH, so only the GET/POST/PUT/DELETE calls are exercised.
describe('workspace admin through the TypeScript SDK', () => {
  it('reads workspace-conf', async () => {
    const w = workspaceClient(server.url);
    const conf = await w.workspaceConf.getStatus({ keys: 'enableTokensConfig' });
    expect(conf).toEqual({ enableTokensConfig: 'true' });
  });

  it('creates, replaces and deletes an IP access list', async () => {
    const w = workspaceClient(server.url);
    const created = await w.ipAccessLists.create({
      label: uniqueName('ip'),
      list_type: 'ALLOW',
      ip_addresses: ['10.1.0.0/16'],
    });
    const id = created.ip_access_list!.list_id!;
    await w.ipAccessLists.replace({
      ip_access_list_id: id,
      label: 'replaced',
      list_type: 'BLOCK',
      enabled: false,
      ip_addresses: ['8.8.8.8'],
    });
    const got = await w.ipAccessLists.get({ ip_access_list_id: id });
    expect(got.ip_access_list).toMatchObject({ label: 'replaced', list_type: 'BLOCK', enabled: false });
    expect((await all(w.ipAccessLists.list())).map((l) => l.list_id)).toContain(id);
    await w.ipAccessLists.delete({ ip_access_list_id: id });
    const gone = await w.ipAccessLists.get({ ip_access_list_id: id }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ApiError);
    expect((gone as ApiError).statusCode).toBe(404);
  });

  it('manages git credentials, init scripts and notification destinations', async () => {
    const w = workspaceClient(server.url);
    const cred = await w.gitCredentials.create({
      git_provider: 'gitLab',
      git_username: 'me',
      personal_access_token: 't',
    });
    expect((await all(w.gitCredentials.list())).map((c) => c.credential_id)).toContain(cred.credential_id);

    const script = Buffer.from('echo hi').toString('base64');
    const gis = await w.globalInitScripts.create({ name: uniqueName('gis'), script });
    expect((await w.globalInitScripts.get({ script_id: gis.script_id! })).script).toBe(script);

    const dest = await w.notificationDestinations.create({
      display_name: uniqueName('slack'),
      config: { slack: { url: 'https://hooks.slack.com/services/secret' } },
    });
    expect(dest.destination_type).toBe('SLACK');
    expect(JSON.stringify(dest)).not.toContain('secret');
    expect((await all(w.notificationDestinations.list({}))).map((d) => d.id)).toContain(dest.id);
  });

  it('reports the default namespace as not set', async () => {
    const w = workspaceClient(server.url);
    const err = await w.settings.defaultNamespace.get({}).catch((e: unknown) => e);
    expect((err as ApiError).statusCode).toBe(404);
    expect((err as ApiError).errorCode).toBe('RESOURCE_DOES_NOT_EXIST');
  });
});

describe('persistence', () => {
  it('keeps IP access lists and init scripts across kill -9', async () => {
    const first = await startServer({ env: { MINILAKE_PERSIST: '1' } });
    let second: RunningServer | undefined;
    try {
      const w = workspaceClient(first.url);
      const list = await w.ipAccessLists.create({
        label: 'kept',
        list_type: 'BLOCK',
        ip_addresses: ['5.6.7.8'],
      });
      const gis = await w.globalInitScripts.create({
        name: 'kept',
        script: Buffer.from('x').toString('base64'),
      });
      await first.kill9();
      second = await startServer({ env: { MINILAKE_PERSIST: '1' }, dataDir: first.dataDir });
      const w2 = workspaceClient(second.url);
      const got = await w2.ipAccessLists.get({ ip_access_list_id: list.ip_access_list!.list_id! });
      expect(got.ip_access_list?.ip_addresses).toEqual(['5.6.7.8']);
      expect((await w2.globalInitScripts.get({ script_id: gis.script_id! })).name).toBe('kept');
    } finally {
      await first.stop();
      await second?.stop();
    }
  });
});
