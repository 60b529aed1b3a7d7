/**
 * Git folders in process, over the real workspace service and real git repositories on this machine: a clone
 * is a REPO folder whose files the workspace serves, update moves it between branches and tags, a sparse
 * checkout keeps only its cones, list pages by path, delete (through either API) removes both sides, and a
 * URL git cannot reach is Databricks' error within the time bound.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iamService } from '@minilake/iam';
import { serviceApp } from '@minilake/testing';
import { workspaceService } from '@minilake/workspace';
import { reposService } from '../src/index.js';

type App = Awaited<ReturnType<typeof serviceApp>>['app'];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'repos-test-'));
let repos: App;
let ws: App;
let iam: App;
let origin: string;
let me: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@e.st', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' })
    .toString()
    .trim();

beforeAll(async () => {
  origin = path.join(tmp, 'origin');
  mkdirSync(path.join(origin, 'src'), { recursive: true });
  mkdirSync(path.join(origin, 'docs'), { recursive: true });
  git(tmp, 'init', '-q', '-b', 'main', origin);
  writeFileSync(path.join(origin, 'src', 'job.py'), "print('v1')\n");
  writeFileSync(path.join(origin, 'src', 'nb.py'), '# Databricks notebook source\nprint(1)\n');
  writeFileSync(path.join(origin, 'docs', 'readme.md'), '# docs\n');
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'one');
  git(origin, 'tag', 'v1');
  git(origin, 'checkout', '-q', '-b', 'feature');
  writeFileSync(path.join(origin, 'src', 'job.py'), "print('feature')\n");
  git(origin, 'commit', '-qam', 'feature');
  git(origin, 'checkout', '-q', 'main');
  writeFileSync(path.join(origin, 'src', 'job.py'), "print('v2')\n");
  git(origin, 'commit', '-qam', 'two');

  const i = await serviceApp(iamService);
  iam = i.app;
  const w = await serviceApp(workspaceService, { peers: new Map([['iam', i.instance.api]]) });
  ws = w.app;
  const r = await serviceApp(reposService, {
    peers: new Map<string, unknown>([
      ['workspace', w.instance.api],
      ['iam', i.instance.api],
    ]),
    config: { MINILAKE_REPOS_GIT_TIMEOUT: '10' },
  });
  repos = r.app;
  me = r.ctx.identity.userName;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function call(app: App, method: string, p: string, body?: unknown) {
  const res = await app.request(p, {
    method,
    ...(body !== undefined
      ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Any };
}

const read = async (p: string) => {
  const r = await call(ws, 'GET', `/api/2.0/workspace/export?path=${encodeURIComponent(p)}&format=SOURCE`);
  return Buffer.from(r.body.content ?? '', 'base64').toString('utf8');
};

describe('repos', () => {
  it('clones for real into a REPO folder the workspace serves, and updates to a branch and a tag', async () => {
    const p = `/Repos/${me}/proj`;
    const c = await call(repos, 'POST', '/api/2.0/repos', {
      url: `file://${origin}`,
      provider: 'github',
      path: p,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({ path: p, provider: 'gitHub', url: `file://${origin}`, branch: 'main' });
    expect(c.body.head_commit_id).toBe(git(origin, 'rev-parse', 'main'));
    const st = await call(ws, 'GET', `/api/2.0/workspace/get-status?path=${encodeURIComponent(p)}`);
    expect(st.body).toMatchObject({ object_type: 'REPO', object_id: c.body.id, path: p });
    const listed = await call(ws, 'GET', `/api/2.0/workspace/list?path=${encodeURIComponent(`${p}/src`)}`);
    expect(listed.body.objects.map((o: Any) => [o.path.split('/').pop(), o.object_type])).toEqual([
      ['job.py', 'FILE'],
      ['nb', 'NOTEBOOK'],
    ]);
    expect(await read(`${p}/src/job.py`)).toBe("print('v2')\n");

    const id = c.body.id;
    expect((await call(repos, 'PATCH', `/api/2.0/repos/${id}`, { branch: 'feature' })).status).toBe(200);
    expect((await call(repos, 'GET', `/api/2.0/repos/${id}`)).body).toMatchObject({
      branch: 'feature',
      head_commit_id: git(origin, 'rev-parse', 'feature'),
    });
    expect(await read(`${p}/src/job.py`)).toBe("print('feature')\n");
    await call(repos, 'PATCH', `/api/2.0/repos/${id}`, { tag: 'v1' });
    const onTag = (await call(repos, 'GET', `/api/2.0/repos/${id}`)).body;
    expect(onTag.branch).toBeUndefined();
    expect(onTag.head_commit_id).toBe(git(origin, 'rev-parse', 'v1^{commit}'));
    expect(await read(`${p}/src/job.py`)).toBe("print('v1')\n");
    const missing = await call(repos, 'PATCH', `/api/2.0/repos/${id}`, { branch: 'nope' });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('nope');

    // the same path again is refused; an unknown id is the 404 the Terraform provider reads as gone
    const again = await call(repos, 'POST', '/api/2.0/repos', {
      url: `file://${origin}`,
      provider: 'gitHub',
      path: p,
    });
    expect(again.body.error_code).toBe('RESOURCE_ALREADY_EXISTS');
    expect(await call(repos, 'GET', '/api/2.0/repos/123')).toMatchObject({
      status: 404,
      body: { error_code: 'RESOURCE_DOES_NOT_EXIST', message: 'Repo could not be found' },
    });

    // permissions: the repo type, its creator managing it
    const perms = await call(iam, 'GET', `/api/2.0/permissions/repos/${id}`);
    expect(perms.body.object_type).toBe('repo');
    expect(perms.body.access_control_list[0]).toMatchObject({
      user_name: me,
      all_permissions: [{ permission_level: 'CAN_MANAGE', inherited: false }],
    });
    expect((await call(iam, 'GET', '/api/2.0/permissions/repos/999')).status).toBe(404);

    // delete through the Repos API: the folder goes too
    expect((await call(repos, 'DELETE', `/api/2.0/repos/${id}`)).status).toBe(200);
    expect(
      (await call(ws, 'GET', `/api/2.0/workspace/get-status?path=${encodeURIComponent(p)}`)).status,
    ).toBe(404);
    expect((await call(repos, 'GET', `/api/2.0/repos/${id}`)).status).toBe(404);
  });

  it('a sparse checkout keeps only its cones, and update changes them', async () => {
    const p = `/Workspace/Users/${me}/sparse`;
    await call(ws, 'POST', '/api/2.0/workspace/mkdirs', { path: `/Users/${me}` });
    const c = await call(repos, 'POST', '/api/2.0/repos', {
      url: origin,
      provider: 'gitLab',
      path: p,
      sparse_checkout: { patterns: ['docs'] },
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body.sparse_checkout).toEqual({ patterns: ['docs'] });
    const top = await call(ws, 'GET', `/api/2.0/workspace/list?path=${encodeURIComponent(p)}`);
    expect(top.body.objects.map((o: Any) => o.path.split('/').pop())).toEqual(['docs']);
    await call(repos, 'PATCH', `/api/2.0/repos/${c.body.id}`, { sparse_checkout: { patterns: ['src'] } });
    const after = await call(ws, 'GET', `/api/2.0/workspace/list?path=${encodeURIComponent(p)}`);
    expect(after.body.objects.map((o: Any) => o.path.split('/').pop())).toEqual(['src']);
    // a repo made without one cannot start one later
    const plain = await call(repos, 'POST', '/api/2.0/repos', {
      url: origin,
      provider: 'gitHub',
      path: `/Repos/${me}/plain`,
    });
    const refused = await call(repos, 'PATCH', `/api/2.0/repos/${plain.body.id}`, {
      sparse_checkout: { patterns: ['src'] },
    });
    expect(refused.status).toBe(400);
    // deleting the Git folder through the workspace API deletes the repo
    await call(ws, 'POST', '/api/2.0/workspace/delete', { path: `/Repos/${me}/plain`, recursive: true });
    expect((await call(repos, 'GET', `/api/2.0/repos/${plain.body.id}`)).status).toBe(404);
  });

  it('lists by path prefix, 20 a page; the default is the /Repos tree', async () => {
    const made: number[] = [];
    for (let i = 0; i < 23; i++) {
      const r = await call(repos, 'POST', '/api/2.0/repos', {
        url: origin,
        provider: 'gitHub',
        path: `/Repos/lister/r${String(i).padStart(2, '0')}`,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      made.push(r.body.id);
    }
    const first = await call(repos, 'GET', '/api/2.0/repos?path_prefix=/Repos/lister');
    expect(first.body.repos).toHaveLength(20);
    expect(first.body.next_page_token).toBeTruthy();
    const second = await call(
      repos,
      'GET',
      `/api/2.0/repos?path_prefix=/Workspace/Repos/lister&next_page_token=${first.body.next_page_token}`,
    );
    expect(second.body.repos.map((r: Any) => r.path)).toEqual([
      '/Repos/lister/r20',
      '/Repos/lister/r21',
      '/Repos/lister/r22',
    ]);
    expect(second.body.next_page_token).toBeUndefined();
    // A string prefix, as Databricks documents path_prefix: not only a folder.
    const r2 = await call(repos, 'GET', '/api/2.0/repos?path_prefix=/Repos/lister/r2');
    expect(r2.body.repos.map((r: Any) => r.path)).toEqual([
      '/Repos/lister/r20',
      '/Repos/lister/r21',
      '/Repos/lister/r22',
    ]);
    const all = await call(repos, 'GET', '/api/2.0/repos');
    expect(all.body.repos.every((r: Any) => r.path.startsWith('/Repos/'))).toBe(true);
    const sparse = await call(repos, 'GET', `/api/2.0/repos?path_prefix=/Users/${me}`);
    expect(sparse.body.repos.map((r: Any) => r.path)).toEqual([`/Workspace/Users/${me}/sparse`]);
    for (const id of made) await call(repos, 'DELETE', `/api/2.0/repos/${id}`);
  });

  it("a URL git cannot reach is a 400 with git's reason, quickly; bad providers and paths are refused", async () => {
    const t0 = Date.now();
    const gone = await call(repos, 'POST', '/api/2.0/repos', {
      url: `file://${tmp}/does-not-exist`,
      provider: 'gitHub',
      path: `/Repos/${me}/gone`,
    });
    expect(gone.status).toBe(400);
    expect(gone.body.error_code).toBe('INVALID_PARAMETER_VALUE');
    expect(gone.body.message).toMatch(/^Failed to clone repo file:\/\/.*does-not-exist: /);
    // an address nobody answers on (a closed port on loopback) fails as fast
    const closed = await call(repos, 'POST', '/api/2.0/repos', {
      url: 'http://127.0.0.1:9/x.git',
      provider: 'gitHub',
      path: `/Repos/${me}/closed`,
    });
    expect(closed.status).toBe(400);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await call(ws, 'GET', `/api/2.0/workspace/get-status?path=/Repos/${me}/gone`)).status).toBe(404);
    const ext = await call(repos, 'POST', '/api/2.0/repos', {
      url: 'ext::sh -c touch% /tmp/pwned',
      provider: 'gitHub',
    });
    expect(ext.status).toBe(400);
    expect((await call(repos, 'POST', '/api/2.0/repos', { url: origin, provider: 'svn' })).status).toBe(400);
    expect(
      (await call(repos, 'POST', '/api/2.0/repos', { url: origin, provider: 'gitHub', path: '/Repos/x' }))
        .status,
    ).toBe(400);
    expect((await call(repos, 'POST', '/api/2.0/repos', { url: origin })).body.message).toBe(
      'Missing required field: provider',
    );
  });
});
