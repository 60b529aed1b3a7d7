/**
 * Named snapshots of the whole server: what a user changes after a snapshot (catalog rows in DuckDB files,
 * volume files, workspace files, secrets, jobs) is gone after a restore, and what was there before is back.
 */
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMinilake, parseConfig, type Minilake } from '../src/index.js';

let ml: Minilake;
let dir: string;

const call = async (method: string, p: string, body?: unknown) => {
  const res = await ml.app.request(p, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
};
const sql = async (statement: string) => {
  const r = await call('POST', '/api/2.0/sql/statements', {
    warehouse_id: 'dev',
    statement,
    wait_timeout: '30s',
  });
  expect(r.body.status?.state, JSON.stringify(r.body.status)).toBe('SUCCEEDED');
  return (r.body.result?.data_array ?? []) as string[][];
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ml-snap-'));
  ml = await createMinilake(
    parseConfig({
      MINILAKE_DATA_DIR: dir,
      MINILAKE_PERSIST: '1',
      MINILAKE_LOG_LEVEL: 'silent',
      MINILAKE_SERVICES: 'unity-catalog,sql,workspace,files,secrets',
    }),
  );
});
afterAll(async () => {
  await ml?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('snapshots', () => {
  it('restores records, catalog data, volume and workspace files as they were', async () => {
    expect((await call('POST', '/api/2.1/unity-catalog/catalogs', { name: 'snapc' })).status).toBe(200);
    await sql('CREATE TABLE snapc.default.t (id BIGINT)');
    await sql('INSERT INTO snapc.default.t VALUES (1), (2)');
    await call('POST', '/api/2.1/unity-catalog/volumes', {
      catalog_name: 'snapc',
      schema_name: 'default',
      name: 'v',
      volume_type: 'MANAGED',
    });
    await ml.app.request('/api/2.0/fs/files/Volumes/snapc/default/v/a.txt', {
      method: 'PUT',
      body: 'before',
    });
    await call('POST', '/api/2.0/secrets/scopes/create', { scope: 'kept' });

    const made = await call('POST', '/_minilake/snapshots', { name: 'clean' });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ name: 'clean', services: expect.arrayContaining(['unity-catalog']) });
    expect(made.body.size_bytes).toBeGreaterThan(0);
    expect((await call('POST', '/_minilake/snapshots', { name: 'clean' })).body.error_code).toBe(
      'RESOURCE_ALREADY_EXISTS',
    );

    // The experiment: more rows, a dropped table, a new catalog, a changed file, a deleted scope.
    await sql('INSERT INTO snapc.default.t VALUES (3)');
    await sql('CREATE TABLE snapc.default.extra AS SELECT 1 AS x');
    await call('POST', '/api/2.1/unity-catalog/catalogs', { name: 'later' });
    await ml.app.request('/api/2.0/fs/files/Volumes/snapc/default/v/a.txt?overwrite=true', {
      method: 'PUT',
      body: 'after',
    });
    await call('POST', '/api/2.0/secrets/scopes/delete', { scope: 'kept' });

    const restored = await call('POST', '/_minilake/snapshots/clean/restore');
    expect(restored.status).toBe(200);
    expect(await sql('SELECT id FROM snapc.default.t ORDER BY id')).toEqual([['1'], ['2']]);
    expect((await call('GET', '/api/2.1/unity-catalog/tables/snapc.default.extra')).status).toBe(404);
    expect((await call('GET', '/api/2.1/unity-catalog/catalogs/later')).status).toBe(404);
    const file = await ml.app.request('/api/2.0/fs/files/Volumes/snapc/default/v/a.txt');
    expect(await file.text()).toBe('before');
    const scopes = (await call('GET', '/api/2.0/secrets/scopes/list')).body.scopes as { name: string }[];
    expect(scopes.map((s) => s.name)).toContain('kept');
    // Restoring is repeatable, and writes after it land normally.
    await sql('INSERT INTO snapc.default.t VALUES (9)');
    await call('POST', '/_minilake/snapshots/clean/restore');
    expect(await sql('SELECT count(*) FROM snapc.default.t')).toEqual([['2']]);
  });

  it('lists, reads and deletes snapshots, and refuses bad or unknown names', async () => {
    await call('POST', '/_minilake/snapshots', { name: 'second' });
    const list = (await call('GET', '/_minilake/snapshots')).body.snapshots as { name: string }[];
    expect(list.map((s) => s.name)).toEqual(expect.arrayContaining(['clean', 'second']));
    expect((await call('GET', '/_minilake/snapshots/second')).body.name).toBe('second');
    expect((await call('DELETE', '/_minilake/snapshots/second')).status).toBe(200);
    const gone = await call('POST', '/_minilake/snapshots/second/restore');
    expect([gone.status, gone.body.error_code]).toEqual([404, 'RESOURCE_DOES_NOT_EXIST']);
    for (const bad of ['../x', '.hidden', 'a/b', ''])
      expect((await call('POST', '/_minilake/snapshots', { name: bad })).body.error_code).toBe(
        'INVALID_PARAMETER_VALUE',
      );
    expect((await call('POST', '/_minilake/snapshots', { name: 7 })).status).toBe(400);
    const unnamed = await call('POST', '/_minilake/snapshots', {});
    expect(unnamed.body.name).toMatch(/^snapshot-/);
  });

  it('skips what is not data in an owned folder (a socket a tool left there) and keeps the rest', async () => {
    const sockDir = path.join(dir, 'workspace', 'tmp');
    await mkdir(sockDir, { recursive: true });
    const sock = net.createServer().listen(path.join(sockDir, 'tool.sock'));
    await once(sock, 'listening');
    try {
      await ml.app.request('/api/2.0/fs/files/Volumes/snapc/default/v/kept.txt', {
        method: 'PUT',
        body: 'x',
      });
      const made = await call('POST', '/_minilake/snapshots', { name: 'with-socket' });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      expect((await call('POST', '/_minilake/snapshots/with-socket/restore')).status).toBe(200);
      const back = await ml.app.request('/api/2.0/fs/files/Volumes/snapc/default/v/kept.txt');
      expect(await back.text()).toBe('x');
    } finally {
      sock.close();
    }
  });
});
