// MLflow through MiniLake against the MLflow server directly, in the same run, with the same client (the real
// mlflow from the MLflow install, bench/mlflow_bench.py): 1,000 log_metric calls (one request each) and a
// 100 MB artifact uploaded and downloaded, BENCH_MLFLOW_ROUNDS rounds (median). Through MiniLake the client
// uses MLFLOW_TRACKING_URI=databricks: metrics go through MiniLake's proxy to its MLflow child, artifacts
// through the Files API (MiniLake writes the file itself). Directly, the same pinned MLflow server
// (`mlflow server`, SQLite, one worker, artifacts proxied to a local folder) on a loopback port. Ratios are
// MiniLake's time over the direct time (goal: under 1.10, "MiniLake adds under 10 %"). The log_metric ratio
// compares the same client code: the metrics run once more through MiniLake with an http:// tracking URI (the
// `databricks` URI's own client path, slower on the client's side, is recorded beside it); the artifact's GET,
// as the client sent it, is timed again with one plain HTTP client (requests) on both sides. Recorded as
// { skipped } when the MLflow install is missing (bash packages/mlflow/install.sh).
// Knobs: BENCH_MLFLOW_METRICS (1000), BENCH_MLFLOW_BYTES (100 MiB), BENCH_MLFLOW_ROUNDS (3).
import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { median, root, startServer } from '../lib.mjs';

export const targets = {
  log_metric_minilake_over_direct: '< 1.10 (the same client code both sides: an http:// tracking URI)',
  upload_minilake_over_direct: '< 1.10',
  download_minilake_over_direct: '< 1.10',
  plain_download_minilake_over_direct: '< 1.10 (the same HTTP client both sides)',
};

const N = Number(process.env.BENCH_MLFLOW_METRICS ?? 1000);
const BYTES = Number(process.env.BENCH_MLFLOW_BYTES ?? 100 * 2 ** 20);
const ROUNDS = Number(process.env.BENCH_MLFLOW_ROUNDS ?? 3);
const cache = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake');
const versions = JSON.parse(readFileSync(path.join(root, 'packages/mlflow/versions.json'), 'utf8'));
const python = path.join(cache, `mlflow-${versions.mlflow}`, 'venv', 'bin', 'python');

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

function drive(env, expName, bytes = BYTES) {
  return new Promise((resolve, reject) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('MLFLOW_') && !k.startsWith('DATABRICKS_')),
    );
    execFile(
      python,
      [path.join(root, 'bench/mlflow_bench.py'), String(N), String(bytes), String(ROUNDS), expName],
      {
        env: { ...clean, ...env, MLFLOW_HTTP_REQUEST_TIMEOUT: '300' },
        maxBuffer: 1 << 20,
        timeout: 1800_000,
      },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`${err.message}\n${stderr}`))
          : resolve(JSON.parse(stdout.trim().split('\n').pop())),
    );
  });
}

async function direct() {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ml-bench-mlflow-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MLFLOW_')));
  const proc = spawn(
    python,
    [
      '-m',
      'mlflow',
      'server',
      '--backend-store-uri',
      `sqlite:///${dir}/mlflow.db`,
      '--artifacts-destination',
      `${dir}/artifacts`,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--workers',
      '1',
    ],
    {
      cwd: dir,
      env: { ...env, MLFLOW_SERVER_ENABLE_JOB_EXECUTION: 'false', MLFLOW_DISABLE_TELEMETRY: 'true' },
      stdio: 'ignore',
      detached: true,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  while (
    !(await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (performance.now() - t0 > 300_000) throw new Error('the MLflow server did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    stop: () => {
      try {
        process.kill(-proc.pid, 'SIGTERM');
      } catch {
        // gone
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function run() {
  if (!existsSync(python))
    return { skipped: `no MLflow install at ${python} (bash packages/mlflow/install.sh)` };
  const ml = await startServer();
  const d = await direct();
  try {
    const me = (await (await fetch(`${ml.url}/api/2.0/preview/scim/v2/Me`)).json()).userName;
    // Alternated, MiniLake first then direct, so both see the same machine state on average.
    const viaMinilake = await drive(
      {
        MLFLOW_TRACKING_URI: 'databricks',
        DATABRICKS_HOST: ml.url,
        DATABRICKS_TOKEN: 'dev',
        DATABRICKS_CONFIG_FILE: '/dev/null',
      },
      `/Users/${me}/bench`,
    );
    const viaDirect = await drive({ MLFLOW_TRACKING_URI: d.url }, 'bench');
    // The metrics once more through MiniLake, with the client code the direct side runs: an http:// tracking
    // URI at MiniLake's /api/2.0/mlflow (no artifacts: a run's dbfs:/ artifact root needs the Databricks path).
    const viaMinilakeHttp = await drive({ MLFLOW_TRACKING_URI: ml.url }, `/Users/${me}/bench-http`, 0);
    const m = (xs) => Math.round(median(xs) * 10) / 10;
    const f = {
      metrics: N,
      artifact_mb: BYTES / 2 ** 20,
      rounds: ROUNDS,
      log_metric_ms_minilake_http: m(viaMinilakeHttp.log_metric_ms),
      log_metric_ms_minilake_databricks_uri: m(viaMinilake.log_metric_ms),
      log_metric_ms_direct: m(viaDirect.log_metric_ms),
      upload_ms_minilake: m(viaMinilake.upload_ms),
      upload_ms_direct: m(viaDirect.upload_ms),
      download_ms_minilake: m(viaMinilake.download_ms),
      download_ms_direct: m(viaDirect.download_ms),
      plain_download_ms_minilake: m(viaMinilake.plain_download_ms),
      plain_download_ms_direct: m(viaDirect.plain_download_ms),
      rounds_minilake: viaMinilake,
      rounds_minilake_http: viaMinilakeHttp,
      rounds_direct: viaDirect,
      load_avg: os.loadavg().map((x) => Math.round(x * 100) / 100),
    };
    const ratio = (a, b) => Math.round((a / b) * 1000) / 1000;
    f.log_metric_minilake_over_direct = ratio(f.log_metric_ms_minilake_http, f.log_metric_ms_direct);
    // For information: the client's Databricks path (databricks-sdk config and auth on each call) is slower.
    f.log_metric_databricks_uri_over_direct = ratio(
      f.log_metric_ms_minilake_databricks_uri,
      f.log_metric_ms_direct,
    );
    f.upload_minilake_over_direct = ratio(f.upload_ms_minilake, f.upload_ms_direct);
    f.download_minilake_over_direct = ratio(f.download_ms_minilake, f.download_ms_direct);
    f.plain_download_minilake_over_direct = ratio(f.plain_download_ms_minilake, f.plain_download_ms_direct);
    return f;
  } finally {
    d.stop();
    await ml.stop();
  }
}
