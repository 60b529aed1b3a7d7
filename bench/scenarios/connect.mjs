// Databricks Connect (issue 26): what MiniLake's Spark Connect door costs. databricks-connect 16.1 runs
// `spark.sql("SELECT 1").collect()` and a 1,000,000-row `toPandas()` through the plain Spark Connect port
// (h2c, with a cluster id) and through MiniLake's own port over TLS (remote(host, token, cluster_id)),
// against the same calls on a direct Spark Connect client of the same cluster's driver, in one process,
// rounds interleaved (bench/connect_bench.py). The client's venv is e2e/connect's (made by its run.sh).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postJson, root, startServer } from '../lib.mjs';

export const targets = {
  sc_proxy_select1_over_direct_ratio: '< 1.10, and under 2 ms added per call',
  sc_proxy_topandas_over_direct_ratio: '< 1.10',
  tls_door_select1_over_direct_ratio: '< 1.10, and under 2 ms added per call',
};

const ROWS = Number(process.env.BENCH_CONNECT_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_CONNECT_ROUNDS ?? 9);

function clientPython() {
  const req = readFileSync(path.join(root, 'e2e/connect/requirements-16.1.txt'));
  const hash = createHash('sha256').update(req).digest('hex').slice(0, 12);
  const cache = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake');
  const bin = path.join(cache, `dbconnect-${hash}`, 'bin', 'python');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run 'bash e2e/connect/run.sh' once to make it`);
  return bin;
}

export async function run() {
  const py = clientPython();
  const server = await startServer({ MINILAKE_CLUSTER_RUNTIME: 'spark', MINILAKE_SPARK_CONNECT_PORT: '0' });
  try {
    // The start-up line names the plain Spark Connect port once the door listens ("Spark Connect: sc://...").
    let door;
    for (let i = 0; i < 300 && !door; i++) {
      door = /Spark Connect:\s+sc:\/\/[^:]+:(\d+)/.exec(server.output());
      if (!door) await new Promise((r) => setTimeout(r, 100));
    }
    if (!door) throw new Error('the Spark Connect port is not in the start-up lines');
    const proxyPort = door[1];
    const created = await postJson(`${server.url}/api/2.1/clusters/create`, {
      cluster_name: 'bench',
      spark_version: '16.4.x-scala2.12',
      node_type_id: 'i3.xlarge',
      num_workers: 0,
    });
    const clusterId = created.cluster_id;
    const t0 = performance.now();
    for (;;) {
      const c = await (await fetch(`${server.url}/api/2.1/clusters/get?cluster_id=${clusterId}`)).json();
      if (c.state === 'RUNNING') break;
      if (c.state === 'TERMINATED')
        throw new Error(`cluster did not start: ${JSON.stringify(c.termination_reason)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const clusterStartMs = Math.round(performance.now() - t0);
    const m = new RegExp(`cluster Spark Connect server ready \\{"id":"${clusterId}","port":(\\d+)`).exec(
      server.output(),
    );
    if (!m) throw new Error('the cluster driver port is not in the log');
    // The floor of any relay in user space: a Node process that only pipes bytes to the driver.
    const relay = spawn(
      process.execPath,
      [
        '-e',
        `const net = require('node:net');
         const s = net.createServer((c) => { const u = net.connect(${m[1]}, '127.0.0.1');
           c.setNoDelay(true); u.setNoDelay(true); c.pipe(u); u.pipe(c);
           c.on('error', () => u.destroy()); u.on('error', () => c.destroy()); });
         s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const relayPort = await new Promise((resolve) =>
      relay.stdout.once('data', (d) => resolve(String(d).trim())),
    );
    let out;
    try {
      out = execFileSync(
        py,
        [
          path.join(root, 'bench/connect_bench.py'),
          m[1],
          proxyPort,
          server.url,
          clusterId,
          String(ROUNDS),
          String(ROWS),
          relayPort,
        ],
        {
          encoding: 'utf8',
          env: {
            ...Object.fromEntries(
              Object.entries(process.env).filter(([k]) => !/^(DATABRICKS_|SPARK_|PYSPARK_)/.test(k)),
            ),
            GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: path.join(server.dataDir, 'tls', 'cert.pem'),
            DATABRICKS_CONFIG_FILE: '/dev/null',
          },
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: 3_600_000,
        },
      );
    } finally {
      relay.kill();
    }
    const figures = JSON.parse(out.trim().split('\n').pop());
    return {
      cluster_start_ms: clusterStartMs,
      rows: ROWS,
      rounds: ROUNDS,
      load_avg_1m: os.loadavg()[0],
      ...figures,
    };
  } finally {
    await server.stop();
  }
}
