// Statement Execution API benchmarks against a running MiniLake:
//   node bench/statements.mjs http://127.0.0.1:8000 [rows]
// (The recorded, self-contained version with the in-process baseline is bench/scenarios/sql.mjs.)
// 1. `SELECT 1` round trips over HTTP (one keep-alive client, sequential): p50/p90/p99 in ms.
// 2. A `rows`-row ARROW_STREAM result (default 10,000,000) through EXTERNAL_LINKS: execute + fetch of every
//    chunk, in seconds, with the Arrow bytes counted. Compare with DuckDB producing the same chunks in process.
import { jsonCaller } from './lib.mjs';

const base = process.argv[2] ?? 'http://127.0.0.1:8000';
const rows = Number(process.argv[3] ?? 10_000_000);
const { call, json, close } = jsonCaller(base);

const wh = (await json('POST', '/api/2.0/sql/warehouses', { name: 'bench', cluster_size: 'Small' })).id;
for (let i = 0; i < 200; i++) {
  if ((await json('GET', `/api/2.0/sql/warehouses/${wh}`)).state === 'RUNNING') break;
  await new Promise((r) => setTimeout(r, 50));
}

const times = [];
for (let i = 0; i < 3000; i++) {
  const t0 = process.hrtime.bigint();
  await call('POST', '/api/2.0/sql/statements', { warehouse_id: wh, statement: 'SELECT 1' });
  if (i >= 500) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
const pct = (p) => times[Math.floor(times.length * p)].toFixed(2);
console.log(`SELECT 1 round trip: p50 ${pct(0.5)} ms, p90 ${pct(0.9)} ms, p99 ${pct(0.99)} ms`);

for (let round = 1; round <= 2; round++) {
  const t0 = performance.now();
  const r = await json('POST', '/api/2.0/sql/statements', {
    warehouse_id: wh,
    statement: `SELECT id, (id * 2.5)::DOUBLE AS d, 'name_' || id AS s FROM range(${rows})`,
    disposition: 'EXTERNAL_LINKS',
    format: 'ARROW_STREAM',
    wait_timeout: '50s',
  });
  const t1 = performance.now();
  let bytes = 0;
  let link = r.result.external_links[0];
  for (;;) {
    bytes += (await fetch(link.external_link).then((x) => x.arrayBuffer())).byteLength;
    if (link.next_chunk_index === undefined) break;
    link = (
      await json('GET', `/api/2.0/sql/statements/${r.statement_id}/result/chunks/${link.next_chunk_index}`)
    ).external_links[0];
  }
  const t2 = performance.now();
  console.log(
    `ARROW_STREAM ${r.manifest.total_row_count} rows, ${r.manifest.total_chunk_count} chunks, ${(bytes / 1e6).toFixed(0)} MB: ` +
      `execute ${((t1 - t0) / 1000).toFixed(2)} s + fetch ${((t2 - t1) / 1000).toFixed(2)} s = ${((t2 - t0) / 1000).toFixed(2)} s (round ${round})`,
  );
}
close();
