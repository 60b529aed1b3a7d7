/**
 * The bin's V8 code cache (src/code-cache.ts): used when it matches, and every way it can be wrong (missing,
 * damaged, from another Node, not a cache at all) starts the server normally from the ES module build.
 * Runs a copy of the built dist/ in a folder of its own inside apps/server (so the externals resolve from
 * its node_modules), which also shows the cache does not depend on the folder it was built in.
 * Needs `pnpm build` first.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listening, repoRoot, serverEntry } from '@minilake/testing';

const serverDir = path.join(repoRoot, 'apps/server');
let root: string;
let dist: string;
let cache: string;
let built: Buffer;

beforeAll(() => {
  const from = path.dirname(serverEntry);
  if (!existsSync(path.join(from, 'main.cjs.cache')))
    throw new Error(`${from}/main.cjs.cache is missing: run 'pnpm build' first`);
  root = mkdtempSync(path.join(serverDir, '.code-cache-test-'));
  dist = path.join(root, 'dist');
  cpSync(from, dist, { recursive: true, filter: (f) => !f.includes(`${path.sep}ui`) });
  cpSync(path.join(serverDir, 'package.json'), path.join(root, 'package.json'));
  cache = path.join(dist, 'main.cjs.cache');
  built = readFileSync(cache);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Starts the copy, runs SELECT 1 (the dialect is an ESM-only package loaded by import()), stops it. */
async function start(): Promise<{ loaded: string; output: string }> {
  const dataDir = mkdtempSync(path.join(root, 'data-'));
  const proc = spawn(process.execPath, [path.join(dist, 'cli.js'), '--port', '0'], {
    env: {
      ...process.env,
      NODE_DEBUG: 'minilake',
      MINILAKE_DATA_DIR: dataDir,
      MINILAKE_LOG_LEVEL: 'info',
      MINILAKE_WAREHOUSE_START_DELAY: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  const { url: listeningUrl, output } = listening(proc, 30_000);
  try {
    const url = await listeningUrl;
    expect((await fetch(`${url}/_minilake/ready`)).status).toBe(200);
    const res = await fetch(`${url}/api/2.0/sql/statements`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ warehouse_id: 'dev', statement: 'SELECT 1 AS one', wait_timeout: '30s' }),
    });
    const body = (await res.json()) as { status: { state: string }; result?: { data_array: unknown[][] } };
    expect(body.status.state, JSON.stringify(body)).toBe('SUCCEEDED');
    expect(body.result?.data_array).toEqual([['1']]);
  } finally {
    proc.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
  const out = output();
  expect(out).not.toMatch(/ExperimentalWarning|Error/);
  return { loaded: /MINILAKE \d+: (code cache .*)/.exec(out)?.[1] ?? '', output: out };
}

describe('the CLI code cache', () => {
  it('is used as built, from another folder', async () => {
    writeFileSync(cache, built);
    expect((await start()).loaded).toBe('code cache used');
  });

  it('missing: the server starts from the ES module build', async () => {
    rmSync(cache);
    expect((await start()).loaded).toBe('code cache not used: no cache file');
  });

  it('damaged V8 data (which would crash V8) is detected and not used', async () => {
    const bad = Buffer.from(built);
    for (let i = 0; i < 64; i++) bad[(bad.length >> 1) + i]! ^= 0xff;
    writeFileSync(cache, bad);
    expect((await start()).loaded).toBe('code cache not used: bundle or cache changed since the build');
    writeFileSync(cache, built.subarray(0, built.length - 1000));
    expect((await start()).loaded).toBe('code cache not used: bundle or cache changed since the build');
  });

  it('made by another Node or with other V8 options, or not a cache at all: not used', async () => {
    const text = built.toString('latin1', 0, 200);
    writeFileSync(
      cache,
      Buffer.concat([Buffer.from(text.replace(process.versions.v8, '0.0.0'), 'latin1'), built.subarray(200)]),
    );
    expect((await start()).loaded).toBe('code cache not used: built for another Node or other V8 options');
    writeFileSync(cache, 'garbage');
    expect((await start()).loaded).toBe('code cache not used: not a cache file');
  });
});
