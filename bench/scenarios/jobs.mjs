// Jobs on Spark: run-now -> TERMINATED of a trivial spark_python_task on the cold path (a job cluster:
// spark-submit, a new JVM per task) and on the warm path (serverless: the warm Spark Connect server), a
// 10-task fan-out on the warm path, and the server's RSS while jobs run. The baseline, measured in the same
// run: a bare `spark-submit` of the same script from the same install (with the same Delta jars and conf
// the engine passes), so the cold overhead is ours alone. Needs the Spark install
// (bash packages/engine-spark/install.sh). Knobs: BENCH_JOBS_ROUNDS (default 3), BENCH_JOBS_WARM_ROUNDS (5).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, postJson, root, startServer } from '../lib.mjs';

export const targets = {
  warm_run_ms: '< 3000 (run-now -> TERMINATED, serverless, Spark Connect warm)',
  cold_overhead_pct: '< 10 (cold run vs bare spark-submit of the same script)',
};

const ROUNDS = Number(process.env.BENCH_JOBS_ROUNDS ?? 3);
const WARM_ROUNDS = Number(process.env.BENCH_JOBS_WARM_ROUNDS ?? 5);
const SCRIPT = [
  'from pyspark.sql import SparkSession',
  'spark = SparkSession.builder.getOrCreate()',
  'print("count=%d" % spark.range(10).count())',
  '',
].join('\n');

function sparkInstall() {
  const v = JSON.parse(readFileSync(path.join(root, 'packages/engine-spark/versions.json'), 'utf8'));
  const cache = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache', 'minilake');
  const dir = path.join(cache, `spark-${v.pyspark}-delta-${v.deltaSpark}`);
  if (!existsSync(path.join(dir, '.complete'))) return undefined;
  const python = path.join(dir, 'venv', 'bin', 'python');
  const home = execFileSync(python, ['-c', 'import os, pyspark; print(os.path.dirname(pyspark.__file__))'], {
    encoding: 'utf8',
  }).trim();
  const jars = readdirSync(path.join(dir, 'jars'))
    .filter((f) => f.endsWith('.jar'))
    .map((f) => path.join(dir, 'jars', f));
  return { python, home, jars };
}

function rssSampler(pid) {
  let peak = 0;
  const samples = [];
  const timer = setInterval(() => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
      samples.push(kb / 1024);
      peak = Math.max(peak, kb / 1024);
    } catch {
      /* gone */
    }
  }, 50);
  return () => {
    clearInterval(timer);
    return { peak_mb: +peak.toFixed(1), median_mb: +median(samples).toFixed(1) };
  };
}

async function runToEnd(url, jobId) {
  const t0 = performance.now();
  const { run_id } = await postJson(`${url}/api/2.2/jobs/run-now`, { job_id: jobId });
  for (let failures = 0; ;) {
    let r;
    try {
      r = await (await fetch(`${url}/api/2.2/jobs/runs/get?run_id=${run_id}`)).json();
    } catch (e) {
      // A keep-alive socket the server closed just as it was reused (a loaded machine stalls the poll
      // long enough): ask again on a new one.
      if (++failures > 5) throw e;
      continue;
    }
    if (['TERMINATED', 'INTERNAL_ERROR', 'SKIPPED'].includes(r.state.life_cycle_state)) {
      const ms = performance.now() - t0;
      if (r.state.result_state !== 'SUCCESS') throw new Error(`run ${run_id}: ${JSON.stringify(r.state)}`);
      return { ms, run: r };
    }
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** The same command line shape the engine runs (Delta jars and conf, UI off), without MiniLake. */
// Asynchronous: a synchronous spawn would block this process's event loop for the whole run, and the
// keep-alive sockets the server closed meanwhile would fail on their next use.
async function bareSparkSubmit(inst, script, dir) {
  const t0 = performance.now();
  const r = await promisify(execFile)(
    path.join(inst.home, 'bin', 'spark-submit'),
    [
      '--master',
      'local[*]',
      '--jars',
      inst.jars.join(','),
      '--conf',
      'spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension',
      '--conf',
      'spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog',
      '--conf',
      'spark.ui.enabled=false',
      '--conf',
      'spark.ui.showConsoleProgress=false',
      // Scratch space next to the script, as the engine puts it in the attempt's folder.
      '--conf',
      `spark.local.dir=${path.join(dir, 'spark-local')}`,
      script,
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
      env: {
        ...process.env,
        SPARK_HOME: inst.home,
        PYSPARK_PYTHON: inst.python,
        PYSPARK_DRIVER_PYTHON: inst.python,
        SPARK_LOCAL_IP: '127.0.0.1',
      },
    },
  );
  if (!r.stdout.includes('count=10')) throw new Error(`bare spark-submit printed: ${r.stdout}`);
  return performance.now() - t0;
}

const r1 = (x) => Math.round(x);

export async function run() {
  const inst = sparkInstall();
  if (!inst) return { skipped: 'Spark is not installed: bash packages/engine-spark/install.sh' };
  const work = mkdtempSync(path.join(os.tmpdir(), 'ml-bench-jobs-'));
  const script = path.join(work, 'trivial.py');
  writeFileSync(script, SCRIPT);
  // Job clusters start at once here: the compute state machine's start delay is not what we measure.
  const s = await startServer({ MINILAKE_CLUSTER_START_DELAY: '0', MINILAKE_CLUSTER_TERMINATE_DELAY: '0' });
  const rss = rssSampler(s.proc.pid);
  // The server's last words, for a run that fails.
  let tail = '';
  const keep = (d) => (tail = (tail + d.toString()).slice(-4000));
  s.proc.stdout.on('data', keep);
  s.proc.stderr.on('data', keep);
  const died = (code, sig) => process.stderr.write(`server exited (${code ?? sig}):\n${tail}\n`);
  s.proc.once('exit', died);
  try {
    const task = (key, compute) => ({
      task_key: key,
      spark_python_task: { python_file: script },
      ...compute,
    });
    const cluster = { spark_version: '15.4.x-scala2.12', node_type_id: 'i3.xlarge', num_workers: 0 };
    const cold = await postJson(`${s.url}/api/2.2/jobs/create`, {
      name: 'bench-cold',
      tasks: [task('t', { new_cluster: cluster })],
    });
    const warm = await postJson(`${s.url}/api/2.2/jobs/create`, {
      name: 'bench-warm',
      tasks: [task('t', {})],
    });
    const fan = await postJson(`${s.url}/api/2.2/jobs/create`, {
      name: 'bench-fanout',
      tasks: Array.from({ length: 10 }, (_, i) => task(`t${i}`, {})),
    });

    // Cold and bare alternate, so both see the same neighbours.
    const coldMs = [];
    const bareMs = [];
    for (let i = 0; i < ROUNDS; i++) {
      bareMs.push(await bareSparkSubmit(inst, script, work));
      coldMs.push((await runToEnd(s.url, cold.job_id)).ms);
    }
    const first = await runToEnd(s.url, warm.job_id); // starts the Spark Connect server
    const warmMs = [];
    for (let i = 0; i < WARM_ROUNDS; i++) warmMs.push((await runToEnd(s.url, warm.job_id)).ms);
    const fanout = await runToEnd(s.url, fan.job_id);
    const starts = fanout.run.tasks.map((t) => t.start_time);
    const ends = fanout.run.tasks.map((t) => t.end_time);
    const bare = median(bareMs);
    const coldMedian = median(coldMs);
    return {
      bare_spark_submit_ms: { median: r1(bare), all: bareMs.map(r1) },
      cold_run_ms: { median: r1(coldMedian), all: coldMs.map(r1) },
      cold_overhead_pct: +((coldMedian / bare - 1) * 100).toFixed(1),
      first_serverless_run_ms: r1(first.ms),
      warm_run_ms: { median: r1(median(warmMs)), all: warmMs.map(r1) },
      fanout_10_tasks_warm_ms: r1(fanout.ms),
      fanout_task_span_ms: Math.max(...ends) - Math.min(...starts),
      server_rss_while_jobs_run: rss(),
    };
  } finally {
    rss();
    s.proc.off('exit', died);
    await s.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
