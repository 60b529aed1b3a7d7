// Side by side with the Python peer (the `minilake` emulator from PyPI, installed by bench/install-peer.sh
// into ~/.cache/minilake/peer-minilake-1.9.0): cold start until the catalog API answers, a Unity Catalog
// GET and `SELECT 1` through the Statement API (one client, p50), on both servers in the same run, with
// the ratios (peer time / ours: above 1 means MiniLake is faster). Skipped when the peer is not installed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { load, startServer } from '../lib.mjs';

export const targets = {
  cold_start_peer_over_ours: '>= 5',
  select1_p50_peer_over_ours: '> 1',
  uc_get_p50_peer_over_ours: '> 1',
};

const cache = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake');
const venv = process.env.BENCH_PEER_VENV ?? path.join(cache, 'peer-minilake-1.9.0');
const peerBin = path.join(venv, 'bin/minilake');

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function until(url, timeoutMs) {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    const ok = await fetch(url, { headers: { authorization: 'Bearer dev' } }).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${url} did not answer in ${timeoutMs} ms`);
}

async function startPeer() {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ml-peer-'));
  const t0 = performance.now();
  const proc = spawn(peerBin, ['--port', String(port)], {
    env: { ...process.env, MINILAKE_PORT: String(port), MINILAKE_DATA_DIR: dataDir },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  await until(`${url}/api/2.1/unity-catalog/catalogs`, 60_000);
  return {
    url,
    readyMs: performance.now() - t0,
    stop: async () => {
      if (proc.exitCode === null) {
        await new Promise((r) => {
          proc.once('exit', r);
          proc.kill('SIGTERM');
        });
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function ours() {
  const t0 = performance.now();
  const s = await startServer();
  await until(`${s.url}/api/2.1/unity-catalog/catalogs`, 60_000);
  return { url: s.url, readyMs: performance.now() - t0, stop: s.stop };
}

const json = (method, body) => ({
  method,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', authorization: 'Bearer dev' },
});

async function measure(s) {
  await fetch(`${s.url}/api/2.1/unity-catalog/catalogs`, json('POST', { name: 'bench_peer' }));
  const wh = await fetch(
    `${s.url}/api/2.0/sql/warehouses`,
    json('POST', { name: 'bench', cluster_size: 'Small' }),
  )
    .then((r) => r.json())
    .then((j) => j.id);
  const get = `${s.url}/api/2.1/unity-catalog/catalogs/bench_peer`;
  const stmt = `${s.url}/api/2.0/sql/statements`;
  const body = JSON.stringify({ warehouse_id: wh, statement: 'SELECT 1', wait_timeout: '30s' });
  const post = { method: 'POST', body, headers: { 'content-type': 'application/json' } };
  await load(get, { requests: 300, concurrency: 1 });
  const uc = await load(get, { requests: 2000, concurrency: 1 });
  await load(stmt, { requests: 200, concurrency: 1, ...post });
  const sel = await load(stmt, { requests: 1000, concurrency: 1, ...post });
  return { uc_get: uc, select1: sel };
}

export async function run() {
  if (!existsSync(peerBin)) return { skipped: `the peer is not installed (bash bench/install-peer.sh)` };
  const result = {};
  for (const [name, start] of [
    ['minilake', ours],
    ['peer', startPeer],
  ]) {
    const starts = [];
    for (let i = 0; i < 3; i++) {
      const s = await start();
      starts.push(s.readyMs);
      if (i < 2) await s.stop();
      else
        try {
          result[name] = { cold_start_ms: starts.map((x) => +x.toFixed(0)), ...(await measure(s)) };
        } finally {
          await s.stop();
        }
    }
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const r = (p, o) => +(p / o).toFixed(2);
  result.cold_start_peer_over_ours = r(med(result.peer.cold_start_ms), med(result.minilake.cold_start_ms));
  result.uc_get_p50_peer_over_ours = r(result.peer.uc_get.p50_ms, result.minilake.uc_get.p50_ms);
  result.select1_p50_peer_over_ours = r(result.peer.select1.p50_ms, result.minilake.select1.p50_ms);
  return result;
}
