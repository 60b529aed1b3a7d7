// The floor under a `SELECT 1` through the Statement API on this machine, in one run: what the engine round
// trip alone costs when the process was busy just before (back to back) and when it sat idle for a moment
// first, as it does between the requests of one HTTP client. Run: node bench/select1-floor.mjs [rounds]
//
// Rows (p50 and p90 in µs, after warm-up):
//   execute_prepared        the cached prepared SELECT 1 run through the node bindings (what the server does)
//   tasks on main, no hop   the same plan's tasks executed synchronously on the main thread (pending API);
//                           the result cannot be taken without the asynchronous execute_pending, so this is
//                           DuckDB's own work with no thread hand-off, not a usable path
//   no-op pool round trip   fs.access('/') through libuv's thread pool: the hand-off alone
//
// Gaps before each call: none (back to back), 1 ms and 5 ms asleep (a timer: the thread blocks and its vCPU
// may halt), and 1 ms spinning (the event loop kept turning with setImmediate: the same wait with the vCPU
// kept busy). Asleep against spinning separates what the idle vCPU costs from what the time alone costs.
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { root } from './lib.mjs';

const requireEngine = createRequire(path.join(root, 'packages/engine-duckdb/package.json'));
const duck = requireEngine('@duckdb/node-api');
const bindings = createRequire(requireEngine.resolve('@duckdb/node-api'))('@duckdb/node-bindings');
const rounds = Number(process.argv[2] ?? 1500);

// FLOOR_DUCKDB_THREADS=1: no DuckDB scheduler thread beside the caller (what MINILAKE_DUCKDB_THREADS=1 does)
const threads = process.env.FLOOR_DUCKDB_THREADS;
const instance = await duck.DuckDBInstance.create(':memory:', threads ? { threads } : {});
const conn = await instance.connect();
const prepared = await conn.prepare('SELECT 1');
const raw = prepared.prepared_statement;

const cases = {
  execute_prepared: () => bindings.execute_prepared(raw),
  'tasks on main, no hop': () => {
    const pending = bindings.pending_prepared(raw);
    while (!bindings.pending_execution_is_finished(bindings.pending_execute_task(pending)));
  },
  'no-op pool round trip': () => access('/'),
};
const spin = (ms) =>
  new Promise((resolve) => {
    const end = process.hrtime.bigint() + BigInt(ms * 1e6);
    const turn = () => (process.hrtime.bigint() >= end ? resolve() : setImmediate(turn));
    turn();
  });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const gaps = {
  'back to back': null,
  'after 1 ms idle': () => sleep(1),
  'after 5 ms idle': () => sleep(5),
  'after 1 ms spinning': () => spin(1),
};

const pct = (xs, p) => +xs[Math.min(xs.length - 1, Math.floor(xs.length * p))].toFixed(1);
const out = {};
for (const [name, fn] of Object.entries(cases)) {
  out[name] = {};
  for (const [label, gap] of Object.entries(gaps)) {
    const times = [];
    for (let i = 0; i < rounds; i++) {
      if (gap) await gap();
      const t0 = process.hrtime.bigint();
      await fn();
      times.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    times.splice(0, Math.floor(rounds / 5));
    times.sort((a, b) => a - b);
    out[name][label] = { p50_us: pct(times, 0.5), p90_us: pct(times, 0.9) };
  }
}
prepared.destroySync();
conn.closeSync();
instance.closeSync();
console.log(
  JSON.stringify(
    {
      rounds,
      duckdb_threads: threads ?? 'default',
      load_average: (await import('node:os')).loadavg().map((x) => +x.toFixed(2)),
      cases: out,
    },
    null,
    2,
  ),
);
