/**
 * The scheduler with the real Spark engine: tiny Python scripts really run. In the e2e tier because it starts
 * JVMs. Skips only when the Spark install is missing, naming the command that installs it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateInstall, settingsFrom, installCommand } from '@minilake/engine-spark';
import { secretsService } from '@minilake/secrets';
import { serviceApp } from '@minilake/testing';
import { jobsService } from '../src/index.js';

let missing: string | undefined;
try {
  await locateInstall(settingsFrom({}));
} catch (e) {
  missing = (e as Error).message;
}
if (missing) console.warn(`skipping Spark-backed jobs tests: ${missing} (install: ${installCommand()})`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'jobs-spark-'));
const script = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const py = (key: string, file: string, extra: Record<string, unknown> = {}) => ({
  task_key: key,
  spark_python_task: { python_file: file, parameters: (extra.parameters as string[]) ?? [] },
  ...extra,
});

type App = Awaited<ReturnType<typeof serviceApp>>;
let jobs: App;
let serial: App;
let secrets: App;

async function call(a: App, method: string, p: string, body?: unknown) {
  const res = await a.app.request(p, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
  return (await res.json()) as any;
}
async function waitRun(a: App, runId: number, timeoutMs = 120_000) {
  const t0 = Date.now();
  for (;;) {
    const r = await call(a, 'GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    if (['TERMINATED', 'SKIPPED', 'INTERNAL_ERROR'].includes(r.state.life_cycle_state)) return r;
    if (Date.now() - t0 > timeoutMs) throw new Error(`run ${runId} still ${r.state.life_cycle_state}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}
async function runOnce(a: App, settings: Record<string, unknown>) {
  const { job_id } = await call(a, 'POST', '/api/2.2/jobs/create', settings);
  const { run_id } = await call(a, 'POST', '/api/2.2/jobs/run-now', { job_id });
  return waitRun(a, run_id);
}
const task = (run: any, key: string) => run.tasks.find((t: any) => t.task_key === key);

describe.skipIf(missing !== undefined)('jobs on the Spark engine', () => {
  beforeAll(async () => {
    secrets = await serviceApp(secretsService);
    await call(secrets, 'POST', '/api/2.0/secrets/scopes/create', { scope: 's' });
    await call(secrets, 'POST', '/api/2.0/secrets/put', {
      scope: 's',
      key: 'token',
      string_value: 'sup3r-s3cret',
    });
    const peers = new Map<string, unknown>([['secrets', secrets.instance.api]]);
    // One engine (and one warm Spark Connect server) for both hosts, as one server shares it.
    const sharedResources = new Map();
    jobs = await serviceApp(jobsService, { peers, sharedResources });
    serial = await serviceApp(jobsService, {
      peers,
      sharedResources,
      config: { MINILAKE_JOBS_TASK_CONCURRENCY: '1' },
    });
  }, 60_000);
  afterAll(async () => {
    await jobs?.instance.close?.();
    await serial?.instance.close?.();
  });

  it('independent branches run in parallel, bounded by the task concurrency, and task values flow', async () => {
    const src = script('src.py', "dbutils.jobs.taskValues.set(key='n', value=21)\n");
    const slow = script('slow.py', 'import time, sys\ntime.sleep(2)\nprint("got", sys.argv[1:])\n');
    const settings = {
      tasks: [
        py('src', src),
        py('l', slow, { depends_on: [{ task_key: 'src' }], parameters: ['{{tasks.src.values.n}}'] }),
        py('r', slow, { depends_on: [{ task_key: 'src' }] }),
      ],
    };
    const run = await runOnce(jobs, settings);
    expect(run.state.result_state).toBe('SUCCESS');
    const l = task(run, 'l');
    const r = task(run, 'r');
    expect(l.start_time < r.end_time && r.start_time < l.end_time).toBe(true);
    const out = await call(jobs, 'GET', `/api/2.2/jobs/runs/get-output?run_id=${l.run_id}`);
    expect(out.logs).toContain("got ['21']");
    const one = await runOnce(serial, settings);
    const a = task(one, 'l');
    const b = task(one, 'r');
    expect(a.end_time <= b.start_time || b.end_time <= a.start_time).toBe(true);
  }, 240_000); // the first serverless task starts the Spark Connect server

  it('a failing script: error, error_trace, logs; retries wait min_retry_interval_millis', async () => {
    const bad = script('bad.py', 'print("before")\n1/0\n');
    const run = await runOnce(jobs, {
      tasks: [py('bad', bad, { max_retries: 1, min_retry_interval_millis: 300 })],
    });
    expect(run.state.result_state).toBe('FAILED');
    expect(run.tasks.map((t: any) => t.attempt_number)).toEqual([0, 1]);
    expect(run.tasks[1].start_time - run.tasks[0].end_time).toBeGreaterThanOrEqual(300);
    const out = await call(jobs, 'GET', `/api/2.2/jobs/runs/get-output?run_id=${run.tasks[1].run_id}`);
    expect(out.logs).toContain('before');
    expect(out.error).toContain('ZeroDivisionError');
    expect(out.error_trace).toContain('Traceback');
  });

  it('task timeout kills the process (TIMEDOUT) and retry_on_timeout retries it; job timeout ends the run TIMEDOUT', async () => {
    const slow = script('sleep.py', 'import time\ntime.sleep(60)\n');
    const run = await runOnce(jobs, {
      tasks: [py('s', slow, { timeout_seconds: 2, max_retries: 1, retry_on_timeout: true })],
    });
    expect(run.tasks.map((t: any) => t.state.result_state)).toEqual(['TIMEDOUT', 'TIMEDOUT']);
    expect(run.state.result_state).toBe('TIMEDOUT');
    const jobTimeout = await runOnce(jobs, { timeout_seconds: 2, tasks: [py('s', slow)] });
    expect(jobTimeout.state.result_state).toBe('TIMEDOUT');
    expect(jobTimeout.tasks[0].state.result_state).toBe('TIMEDOUT');
    expect(jobTimeout.run_duration).toBeLessThan(20_000);
  });

  it('cancel stops a running task within a second', async () => {
    const slow = script('sleep2.py', 'import time\nprint("started", flush=True)\ntime.sleep(60)\n');
    const { job_id } = await call(jobs, 'POST', '/api/2.2/jobs/create', { tasks: [py('s', slow)] });
    const { run_id } = await call(jobs, 'POST', '/api/2.2/jobs/run-now', { job_id });
    for (let i = 0; i < 1200; i++) {
      const r = await call(jobs, 'GET', `/api/2.2/jobs/runs/get?run_id=${run_id}`);
      if (r.tasks[0].state.life_cycle_state === 'RUNNING') break;
      await new Promise((res) => setTimeout(res, 50));
    }
    await new Promise((res) => setTimeout(res, 500));
    const t0 = Date.now();
    await call(jobs, 'POST', '/api/2.2/jobs/runs/cancel', { run_id });
    const run = await waitRun(jobs, run_id, 5_000);
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(run.state.result_state).toBe('CANCELED');
    expect(run.tasks[0].state.result_state).toBe('CANCELED');
  });

  it('secrets in spark_env_vars reach the process and never the logs; a missing one fails clearly', async () => {
    const show = script(
      'env.py',
      'import os\nprint("token=" + os.environ["TOKEN"])\nprint("len=%d" % len(os.environ["TOKEN"]))\n',
    );
    const cluster = (ref: string) => ({
      spark_version: '15.4.x-scala2.12',
      num_workers: 0,
      spark_env_vars: { TOKEN: ref },
    });
    const run = await runOnce(jobs, {
      tasks: [py('e', show, { new_cluster: cluster('{{secrets/s/token}}') })],
    });
    expect(run.state.result_state).toBe('SUCCESS');
    const out = await call(jobs, 'GET', `/api/2.2/jobs/runs/get-output?run_id=${run.tasks[0].run_id}`);
    expect(out.logs).toContain('token=[REDACTED]');
    expect(out.logs).toContain('len=12');
    expect(JSON.stringify(run)).not.toContain('sup3r-s3cret');
    const missingRun = await runOnce(jobs, {
      tasks: [py('e', show, { new_cluster: cluster('{{secrets/s/nope}}') })],
    });
    expect(missingRun.state.result_state).toBe('FAILED');
    expect(missingRun.tasks[0].state.state_message).toContain('secret s/nope, which does not exist');
  });
});
