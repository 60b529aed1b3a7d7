import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceApp } from '@minilake/testing';
import { jobsService, type JobsApi } from '../src/index.js';

let app: Awaited<ReturnType<typeof serviceApp>>['app'];
let api: JobsApi;
let close: (() => Promise<void> | void) | undefined;

beforeAll(async () => {
  const s = await serviceApp(jobsService);
  app = s.app;
  api = s.instance.api!;
  close = s.instance.close;
});
afterAll(async () => {
  await close?.();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await app.request(path, {
    method,
    ...(body !== undefined
      ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** The run once it ended: the scheduler says when, no polling. */
async function waitRun(runId: number, version = '2.2') {
  await api.waitForRun(runId);
  return (await call('GET', `/api/${version}/jobs/runs/get?run_id=${runId}`)).body;
}

/** Turns the event loop until `done()` holds (bounded): a task's start waits on the file system's thread pool. */
async function until(done: () => Promise<boolean>) {
  for (let i = 0; i < 2000 && !(await done()); i++) await new Promise((r) => setImmediate(r));
}

const cond = (key: string, left: string, right: string, extra: Record<string, unknown> = {}) => ({
  task_key: key,
  condition_task: { op: 'EQUAL_TO', left, right },
  ...extra,
});
const failing = (key: string, extra: Record<string, unknown> = {}) => ({
  task_key: key,
  power_bi_task: { warehouse_id: 'dev' },
  ...extra,
});

describe('jobs wire shapes', () => {
  it('create and get echo the settings plus only the server defaults', async () => {
    const settings = {
      name: 'echo',
      tasks: [
        { task_key: 'b', depends_on: [{ task_key: 'a' }], notebook_task: { notebook_path: '/Users/x/nb' } },
        { task_key: 'a', spark_python_task: { python_file: '/Workspace/x.py' }, some_unknown_field: 1 },
      ],
      tags: { team: 'x' },
    };
    const c = await call('POST', '/api/2.2/jobs/create', settings);
    expect(c.status).toBe(200);
    expect(typeof c.body.job_id).toBe('number');
    const g = await call('GET', `/api/2.2/jobs/get?job_id=${c.body.job_id}`);
    expect(g.status).toBe(200);
    expect(g.body.creator_user_name).toBeTruthy();
    expect(g.body.settings).toEqual({
      name: 'echo',
      tags: { team: 'x' },
      email_notifications: {},
      webhook_notifications: {},
      timeout_seconds: 0,
      max_concurrent_runs: 1,
      format: 'MULTI_TASK',
      tasks: [
        {
          task_key: 'b',
          depends_on: [{ task_key: 'a' }],
          notebook_task: { notebook_path: '/Users/x/nb', source: 'WORKSPACE' },
          email_notifications: {},
          run_if: 'ALL_SUCCESS',
          timeout_seconds: 0,
        },
        {
          task_key: 'a',
          spark_python_task: { python_file: '/Workspace/x.py' },
          some_unknown_field: 1,
          email_notifications: {},
          run_if: 'ALL_SUCCESS',
          timeout_seconds: 0,
        },
      ],
    });
    // the same through the older paths
    const g21 = await call('GET', `/api/2.1/jobs/get?job_id=${c.body.job_id}`);
    expect(g21.body.settings).toEqual(g.body.settings);
  });

  it('unknown job and run ids answer 400 with the message clients parse', async () => {
    const j = await call('GET', '/api/2.2/jobs/get?job_id=987654321');
    expect(j.status).toBe(400);
    expect(j.body).toEqual({
      error_code: 'INVALID_PARAMETER_VALUE',
      message: 'Job 987654321 does not exist.',
    });
    const r = await call('GET', '/api/2.2/jobs/runs/get?run_id=123');
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Run 123 does not exist.');
    const rn = await call('POST', '/api/2.2/jobs/run-now', { job_id: 5 });
    expect(rn.body.message).toBe('Job 5 does not exist.');
  });

  it('rejects bad DAGs', async () => {
    const dup = await call('POST', '/api/2.2/jobs/create', {
      tasks: [cond('a', '1', '1'), cond('a', '1', '1')],
    });
    expect(dup.status).toBe(400);
    const missing = await call('POST', '/api/2.2/jobs/create', {
      tasks: [cond('a', '1', '1', { depends_on: [{ task_key: 'z' }] })],
    });
    expect(missing.status).toBe(400);
    const cycle = await call('POST', '/api/2.2/jobs/create', {
      tasks: [
        cond('a', '1', '1', { depends_on: [{ task_key: 'b' }] }),
        cond('b', '1', '1', { depends_on: [{ task_key: 'a' }] }),
      ],
    });
    expect(cycle.status).toBe(400);
    expect(cycle.body.message).toContain('cycle');
    const cron = await call('POST', '/api/2.2/jobs/create', {
      schedule: { quartz_cron_expression: 'not a cron' },
    });
    expect(cron.status).toBe(400);
  });

  it('jobs/get pages tasks at 100 and list pages with has_more', async () => {
    const tasks = Array.from({ length: 230 }, (_, i) => cond(`t${String(i).padStart(3, '0')}`, '1', '1'));
    const c = await call('POST', '/api/2.2/jobs/create', {
      name: 'big',
      tasks,
      job_clusters: [
        { job_cluster_key: 'k', new_cluster: { spark_version: '15.4.x-scala2.12', num_workers: 0 } },
      ],
    });
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const g = await call(
        'GET',
        `/api/2.2/jobs/get?job_id=${c.body.job_id}${token ? `&page_token=${token}` : ''}`,
      );
      pages++;
      seen.push(...g.body.settings.tasks.map((t: any) => t.task_key));
      if (pages === 1) expect(g.body.settings.job_clusters).toHaveLength(1);
      else expect(g.body.settings.job_clusters).toBeUndefined();
      token = g.body.next_page_token;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(230);

    for (let i = 0; i < 4; i++) await call('POST', '/api/2.2/jobs/create', { name: `list-${i}` });
    const p1 = await call('GET', '/api/2.2/jobs/list?limit=2');
    expect(p1.body.jobs).toHaveLength(2);
    expect(p1.body.has_more).toBe(true);
    expect(p1.body.jobs[0].settings.tasks).toBeUndefined();
    const names: string[] = [];
    let t: string | undefined;
    do {
      const p = await call('GET', `/api/2.2/jobs/list?limit=3${t ? `&page_token=${t}` : ''}`);
      names.push(...(p.body.jobs ?? []).map((j: any) => j.settings.name));
      t = p.body.next_page_token;
      if (!t) expect(p.body.has_more).toBe(false);
    } while (t);
    expect(names.filter((n) => n.startsWith('list-'))).toEqual(['list-0', 'list-1', 'list-2', 'list-3']);
    const byName = await call('GET', '/api/2.2/jobs/list?name=LIST-2&expand_tasks=true');
    expect(byName.body.jobs).toHaveLength(1);
    expect(byName.body.jobs[0].settings.email_notifications).toEqual({});
    const bad = await call('GET', '/api/2.2/jobs/list?limit=101');
    expect(bad.status).toBe(400);
  });

  it('update merges tasks by key and removes fields; reset replaces', async () => {
    const c = await call('POST', '/api/2.2/jobs/create', {
      name: 'u',
      tasks: [cond('a', '1', '1'), cond('b', '1', '1')],
      tags: { x: '1' },
      schedule: { quartz_cron_expression: '0 0 12 * * ?', timezone_id: 'UTC', pause_status: 'PAUSED' },
    });
    const id = c.body.job_id;
    const u = await call('POST', '/api/2.2/jobs/update', {
      job_id: id,
      new_settings: { name: 'u2', tasks: [cond('b', '2', '2'), cond('c', '1', '1')] },
      fields_to_remove: ['tags', 'tasks/a'],
    });
    expect(u.status).toBe(200);
    const g = await call('GET', `/api/2.2/jobs/get?job_id=${id}`);
    expect(g.body.settings.name).toBe('u2');
    expect(g.body.settings.tags).toBeUndefined();
    expect(g.body.settings.schedule.pause_status).toBe('PAUSED');
    expect(g.body.settings.tasks.map((t: any) => [t.task_key, t.condition_task.left])).toEqual([
      ['b', '2'],
      ['c', '1'],
    ]);
    await call('POST', '/api/2.2/jobs/reset', {
      job_id: id,
      new_settings: { name: 'r', tasks: [cond('z', '1', '1')] },
    });
    const r = await call('GET', `/api/2.2/jobs/get?job_id=${id}`);
    expect(r.body.settings.name).toBe('r');
    expect(r.body.settings.schedule).toBeUndefined();
    expect(r.body.settings.tasks).toHaveLength(1);
    const d = await call('POST', '/api/2.2/jobs/delete', { job_id: id });
    expect(d.status).toBe(200);
    expect((await call('GET', `/api/2.2/jobs/get?job_id=${id}`)).status).toBe(400);
  });
});

describe('runs', () => {
  it('a DAG of condition tasks with outcome branches, run_if and leaf-based result', async () => {
    const c = await call('POST', '/api/2.2/jobs/create', {
      name: 'dag',
      parameters: [{ name: 'env', default: 'dev' }],
      tasks: [
        cond('check', '{{job.parameters.env}}', 'prod'),
        cond('on_true', '1', '1', { depends_on: [{ task_key: 'check', outcome: 'true' }] }),
        cond('on_false', '1', '1', { depends_on: [{ task_key: 'check', outcome: 'false' }] }),
        failing('bad', { depends_on: [{ task_key: 'on_false' }] }),
        cond('after_bad', '1', '1', { depends_on: [{ task_key: 'bad' }] }),
        cond('all_done', '1', '1', { depends_on: [{ task_key: 'bad' }], run_if: 'ALL_DONE' }),
        cond('one_failed', '1', '1', { depends_on: [{ task_key: 'bad' }], run_if: 'AT_LEAST_ONE_FAILED' }),
        cond('all_failed', '1', '1', { depends_on: [{ task_key: 'on_false' }], run_if: 'ALL_FAILED' }),
        cond('none_failed', '1', '1', { depends_on: [{ task_key: 'on_false' }], run_if: 'NONE_FAILED' }),
      ],
    });
    const rn = await call('POST', '/api/2.2/jobs/run-now', { job_id: c.body.job_id });
    expect(typeof rn.body.run_id).toBe('number');
    const run = await waitRun(rn.body.run_id);
    const states = Object.fromEntries(run.tasks.map((t: any) => [t.task_key, t.state.result_state]));
    expect(states).toEqual({
      check: 'SUCCESS',
      on_true: 'EXCLUDED',
      on_false: 'SUCCESS',
      bad: 'FAILED',
      after_bad: 'UPSTREAM_FAILED',
      all_done: 'SUCCESS',
      one_failed: 'SUCCESS',
      all_failed: 'EXCLUDED',
      none_failed: 'SUCCESS',
    });
    expect(run.tasks.find((t: any) => t.task_key === 'check').condition_task.outcome).toBe('false');
    expect(run.state).toMatchObject({ life_cycle_state: 'TERMINATED', result_state: 'FAILED' });
    expect(run.status.state).toBe('TERMINATED');
    expect(run.status.termination_details.code).toBe('RUN_EXECUTION_ERROR');
    expect(run.job_parameters).toEqual([{ name: 'env', default: 'dev', value: 'dev' }]);
    const bad = run.tasks.find((t: any) => t.task_key === 'bad');
    const out = await call('GET', `/api/2.2/jobs/runs/get-output?run_id=${bad.run_id}`);
    expect(out.body.error).toContain('not supported by MiniLake');
    expect(out.body.metadata.task_key).toBe('bad');
    const multi = await call('GET', `/api/2.2/jobs/runs/get-output?run_id=${run.run_id}`);
    expect(multi.status).toBe(400);

    // job parameters flow into references
    const rn2 = await call('POST', '/api/2.2/jobs/run-now', {
      job_id: c.body.job_id,
      job_parameters: { env: 'prod' },
    });
    const run2 = await waitRun(rn2.body.run_id);
    expect(run2.tasks.find((t: any) => t.task_key === 'on_true').state.result_state).toBe('SUCCESS');
    expect(run2.tasks.find((t: any) => t.task_key === 'on_false').state.result_state).toBe('EXCLUDED');
  });

  it('all tasks succeeding or only non-leaf failures give SUCCESS / SUCCESS_WITH_FAILURES', async () => {
    const ok = await call('POST', '/api/2.2/jobs/create', {
      tasks: [cond('a', '1', '1'), cond('b', '1', '1', { depends_on: [{ task_key: 'a' }] })],
    });
    const r1 = await waitRun(
      (await call('POST', '/api/2.2/jobs/run-now', { job_id: ok.body.job_id })).body.run_id,
    );
    expect(r1.state.result_state).toBe('SUCCESS');
    expect(r1.status.termination_details).toEqual({ code: 'SUCCESS', type: 'SUCCESS', message: '' });
    const swf = await call('POST', '/api/2.2/jobs/create', {
      tasks: [failing('a'), cond('b', '1', '1', { depends_on: [{ task_key: 'a' }], run_if: 'ALL_DONE' })],
    });
    const r2 = await waitRun(
      (await call('POST', '/api/2.2/jobs/run-now', { job_id: swf.body.job_id })).body.run_id,
    );
    expect(r2.state.result_state).toBe('SUCCESS_WITH_FAILURES');
  });

  it('retries a failing task max_retries times, each attempt listed', async () => {
    const c = await call('POST', '/api/2.2/jobs/create', { tasks: [failing('a', { max_retries: 2 })] });
    const run = await waitRun(
      (await call('POST', '/api/2.2/jobs/run-now', { job_id: c.body.job_id })).body.run_id,
    );
    expect(run.tasks.map((t: any) => [t.attempt_number, t.state.result_state])).toEqual([
      [0, 'FAILED'],
      [1, 'FAILED'],
      [2, 'FAILED'],
    ]);
    expect(run.state.result_state).toBe('FAILED');
  });

  it('repair reruns the failed task and its dependents', async () => {
    const c = await call('POST', '/api/2.2/jobs/create', {
      tasks: [
        cond('a', '1', '1'),
        failing('b', { depends_on: [{ task_key: 'a' }] }),
        cond('c', '1', '1', { depends_on: [{ task_key: 'b' }] }),
      ],
    });
    const run = await waitRun(
      (await call('POST', '/api/2.2/jobs/run-now', { job_id: c.body.job_id })).body.run_id,
    );
    const aRun = run.tasks.find((t: any) => t.task_key === 'a').run_id;
    // fix the task in the job, then repair: the repaired task runs the job's settings as they were for this run
    const rep = await call('POST', '/api/2.2/jobs/runs/repair', {
      run_id: run.run_id,
      rerun_all_failed_tasks: true,
      rerun_dependent_tasks: true,
    });
    expect(rep.status).toBe(200);
    expect(typeof rep.body.repair_id).toBe('number');
    const after = await waitRun(run.run_id);
    expect(after.tasks.map((t: any) => t.task_key).sort()).toEqual(['a', 'b', 'c']);
    expect(after.tasks.find((t: any) => t.task_key === 'a').run_id).toBe(aRun);
    expect(after.tasks.find((t: any) => t.task_key === 'b').run_id).not.toBe(
      run.tasks.find((t: any) => t.task_key === 'b').run_id,
    );
    expect(after.repair_history.map((h: any) => h.type)).toEqual(['ORIGINAL', 'REPAIR']);
    const hist = await call('GET', `/api/2.2/jobs/runs/get?run_id=${run.run_id}&include_history=true`);
    expect(hist.body.tasks).toHaveLength(5);
  });

  it('max_concurrent_runs skips without a queue and queues with one; cancel and list filters', async () => {
    // a run_job_task whose child job is itself limited keeps the parent active while the child waits
    const child = await call('POST', '/api/2.2/jobs/create', {
      name: 'child',
      max_concurrent_runs: 0,
      queue: { enabled: true },
      tasks: [cond('x', '1', '1')],
    });
    const parent = await call('POST', '/api/2.2/jobs/create', {
      name: 'parent',
      tasks: [{ task_key: 'call', run_job_task: { job_id: child.body.job_id } }],
    });
    const first = await call('POST', '/api/2.2/jobs/run-now', { job_id: parent.body.job_id });
    // wait until the child run is queued
    let childRun: any;
    await until(async () => {
      const l = await call('GET', `/api/2.2/jobs/runs/list?job_id=${child.body.job_id}`);
      childRun = l.body.runs?.[0];
      return childRun !== undefined;
    });
    expect(childRun.state.life_cycle_state).toBe('QUEUED');
    expect(childRun.status.state).toBe('QUEUED');
    const second = await call('POST', '/api/2.2/jobs/run-now', { job_id: parent.body.job_id });
    const skipped = await waitRun(second.body.run_id);
    expect(skipped.state.life_cycle_state).toBe('SKIPPED');
    expect(skipped.state.state_message).toContain('maximum concurrent runs');
    const active = await call('GET', `/api/2.2/jobs/runs/list?job_id=${parent.body.job_id}&active_only=true`);
    expect(active.body.runs.map((r: any) => r.run_id)).toEqual([first.body.run_id]);
    const done = await call(
      'GET',
      `/api/2.2/jobs/runs/list?job_id=${parent.body.job_id}&completed_only=true`,
    );
    expect(done.body.runs.map((r: any) => r.run_id)).toEqual([second.body.run_id]);
    expect((await call('GET', '/api/2.2/jobs/runs/list?active_only=true&completed_only=true')).status).toBe(
      400,
    );
    expect((await call('POST', '/api/2.2/jobs/runs/delete', { run_id: first.body.run_id })).status).toBe(400);

    await call('POST', '/api/2.2/jobs/runs/cancel', { run_id: first.body.run_id });
    const canceled = await waitRun(first.body.run_id);
    expect(canceled.state).toMatchObject({ life_cycle_state: 'TERMINATED', result_state: 'CANCELED' });
    expect(canceled.status.termination_details.code).toBe('USER_CANCELED');
    const c2 = await waitRun(childRun.run_id);
    expect(c2.state.result_state).toBe('CANCELED');
    expect((await call('POST', '/api/2.2/jobs/runs/delete', { run_id: first.body.run_id })).status).toBe(200);
    expect((await call('GET', `/api/2.2/jobs/runs/get?run_id=${first.body.run_id}`)).status).toBe(400);
  });

  it('idempotency_token returns the same run; runs/submit runs one-time tasks', async () => {
    const c = await call('POST', '/api/2.2/jobs/create', { tasks: [cond('a', '1', '1')] });
    const a = await call('POST', '/api/2.2/jobs/run-now', {
      job_id: c.body.job_id,
      idempotency_token: 'tok-1',
    });
    const b = await call('POST', '/api/2.2/jobs/run-now', {
      job_id: c.body.job_id,
      idempotency_token: 'tok-1',
    });
    expect(b.body.run_id).toBe(a.body.run_id);
    const s = await call('POST', '/api/2.2/jobs/runs/submit', {
      run_name: 'once',
      tasks: [cond('x', '{{job.run_id}}', '0', {})],
    });
    const run = await waitRun(s.body.run_id);
    expect(run.run_type).toBe('SUBMIT_RUN');
    expect(run.run_name).toBe('once');
    expect(run.job_id).toBeUndefined();
    expect(run.tasks[0].condition_task.left).toBe(String(s.body.run_id));
    expect(run.tasks[0].condition_task.outcome).toBe('false');
  });

  it('runs/list pages newest first', async () => {
    const c = await call('POST', '/api/2.2/jobs/create', {
      max_concurrent_runs: 10,
      tasks: [cond('a', '1', '1')],
    });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await call('POST', '/api/2.2/jobs/run-now', { job_id: c.body.job_id })).body.run_id);
    for (const id of ids) await waitRun(id);
    const seen: number[] = [];
    let t: string | undefined;
    do {
      const p = await call(
        'GET',
        `/api/2.2/jobs/runs/list?job_id=${c.body.job_id}&limit=2${t ? `&page_token=${t}` : ''}`,
      );
      seen.push(...p.body.runs.map((r: any) => r.run_id));
      expect(p.body.runs[0].tasks).toBeUndefined();
      t = p.body.next_page_token;
    } while (t);
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(seen).toHaveLength(5);
  });

  it('run-now only runs the named tasks; a legacy single-task job runs as one task', async () => {
    const c = await call('POST', '/api/2.2/jobs/create', {
      tasks: [
        cond('a', '1', '1'),
        cond('b', '1', '1', { depends_on: [{ task_key: 'a' }] }),
        cond('c', '1', '1'),
      ],
    });
    const run = await waitRun(
      (await call('POST', '/api/2.2/jobs/run-now', { job_id: c.body.job_id, only: ['b'] })).body.run_id,
    );
    expect(run.tasks.map((t: any) => t.task_key)).toEqual(['b']);
    expect(run.state.result_state).toBe('SUCCESS');
    const legacy = await call('POST', '/api/2.0/jobs/create', {
      name: 'legacy job',
      spark_jar_task: { main_class_name: 'x' },
    });
    const g = await call('GET', `/api/2.0/jobs/get?job_id=${legacy.body.job_id}`);
    expect(g.body.settings.format).toBe('SINGLE_TASK');
    const lr = await waitRun(
      (await call('POST', '/api/2.0/jobs/run-now', { job_id: legacy.body.job_id })).body.run_id,
      '2.0',
    );
    expect(lr.tasks).toHaveLength(1);
    expect(lr.tasks[0].state.result_state).toBe('FAILED');
    const out = await call('GET', `/api/2.0/jobs/runs/get-output?run_id=${lr.run_id}`);
    expect(out.body.error).toBe(
      'spark_jar_task needs its jar in libraries (jar), where its main class is found.',
    );
  });

  it('for_each_task runs its task once per input; failures fail it', async () => {
    const c = await call('POST', '/api/2.2/jobs/create', {
      tasks: [
        {
          task_key: 'each',
          for_each_task: {
            inputs: '[1, 2, 3]',
            concurrency: 2,
            task: {
              task_key: 'inner',
              condition_task: { op: 'GREATER_THAN', left: '{{input}}', right: '0' },
            },
          },
        },
        {
          task_key: 'each_bad',
          for_each_task: { inputs: '["a"]', task: { task_key: 'inner2', power_bi_task: {} } },
        },
      ],
    });
    const run = await waitRun(
      (await call('POST', '/api/2.2/jobs/run-now', { job_id: c.body.job_id })).body.run_id,
    );
    const each = run.tasks.find((t: any) => t.task_key === 'each');
    expect(each.state.result_state).toBe('SUCCESS');
    expect(each.for_each_task.stats.task_run_stats).toMatchObject({
      total_iterations: 3,
      succeeded_iterations: 3,
    });
    expect(run.tasks.find((t: any) => t.task_key === 'each_bad').state.result_state).toBe('FAILED');

    // Each iteration is a task run of its own: runs/get of the for-each task's run id lists them.
    const g = await call('GET', `/api/2.2/jobs/runs/get?run_id=${each.run_id}`);
    expect(g.status).toBe(200);
    expect(g.body.run_id).toBe(each.run_id);
    expect(g.body.tasks.map((t: any) => t.task_key)).toEqual(['each']);
    expect(g.body.iterations).toHaveLength(3);
    const ids = new Set(g.body.iterations.map((it: any) => it.run_id));
    expect(ids.size).toBe(3);
    expect(ids.has(each.run_id)).toBe(false);
    for (const it of g.body.iterations) {
      expect(it.task_key).toBe('inner');
      expect(it.state).toMatchObject({ life_cycle_state: 'TERMINATED', result_state: 'SUCCESS' });
      expect(it.start_time).toBeGreaterThan(0);
      const o = await call('GET', `/api/2.2/jobs/runs/get-output?run_id=${it.run_id}`);
      expect(o.status).toBe(200);
      expect(o.body.metadata.run_id).toBe(it.run_id);
      expect(o.body.metadata.condition_task.outcome).toBe('true');
    }
    const bad = run.tasks.find((t: any) => t.task_key === 'each_bad');
    const gb = await call('GET', `/api/2.2/jobs/runs/get?run_id=${bad.run_id}`);
    expect(gb.body.iterations).toHaveLength(1);
    expect(gb.body.iterations[0].state.result_state).toBe('FAILED');
    const ob = await call('GET', `/api/2.2/jobs/runs/get-output?run_id=${gb.body.iterations[0].run_id}`);
    expect(ob.body.error).toBe('power_bi_task is not supported by MiniLake.');
  });
});

describe('dynamic value references', () => {
  it('resolves job, task, run and time references', async () => {
    const { resolveRefs } = await import('../src/refs.js');
    const ctx = {
      jobId: 7,
      jobName: 'n',
      runId: 9,
      repairCount: 0,
      startTime: Date.UTC(2026, 2, 4, 5, 6, 7),
      triggerType: 'periodic',
      parameters: { env: 'prod' },
      task: { name: 't', runId: 10, executionCount: 1 },
      tasks: { up: { runId: 8, resultState: 'SUCCESS', executionCount: 1, values: { k: 3, o: { a: 1 } } } },
      workspaceId: '1',
      workspaceUrl: 'http://x',
    };
    expect(
      resolveRefs(
        '{{job.id}}/{{job.run_id}}/{{task.name}}/{{task.run_id}}/{{job.parameters.env}}/{{tasks.up.values.k}}/{{tasks.up.values.o}}/{{job.start_time.iso_date}}/{{job.trigger.type}}/{{ tasks.up.result_state }}/{{unknown.x}}',
        ctx,
      ),
    ).toBe('7/9/t/10/prod/3/{"a":1}/2026-03-04/periodic/SUCCESS/{{unknown.x}}');
  });

  it('a SQL notebook becomes %sql cells for the engine, its SQL untouched', async () => {
    const { sqlNotebookAsPython } = await import('../src/resolve.js');
    const src =
      "-- Databricks notebook source\nSELECT 1;\n\n-- COMMAND ----------\n\n-- MAGIC %python\n-- MAGIC print('x')\n\n-- COMMAND ----------\n\nCREATE TABLE t AS\nSELECT ':a' AS s\n";
    expect(sqlNotebookAsPython(src)).toBe(
      "# Databricks notebook source\n# MAGIC %sql\n# MAGIC SELECT 1;\n\n# COMMAND ----------\n\n# MAGIC %python\n# MAGIC print('x')\n\n# COMMAND ----------\n\n# MAGIC %sql\n# MAGIC CREATE TABLE t AS\n# MAGIC SELECT ':a' AS s\n",
    );
  });
});

describe('create refuses a malformed access_control_list before the job exists', () => {
  it.each(['a string', { user_name: 'x' }, ['not an object']])('%j: 400, no job', async (acl) => {
    const name = `acl_fuzz_${JSON.stringify(acl).length}`;
    const r = await call('POST', '/api/2.2/jobs/create', { name, access_control_list: acl });
    expect(r.status).toBe(400);
    expect(r.body.error_code).toBe('INVALID_PARAMETER_VALUE');
    const list = await call('GET', `/api/2.2/jobs/list?name=${name}`);
    expect(list.body.jobs ?? []).toEqual([]);
  });
});
