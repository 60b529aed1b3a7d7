/**
 * The real `minilake` process: selection by MINILAKE_SERVICES, fail-fast start-up, graceful shutdown,
 * and persistence across a clean restart and across kill -9.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverEntry, startServer } from '@minilake/testing';

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the minilake process', () => {
  it('--help and --version answer without starting', () => {
    const help = spawnSync(process.execPath, [serverEntry, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--port');
    const version = spawnSync(process.execPath, [serverEntry, '--version'], { encoding: 'utf8' });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('refuses an unknown service and lists the valid ones', () => {
    const r = spawnSync(process.execPath, [serverEntry, '--port', '0'], {
      encoding: 'utf8',
      env: { ...process.env, MINILAKE_SERVICES: 'secrets,warp-drive' },
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('warp-drive');
    expect(r.stderr).toContain('secrets');
  });

  it('lists every start-up problem on its own line naming the setting, without a stack trace, and exits 2', async () => {
    const busy = await startServer({ env: { MINILAKE_SERVICES: 'secrets' } });
    try {
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'minilake-bad-')), 'f');
      writeFileSync(file, '');
      const r = spawnSync(process.execPath, [serverEntry, '--port', String(busy.port)], {
        encoding: 'utf8',
        env: {
          ...process.env,
          MINILAKE_DUCKDB_MEMORY_LIMIT: 'lots',
          MINILAKE_PERSIST: 'yes',
          MINILAKE_DATA_DIR: file,
        },
        timeout: 20_000,
      });
      expect(r.status, r.stderr).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines[0]).toBe('MiniLake cannot start:');
      expect(lines.slice(1)).toEqual([
        expect.stringContaining('MINILAKE_PERSIST="yes"'),
        expect.stringContaining('MINILAKE_DUCKDB_MEMORY_LIMIT="lots"'),
        expect.stringContaining(`MINILAKE_DATA_DIR=${file} is a file`),
        expect.stringContaining(`--port=${busy.port}: port ${busy.port} is already in use`),
      ]);
      expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    } finally {
      await busy.stop();
    }
  });

  it('serves only the selected services', async () => {
    const s = await startServer({ env: { MINILAKE_SERVICES: 'secrets' } });
    try {
      expect((await fetch(`${s.url}/api/2.0/secrets/scopes/list`)).status).toBe(200);
      const uc = await fetch(`${s.url}/api/2.1/unity-catalog/catalogs`);
      expect(uc.status).toBe(501);
      expect((await (uc.json() as Promise<any>)).error_code).toBe('NOT_IMPLEMENTED');
      expect((await fetch(`${s.url}/_minilake/health`)).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    const s = await startServer({ env: { MINILAKE_PERSIST: '1' } });
    const body = JSON.stringify({ scope: 'inflight' });
    const answered = new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${s.url}/api/2.0/secrets/scopes/create`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      // The request has started; stop the server while its body is still arriving.
      setTimeout(() => {
        s.proc.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 200);
      }, 200);
    });
    expect(await answered).toBe(200);
    expect(await s.stop()).toBe(0);
    const again = await startServer({ dataDir: s.dataDir, env: { MINILAKE_PERSIST: '1' } });
    try {
      const list = await ((await fetch(`${again.url}/api/2.0/secrets/scopes/list`)).json() as Promise<any>);
      expect(list.scopes.map((x: { name: string }) => x.name)).toContain('inflight');
    } finally {
      await again.stop();
    }
  });

  it('with MINILAKE_PERSIST=1 an acknowledged write survives kill -9', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ml-persist-'));
    const s = await startServer({ dataDir, env: { MINILAKE_PERSIST: '1' } });
    expect((await post(`${s.url}/api/2.0/secrets/scopes/create`, { scope: 'durable' })).status).toBe(200);
    expect(
      (await post(`${s.url}/api/2.0/secrets/put`, { scope: 'durable', key: 'k', string_value: 'v' })).status,
    ).toBe(200);
    await s.kill9();
    const again = await startServer({ dataDir, env: { MINILAKE_PERSIST: '1' } });
    try {
      const secrets = await ((
        await fetch(`${again.url}/api/2.0/secrets/list?scope=durable`)
      ).json() as Promise<any>);
      expect(secrets.secrets.map((x: { key: string }) => x.key)).toEqual(['k']);
    } finally {
      await again.stop();
    }
  });

  it('without persistence nothing survives a restart and the temp data dir is removed', async () => {
    const s = await startServer({ dataDir: undefined, env: { MINILAKE_DATA_DIR: '' } });
    const dir = /data: ([^,)]+)/.exec(s.output())?.[1];
    expect(dir).toBeTruthy();
    expect(existsSync(dir!)).toBe(true);
    await post(`${s.url}/api/2.0/secrets/scopes/create`, { scope: 'ephemeral' });
    expect(await s.stop()).toBe(0);
    expect(existsSync(dir!)).toBe(false);
    const again = await startServer({ dataDir: s.dataDir });
    try {
      expect(
        await ((await fetch(`${again.url}/api/2.0/secrets/scopes/list`)).json() as Promise<any>),
      ).toEqual({ scopes: [] });
    } finally {
      await again.stop();
    }
  });
});
