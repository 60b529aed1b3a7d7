// Statement Execution API: `SELECT 1` round trips over HTTP (one keep-alive client, sequential), and a
// 10,000,000-row ARROW_STREAM result fetched through EXTERNAL_LINKS, compared in the same run with DuckDB
// producing the same Arrow IPC stream in this process. The in-process baseline uses the SQL package's own
// converter (packages/sql/src/arrow.ts, bundled on the fly with esbuild) and the same 16 MB chunk cut, so
// the ratio measures what the API path costs on top: JSON calls, files on disk and HTTP transfer.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { jsonCaller, median, root, startServer } from '../lib.mjs';

export const targets = {
  select1_p50_ms: '< 2',
  arrow_10m_api_vs_in_process_ratio: '>= 0.5 (API speed / in-process speed)',
};

const ROWS = Number(process.env.BENCH_SQL_ROWS ?? 10_000_000);
const ROUNDS = Number(process.env.BENCH_SQL_ROUNDS ?? 3);
// How a chunk is downloaded: `stream` (default) counts the bytes as they arrive, as a client that parses or
// writes them as they come does; `fetch` is Node's fetch + arrayBuffer(), which gathers each 16 MB chunk
// into one buffer first and costs ~0.5 s of the client's own CPU per 320 MB on these 2 cores (bench/README.md).
const CLIENT = process.env.BENCH_SQL_CLIENT ?? 'stream';
const CHUNK_BYTES = 16 * 1024 * 1024; // the server's default MINILAKE_SQL_CHUNK_BYTES
const QUERY = `SELECT id, (id * 2.5)::DOUBLE AS d, 'name_' || id AS s FROM range(${ROWS})`;
// The same result in DuckDB's own dialect (its range() names the column `range`).
const DUCK_QUERY = `SELECT id, (id * 2.5)::DOUBLE AS d, 'name_' || id AS s FROM (SELECT range AS id FROM range(${ROWS}))`;

/** The SQL package's Arrow converter, bundled (with apache-arrow) into a temporary module. */
async function loadConverter(tmp) {
  const req = createRequire(createRequire(path.join(root, 'package.json')).resolve('tsup'));
  const esbuild = req('esbuild');
  const out = path.join(tmp, 'arrow.mjs');
  await esbuild.build({
    entryPoints: [path.join(root, 'packages/sql/src/arrow.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    absWorkingDir: path.join(root, 'packages/sql'),
    logLevel: 'error',
    // DuckDB's native bindings stay outside the bundle, loaded from the engine package's own install.
    plugins: [
      {
        name: 'duckdb-external',
        setup(b) {
          const fromEngine = createRequire(path.join(root, 'packages/engine-duckdb/package.json'));
          // The engine's duckdb-module.js requires the package relative to itself, which this bundle in a
          // temporary folder could not resolve: take its static-import twin, as the server's bundle does.
          b.onResolve({ filter: /\/duckdb-module\.js$/ }, (a) => ({
            path: path.join(a.resolveDir, 'duckdb-module.bundled.ts'),
          }));
          b.onResolve({ filter: /^@duckdb\// }, (a) => ({
            path: fromEngine.resolve(a.path),
            external: true,
          }));
        },
      },
    ],
  });
  return import(pathToFileURL(out).href);
}

async function inProcess(arrow) {
  const duck = createRequire(path.join(root, 'packages/engine-duckdb/package.json'))('@duckdb/node-api');
  const instance = await duck.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const t0 = performance.now();
    const result = await conn.stream(DUCK_QUERY);
    const cols = [];
    for (let i = 0; i < result.columnCount; i++)
      cols.push(arrow.arrowColumn(result.columnName(i), result.columnType(i)));
    const schema = arrow.arrowSchema(cols);
    let batches = [];
    let cur = 0;
    let bytes = 0;
    let rows = 0;
    let chunks = 0;
    const vectors = Array.from({ length: cols.length });
    const cut = () => {
      if (!batches.length) return;
      bytes += arrow.ipcStream(schema, batches).byteLength;
      chunks++;
      batches = [];
      cur = 0;
    };
    let ahead = result.fetchChunk();
    for (;;) {
      const chunk = await ahead;
      if (!chunk || chunk.rowCount === 0) break;
      ahead = result.fetchChunk();
      for (let c = 0; c < cols.length; c++) vectors[c] = chunk.getColumnVector(c);
      const batch = arrow.recordBatch(schema, cols, vectors, chunk.rowCount);
      batches.push(batch);
      rows += chunk.rowCount;
      for (const child of batch.data.children)
        for (const b of [child.values, child.valueOffsets, child.nullBitmap]) cur += b?.byteLength ?? 0;
      if (cur >= CHUNK_BYTES) cut();
    }
    cut();
    return { ms: performance.now() - t0, rows, bytes, chunks };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

const agent = new http.Agent({ keepAlive: true });

/** One external link's bytes (no auth: the link is presigned), by the client BENCH_SQL_CLIENT names. */
async function download(url) {
  if (CLIENT === 'fetch') return (await fetch(url).then((x) => x.arrayBuffer())).byteLength;
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`GET ${url}: HTTP ${res.statusCode}`));
          return;
        }
        let n = 0;
        res.on('data', (b) => (n += b.length));
        res.on('end', () => resolve(n));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function run() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'ml-bench-sql-'));
  const s = await startServer();
  const { call, json, close } = jsonCaller(s.url);
  try {
    const arrow = await loadConverter(tmp);
    const wh = (await json('POST', '/api/2.0/sql/warehouses', { name: 'bench', cluster_size: 'Small' })).id;
    for (let i = 0; i < 400; i++) {
      if ((await json('GET', `/api/2.0/sql/warehouses/${wh}`)).state === 'RUNNING') break;
      await new Promise((r) => setTimeout(r, 50));
    }

    // 1. SELECT 1, sequential, after 500 warm-up calls.
    const times = [];
    for (let i = 0; i < 3000; i++) {
      const t0 = performance.now();
      const r = await json('POST', '/api/2.0/sql/statements', { warehouse_id: wh, statement: 'SELECT 1' });
      if (r.status?.state !== 'SUCCEEDED') throw new Error(`SELECT 1: ${JSON.stringify(r.status)}`);
      if (i >= 500) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const pct = (p) => +times[Math.min(times.length - 1, Math.floor(times.length * p))].toFixed(3);

    // 2. The big Arrow result, API and in-process alternately.
    const api = [];
    const local = [];
    let apiInfo;
    let localInfo;
    for (let round = 0; round < ROUNDS; round++) {
      const t0 = performance.now();
      const r = await json('POST', '/api/2.0/sql/statements', {
        warehouse_id: wh,
        statement: QUERY,
        disposition: 'EXTERNAL_LINKS',
        format: 'ARROW_STREAM',
        wait_timeout: '50s',
        on_wait_timeout: 'CONTINUE',
      });
      let st = r;
      while (st.status.state === 'PENDING' || st.status.state === 'RUNNING') {
        await new Promise((res) => setTimeout(res, 20));
        st = await json('GET', `/api/2.0/sql/statements/${r.statement_id}`);
      }
      if (st.status.state !== 'SUCCEEDED') throw new Error(`arrow query: ${JSON.stringify(st.status)}`);
      const t1 = performance.now();
      let bytes = 0;
      let link = st.result.external_links[0];
      for (;;) {
        bytes += await download(link.external_link);
        if (link.next_chunk_index === undefined) break;
        link = (
          await json(
            'GET',
            `/api/2.0/sql/statements/${r.statement_id}/result/chunks/${link.next_chunk_index}`,
          )
        ).external_links[0];
      }
      const t2 = performance.now();
      api.push(t2 - t0);
      apiInfo = {
        rows: st.manifest.total_row_count,
        chunks: st.manifest.total_chunk_count,
        bytes,
        client: CLIENT,
        execute_ms: +(t1 - t0).toFixed(0),
        fetch_ms: +(t2 - t1).toFixed(0),
      };
      await call('DELETE', `/api/2.0/sql/statements/${r.statement_id}`).catch(() => undefined);
      const l = await inProcess(arrow);
      local.push(l.ms);
      localInfo = { rows: l.rows, chunks: l.chunks, bytes: l.bytes };
    }
    const apiMs = median(api);
    const localMs = median(local);
    return {
      select1: { calls: times.length, p50_ms: pct(0.5), p90_ms: pct(0.9), p99_ms: pct(0.99) },
      arrow_rows: ROWS,
      arrow_rounds: ROUNDS,
      arrow_api_ms_median: +apiMs.toFixed(0),
      arrow_api_all_ms: api.map((x) => +x.toFixed(0)),
      arrow_api_last: apiInfo,
      arrow_in_process_ms_median: +localMs.toFixed(0),
      arrow_in_process_all_ms: local.map((x) => +x.toFixed(0)),
      arrow_in_process_last: localInfo,
      arrow_api_vs_in_process_ratio: +(localMs / apiMs).toFixed(2),
      server_peak_rss_mb: +s.rssPeakMb().toFixed(1),
    };
  } finally {
    close();
    agent.destroy();
    await s.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
