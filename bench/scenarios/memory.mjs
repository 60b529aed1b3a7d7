// Memory (issue 16): the server's RSS idle after start-up, after the first statement (the SQL dialect's
// WASM), and after 1,000 and 10,000 `SELECT 1` statements through the Statement API. The statements
// handles are capped (MINILAKE_SQL_MAX_STATEMENTS, default 1000), so RSS must stay flat between the last
// two samples instead of growing with the number of statements run.
import { readFileSync } from 'node:fs';
import { load, startServer } from '../lib.mjs';

export const targets = {
  idle_rss_mb: '< 120',
  rss_growth_1k_to_10k_mb: 'flat (does not grow with the number of statements)',
};

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

export async function run() {
  const total = Number(process.env.BENCH_MEMORY_STATEMENTS ?? 10000);
  const s = await startServer();
  try {
    const pid = s.proc.pid;
    // Idle, after the start-up's garbage has had a moment to be collected.
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMb(pid);
    const body = JSON.stringify({ warehouse_id: 'dev', statement: 'SELECT 1', wait_timeout: '30s' });
    const post = { method: 'POST', body, headers: { 'content-type': 'application/json' } };
    await load(`${s.url}/api/2.0/sql/statements`, { requests: 1, concurrency: 1, ...post });
    const afterFirst = rssMb(pid);
    const first = Math.min(1000, total);
    const r1 = await load(`${s.url}/api/2.0/sql/statements`, { requests: first, concurrency: 4, ...post });
    const after1k = rssMb(pid);
    const rest = total - first;
    const r2 =
      rest > 0
        ? await load(`${s.url}/api/2.0/sql/statements`, { requests: rest, concurrency: 4, ...post })
        : undefined;
    const afterAll = rssMb(pid);
    return {
      statements: total,
      idle_rss_mb: +idle.toFixed(1),
      after_first_statement_rss_mb: +afterFirst.toFixed(1),
      after_1k_statements_rss_mb: +after1k.toFixed(1),
      after_all_statements_rss_mb: +afterAll.toFixed(1),
      rss_growth_1k_to_all_mb: +(afterAll - after1k).toFixed(1),
      peak_rss_mb: +s.rssPeakMb().toFixed(1),
      first_1k: r1,
      ...(r2 ? { rest: r2 } : {}),
    };
  } finally {
    await s.stop();
  }
}
