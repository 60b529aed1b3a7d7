/**
 * The real `minilake` process and the house seams: a persisted state of another version stops start-up
 * with a message (and loses nothing), a trailing slash reaches its route, `null` is absent, and an unknown
 * non-API path answers the same 404 as in process.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverEntry, startServer } from '@minilake/testing';

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the minilake process and the house seams', () => {
  it('refuses to start on state written by another version, says what to do, and drops nothing', async () => {
    const s = await startServer({ env: { MINILAKE_PERSIST: '1', MINILAKE_SERVICES: 'secrets' } });
    expect((await post(`${s.url}/api/2.0/secrets/scopes/create`, { scope: 'kept' })).status).toBe(200);
    expect(await s.stop()).toBe(0);

    const snapshotFile = path.join(s.dataDir, 'state', 'snapshot.json');
    const original = readFileSync(snapshotFile, 'utf8');
    const snap = JSON.parse(original) as { versions: Record<string, number> };
    expect(snap.versions.secrets).toBe(1);
    writeFileSync(snapshotFile, JSON.stringify({ ...snap, versions: { ...snap.versions, secrets: 99 } }));

    const r = spawnSync(process.execPath, [serverEntry, '--port', '0'], {
      encoding: 'utf8',
      env: {
        ...process.env,
        MINILAKE_DATA_DIR: s.dataDir,
        MINILAKE_PERSIST: '1',
        MINILAKE_SERVICES: 'secrets',
      },
      timeout: 20_000,
    });
    expect(r.status, r.stderr).not.toBe(0);
    expect(r.status).not.toBeNull();
    expect(r.stderr).toContain("module 'secrets' has version 99");
    expect(r.stderr).toContain('expects version 1');
    expect(r.stderr).toContain(path.join(s.dataDir, 'state'));
    expect(r.stderr).toContain('MINILAKE_PERSIST=0');
    expect(r.stdout).not.toContain('listening on');

    // The data is still there for the version that wrote it.
    const bumped = JSON.parse(readFileSync(snapshotFile, 'utf8')) as { versions: Record<string, number> };
    expect(bumped.versions.secrets).toBe(99);
    writeFileSync(snapshotFile, original);
    const again = await startServer({
      dataDir: s.dataDir,
      env: { MINILAKE_PERSIST: '1', MINILAKE_SERVICES: 'secrets' },
    });
    try {
      const list = await ((await fetch(`${again.url}/api/2.0/secrets/scopes/list`)).json() as Promise<any>);
      expect(list.scopes.map((x: { name: string }) => x.name)).toEqual(['kept']);
    } finally {
      await again.stop();
    }
  });

  it('trailing slashes, null fields and unknown paths behave as in process', async () => {
    const s = await startServer({ env: { MINILAKE_SERVICES: 'secrets,compute' } });
    try {
      expect((await post(`${s.url}/api/2.0/secrets/scopes/create/`, { scope: 'slash' })).status).toBe(200);
      const list = await ((await fetch(`${s.url}/api/2.0/secrets/scopes/list/`)).json() as Promise<any>);
      expect(list.scopes.map((x: { name: string }) => x.name)).toEqual(['slash']);
      const pool = await post(`${s.url}/api/2.0/instance-pools/create`, {
        instance_pool_name: 'p',
        node_type_id: 'i3.xlarge',
        custom_tags: null,
      });
      expect(pool.status, await pool.clone().text()).toBe(200);
      expect((await (pool.json() as Promise<any>)).instance_pool_id).toMatch(/\S/);
      const other = await fetch(`${s.url}/not-an-api`);
      expect(other.status).toBe(404);
      expect((await (other.json() as Promise<any>)).error_code).toBe('ENDPOINT_NOT_FOUND');
    } finally {
      await s.stop();
    }
  });
});
