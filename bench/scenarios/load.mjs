// Issue 30's load figure: 200 concurrent keep-alive clients for 60 s on one server, a mixed workload (Unity
// Catalog reads and writes, SQL statements, Files API, jobs; bench/load-mix.mjs) → 0 errors, p50/p99 per kind.
// The baseline in the same run: the same 200 clients against a bare node:http server (what the machine and
// the client loop cost). Knobs: BENCH_LOAD_CLIENTS (200), BENCH_LOAD_SECONDS (60).
import { bareServer, load, startServer } from '../lib.mjs';
import { runMixOn } from '../load-mix.mjs';

const CLIENTS = Number(process.env.BENCH_LOAD_CLIENTS ?? 200);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);

export const targets = { errors: '0' };

export async function run() {
  const bare = await bareServer();
  const baseline = await load(bare.url, { requests: 50000, concurrency: CLIENTS });
  bare.close();
  const s = await startServer();
  const { kinds, samples, errors } = await runMixOn(s, { clients: CLIENTS, seconds: SECONDS });
  const peak = s.rssPeakMb();
  await s.stop();
  return {
    clients: CLIENTS,
    seconds: SECONDS,
    errors,
    requests: Object.values(kinds).reduce((n, k) => n + k.count, 0),
    kinds,
    rss_mb_first_last: [samples[0], samples.at(-1)].map((x) => +x.toFixed(1)),
    peak_rss_mb: +peak.toFixed(1),
    bare_node_same_clients: baseline,
  };
}
