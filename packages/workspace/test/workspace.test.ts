import { mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { runAsPrincipal, type Principal, type ServiceContext } from '@minilake/core';
import { iamService } from '@minilake/iam';
import { workspaceService } from '../src/index.js';

const ME = 'dev@minilake.local';
const HOME = `/Users/${ME}`;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (r: Response): Promise<any> => r.json();
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

let app: Hono;
let ctx: ServiceContext;
beforeEach(async () => {
  ({ app, ctx } = await serviceApp(workspaceService));
});

const post = (p: string, body: unknown) => app.request(p, jsonInit('POST', body));
const get = (p: string, q: Record<string, string>) =>
  app.request(`${p}?${new URLSearchParams(q).toString()}`, { method: 'GET' });
const status = async (p: string) => json(await get('/api/2.0/workspace/get-status', { path: p }));
const importNb = (p: string, content: string, extra: Record<string, unknown> = {}) =>
  post('/api/2.0/workspace/import', {
    path: p,
    content: b64(content),
    format: 'SOURCE',
    language: 'PYTHON',
    ...extra,
  });
const importFile = (p: string, body: string, overwrite = false) =>
  app.request(`/api/2.0/workspace-files/import-file${p}?overwrite=${overwrite}`, { method: 'POST', body });

describe('workspace tree', () => {
  it('has the user home from the start and after reset', async () => {
    expect(await status(HOME)).toMatchObject({ object_type: 'DIRECTORY', path: HOME });
    const { instance } = await serviceApp(workspaceService);
    await instance.state[0]!.reset();
    expect((await status('/Shared')).object_type).toBe('DIRECTORY');
  });

  it('refuses to delete /Users, /Shared or the home folder, even recursively', async () => {
    await importNb(`${HOME}/x`, '1');
    await post('/api/2.0/workspace/mkdirs', { path: '/Users/other@example.com/d' });
    await importNb('/Shared/s', '1');
    for (const p of ['/Users', '/Shared', HOME, `/Workspace${HOME}`, '/Users/']) {
      for (const recursive of [true, false]) {
        const err = await expectDatabricksError(
          await post('/api/2.0/workspace/delete', { path: p, recursive }),
          403,
          'PERMISSION_DENIED',
        );
        expect(err.message).toContain('system folder');
      }
    }
    await expectDatabricksError(
      await post('/api/2.0/workspace/delete', { path: '/', recursive: true }),
      400,
      'DIRECTORY_NOT_EMPTY',
    );
    // nothing was removed
    expect((await status(`${HOME}/x`)).object_type).toBe('NOTEBOOK');
    expect((await status('/Shared/s')).object_type).toBe('NOTEBOOK');
    expect((await status('/Users/other@example.com/d')).object_type).toBe('DIRECTORY');
    // another user's folder is an ordinary folder
    expect(
      (await post('/api/2.0/workspace/delete', { path: '/Users/other@example.com', recursive: true })).status,
    ).toBe(200);
  });

  it('imports, exports and describes a SOURCE notebook byte for byte, with /Workspace as an alias', async () => {
    const src = '# Databricks notebook source\nprint(42)\n';
    expect((await importNb(`${HOME}/nb`, src)).status).toBe(200);
    const res = await get('/api/2.0/workspace/export', { path: `/Workspace${HOME}/nb`, format: 'SOURCE' });
    expect(await res.json()).toEqual({ content: b64(src), file_type: 'py' });
    const st = await status(`/Workspace${HOME}/nb`);
    // Asked with the prefix, answered with it (as Databricks does); the object is the same.
    expect(st).toMatchObject({ object_type: 'NOTEBOOK', language: 'PYTHON', path: `/Workspace${HOME}/nb` });
    expect((await status(`${HOME}/nb`)).object_id).toBe(st.object_id);
    expect(typeof st.object_id).toBe('number');
    expect(st.resource_id).toBe(String(st.object_id));
    expect(st.created_at).toBeGreaterThan(0);
    expect(st.modified_at).toBeGreaterThan(0);
    // the bytes are a real file under the data dir
    expect(await readFile(path.join(ctx.dataDir, 'workspace/root', HOME, 'nb'), 'utf8')).toBe(src);
  });

  it('adds the header to a SOURCE notebook sent without it, and keeps SQL notebooks as SQL', async () => {
    await importNb(`${HOME}/plain`, 'print(1)\n');
    const raw = await get('/api/2.0/workspace/export', { path: `${HOME}/plain`, direct_download: 'true' });
    expect(raw.headers.get('content-type')).toBe('application/octet-stream');
    expect(await raw.text()).toBe('# Databricks notebook source\nprint(1)\n');
    const sql = '-- Databricks notebook source\nSELECT 1\n';
    await importNb(`${HOME}/q`, sql, { language: 'SQL' });
    expect(await status(`${HOME}/q`)).toMatchObject({ language: 'SQL' });
    const out = await json(await get('/api/2.0/workspace/export', { path: `${HOME}/q` }));
    expect(out).toEqual({ content: b64(sql), file_type: 'sql' });
  });

  it('round-trips an .ipynb and converts SOURCE to JUPYTER on cell boundaries', async () => {
    const ipynb = JSON.stringify({
      cells: [{ cell_type: 'code', source: ['x = 1'], metadata: {}, outputs: [], execution_count: null }],
      metadata: { language_info: { name: 'python' } },
      nbformat: 4,
      nbformat_minor: 5,
    });
    expect(
      (
        await post('/api/2.0/workspace/import', {
          path: `${HOME}/j.ipynb`,
          content: b64(ipynb),
          format: 'JUPYTER',
        })
      ).status,
    ).toBe(200);
    expect(await status(`${HOME}/j`)).toMatchObject({ object_type: 'NOTEBOOK', language: 'PYTHON' });
    const back = await json(await get('/api/2.0/workspace/export', { path: `${HOME}/j`, format: 'JUPYTER' }));
    expect(Buffer.from(back.content, 'base64').toString()).toBe(ipynb);
    const asSource = await json(
      await get('/api/2.0/workspace/export', { path: `${HOME}/j`, format: 'SOURCE' }),
    );
    expect(Buffer.from(asSource.content, 'base64').toString()).toBe('# Databricks notebook source\nx = 1\n');

    await importNb(
      `${HOME}/cells`,
      '# Databricks notebook source\na = 1\n\n# COMMAND ----------\n\n# MAGIC %md\n# MAGIC # Title\n\n# COMMAND ----------\n\nb = 2\n',
    );
    const j = await json(
      await get('/api/2.0/workspace/export', { path: `${HOME}/cells`, format: 'JUPYTER' }),
    );
    expect(j.file_type).toBe('ipynb');
    const nb = JSON.parse(Buffer.from(j.content, 'base64').toString());
    expect(nb.nbformat).toBe(4);
    expect(
      nb.cells.map((c: { cell_type: string; source: string[] }) => [c.cell_type, c.source.join('')]),
    ).toEqual([
      ['code', 'a = 1'],
      ['markdown', '# Title'],
      ['code', 'b = 2'],
    ]);
  });

  it('answers 501 for a conversion it cannot do', async () => {
    await importNb(`${HOME}/nb`, 'print(1)');
    await expectDatabricksError(
      await get('/api/2.0/workspace/export', { path: `${HOME}/nb`, format: 'HTML' }),
      501,
      'NOT_IMPLEMENTED',
    );
    await expectDatabricksError(
      await get('/api/2.0/workspace/export', { path: HOME, format: 'DBC' }),
      501,
      'NOT_IMPLEMENTED',
    );
    await expectDatabricksError(
      await post('/api/2.0/workspace/import', { path: `${HOME}/x`, content: b64('x'), format: 'DBC' }),
      501,
      'NOT_IMPLEMENTED',
    );
  });

  it('AUTO imports a headed .py as a notebook without its extension and anything else as a file', async () => {
    await post('/api/2.0/workspace/import', {
      path: `${HOME}/a.py`,
      content: b64('# Databricks notebook source\n1'),
      format: 'AUTO',
    });
    expect(await status(`${HOME}/a`)).toMatchObject({ object_type: 'NOTEBOOK', language: 'PYTHON' });
    await post('/api/2.0/workspace/import', {
      path: `${HOME}/b.py`,
      content: b64('print(2)'),
      format: 'AUTO',
    });
    expect(await status(`${HOME}/b.py`)).toMatchObject({ object_type: 'FILE', size: 8 });
    expect((await status(`${HOME}/b.py`)).language).toBeUndefined();
  });

  it('refuses overwrite=false, a missing parent, bad base64 and a missing language', async () => {
    await importNb(`${HOME}/nb`, 'x');
    await expectDatabricksError(await importNb(`${HOME}/nb`, 'y'), 409, 'RESOURCE_ALREADY_EXISTS');
    expect((await importNb(`${HOME}/nb`, 'y', { overwrite: true })).status).toBe(200);
    await expectDatabricksError(await importNb(`${HOME}/no/such/nb`, 'x'), 404, 'RESOURCE_DOES_NOT_EXIST');
    await expectDatabricksError(
      await post('/api/2.0/workspace/import', { path: `${HOME}/z`, content: '!!!', format: 'RAW' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await post('/api/2.0/workspace/import', { path: `${HOME}/z`, content: b64('x'), format: 'SOURCE' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });

  it('accepts multipart imports (the Python SDK upload)', async () => {
    const form = new FormData();
    form.set('path', `${HOME}/up.txt`);
    form.set('format', 'AUTO');
    form.set('content', new Blob([Buffer.from('hello')]), 'content');
    expect((await app.request('/api/2.0/workspace/import', { method: 'POST', body: form })).status).toBe(200);
    expect(await status(`${HOME}/up.txt`)).toMatchObject({ object_type: 'FILE', size: 5 });
  });

  it('lists, mkdirs and deletes like Databricks', async () => {
    expect((await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/a/b/c` })).status).toBe(200);
    expect((await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/a/b/c` })).status).toBe(200);
    await importNb(`${HOME}/a/nb`, 'x');
    const list = await json(await get('/api/2.0/workspace/list', { path: `${HOME}/a` }));
    expect(list.objects.map((o: { path: string; object_type: string }) => [o.path, o.object_type])).toEqual([
      [`${HOME}/a/b`, 'DIRECTORY'],
      [`${HOME}/a/nb`, 'NOTEBOOK'],
    ]);
    expect(await json(await get('/api/2.0/workspace/list', { path: `${HOME}/a/b/c` }))).toEqual({});
    await expectDatabricksError(
      await get('/api/2.0/workspace/list', { path: `${HOME}/nope` }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/a/nb/x` }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await post('/api/2.0/workspace/delete', { path: `${HOME}/a` }),
      400,
      'DIRECTORY_NOT_EMPTY',
    );
    expect((await post('/api/2.0/workspace/delete', { path: `${HOME}/a`, recursive: true })).status).toBe(
      200,
    );
    await expectDatabricksError(
      await get('/api/2.0/workspace/get-status', { path: `${HOME}/a/nb` }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await post('/api/2.0/workspace/delete', { path: `${HOME}/a` }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });
});

describe('workspace-files import-file (what bundle deploy relies on)', () => {
  it('404 for a missing parent, 409 for the second lock, 400 "already exists." for a notebook', async () => {
    await expectDatabricksError(
      await importFile(`${HOME}/missing/dir/f.txt`, 'x'),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/proj` });
    expect((await importFile(`${HOME}/proj/deploy.lock`, 'lock1')).status).toBe(200);
    const e = await expectDatabricksError(
      await importFile(`${HOME}/proj/deploy.lock`, 'lock2'),
      409,
      'RESOURCE_ALREADY_EXISTS',
    );
    expect(e.message).toContain('already exists');
    expect((await importFile(`${HOME}/proj/deploy.lock`, 'lock3', true)).status).toBe(200);
    const out = await get('/api/2.0/workspace/export', {
      path: `${HOME}/proj/deploy.lock`,
      direct_download: 'true',
    });
    expect(await out.text()).toBe('lock3');

    expect((await importFile(`${HOME}/proj/job.py`, '# Databricks notebook source\n1')).status).toBe(200);
    expect(await status(`${HOME}/proj/job`)).toMatchObject({ object_type: 'NOTEBOOK', language: 'PYTHON' });
    const nbErr = await expectDatabricksError(
      await importFile(`${HOME}/proj/job.py`, '# Databricks notebook source\n2'),
      400,
      'RESOURCE_ALREADY_EXISTS',
    );
    expect(nbErr.message).toContain('already exists.');
  });

  it('ends with one complete file when writers race on one path', async () => {
    await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/race` });
    const bodies = Array.from({ length: 8 }, (_, i) => String(i).repeat(100_000));
    const results = await Promise.all(bodies.map((b) => importFile(`${HOME}/race/f.bin`, b, true)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const out = await (
      await get('/api/2.0/workspace/export', { path: `${HOME}/race/f.bin`, direct_download: 'true' })
    ).text();
    expect(bodies).toContain(out);
  });
});

describe('escaped paths, as the Databricks CLI v1.12.1 sends them', () => {
  // The CLI's filer escapes the whole path into one segment (url.PathEscape), so every `/` arrives as %2F.
  const escaped = (p: string) => encodeURIComponent(p.replace(/^\//, ''));
  const root = `${HOME}/.bundle/demo/dev`;

  it('imports and reads back files whose path is one escaped segment (bundle deploy, import-dir)', async () => {
    await post('/api/2.0/workspace/mkdirs', { path: `${root}/files` });
    await post('/api/2.0/workspace/mkdirs', { path: `${root}/state` });
    // the exact request line the CLI sends
    const res = await app.request(
      '/api/2.0/workspace-files/import-file/Users%2Fdev%40minilake.local%2F.bundle%2Fdemo%2Fdev%2Ffiles%2Fdatabricks.yml?overwrite=true',
      { method: 'POST', body: 'bundle:\n  name: demo\n' },
    );
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await status(`${root}/files/databricks.yml`)).toMatchObject({ object_type: 'FILE' });
    const state = JSON.stringify({ state_version: 1, resources: {} });
    const put = await app.request(
      `/api/2.0/workspace-files/import-file/${escaped(`${root}/state/resources.json`)}?overwrite=true`,
      { method: 'POST', body: state },
    );
    expect(put.status).toBe(200);
    // every later deploy reads state back with GET workspace-files/<escaped path>
    const back = await app.request(`/api/2.0/workspace-files/${escaped(`${root}/state/resources.json`)}`);
    expect(back.status).toBe(200);
    expect(await back.text()).toBe(state);
    // the mixed form (some slashes escaped, some not) names the same file
    const mixed = await app.request(
      `/api/2.0/workspace-files/Users/${encodeURIComponent(`${ME}/.bundle/demo/dev/state/resources.json`)}`,
    );
    expect(await mixed.text()).toBe(state);
    const disk = path.join(ctx.dataDir, 'workspace/root', root, 'files/databricks.yml');
    expect(await readFile(disk, 'utf8')).toBe('bundle:\n  name: demo\n');
  });

  it('still refuses an escape hidden in the escaped segment', async () => {
    for (const p of [
      'Users%2F..%2F..%2F..%2Fetc%2Fescape.py',
      'Users%2Fdev%40minilake.local%2F%2e%2e%2F%2e%2e%2Fescape.py',
      'Users%2Fdev%40minilake.local%2F.%2Fx.py',
      'Users%2Fdev%40minilake.local%2Fa%00b.py',
      'Users%2Fdev%40minilake.local%2Fa%5C..%5Cb.py',
    ]) {
      const res = await app.request(`/api/2.0/workspace-files/import-file/${p}?overwrite=true`, {
        method: 'POST',
        body: 'x',
      });
      await expectDatabricksError(res, 400, 'INVALID_PARAMETER_VALUE');
      await expectDatabricksError(
        await app.request(`/api/2.0/workspace-files/${p}`),
        400,
        'INVALID_PARAMETER_VALUE',
      );
    }
  });
});

describe('path safety', () => {
  it('rejects dot segments, NUL bytes, encoded slashes and relative paths', async () => {
    for (const p of [`${HOME}/../../etc`, `${HOME}/a\0b`, 'Users/x', `${HOME}/..`]) {
      await expectDatabricksError(
        await get('/api/2.0/workspace/get-status', { path: p }),
        400,
        'INVALID_PARAMETER_VALUE',
      );
    }
    await expectDatabricksError(
      await importFile(`${HOME}/a%2F..%2F..%2Fescape`, 'x'),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(await importFile(`${HOME}/%2e%2e%00`, 'x'), 400, 'INVALID_PARAMETER_VALUE');
  });

  it('refuses a name or path longer than the file system stores, and leaves no temp file behind', async () => {
    const long = 'a'.repeat(256);
    await expectDatabricksError(await importFile(`${HOME}/${long}`, 'x'), 400, 'INVALID_PARAMETER_VALUE');
    await expectDatabricksError(
      await get('/api/2.0/workspace-files/' + `${HOME}/${long}`.slice(1), {}),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(await importNb(`${HOME}/${long}`, '1'), 400, 'INVALID_PARAMETER_VALUE');
    const deep = `${HOME}/${Array.from({ length: 20 }, () => 'b'.repeat(250)).join('/')}`;
    await expectDatabricksError(
      await post('/api/2.0/workspace/mkdirs', { path: deep }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    // 255 bytes is a name the file system takes: three-byte characters count as three.
    expect((await importFile(`${HOME}/${'€'.repeat(85)}`, 'x')).status).toBe(200);
    await expectDatabricksError(
      await importFile(`${HOME}/${'€'.repeat(86)}`, 'x'),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(path.join(ctx.dataDir, 'workspace/tmp')).catch(() => [])).toEqual([]);
  });

  it('does not follow a symlink planted in the data dir', async () => {
    const outside = path.join(ctx.dataDir, 'outside');
    await mkdir(outside, { recursive: true });
    await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/link` });
    const disk = path.join(ctx.dataDir, 'workspace/root', HOME, 'link');
    const { rm } = await import('node:fs/promises');
    await rm(disk, { recursive: true });
    await symlink(outside, disk);
    await expectDatabricksError(
      await importFile(`${HOME}/link/pwn.txt`, 'x'),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });
});

describe('permissions hooks given to iam', () => {
  it('registers notebooks, directories and files by object id and drops ACLs of deleted objects', async () => {
    const hooks = new Map<string, { exists(id: string): boolean }>();
    const defs = new Map<string, Record<string, unknown>>();
    const dropped: string[] = [];
    const iam = {
      registerObjectType: (def: { request: string }, h: { exists(id: string): boolean }) => {
        hooks.set(def.request, h);
        defs.set(def.request, def);
      },
      dropPermissions: (type: string, id: string) => dropped.push(`${type}:${id}`),
      userNames: () => [],
      onUserCreated: () => undefined,
    };
    ({ app } = await serviceApp(workspaceService, { peers: new Map([['iam', iam]]) }));
    expect([...hooks.keys()].sort()).toEqual(['directories', 'files', 'notebooks']);
    expect(defs.get('notebooks')).toEqual({
      request: 'notebooks',
      objectType: 'notebook',
      levels: ['CAN_READ', 'CAN_RUN', 'CAN_EDIT', 'CAN_MANAGE'],
      owner: 'CAN_MANAGE',
      admins: 'CAN_MANAGE',
      adminsFrom: '/directories/0',
    });
    expect(defs.get('directories')!.objectType).toBe('directory');
    expect(defs.get('files')!.objectType).toBe('file');
    await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/p/sub` });
    await importNb(`${HOME}/p/nb`, '1');
    await importFile(`${HOME}/p/sub/f.txt`, 'x');
    const dir = String((await status(`${HOME}/p`)).object_id);
    const sub = String((await status(`${HOME}/p/sub`)).object_id);
    const nb = String((await status(`${HOME}/p/nb`)).object_id);
    const file = String((await status(`${HOME}/p/sub/f.txt`)).object_id);
    expect(hooks.get('directories')!.exists(dir)).toBe(true);
    expect(hooks.get('directories')!.exists('0')).toBe(true); // the root
    expect(hooks.get('notebooks')!.exists(nb)).toBe(true);
    expect(hooks.get('files')!.exists(file)).toBe(true);
    // the type must match, and unknown ids do not exist
    expect(hooks.get('notebooks')!.exists(dir)).toBe(false);
    expect(hooks.get('files')!.exists(nb)).toBe(false);
    expect(hooks.get('notebooks')!.exists('123')).toBe(false);
    expect((await post('/api/2.0/workspace/delete', { path: `${HOME}/p`, recursive: true })).status).toBe(
      200,
    );
    expect(dropped.sort()).toEqual(
      [`directories:${dir}`, `directories:${sub}`, `notebooks:${nb}`, `files:${file}`].sort(),
    );
    for (const [type, id] of [
      ['directories', dir],
      ['notebooks', nb],
      ['files', file],
    ] as const)
      expect(hooks.get(type)!.exists(id)).toBe(false);
  });
});

describe('home folders of SCIM users', () => {
  it('gives every user a /Users/<userName> DIRECTORY, made at once for new users, never deletable', async () => {
    const iam = await serviceApp(iamService);
    const scim = (userName: string) =>
      iam.app.request('/api/2.0/preview/scim/v2/Users', jsonInit('POST', { userName }));
    expect((await scim('early@example.com')).status).toBe(201);
    ({ app } = await serviceApp(workspaceService, { peers: new Map([['iam', iam.instance.api]]) }));
    expect(await status('/Users/early@example.com')).toMatchObject({ object_type: 'DIRECTORY' });
    expect((await scim('newcomer@example.com')).status).toBe(201);
    expect(await status('/Users/newcomer@example.com')).toMatchObject({ object_type: 'DIRECTORY' });
    const listed = await app.request('/api/2.0/workspace/list?path=/Users', jsonInit('GET'));
    const paths = ((await listed.json()) as { objects: { path: string }[] }).objects.map((o) => o.path);
    expect(paths).toEqual(
      expect.arrayContaining(['/Users/early@example.com', '/Users/newcomer@example.com']),
    );
    const del = await post('/api/2.0/workspace/delete', {
      path: '/Users/newcomer@example.com',
      recursive: true,
    });
    expect(del.status).toBe(403);
    // A name no path can hold gets no home, and breaks nothing.
    expect((await scim('a/../b')).status).toBe(201);
    expect(await status('/Users/early@example.com')).toMatchObject({ object_type: 'DIRECTORY' });
  });
});

describe('who may create where (MINILAKE_ENFORCE=1)', () => {
  it("refuses another user's home folder to a non-admin, not its owner, /Shared, admins or a grantee", async () => {
    const iam = await serviceApp(iamService, { config: { MINILAKE_ENFORCE: '1' } });
    const scim = async (userName: string): Promise<Principal> => {
      const r = await iam.app.request('/api/2.0/preview/scim/v2/Users', jsonInit('POST', { userName }));
      expect(r.status).toBe(201);
      const { id } = (await r.json()) as { id: string };
      return { kind: 'user', userName, id, displayName: userName, groups: ['users'] };
    };
    const alice = await scim('alice@example.com');
    const bob = await scim('bob@example.com');
    const ws = await serviceApp(workspaceService, { peers: new Map([['iam', iam.instance.api]]) });
    app = ws.app;
    const api = ws.instance.api!;
    await post('/api/2.0/workspace/mkdirs', { path: '/Users/alice@example.com/deep/er' });
    const as = (who: Principal, p: string) => runAsPrincipal(who, () => api.checkCanCreate(p));

    // Her home folder and everything under it are hers, not bob's.
    expect(() => as(alice, '/Users/alice@example.com/exp')).not.toThrow();
    expect(() => as(alice, '/Workspace/Users/alice@example.com/deep/er/exp')).not.toThrow();
    for (const p of ['/Users/alice@example.com/exp', '/Users/alice@example.com/deep/er/exp'])
      expect(() => as(bob, p)).toThrow(
        expect.objectContaining({
          status: 403,
          errorCode: 'PERMISSION_DENIED',
          message: expect.stringContaining(
            `User "bob@example.com" does not have Manage permissions on directory ${p.slice(0, p.lastIndexOf('/'))}`,
          ),
        }),
      );
    expect(() => as(bob, '/Users/bob@example.com/exp')).not.toThrow();
    // Everyone's /Shared; the admin (the configured identity) everywhere; a missing folder is not this check's.
    expect(() => as(bob, '/Shared/exp')).not.toThrow();
    expect(() => api.checkCanCreate('/Users/alice@example.com/exp')).not.toThrow();
    expect(() => as(bob, '/Users/alice@example.com/missing/exp')).not.toThrow();
    // The root folder is the admins'.
    expect(() => as(bob, '/top')).toThrow(expect.objectContaining({ status: 403 }));
    // Can Manage on a folder above lets bob in below it.
    const deep = String((await status('/Users/alice@example.com/deep')).object_id);
    const r = await iam.app.request(
      `/api/2.0/permissions/directories/${deep}`,
      jsonInit('PATCH', {
        access_control_list: [{ user_name: 'bob@example.com', permission_level: 'CAN_MANAGE' }],
      }),
    );
    expect(r.status).toBe(200);
    expect(() => as(bob, '/Users/alice@example.com/deep/er/exp')).not.toThrow();
    expect(() => as(bob, '/Users/alice@example.com/exp')).toThrow(expect.objectContaining({ status: 403 }));
  });

  it('passes everything when permissions are not enforced', async () => {
    const iam = await serviceApp(iamService);
    const ws = await serviceApp(workspaceService, { peers: new Map([['iam', iam.instance.api]]) });
    const bob: Principal = { kind: 'user', userName: 'bob', id: '9', displayName: 'bob', groups: ['users'] };
    expect(() =>
      runAsPrincipal(bob, () => ws.instance.api!.checkCanCreate(`/Users/${ME}/exp`)),
    ).not.toThrow();
  });
});

describe('what the CLI compares', () => {
  it('get-status keeps a /Workspace prefix, names it in not-found messages, and gives export info', async () => {
    await importNb(`${HOME}/nb`, 'print(1)');
    const jupyter = JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 });
    await post('/api/2.0/workspace/import', {
      path: `${HOME}/j.ipynb`,
      content: b64(jupyter),
      format: 'JUPYTER',
    });
    await importFile(`${HOME}/f.txt`, 'x');
    const st = async (q: Record<string, string>) => json(await get('/api/2.0/workspace/get-status', q));
    expect(await st({ path: `/Workspace${HOME}/nb`, return_export_info: 'true' })).toMatchObject({
      path: `/Workspace${HOME}/nb`,
      object_type: 'NOTEBOOK',
      repos_export_format: 'SOURCE',
    });
    expect((await st({ path: `${HOME}/j`, return_export_info: 'true' })).repos_export_format).toBe('JUPYTER');
    expect(await st({ path: `${HOME}/nb` })).not.toHaveProperty('repos_export_format');
    expect((await st({ path: `${HOME}/nb` })).path).toBe(`${HOME}/nb`);
    expect(await st({ path: `${HOME}/f.txt`, return_export_info: 'true' })).not.toHaveProperty(
      'repos_export_format',
    );
    const missing = await expectDatabricksError(
      await get('/api/2.0/workspace/get-status', { path: `/Workspace${HOME}/nope` }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    expect(missing.message).toBe(`Path (/Workspace${HOME}/nope) doesn't exist.`);
    const plain = await expectDatabricksError(
      await get('/api/2.0/workspace/get-status', { path: `${HOME}/nope` }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    expect(plain.message).toBe(`Path (${HOME}/nope) doesn't exist.`);
    const exp = await expectDatabricksError(
      await get('/api/2.0/workspace/export', { path: `/Workspace${HOME}/nope` }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    expect(exp.message).toContain(`/Workspace${HOME}/nope`);
  });
});
