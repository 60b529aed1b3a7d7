import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { ManualClock, notFound, type ServiceContext } from '@minilake/core';
import { filesService, type VolumeResolver } from '../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (r: Response): Promise<any> => r.json();
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

let app: Hono;
let ctx: ServiceContext;
let clock: ManualClock;
let volRoot: string;

/** Stands in for the unity-catalog service: one volume, main.default.vol. */
function fakeUc(root: string): VolumeResolver {
  return {
    async volumeDirectory(catalog, schema, volume) {
      if (`${catalog}.${schema}.${volume}` !== 'main.default.vol')
        throw notFound(`Volume '${catalog}.${schema}.${volume}' does not exist.`);
      await mkdir(root, { recursive: true });
      return root;
    },
  };
}

beforeEach(async () => {
  clock = new ManualClock();
  volRoot = path.join(await mkdtemp(path.join(os.tmpdir(), 'minilake-vol-')), 'vol');
  ({ app, ctx } = await serviceApp(filesService, {
    clock,
    peers: new Map([['unity-catalog', fakeUc(volRoot)]]),
  }));
});

const post = (p: string, body: unknown) => app.request(p, jsonInit('POST', body));
const get = (p: string, q: Record<string, string | number> = {}) =>
  app.request(
    `${p}?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
  );

describe('DBFS', () => {
  it('puts, reads, stats, lists, moves and deletes real files', async () => {
    expect(
      (await post('/api/2.0/dbfs/put', { path: 'dbfs:/a/b/x.txt', contents: b64('hello world') })).status,
    ).toBe(200);
    expect(await readFile(path.join(ctx.dataDir, 'dbfs/root/a/b/x.txt'), 'utf8')).toBe('hello world');
    expect(
      await json(await get('/api/2.0/dbfs/read', { path: '/a/b/x.txt', offset: 6, length: 100 })),
    ).toEqual({
      bytes_read: 5,
      data: b64('world'),
    });
    const st = await json(await get('/api/2.0/dbfs/get-status', { path: '/a/b/x.txt' }));
    expect(st).toMatchObject({ path: '/a/b/x.txt', is_dir: false, file_size: 11 });
    expect(st.modification_time).toBeGreaterThan(0);
    expect(await json(await get('/api/2.0/dbfs/list', { path: '/a' }))).toMatchObject({
      files: [{ path: '/a/b', is_dir: true, file_size: 0 }],
    });
    await expectDatabricksError(
      await post('/api/2.0/dbfs/put', { path: '/a/b/x.txt', contents: b64('x') }),
      409,
      'RESOURCE_ALREADY_EXISTS',
    );
    expect(
      (await post('/api/2.0/dbfs/move', { source_path: '/a/b/x.txt', destination_path: '/c/y.txt' })).status,
    ).toBe(200);
    await expectDatabricksError(
      await get('/api/2.0/dbfs/get-status', { path: '/a/b/x.txt' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await post('/api/2.0/dbfs/move', { source_path: '/nope', destination_path: '/z' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(await post('/api/2.0/dbfs/delete', { path: '/c' }), 400, 'IO_ERROR');
    expect((await post('/api/2.0/dbfs/delete', { path: '/c', recursive: true })).status).toBe(200);
    await expectDatabricksError(
      await get('/api/2.0/dbfs/list', { path: '/c' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    expect((await post('/api/2.0/dbfs/mkdirs', { path: '/m/n' })).status).toBe(200);
    expect((await json(await get('/api/2.0/dbfs/get-status', { path: '/m/n' }))).is_dir).toBe(true);
  });

  it('refuses to move a directory into itself with a 400, not a 500', async () => {
    expect((await post('/api/2.0/dbfs/mkdirs', { path: '/a' })).status).toBe(200);
    for (const [source_path, destination_path] of [
      ['/a', '/a/b/c'],
      ['/', '/sub/x'],
      ['dbfs:/a', 'dbfs:/a/b'],
    ]) {
      await expectDatabricksError(
        await post('/api/2.0/dbfs/move', { source_path, destination_path }),
        400,
        'INVALID_PARAMETER_VALUE',
      );
    }
    // Nothing was created on the way, and a sibling whose name starts the same is still a valid target.
    await expectDatabricksError(
      await get('/api/2.0/dbfs/get-status', { path: '/a/b' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await get('/api/2.0/dbfs/get-status', { path: '/sub' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    expect((await post('/api/2.0/dbfs/move', { source_path: '/a', destination_path: '/ab' })).status).toBe(
      200,
    );
  });

  it('keeps the real limits and answers bad base64 with a 400', async () => {
    await post('/api/2.0/dbfs/put', { path: '/f', contents: b64('x') });
    await expectDatabricksError(
      await get('/api/2.0/dbfs/read', { path: '/f', length: 1024 * 1024 + 1 }),
      400,
      'MAX_READ_SIZE_EXCEEDED',
    );
    await expectDatabricksError(
      await post('/api/2.0/dbfs/put', { path: '/g', contents: '%%%' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await post('/api/2.0/dbfs/put', { path: '/g', contents: b64(Buffer.alloc(1024 * 1024 + 1)) }),
      400,
      'MAX_BLOCK_SIZE_EXCEEDED',
    );
    // A body far larger than any block is refused from its declared length, before it is read.
    const huge = JSON.stringify({ handle: 1, data: b64(Buffer.alloc(3 * 1024 * 1024)) });
    const r = await app.request('/api/2.0/dbfs/add-block', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(huge.length) },
      body: huge,
    });
    await expectDatabricksError(r, 400, 'MAX_BLOCK_SIZE_EXCEEDED');
  });

  it('accepts multipart put', async () => {
    const form = new FormData();
    form.set('path', '/mp.bin');
    form.set('overwrite', 'true');
    form.set('contents', new Blob([Buffer.from([0, 1, 2, 3])]), 'mp.bin');
    expect((await app.request('/api/2.0/dbfs/put', { method: 'POST', body: form })).status).toBe(200);
    expect(await readFile(path.join(ctx.dataDir, 'dbfs/root/mp.bin'))).toEqual(Buffer.from([0, 1, 2, 3]));
  });

  it('streams uploads through create / add-block / close, and frees idle handles', async () => {
    const { handle } = await json(await post('/api/2.0/dbfs/create', { path: '/up/big.bin' }));
    expect(typeof handle).toBe('number');
    await post('/api/2.0/dbfs/add-block', { handle, data: b64('abc') });
    await post('/api/2.0/dbfs/add-block', { handle, data: b64('def') });
    expect((await post('/api/2.0/dbfs/close', { handle })).status).toBe(200);
    expect(await readFile(path.join(ctx.dataDir, 'dbfs/root/up/big.bin'), 'utf8')).toBe('abcdef');
    await expectDatabricksError(
      await post('/api/2.0/dbfs/add-block', { handle, data: b64('x') }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );

    const idle = (await json(await post('/api/2.0/dbfs/create', { path: '/idle.bin' }))).handle;
    clock.advance(9 * 60 * 1000);
    expect((await post('/api/2.0/dbfs/add-block', { handle: idle, data: b64('x') })).status).toBe(200);
    clock.advance(9 * 60 * 1000); // still alive: the block reset the idle timer
    expect((await post('/api/2.0/dbfs/add-block', { handle: idle, data: b64('y') })).status).toBe(200);
    clock.advance(11 * 60 * 1000);
    await expectDatabricksError(
      await post('/api/2.0/dbfs/close', { handle: idle }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await get('/api/2.0/dbfs/get-status', { path: '/idle.bin' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });

  it('never leaves its root', async () => {
    for (const p of ['/../../etc/passwd', 'dbfs:/a/../../x', '/a\0b', 'relative']) {
      await expectDatabricksError(
        await get('/api/2.0/dbfs/read', { path: p }),
        400,
        'INVALID_PARAMETER_VALUE',
      );
    }
    const outside = await mkdtemp(path.join(os.tmpdir(), 'minilake-outside-'));
    await writeFile(path.join(outside, 'secret'), 'root:x');
    await symlink(outside, path.join(ctx.dataDir, 'dbfs/root/link'));
    await expectDatabricksError(
      await get('/api/2.0/dbfs/read', { path: '/link/secret' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await post('/api/2.0/dbfs/put', { path: '/link/pwn', contents: b64('x') }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });
});

const V = '/api/2.0/fs/files/Volumes/main/default/vol';
const D = '/api/2.0/fs/directories/Volumes/main/default/vol';
const put = (p: string, body: string | Buffer, overwrite?: boolean) =>
  app.request(overwrite === undefined ? p : `${p}?overwrite=${overwrite}`, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'application/octet-stream' },
  });

describe('Files API on volumes', () => {
  it('uploads, downloads, heads and deletes files in the volume directory', async () => {
    expect((await put(`${V}/dir/a.txt`, 'hello files')).status).toBe(204);
    expect(await readFile(path.join(volRoot, 'dir/a.txt'), 'utf8')).toBe('hello files');
    const res = await app.request(`${V}/dir/a.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-length')).toBe('11');
    expect(new Date(res.headers.get('last-modified')!).getTime()).toBeGreaterThan(0);
    expect(await res.text()).toBe('hello files');
    const head = await app.request(`${V}/dir/a.txt`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('11');
    await expectDatabricksError(await put(`${V}/dir/a.txt`, 'again', false), 409, 'ALREADY_EXISTS');
    expect((await put(`${V}/dir/a.txt`, 'default overwrites')).status).toBe(204);
    expect((await put(`${V}/dir/a.txt`, 'replaced', true)).status).toBe(204);
    expect(await (await app.request(`${V}/dir/a.txt`)).text()).toBe('replaced');
    expect((await app.request(`${V}/dir/a.txt`, { method: 'DELETE' })).status).toBe(204);
    await expectDatabricksError(await app.request(`${V}/dir/a.txt`), 404, 'NOT_FOUND');
    expect((await app.request(`${V}/dir/a.txt`, { method: 'HEAD' })).status).toBe(404);
  });

  it('serves Range reads', async () => {
    await put(`${V}/r.bin`, '0123456789');
    const r = await app.request(`${V}/r.bin`, { headers: { range: 'bytes=2-5' } });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(await r.text()).toBe('2345');
    expect(await (await app.request(`${V}/r.bin`, { headers: { range: 'bytes=7-' } })).text()).toBe('789');
    expect(await (await app.request(`${V}/r.bin`, { headers: { range: 'bytes=-3' } })).text()).toBe('789');
    expect((await app.request(`${V}/r.bin`, { headers: { range: 'bytes=20-30' } })).status).toBe(416);
    const past = new Date(Date.now() - 3_600_000).toUTCString();
    await expectDatabricksError(
      await app.request(`${V}/r.bin`, { headers: { 'if-unmodified-since': past } }),
      412,
      'FAILED_PRECONDITION',
    );
    const future = new Date(Date.now() + 3_600_000).toUTCString();
    expect((await app.request(`${V}/r.bin`, { headers: { 'if-unmodified-since': future } })).status).toBe(
      200,
    );
  });

  it('manages directories and lists them page by page', async () => {
    expect((await app.request(`${D}/d1/d2`, { method: 'PUT' })).status).toBe(204);
    expect((await app.request(`${D}/d1/d2`, { method: 'HEAD' })).status).toBe(200);
    expect((await app.request(`${D}/nope`, { method: 'HEAD' })).status).toBe(404);
    for (const n of ['a', 'b', 'c']) await put(`${V}/d1/${n}.txt`, n.repeat(3));
    const first = await json(await get(`${D}/d1`, { page_size: 2 }));
    expect(first.contents).toEqual([
      expect.objectContaining({
        path: '/Volumes/main/default/vol/d1/a.txt',
        name: 'a.txt',
        is_directory: false,
        file_size: 3,
      }),
      expect.objectContaining({ name: 'b.txt' }),
    ]);
    expect(typeof first.contents[0].last_modified).toBe('number');
    const second = await json(await get(`${D}/d1`, { page_size: 2, page_token: first.next_page_token }));
    expect(second.contents.map((e: { name: string }) => e.name)).toEqual(['c.txt', 'd2']);
    expect(second.contents[1]).toMatchObject({ is_directory: true });
    expect(second.next_page_token).toBeUndefined();
    await expectDatabricksError(
      await app.request(`${D}/d1`, { method: 'DELETE' }),
      400,
      'FAILED_PRECONDITION',
    );
    expect((await app.request(`${D}/d1/d2`, { method: 'DELETE' })).status).toBe(204);
    await expectDatabricksError(await get(`${D}/d1/d2`), 404, 'NOT_FOUND');
  });

  it('refuses to delete a volume root with its own message, empty or not', async () => {
    expect((await app.request(`${D}/d1`, { method: 'PUT' })).status).toBe(204);
    for (const p of [D, `${D}/`]) {
      const err = await expectDatabricksError(
        await app.request(p, { method: 'DELETE' }),
        400,
        'INVALID_PARAMETER_VALUE',
      );
      expect(err.message).toContain('root directory of a volume');
      expect(err.message).not.toContain('not empty');
    }
    expect((await app.request(`${D}/d1`, { method: 'DELETE' })).status).toBe(204);
    const err = await expectDatabricksError(
      await app.request(D, { method: 'DELETE' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    expect(err.message).toContain('root directory of a volume');
    expect((await app.request(D, { method: 'HEAD' })).status).toBe(200);
  });

  it('answers 404 for a volume that does not exist and 400 for a path outside /Volumes', async () => {
    await expectDatabricksError(
      await put('/api/2.0/fs/files/Volumes/main/default/nope/x', 'x'),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(await put('/api/2.0/fs/files/tmp/x', 'x'), 400, 'INVALID_PARAMETER_VALUE');
    await expectDatabricksError(
      await app.request('/api/2.0/fs/files/Volumes/main'),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });

  it('treats an encoded slash as a separator, as Databricks does (files and directories)', async () => {
    const one = encodeURIComponent('Volumes/main/default/vol/esc/a.txt');
    expect((await put(`/api/2.0/fs/files/${one}`, 'escaped')).status).toBe(204);
    expect(await readFile(path.join(volRoot, 'esc/a.txt'), 'utf8')).toBe('escaped');
    expect(await (await app.request(`/api/2.0/fs/files/${one}`)).text()).toBe('escaped');
    expect((await app.request(`/api/2.0/fs/files/${one}`, { method: 'HEAD' })).status).toBe(200);
    const dir = encodeURIComponent('Volumes/main/default/vol/esc');
    const listed = await json(await app.request(`/api/2.0/fs/directories/${dir}`));
    expect(listed.contents.map((e: { path: string }) => e.path)).toEqual([
      '/Volumes/main/default/vol/esc/a.txt',
    ]);
    expect((await app.request(`/api/2.0/fs/files/${one}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('never leaves the volume: encoded slashes, encoded dots, NUL bytes, symlinks', async () => {
    for (const p of [`${V}/a%2F..%2F..%2Fx`, `${V}/%2e%2e%2F%2e%2e%2Fetc`, `${V}/x%00y`, `${V}/a%5C..%5Cb`]) {
      await expectDatabricksError(await app.request(p), 400, 'INVALID_PARAMETER_VALUE');
      await expectDatabricksError(await put(p, 'x'), 400, 'INVALID_PARAMETER_VALUE');
    }
    const outside = await mkdtemp(path.join(os.tmpdir(), 'minilake-outside-'));
    await writeFile(path.join(outside, 'passwd'), 'root:x:0:0');
    await mkdir(volRoot, { recursive: true });
    await symlink(outside, path.join(volRoot, 'evil'));
    await expectDatabricksError(await app.request(`${V}/evil/passwd`), 400, 'INVALID_PARAMETER_VALUE');
    await expectDatabricksError(await put(`${V}/evil/new`, 'x'), 400, 'INVALID_PARAMETER_VALUE');
  });

  it('ends with one complete file when writers race on one path', async () => {
    const bodies = Array.from({ length: 8 }, (_, i) => Buffer.alloc(300_000, 65 + i));
    const res = await Promise.all(bodies.map((b) => put(`${V}/race.bin`, b, true)));
    expect(res.every((r) => r.status === 204)).toBe(true);
    const out = await readFile(path.join(volRoot, 'race.bin'));
    expect(bodies.some((b) => b.equals(out))).toBe(true);
    // create-if-absent: exactly one of the racers wins
    const once = await Promise.all(bodies.map((b) => put(`${V}/once.bin`, b, false)));
    expect(once.filter((r) => r.status === 204)).toHaveLength(1);
    expect(once.filter((r) => r.status === 409)).toHaveLength(7);
    const names = await json(await get(D));
    expect(names.contents.map((e: { name: string }) => e.name)).toEqual(['once.bin', 'race.bin']);
  });
});

describe('concurrent changes to one tree', () => {
  it('never answer a 500: each request sees the tree before or after the others (DBFS and volumes)', async () => {
    const V = '/api/2.0/fs';
    const vol = `${V}/files/Volumes/main/default/vol/x/f.bin`;
    const ops = [
      () => post('/api/2.0/dbfs/put', { path: '/r/f', contents: b64('hello'), overwrite: true }),
      () => post('/api/2.0/dbfs/delete', { path: '/r', recursive: true }),
      () => post('/api/2.0/dbfs/mkdirs', { path: '/r/x' }),
      () => post('/api/2.0/dbfs/move', { source_path: '/r/f', destination_path: '/r/g' }),
      () => app.request(`/api/2.0/dbfs/read?path=${encodeURIComponent('/r/f')}`),
      () => app.request(`${vol}?overwrite=true`, { method: 'PUT', body: 'y'.repeat(5000) }),
      () => app.request(vol, { method: 'DELETE' }),
      () => app.request(`${V}/directories/Volumes/main/default/vol/x`, { method: 'DELETE' }),
      () => app.request(`${V}/directories/Volumes/main/default/vol/x`, { method: 'PUT' }),
      () => app.request(vol),
    ];
    const statuses = new Set<number>();
    for (let round = 0; round < 40; round++) {
      const all = await Promise.all(ops.map((op, i) => ops[(i + round) % ops.length]!()));
      for (const r of all) {
        statuses.add(r.status);
        expect(r.status, await r.text()).toBeLessThan(500);
      }
    }
    expect(statuses).toContain(200);
  });
});
