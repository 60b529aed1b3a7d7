// Issue 30's soak: the load scenario's mixed workload (bench/load-mix.mjs) for 10 minutes with fewer clients,
// the server's RSS sampled every second. Flat means the median of the last minute is within 10 % of the median
// of the second minute (the first is warm-up: caches, JIT, the DuckDB buffer pool filling).
// Knobs: BENCH_SOAK_CLIENTS (50), BENCH_SOAK_SECONDS (600).
import { median, startServer } from '../lib.mjs';
import { runMixOn } from '../load-mix.mjs';

const CLIENTS = Number(process.env.BENCH_SOAK_CLIENTS ?? 50);
const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);

export const targets = { errors: '0', rss_last_over_second_minute: '< 1.10' };

export async function run() {
  const s = await startServer();
  const { kinds, samples, errors } = await runMixOn(s, { clients: CLIENTS, seconds: SECONDS });
  await s.stop();
  const minute = (i) => samples.slice(i * 60, (i + 1) * 60);
  const second = median(minute(1).length ? minute(1) : samples);
  const last = median(samples.slice(-60));
  return {
    clients: CLIENTS,
    seconds: SECONDS,
    errors,
    kinds,
    rss_mb_per_minute: Array.from(
      { length: Math.ceil(samples.length / 60) },
      (_, i) => +median(minute(i)).toFixed(1),
    ),
    rss_last_over_second_minute: +(last / second).toFixed(3),
  };
}
