import { mkdtemp, mkdir, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  CollectionStore,
  DatabricksError,
  ManualClock,
  StateDb,
  StateVersionError,
  errorHandler,
  jobsPage,
  notImplementedHandler,
  qBool,
  qInt,
  readJson,
  readQuery,
  readQueryOrBody,
  MAX_GET_BODY_BYTES,
  Mutex,
  renderError,
  resolveUnder,
  resolveUnderReal,
  scimPage,
  silentLogger,
  ucPage,
  v,
} from '../src/index.js';

const names = Array.from({ length: 23 }, (_, i) => `n${String(i).padStart(2, '0')}`);

describe('pagination', () => {
  it('UC: absent max_results returns everything without a token', () => {
    const p = ucPage(names, (n) => n, {});
    expect(p.items).toHaveLength(23);
    expect(p.nextPageToken).toBeUndefined();
  });

  it('UC: pages until the last page, which has no token', () => {
    const seen: string[] = [];
    let token: string | undefined;
    for (let i = 0; i < 10; i++) {
      const p = ucPage(names, (n) => n, { max_results: 10, page_token: token });
      seen.push(...p.items);
      token = p.nextPageToken;
      if (!token) break;
    }
    expect(seen).toEqual(names);
    expect(ucPage(names, (n) => n, { max_results: 23 }).nextPageToken).toBeUndefined();
  });

  it('UC: 0 is the server default, negative is a 400, a forged token is a 400', () => {
    expect(ucPage(names, (n) => n, { max_results: 0 }).items).toHaveLength(23);
    expect(() => ucPage(names, (n) => n, { max_results: -1 })).toThrow(DatabricksError);
    expect(() => ucPage(names, (n) => n, { max_results: 5, page_token: '!!!' })).toThrow(/page_token/);
  });

  it('jobs: has_more follows the token', () => {
    const first = jobsPage(names, (n) => n, { limit: 20 });
    expect(first.hasMore).toBe(true);
    const second = jobsPage(names, (n) => n, { limit: 20, page_token: first.nextPageToken });
    expect(second.items).toHaveLength(3);
    expect(second.hasMore).toBe(false);
    expect(() => jobsPage(names, (n) => n, { limit: 101 })).toThrow(DatabricksError);
  });

  it('SCIM: 1-based startIndex echoed, empty past the end', () => {
    const p = scimPage(names, { startIndex: 11, count: 5 });
    expect(p.startIndex).toBe(11);
    expect(p.Resources).toEqual(names.slice(10, 15));
    expect(p.totalResults).toBe(23);
    expect(scimPage(names, { startIndex: 1000, count: 5 }).Resources).toEqual([]);
  });
});

describe('path safety', () => {
  it('rejects .., NUL bytes and backslashes', () => {
    expect(() => resolveUnder('/data', '/a/../../etc/passwd')).toThrow(DatabricksError);
    expect(() => resolveUnder('/data', 'a\0b')).toThrow(DatabricksError);
    expect(() => resolveUnder('/data', 'a\\..\\b')).toThrow(DatabricksError);
    expect(resolveUnder('/data', '/a/./b/')).toBe(path.resolve('/data/a/b'));
  });

  it('rejects a symlink planted in the root that points outside', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'ml-paths-'));
    const outside = await mkdtemp(path.join(os.tmpdir(), 'ml-outside-'));
    await writeFile(path.join(outside, 'secret.txt'), 'x');
    await mkdir(path.join(root, 'vol'));
    await symlink(outside, path.join(root, 'vol', 'escape'));
    await expect(resolveUnderReal(root, 'vol/escape/secret.txt')).rejects.toThrow(/escapes/);
    await expect(resolveUnderReal(root, 'vol/new/file.txt')).resolves.toBe(
      path.join(root, 'vol/new/file.txt'),
    );
  });
});

describe('validation through a Hono app', () => {
  const app = new Hono();
  app.onError(errorHandler(silentLogger));
  app.post('/body', async (c) =>
    c.json(await readJson(c, v.object({ name: v.string(), n: v.optional(v.number()) }))),
  );
  app.get('/query', (c) =>
    c.json(readQuery(c, v.object({ force: v.optional(qBool()), max: v.optional(qInt()) }))),
  );
  app.get('/qb', async (c) =>
    c.json(await readQueryOrBody(c, v.object({ name: v.optional(v.string()), n: v.optional(qInt()) }))),
  );
  app.all('*', notImplementedHandler);

  // What @hono/node-server hands a handler as c.env.incoming: the raw request stream with its headers.
  const incoming = (body: string | Buffer, headers: Record<string, string>) =>
    Object.assign(Readable.from([Buffer.from(body)]), { headers });

  it('GET bodies are read from the raw Node request when the adapter dropped them', async () => {
    const body = JSON.stringify({ name: 'a', n: 3 });
    const env = { incoming: incoming(body, { 'content-length': String(body.length) }) };
    expect(await (await app.request('/qb?n=4', {}, env)).json()).toEqual({ name: 'a', n: 4 });
    const chunked = { incoming: incoming(body, { 'transfer-encoding': 'chunked' }) };
    expect(await (await app.request('/qb', {}, chunked)).json()).toEqual({ name: 'a', n: 3 });
    // No announced body: the stream is not touched.
    expect(await (await app.request('/qb?name=q', {}, { incoming: incoming('', {}) })).json()).toEqual({
      name: 'q',
    });
    // In-process requests without a raw stream keep working.
    expect(await (await app.request('/qb?name=z')).json()).toEqual({ name: 'z' });
  });

  it('a GET body over the limit or not JSON is a 400', async () => {
    const big = Buffer.alloc(MAX_GET_BODY_BYTES + 10, 32);
    let res = await app.request('/qb', {}, { incoming: incoming(big, { 'transfer-encoding': 'chunked' }) });
    expect(res.status).toBe(400);
    res = await app.request('/qb', {}, { incoming: incoming('x', { 'content-length': String(2 ** 30) }) });
    expect(res.status).toBe(400);
    res = await app.request('/qb', {}, { incoming: incoming('{no', { 'content-length': '3' }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('MALFORMED_REQUEST');
  });

  it('a bad JSON body is a Databricks-shaped 400', async () => {
    const res = await app.request('/body', { method: 'POST', body: '{nope' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('MALFORMED_REQUEST');
  });

  it('a wrong type is a 400 naming the field', async () => {
    const res = await app.request('/body', { method: 'POST', body: JSON.stringify({ name: 'a', n: 'x' }) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error_code: string; message: string };
    expect(body.error_code).toBe('INVALID_PARAMETER_VALUE');
    expect(body.message).toContain("'n'");
  });

  it('query strings are coerced explicitly: "false" is false', async () => {
    expect(await (await app.request('/query?force=false&max=5')).json()).toEqual({ force: false, max: 5 });
    expect(await (await app.request('/query?force=TRUE')).json()).toEqual({ force: true });
    expect((await app.request('/query?force=maybe')).status).toBe(400);
    expect((await app.request('/query?max=1.5')).status).toBe(400);
  });

  it('unknown routes are 501 NOT_IMPLEMENTED; unknown errors are an opaque 500', async () => {
    const res = await app.request('/api/2.0/nothing');
    expect(res.status).toBe(501);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('NOT_IMPLEMENTED');
    expect(renderError(new Error('secret detail')).body).toEqual({
      error_code: 'INTERNAL_ERROR',
      message: 'Internal error',
    });
  });
});

describe('state journal', () => {
  it('replays acknowledged writes after a reopen, including deletes and clears', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ml-state-'));
    const db = await StateDb.open(dir);
    const c = db.collection<{ n: number }>('m/things');
    c.set('a', { n: 1 });
    c.set('b', { n: 2 });
    c.delete('a');
    const other = db.collection<string>('m/other');
    other.set('x', 'y');
    other.clear();
    other.set('z', 'w');
    await db.flush();
    // No close(): this is what a crash leaves behind.
    const reopened = await StateDb.open(dir);
    expect(reopened.collection('m/things').toObject()).toEqual({ b: { n: 2 } });
    expect(reopened.collection('m/other').toObject()).toEqual({ z: 'w' });
  });

  it('journals a record changed through update, in place or replaced', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ml-state-'));
    const db = await StateDb.open(dir);
    const c = db.collection<{ n: number }>('m/things');
    c.set('a', { n: 1 });
    c.set('b', { n: 1 });
    c.update('a', (v) => {
      v.n = 2;
    });
    c.update('b', (v) => ({ n: v.n + 10 }));
    expect(c.update('missing', () => ({ n: 0 }))).toBeUndefined();
    await db.flush();
    const reopened = await StateDb.open(dir);
    expect(reopened.collection('m/things').toObject()).toEqual({ a: { n: 2 }, b: { n: 11 } });
  });

  it('refuses state written by another module version, naming module, versions and what to do', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ml-state-'));
    const db = await StateDb.open(dir);
    db.declareVersion('m', 1);
    db.collection('m/things').set('a', 1);
    await db.close();
    const reopened = await StateDb.open(dir);
    let err: unknown;
    try {
      reopened.declareVersion('m', 2);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StateVersionError);
    expect((err as Error).message).toMatch(/module 'm' has version 1, but this MiniLake expects version 2/);
    expect((err as Error).message).toContain(dir);
    expect((err as Error).message).toContain('MINILAKE_PERSIST=0');
    // Nothing was dropped: the same data is still there for the version that wrote it.
    await reopened.close();
    const again = await StateDb.open(dir);
    expect(again.declareVersion('m', 1)).toBe('current');
    expect(again.collection('m/things').toObject()).toEqual({ a: 1 });
  });

  it('a CollectionStore migrates through its migrate() override, or refuses without one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ml-state-'));
    class V1 extends CollectionStore {
      readonly things = this.collection<string>('things');
      constructor(db: StateDb) {
        super('shop', 1, db);
      }
    }
    class V2 extends CollectionStore {
      readonly things = this.collection<{ name: string }>('things');
      constructor(db: StateDb) {
        super('shop', 2, db);
      }
      override migrate(from: number, collections: Record<string, Record<string, unknown>>): boolean {
        if (from !== 1) return false;
        const things = collections['shop/things'] ?? {};
        for (const k of Object.keys(things)) things[k] = { name: things[k] as string };
        return true;
      }
    }
    class V3 extends CollectionStore {
      constructor(db: StateDb) {
        super('shop', 3, db);
      }
    }
    let db = await StateDb.open(dir);
    new V1(db).things.set('a', 'apple');
    await db.close();
    db = await StateDb.open(dir);
    expect(new V2(db).things.get('a')).toEqual({ name: 'apple' });
    await db.close();
    db = await StateDb.open(dir);
    expect(() => new V3(db)).toThrow(/module 'shop' has version 2, but this MiniLake expects version 3/);
    await db.close();
  });

  it('migrates state through the module hook when one is given, and keeps the result', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ml-state-'));
    const db = await StateDb.open(dir);
    db.declareVersion('m', 1);
    db.collection('m/things').set('a', { n: 1 });
    await db.close();
    const reopened = await StateDb.open(dir);
    const migrated = reopened.declareVersion('m', 2, (from, collections) => {
      expect(from).toBe(1);
      for (const v of Object.values(collections['m/things'] ?? {})) (v as { n: number; m?: number }).m = 2;
      return true;
    });
    expect(migrated).toBe('migrated');
    expect(reopened.collection('m/things').toObject()).toEqual({ a: { n: 1, m: 2 } });
    // Persisted with the new version straight away: a crash right now would not migrate twice.
    const crashed = await StateDb.open(dir);
    expect(crashed.declareVersion('m', 2)).toBe('current');
    expect(crashed.collection('m/things').toObject()).toEqual({ a: { n: 1, m: 2 } });
    await crashed.close();
    await reopened.close();
  });
});

describe('manual clock', () => {
  it('fires timers in order and can cancel them', () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 200);
    const cancel = clock.setTimeout(() => fired.push('x'), 100);
    clock.setTimeout(() => fired.push('a'), 50);
    cancel();
    clock.advance(150);
    expect(fired).toEqual(['a']);
    clock.advance(100);
    expect(fired).toEqual(['a', 'b']);
    expect(clock.now()).toBe(250);
  });
});

describe('Mutex', () => {
  it('runs tasks one at a time in order, and a failure does not block the next', async () => {
    const m = new Mutex();
    const seen: string[] = [];
    let active = 0;
    const task = (name: string, fail = false) =>
      m.run(async () => {
        active++;
        expect(active).toBe(1);
        await new Promise((r) => setImmediate(r));
        seen.push(name);
        active--;
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([task('a'), task('b', true), task('c')]);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
