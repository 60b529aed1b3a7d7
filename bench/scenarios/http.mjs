// Foundation: cold start to ready, peak RSS, and request rate/latency for health and /Me against a bare
// node:http server measured in the same run (the ratio is the figure that travels between machines).
import { bareServer, load, median, startServer } from '../lib.mjs';

export const targets = { ready_ms: '< 500', health_rps: '> 10000' };

export async function run() {
  const starts = [];
  for (let i = 0; i < 5; i++) {
    const s = await startServer();
    starts.push(s.readyMs);
    await s.stop();
  }
  const s = await startServer();
  const bare = await bareServer();
  await load(bare.url, { requests: 5000 }); // warm-up
  await load(`${s.url}/_minilake/health`, { requests: 5000 });
  const baseline = await load(bare.url);
  const health = await load(`${s.url}/_minilake/health`);
  const me = await load(`${s.url}/api/2.0/preview/scim/v2/Me`);
  const rss = s.rssPeakMb();
  bare.close();
  await s.stop();
  return {
    cold_start_ready_ms_median: +median(starts).toFixed(1),
    cold_start_ready_ms_all: starts.map((x) => +x.toFixed(1)),
    peak_rss_mb: +rss.toFixed(1),
    bare_node: baseline,
    health,
    me,
    health_vs_bare_ratio: +(health.rps / baseline.rps).toFixed(2),
    me_vs_bare_ratio: +(me.rps / baseline.rps).toFixed(2),
  };
}
