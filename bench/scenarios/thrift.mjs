// Thrift endpoint (issue 14): `SELECT 1` round trips and a 1,000,000-row fetch through the Python
// databricks-sql-connector, against the same through the Statement Execution API (Python databricks-sdk,
// ARROW_STREAM over EXTERNAL_LINKS) and against DuckDB running the query in this process, in one run.
// The Python side is bench/thrift_bench.py on the e2e Python venv (made by `pnpm test:python`).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { median, root, startServer } from '../lib.mjs';

export const targets = {
  thrift_select1_p50_ms: '< 10',
  thrift_fetch_arrow_vs_api_ratio: 'about 1 (both paths stream the same engine result as Arrow)',
};

const ROWS = Number(process.env.BENCH_THRIFT_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_THRIFT_ROUNDS ?? 1);

function python() {
  const req = readFileSync(path.join(root, 'e2e/python/requirements.txt'));
  const hash = createHash('sha256').update(req).digest('hex').slice(0, 12);
  const cache = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake');
  const bin = path.join(cache, `venv-py-${hash}`, 'bin', 'python');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run 'pnpm test:python' once to make the venv`);
  return bin;
}

async function duckdbInProcess() {
  const duck = createRequire(path.join(root, 'packages/engine-duckdb/package.json'))('@duckdb/node-api');
  const instance = await duck.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const q = `SELECT id, id * 2.5 AS d, concat('name_', id) AS s FROM (SELECT range AS id FROM range(${ROWS}))`;
  const one = [];
  for (let i = 0; i < 220; i++) {
    const t = performance.now();
    (await conn.runAndReadAll('SELECT 1')).getRows();
    if (i >= 20) one.push(performance.now() - t);
  }
  const fetch = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    const rows = (await conn.runAndReadAll(q)).getRows();
    if (rows.length !== ROWS) throw new Error(`expected ${ROWS} rows`);
    fetch.push(performance.now() - t);
  }
  conn.closeSync?.();
  return { select1_p50_ms: +median(one).toFixed(3), fetch_rows_ms: +median(fetch).toFixed(1) };
}

export async function run() {
  const py = python();
  const server = await startServer({ MINILAKE_WAREHOUSE_START_DELAY: '0' });
  try {
    const out = execFileSync(
      py,
      [path.join(root, 'bench/thrift_bench.py'), server.url, String(ROWS), String(ROUNDS)],
      {
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const f = JSON.parse(out.trim().split('\n').pop());
    const duck = await duckdbInProcess();
    return {
      rows: ROWS,
      rounds: ROUNDS,
      ...f,
      duckdb_in_process_select1_p50_ms: duck.select1_p50_ms,
      duckdb_in_process_fetch_rows_ms: duck.fetch_rows_ms,
      thrift_fetch_arrow_vs_api_ratio: +(f.api_fetch_arrow_ms / f.thrift_fetch_arrow_ms).toFixed(2),
      thrift_fetch_arrow_vs_duckdb_ratio: +(duck.fetch_rows_ms / f.thrift_fetch_arrow_ms).toFixed(2),
      server_rss_peak_mb: +server.rssPeakMb().toFixed(1),
    };
  } finally {
    await server.stop();
  }
}
