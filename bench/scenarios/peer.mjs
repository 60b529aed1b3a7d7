// Side by side with the Python peer (the `minilake` emulator from PyPI, installed by bench/install-peer.sh
// into ~/.cache/minilake/peer-minilake-1.9.0): cold start until the catalog API answers, a Unity Catalog
// GET and `SELECT 1` through the Statement API (one client, p50), a 10,000-row INLINE JSON result, and a
// 10M-row ARROW_STREAM result through EXTERNAL_LINKS (execute plus every chunk downloaded), on both
// servers in the same run, with the ratios (peer time / ours: above 1 means MiniLake is faster). The two
// result queries use `range(n) AS t(id)`, which both dialects read the same way. Skipped when the peer is
// not installed. Knobs: BENCH_PEER_ARROW_ROWS (10,000,000), BENCH_PEER_ARROW_TIMEOUT_S (600).
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
  inline_10k_peer_over_ours: '> 1',
  arrow_peer_over_ours: '> 1',
};

const ARROW_ROWS = Number(process.env.BENCH_PEER_ARROW_ROWS ?? 10_000_000);
const ARROW_TIMEOUT_MS = Number(process.env.BENCH_PEER_ARROW_TIMEOUT_S ?? 600) * 1000;
const INLINE_QUERY = `SELECT id, 'name_' || id AS s FROM range(10000) AS t(id)`;
const ARROW_QUERY = `SELECT id, CAST(id AS DOUBLE) * 2.5 AS d, 'name_' || id AS s FROM range(${ARROW_ROWS}) AS t(id)`;

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
  const inline = await timed(5, 20, () => inlineResult(s, wh));
  const arrow = await arrowResult(s, wh).catch((e) => ({ error: String(e.message ?? e) }));
  return { uc_get: uc, select1: sel, inline_10k: inline, arrow };
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

/** `warm` untimed calls, then `n` timed ones: the median and the spread, in ms. */
async function timed(warm, n, fn) {
  for (let i = 0; i < warm; i++) await fn();
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return {
    p50_ms: +median(ms).toFixed(2),
    min_ms: +Math.min(...ms).toFixed(2),
    max_ms: +Math.max(...ms).toFixed(2),
  };
}

async function postJson(url, body, signal) {
  const r = await fetch(url, { ...json('POST', body), signal });
  if (!r.ok) throw new Error(`POST ${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

async function getJson(url, signal) {
  const r = await fetch(url, { headers: { authorization: 'Bearer dev' }, signal });
  if (!r.ok) throw new Error(`GET ${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

async function inlineResult(s, wh) {
  const r = await postJson(`${s.url}/api/2.0/sql/statements`, {
    warehouse_id: wh,
    statement: INLINE_QUERY,
    wait_timeout: '30s',
  });
  if (r.status?.state !== 'SUCCEEDED' || r.result?.data_array?.length !== 10000)
    throw new Error(`10k inline: ${JSON.stringify(r.status)} ${r.result?.data_array?.length} rows`);
}

/** Execute (waiting as long as it takes) and download every chunk; the wall time and what came back. */
async function arrowResult(s, wh) {
  const signal = AbortSignal.timeout(ARROW_TIMEOUT_MS);
  const t0 = performance.now();
  let st = await postJson(
    `${s.url}/api/2.0/sql/statements`,
    {
      warehouse_id: wh,
      statement: ARROW_QUERY,
      disposition: 'EXTERNAL_LINKS',
      format: 'ARROW_STREAM',
      wait_timeout: '50s',
      on_wait_timeout: 'CONTINUE',
    },
    signal,
  );
  while (st.status.state === 'PENDING' || st.status.state === 'RUNNING') {
    await new Promise((res) => setTimeout(res, 20));
    st = await getJson(`${s.url}/api/2.0/sql/statements/${st.statement_id}`, signal);
  }
  if (st.status.state !== 'SUCCEEDED') throw new Error(`arrow: ${JSON.stringify(st.status)}`);
  const t1 = performance.now();
  let bytes = 0;
  let chunks = 0;
  let link = st.result.external_links[0];
  for (;;) {
    const body = await fetch(link.external_link, { signal }).then((x) => x.arrayBuffer());
    bytes += body.byteLength;
    chunks++;
    if (link.next_chunk_index === undefined || link.next_chunk_index === null) break;
    link = (
      await getJson(
        `${s.url}/api/2.0/sql/statements/${st.statement_id}/result/chunks/${link.next_chunk_index}`,
        signal,
      )
    ).external_links[0];
  }
  const t2 = performance.now();
  return {
    rows: st.manifest.total_row_count,
    chunks,
    bytes,
    ms: +(t2 - t0).toFixed(0),
    execute_ms: +(t1 - t0).toFixed(0),
    fetch_ms: +(t2 - t1).toFixed(0),
  };
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
  const r = (p, o) => +(p / o).toFixed(2);
  result.cold_start_peer_over_ours = r(
    median(result.peer.cold_start_ms),
    median(result.minilake.cold_start_ms),
  );
  result.uc_get_p50_peer_over_ours = r(result.peer.uc_get.p50_ms, result.minilake.uc_get.p50_ms);
  result.select1_p50_peer_over_ours = r(result.peer.select1.p50_ms, result.minilake.select1.p50_ms);
  result.inline_10k_peer_over_ours = r(result.peer.inline_10k.p50_ms, result.minilake.inline_10k.p50_ms);
  // A peer that failed or timed out on the big result is recorded as such (its error), with no ratio.
  if (result.peer.arrow.ms && result.minilake.arrow.ms)
    result.arrow_peer_over_ours = r(result.peer.arrow.ms, result.minilake.arrow.ms);
  // A peer that ran out of time was at least the timeout slower: record that lower bound.
  else if (result.minilake.arrow.ms && /timeout/i.test(result.peer.arrow.error ?? ''))
    result.arrow_peer_over_ours_at_least = r(ARROW_TIMEOUT_MS, result.minilake.arrow.ms);
  result.load_average = os.loadavg().map((x) => +x.toFixed(1));
  return result;
}
