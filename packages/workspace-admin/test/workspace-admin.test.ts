import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { defaultIdentity, ManualClock, StateDb } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { workspaceAdminService } from '../src/index.js';
import { WorkspaceAdminStore } from '../src/store.js';

let app: Hono;
let store: WorkspaceAdminStore;

beforeEach(async () => {
  const s = await serviceApp(workspaceAdminService);
  app = s.app;
  store = s.instance.state[0] as WorkspaceAdminStore;
});

const req = async (method: string, path: string, body?: unknown) => {
  const res = await app.request(path, jsonInit(method, body));
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
};
const err = async (method: string, path: string, body: unknown, status: number, code: string) =>
  expectDatabricksError(await app.request(path, jsonInit(method, body)), status, code);

describe('workspace-conf', () => {
  it('reads defaults, patches string values and reverts with an empty string', async () => {
    const keys = 'enableIpAccessLists,enableTokensConfig,maxTokenLifetimeDays';
    expect((await req('GET', `/api/2.0/workspace-conf?keys=${keys}`)).body).toEqual({
      enableIpAccessLists: 'false',
      enableTokensConfig: 'true',
      maxTokenLifetimeDays: null,
    });
    expect(
      (
        await req('PATCH', '/api/2.0/workspace-conf', {
          enableIpAccessLists: 'true',
          maxTokenLifetimeDays: '90',
        })
      ).status,
    ).toBe(204);
    expect((await req('GET', `/api/2.0/workspace-conf?keys=${keys}`)).body).toEqual({
      enableIpAccessLists: 'true',
      enableTokensConfig: 'true',
      maxTokenLifetimeDays: '90',
    });
    await req('PATCH', '/api/2.0/workspace-conf', { maxTokenLifetimeDays: '' });
    expect((await req('GET', '/api/2.0/workspace-conf?keys=maxTokenLifetimeDays')).body).toEqual({
      maxTokenLifetimeDays: null,
    });
    expect((await req('GET', '/api/2.0/workspace-conf')).body).toEqual({});
  });

  it('rejects unknown keys, non-strings and bad values', async () => {
    await err(
      'GET',
      '/api/2.0/workspace-conf?keys=enableIpAccessLists,noSuchKey',
      undefined,
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await err('PATCH', '/api/2.0/workspace-conf', { noSuchKey: 'true' }, 400, 'INVALID_PARAMETER_VALUE');
    await err('PATCH', '/api/2.0/workspace-conf', { enableIpAccessLists: true }, 400, 'BAD_REQUEST');
    await err(
      'PATCH',
      '/api/2.0/workspace-conf',
      { enableIpAccessLists: 'yes' },
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await err(
      'PATCH',
      '/api/2.0/workspace-conf',
      { maxTokenLifetimeDays: '-1' },
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });
});

describe('IP access lists', () => {
  it('creates, gets, lists, updates, replaces and deletes', async () => {
    const created = await req('POST', '/api/2.0/ip-access-lists', {
      label: 'office',
      list_type: 'ALLOW',
      ip_addresses: ['10.0.0.0/16', '192.168.1.1'],
    });
    expect(created.status).toBe(200);
    const info = created.body!.ip_access_list;
    expect(info).toMatchObject({ label: 'office', list_type: 'ALLOW', address_count: 2, enabled: true });
    expect(info.list_id).toMatch(/^[0-9a-f-]{36}$/);
    const id = info.list_id as string;
    expect((await req('GET', `/api/2.0/ip-access-lists/${id}`)).body!.ip_access_list).toEqual(info);
    await req('PATCH', `/api/2.0/ip-access-lists/${id}`, { enabled: false });
    let got = (await req('GET', `/api/2.0/ip-access-lists/${id}`)).body!.ip_access_list;
    expect(got).toMatchObject({ enabled: false, label: 'office', address_count: 2 });
    await req('PUT', `/api/2.0/ip-access-lists/${id}`, {
      label: 'vpn',
      list_type: 'BLOCK',
      enabled: true,
      ip_addresses: ['1.2.3.4/32'],
    });
    got = (await req('GET', `/api/2.0/ip-access-lists/${id}`)).body!.ip_access_list;
    expect(got).toMatchObject({
      label: 'vpn',
      list_type: 'BLOCK',
      enabled: true,
      ip_addresses: ['1.2.3.4/32'],
    });
    expect((await req('GET', '/api/2.0/ip-access-lists')).body!.ip_access_lists).toHaveLength(1);
    await req('DELETE', `/api/2.0/ip-access-lists/${id}`);
    await err('GET', `/api/2.0/ip-access-lists/${id}`, undefined, 404, 'RESOURCE_DOES_NOT_EXIST');
  });

  it('validates addresses and list types', async () => {
    for (const bad of ['10.0.0.0/33', '300.1.1.1', 'abc', '10.0.0.0/8/1', '::1'])
      await err(
        'POST',
        '/api/2.0/ip-access-lists',
        { label: 'x', list_type: 'ALLOW', ip_addresses: [bad] },
        400,
        'INVALID_PARAMETER_VALUE',
      );
    await err(
      'POST',
      '/api/2.0/ip-access-lists',
      { label: 'x', list_type: 'MAYBE', ip_addresses: [] },
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await err(
      'POST',
      '/api/2.0/ip-access-lists',
      { label: '', list_type: 'ALLOW' },
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });
});

describe('git credentials', () => {
  it('keeps one credential per provider and never returns the token', async () => {
    const c = await req('POST', '/api/2.0/git-credentials', {
      git_provider: 'github',
      git_username: 'octo',
      personal_access_token: 'ghp_secret',
    });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({
      credential_id: c.body!.credential_id,
      git_provider: 'gitHub',
      git_username: 'octo',
    });
    expect(typeof c.body!.credential_id).toBe('number');
    await err(
      'POST',
      '/api/2.0/git-credentials',
      { git_provider: 'gitHub', git_username: 'other', personal_access_token: 't' },
      400,
      'INVALID_STATE',
    );
    const gl = await req('POST', '/api/2.0/git-credentials', { git_provider: 'gitLab', git_username: 'g' });
    expect(gl.status).toBe(200);
    const id = c.body!.credential_id as number;
    await req('PATCH', `/api/2.0/git-credentials/${id}`, { git_provider: 'gitHub', git_username: 'octo2' });
    expect((await req('GET', `/api/2.0/git-credentials/${id}`)).body!.git_username).toBe('octo2');
    const list = await req('GET', '/api/2.0/git-credentials');
    expect(list.body!.credentials).toHaveLength(2);
    expect(JSON.stringify(list.body) + JSON.stringify(store.snapshot())).not.toContain('ghp_secret');
    await req('DELETE', `/api/2.0/git-credentials/${id}`);
    await err('GET', `/api/2.0/git-credentials/${id}`, undefined, 404, 'RESOURCE_DOES_NOT_EXIST');
    await err('POST', '/api/2.0/git-credentials', { git_provider: 'svn' }, 400, 'INVALID_PARAMETER_VALUE');
  });
});

describe('global init scripts', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  it('orders by position, hides the script in lists and returns it on get', async () => {
    const a = (
      await req('POST', '/api/2.0/global-init-scripts', { name: 'a', script: b64('echo a'), enabled: true })
    ).body!.script_id as string;
    const b = (await req('POST', '/api/2.0/global-init-scripts', { name: 'b', script: b64('echo b') })).body!
      .script_id as string;
    const c = (
      await req('POST', '/api/2.0/global-init-scripts', { name: 'c', script: b64('echo c'), position: 0 })
    ).body!.script_id as string;
    expect(a).toMatch(/^[0-9A-F]{16}$/);
    const list = (await req('GET', '/api/2.0/global-init-scripts')).body!.scripts;
    expect(list.map((s: any) => [s.name, s.position])).toEqual([
      ['c', 0],
      ['a', 1],
      ['b', 2],
    ]);
    expect(list[0].script).toBeUndefined();
    const got = (await req('GET', `/api/2.0/global-init-scripts/${a}`)).body!;
    expect(got).toMatchObject({
      name: 'a',
      script: b64('echo a'),
      enabled: true,
      created_by: defaultIdentity.userName,
    });
    await req('PATCH', `/api/2.0/global-init-scripts/${b}`, {
      name: 'b2',
      script: b64('echo b2'),
      position: 0,
    });
    expect((await req('GET', '/api/2.0/global-init-scripts')).body!.scripts.map((s: any) => s.name)).toEqual([
      'b2',
      'c',
      'a',
    ]);
    await req('DELETE', `/api/2.0/global-init-scripts/${c}`);
    expect(
      (await req('GET', '/api/2.0/global-init-scripts')).body!.scripts.map((s: any) => [s.name, s.position]),
    ).toEqual([
      ['b2', 0],
      ['a', 1],
    ]);
    await err('GET', `/api/2.0/global-init-scripts/${c}`, undefined, 404, 'RESOURCE_DOES_NOT_EXIST');
    await err(
      'POST',
      '/api/2.0/global-init-scripts',
      { name: 'x', script: 'not base64!' },
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });
});

describe('notification destinations', () => {
  it('masks secrets and pages the list', async () => {
    const hook = await req('POST', '/api/2.0/notification-destinations', {
      display_name: 'hook',
      config: { generic_webhook: { url: 'https://example.com/h', username: 'u', password: 'p4ss' } },
    });
    expect(hook.status).toBe(200);
    expect(hook.body).toMatchObject({
      display_name: 'hook',
      destination_type: 'WEBHOOK',
      config: { generic_webhook: { url_set: true, username_set: true, password_set: true } },
    });
    expect(JSON.stringify(hook.body) + JSON.stringify(store.snapshot())).not.toContain('p4ss');
    const mail = await req('POST', '/api/2.0/notification-destinations', {
      display_name: 'mail',
      config: { email: { addresses: ['a@example.com'] } },
    });
    expect(mail.body!.config).toEqual({ email: { addresses: ['a@example.com'] } });
    const page1 = await req('GET', '/api/2.0/notification-destinations?page_size=1');
    expect(page1.body!.results).toEqual([
      { id: hook.body!.id, display_name: 'hook', destination_type: 'WEBHOOK' },
    ]);
    const page2 = await req(
      'GET',
      `/api/2.0/notification-destinations?page_size=1&page_token=${page1.body!.next_page_token}`,
    );
    expect(page2.body!.results.map((r: any) => r.display_name)).toEqual(['mail']);
    expect(page2.body!.next_page_token).toBeUndefined();
    const upd = await req('PATCH', `/api/2.0/notification-destinations/${mail.body!.id}`, {
      display_name: 'mail2',
      config: { email: { addresses: ['b@example.com'] } },
    });
    expect(upd.body).toMatchObject({
      display_name: 'mail2',
      config: { email: { addresses: ['b@example.com'] } },
    });
    await err(
      'PATCH',
      `/api/2.0/notification-destinations/${mail.body!.id}`,
      { config: { slack: { url: 'https://hooks.slack.com/x' } } },
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await req('DELETE', `/api/2.0/notification-destinations/${hook.body!.id}`);
    await err(
      'GET',
      `/api/2.0/notification-destinations/${hook.body!.id}`,
      undefined,
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });
});

describe('settings', () => {
  const NS = '/api/2.0/settings/types/default_namespace_ws/names/default';

  it('default namespace: 404 with an etag until set, then etag-versioned', async () => {
    const missing = await app.request(NS);
    const body = (await expectDatabricksError(missing, 404, 'RESOURCE_DOES_NOT_EXIST')) as any;
    const etag0 = body.details[0].metadata.etag as string;
    expect(etag0).toBeTruthy();
    const set = await req('PATCH', NS, {
      allow_missing: true,
      field_mask: 'namespace.value',
      setting: { etag: etag0, namespace: { value: 'main' } },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ setting_name: 'default', namespace: { value: 'main' } });
    const etag1 = set.body!.etag as string;
    expect(etag1).not.toBe(etag0);
    expect((await req('GET', NS)).body).toEqual(set.body);
    // a stale etag is a conflict that names the fresh one
    const stale = await app.request(
      NS,
      jsonInit('PATCH', {
        allow_missing: true,
        field_mask: 'namespace.value',
        setting: { etag: etag0, namespace: { value: 'x' } },
      }),
    );
    const conflict = (await expectDatabricksError(stale, 409, 'RESOURCE_CONFLICT')) as any;
    expect(conflict.details[0].metadata.etag).toBe(etag1);
    const del = await req('DELETE', `${NS}?etag=${etag1}`);
    expect(del.body!.etag).toBeTruthy();
    await expectDatabricksError(await app.request(NS), 404, 'RESOURCE_DOES_NOT_EXIST');
  });

  it('other settings have defaults; unknown types are 501', async () => {
    const r = await req('GET', '/api/2.0/settings/types/restrict_workspace_admins/names/default');
    expect(r.body).toMatchObject({
      restrict_workspace_admins: { status: 'ALLOW_ALL' },
      setting_name: 'default',
    });
    const upd = await req('PATCH', '/api/2.0/settings/types/disable_legacy_dbfs/names/default', {
      allow_missing: true,
      field_mask: 'disable_legacy_dbfs.value',
      setting: { disable_legacy_dbfs: { value: true } },
    });
    expect(upd.body).toMatchObject({ disable_legacy_dbfs: { value: true } });
    await err(
      'PATCH',
      '/api/2.0/settings/types/disable_legacy_dbfs/names/default',
      {
        allow_missing: true,
        field_mask: 'disable_legacy_dbfs.value',
        setting: { disable_legacy_dbfs: { value: 'y' } },
      },
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await err(
      'GET',
      '/api/2.0/settings/types/no_such_setting/names/default',
      undefined,
      501,
      'NOT_IMPLEMENTED',
    );
    await err('GET', '/api/2.0/repos', undefined, 501, 'NOT_IMPLEMENTED');
  });
});

describe('state', () => {
  it('resets to empty and restores from a snapshot', async () => {
    await req('POST', '/api/2.0/ip-access-lists', {
      label: 'l',
      list_type: 'ALLOW',
      ip_addresses: ['1.1.1.1'],
    });
    await req('PATCH', '/api/2.0/workspace-conf', { enableIpAccessLists: 'true' });
    const snap = store.snapshot();
    const other = new WorkspaceAdminStore(StateDb.memory(), new ManualClock(), defaultIdentity);
    other.restore(snap);
    expect(other.listIpAccessLists().ip_access_lists).toHaveLength(1);
    expect(other.getConf('enableIpAccessLists')).toEqual({ enableIpAccessLists: 'true' });
    await store.reset();
    expect((await req('GET', '/api/2.0/ip-access-lists')).body!.ip_access_lists).toEqual([]);
    expect((await req('GET', '/api/2.0/workspace-conf?keys=enableIpAccessLists')).body).toEqual({
      enableIpAccessLists: 'false',
    });
  });
});
