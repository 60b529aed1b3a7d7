import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock, StateDb } from '@minilake/core';
import { serviceApp } from '@minilake/testing';
import { jobsService } from '../src/index.js';
import { Scheduler } from '../src/scheduler.js';
import { JobsStore } from '../src/store.js';
import type { TaskSpec } from '../src/settings.js';
import { quartz } from '../src/triggers.js';
import { FileResolver } from '../src/resolve.js';
import { runTokens } from '../src/tokens.js';

/** The store and scheduler a restarted server opens on `dir`: after kill -9, the last flush is all there is. */
async function reopen(dir: string, clock: ManualClock) {
  const store = new JobsStore(await StateDb.open(dir), clock);
  const scheduler = new Scheduler({
    store,
    clock,
    logger: (await import('@minilake/core')).silentLogger,
    dir,
    userName: 'u',
    taskConcurrency: 1,
    tokens: runTokens(undefined),
    deps: {
      clock,
      workspaceId: '1',
      selfUrl: () => undefined,
      engine: () => Promise.reject(new Error('none')),
      files: new FileResolver({}),
    },
  });
  return { store, scheduler };
}

const cond = (key: string) => ({ task_key: key, condition_task: { op: 'EQUAL_TO', left: '1', right: '1' } });
const flush = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};
/** Flushes until `done()` holds (bounded): how many event-loop turns a run needs depends on the load. */
const until = async (done: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await done()); i++) await flush();
};

async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 10, 0, 0));
  const s = await serviceApp(jobsService, { clock });
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await s.app.request(p, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
    return (await res.json()) as any;
  };
  const runs = async (jobId: number) =>
    (await call('GET', `/api/2.2/jobs/runs/list?job_id=${jobId}&limit=25`)).runs ?? [];
  // Stepping the clock starts folder polls that finish on the fs thread pool: wait for those too.
  const settle = async () => {
    await flush();
    await s.instance.api!.idle();
    await flush();
  };
  return { clock, call, runs, settle, api: s.instance.api!, close: () => s.instance.close?.() };
}

describe('triggers', () => {
  it('a Quartz schedule fires on the clock, in its time zone, and not while paused', async () => {
    const { clock, call, runs, close } = await setup();
    const { job_id } = await call('POST', '/api/2.2/jobs/create', {
      tasks: [cond('a')],
      schedule: { quartz_cron_expression: '0 30 * * * ?', timezone_id: 'Europe/Paris' },
    });
    const paused = await call('POST', '/api/2.2/jobs/create', {
      tasks: [cond('a')],
      schedule: { quartz_cron_expression: '0 30 * * * ?', timezone_id: 'UTC', pause_status: 'PAUSED' },
    });
    clock.advance(29 * 60_000);
    await flush();
    expect(await runs(job_id)).toHaveLength(0);
    clock.advance(60_000);
    await flush();
    const r = await runs(job_id);
    expect(r).toHaveLength(1);
    expect(r[0].trigger).toBe('PERIODIC');
    clock.advance(60 * 60_000);
    await flush();
    expect(await runs(job_id)).toHaveLength(2);
    expect(await runs(paused.job_id)).toHaveLength(0);
    // unpausing through update arms it
    await call('POST', '/api/2.2/jobs/update', {
      job_id: paused.job_id,
      new_settings: {
        schedule: { quartz_cron_expression: '0 30 * * * ?', timezone_id: 'UTC', pause_status: 'UNPAUSED' },
      },
    });
    clock.advance(60 * 60_000);
    await flush();
    expect(await runs(paused.job_id)).toHaveLength(1);
    await close();
  });

  it('reads Quartz syntax: seconds, ?, 1-7 weekdays, n/step, L', () => {
    const from = new Date(Date.UTC(2023, 10, 14, 22, 13, 20)); // a Tuesday
    const next = (e: string) => quartz(e, 'UTC').nextRun(from)!.toISOString();
    expect(next('0 0/5 * * * ?')).toBe('2023-11-14T22:15:00.000Z');
    expect(next('0 0 12 ? * 1')).toBe('2023-11-19T12:00:00.000Z'); // 1 = Sunday in Quartz
    expect(next('0 0 12 ? * 2#1')).toBe('2023-12-04T12:00:00.000Z'); // first Monday
    expect(next('0 0 0 L * ?')).toBe('2023-11-30T00:00:00.000Z');
    expect(next('0 0 12 * * ? *')).toBe('2023-11-15T12:00:00.000Z'); // with the year field
  });

  it('periodic and continuous triggers start runs', async () => {
    const { clock, call, runs, api, close } = await setup();
    const p = await call('POST', '/api/2.2/jobs/create', {
      tasks: [cond('a')],
      trigger: { periodic: { interval: 2, unit: 'HOURS' } },
    });
    clock.advance(2 * 3_600_000);
    await flush();
    expect((await runs(p.job_id)).map((r: any) => r.trigger)).toEqual(['PERIODIC']);
    const c = await call('POST', '/api/2.2/jobs/create', {
      tasks: [cond('a')],
      continuous: { pause_status: 'UNPAUSED' },
    });
    await flush();
    expect(await runs(c.job_id)).toHaveLength(1);
    // The next continuous run starts a second after this one ends.
    await api.waitForRun((await runs(c.job_id))[0].run_id);
    clock.advance(1_000);
    await until(async () => (await runs(c.job_id)).length === 2);
    const r = await runs(c.job_id);
    expect(r).toHaveLength(2);
    expect(r[0].trigger).toBe('CONTINUOUS');
    await call('POST', '/api/2.2/jobs/update', {
      job_id: c.job_id,
      new_settings: { continuous: { pause_status: 'PAUSED' } },
    });
    clock.advance(10_000);
    await flush();
    expect((await runs(c.job_id)).length).toBeLessThanOrEqual(3);
    await close();
  });

  it('a file arriving in the watched folder starts a run', async () => {
    const { clock, call, runs, settle, close } = await setup();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'jobs-arrival-'));
    const { job_id } = await call('POST', '/api/2.2/jobs/create', {
      tasks: [cond('a')],
      trigger: { file_arrival: { url: dir } },
    });
    await settle();
    clock.advance(2_000);
    await settle();
    expect(await runs(job_id)).toHaveLength(0);
    writeFileSync(path.join(dir, 'new.csv'), 'a,b\n');
    clock.advance(2_000);
    await settle();
    const r = await runs(job_id);
    expect(r).toHaveLength(1);
    expect(r[0].trigger).toBe('FILE_ARRIVAL');
    await close();
  });
});

describe('persistence', () => {
  it('a run that was active when the process died ends INTERNAL_ERROR, never RUNNING', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'jobs-state-'));
    const clock = new ManualClock();
    const db = await StateDb.open(dir);
    const store = new JobsStore(db, clock);
    const job = store.createJob(
      { name: 'p', max_concurrent_runs: 1, tasks: [{ task_key: 'a', run_job_task: { job_id: 1 } }] },
      'u',
    );
    const run = store.addRun({
      run_id: 42,
      job_id: job.job_id,
      run_name: 'p',
      run_type: 'JOB_RUN',
      trigger: 'ONE_TIME',
      creator_user_name: 'u',
      settings: job.settings,
      start_time: clock.now(),
      end_time: 0,
      life: 'RUNNING',
      message: '',
      user_cancelled_or_timedout: false,
      tasks: [
        {
          run_id: 43,
          task_key: 'a',
          spec: { task_key: 'a' },
          attempt_number: 0,
          life: 'RUNNING',
          message: '',
          start_time: clock.now(),
          end_time: 0,
        },
      ],
      repair_history: [],
    });
    await db.flush(); // what an acknowledged write guarantees; no close, as after kill -9
    const { store: store2, scheduler } = await reopen(dir, clock);
    scheduler.recover();
    const after = store2.getRun(run.run_id);
    expect(after.life).toBe('INTERNAL_ERROR');
    expect(after.message).toContain('stopped while this run was active');
    expect(after.result).toBe('FAILED');
    expect(after.termination).toMatchObject({ code: 'INTERNAL_ERROR', type: 'INTERNAL_ERROR' });
    expect(after.tasks[0]!.life).toBe('INTERNAL_ERROR');
    expect(after.tasks[0]!.result).toBe('FAILED');
    expect(store2.output(43).error).toContain('stopped while this run was active');
    expect(store2.getJob(job.job_id).settings.name).toBe('p');
  });

  /** A run whose task `a` was RUNNING (and `b`, after it, BLOCKED) when the process died; then a restart. */
  async function killedRun(maxRetries: number | undefined) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'jobs-state-'));
    const clock = new ManualClock();
    const db = await StateDb.open(dir);
    const store = new JobsStore(db, clock);
    const a = { ...cond('a'), ...(maxRetries === undefined ? {} : { max_retries: maxRetries }) };
    const b = { ...cond('b'), depends_on: [{ task_key: 'a' }] };
    const job = store.createJob({ name: 'k', tasks: [a, b] }, 'u');
    const task = (run_id: number, spec: TaskSpec, life: 'RUNNING' | 'BLOCKED') => ({
      run_id,
      task_key: spec.task_key,
      spec,
      attempt_number: 0,
      life,
      message: '',
      start_time: life === 'RUNNING' ? clock.now() : 0,
      end_time: 0,
    });
    store.addRun({
      run_id: 80,
      job_id: job.job_id,
      run_name: 'k',
      run_type: 'JOB_RUN',
      trigger: 'ONE_TIME',
      creator_user_name: 'u',
      settings: job.settings,
      start_time: clock.now(),
      end_time: 0,
      life: 'RUNNING',
      message: '',
      user_cancelled_or_timedout: false,
      tasks: [task(81, a, 'RUNNING'), task(82, b, 'BLOCKED')],
      repair_history: [],
    });
    await db.flush(); // as after kill -9
    return reopen(dir, clock);
  }

  it('a lost task without retries fails the run INTERNAL_ERROR / FAILED; the task after it never ran', async () => {
    const { store, scheduler } = await killedRun(undefined);
    expect(scheduler.recover()).toEqual({ queued: 0, resumable: 0 });
    const r = store.getRun(80);
    expect([r.life, r.result]).toEqual(['INTERNAL_ERROR', 'FAILED']);
    expect(r.tasks.map((t) => [t.task_key, t.life, t.result])).toEqual([
      ['a', 'INTERNAL_ERROR', 'FAILED'],
      ['b', 'INTERNAL_ERROR', undefined],
    ]);
    expect(store.output(81).error).toContain('stopped while this run was active');
  });

  it('a lost task with max_retries left is retried after the restart, as Databricks retries INTERNAL_ERROR', async () => {
    const { store, scheduler } = await killedRun(1);
    expect(scheduler.recover()).toEqual({ queued: 0, resumable: 1 });
    const r = store.getRun(80);
    expect(r.life).toBe('RUNNING'); // the run goes on once the server listens
    expect(r.tasks.map((t) => [t.task_key, t.attempt_number, t.life, t.result])).toEqual([
      ['a', 0, 'INTERNAL_ERROR', 'FAILED'],
      ['b', 0, 'BLOCKED', undefined],
      ['a', 1, 'WAITING_FOR_RETRY', undefined],
    ]);
    scheduler.resume();
    const done = await scheduler.waitFor(80);
    expect([done.life, done.result]).toEqual(['TERMINATED', 'SUCCESS']);
    expect(done.tasks.map((t) => [t.task_key, t.attempt_number, t.result])).toEqual([
      ['a', 0, 'FAILED'],
      ['b', 0, 'SUCCESS'],
      ['a', 1, 'SUCCESS'],
    ]);
    await scheduler.close();
  });

  it('a lost task whose retries are used up is not retried', async () => {
    const { store, scheduler } = await killedRun(0);
    expect(scheduler.recover()).toEqual({ queued: 0, resumable: 0 });
    expect(store.getRun(80).life).toBe('INTERNAL_ERROR');
  });

  it('a queued run survives the restart and starts after it; a queued child of a dead parent does not', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'jobs-state-'));
    const clock = new ManualClock();
    const db = await StateDb.open(dir);
    const store = new JobsStore(db, clock);
    const job = store.createJob(
      { name: 'q', max_concurrent_runs: 1, queue: { enabled: true }, tasks: [cond('a')] },
      'u',
    );
    const queuedRun = (run_id: number, extra: object = {}) =>
      store.addRun({
        run_id,
        job_id: job.job_id,
        run_name: 'q',
        run_type: 'JOB_RUN',
        trigger: 'ONE_TIME',
        creator_user_name: 'u',
        settings: job.settings,
        start_time: clock.now() + run_id,
        end_time: 0,
        life: 'QUEUED',
        queue_reason: 'Queued due to reaching maximum concurrent runs of 1.',
        message: 'Queued due to reaching maximum concurrent runs of 1.',
        user_cancelled_or_timedout: false,
        tasks: [
          {
            run_id: run_id + 1,
            task_key: 'a',
            spec: cond('a'),
            attempt_number: 0,
            life: 'BLOCKED',
            message: '',
            start_time: 0,
            end_time: 0,
          },
        ],
        repair_history: [],
        ...extra,
      });
    queuedRun(50);
    queuedRun(60);
    queuedRun(70, { parent_task_run_id: 999 });
    await db.flush(); // as after kill -9
    const { store: store2, scheduler } = await reopen(dir, clock);
    expect(scheduler.recover()).toEqual({ queued: 2, resumable: 0 });
    expect(store2.getRun(50).life).toBe('QUEUED');
    expect(store2.getRun(70).life).toBe('INTERNAL_ERROR');
    scheduler.resume();
    // One at a time (max_concurrent_runs 1), oldest first: both end SUCCESS.
    await scheduler.waitFor(60);
    expect(store2.getRun(50).result).toBe('SUCCESS');
    expect(store2.getRun(60).result).toBe('SUCCESS');
    expect(store2.getRun(50).end_time).toBeLessThanOrEqual(store2.getRun(60).start_time);
    await scheduler.close();
  });
});

describe('cancel', () => {
  it('a cancel that comes while a task is starting (RUNNING, its work not begun) still stops the task', async () => {
    const { call, api, close } = await setup();
    // A child job kept busy: its one run waits for a retry an hour away (the clock is manual), and a second
    // run of it queues. The parent's run_job_task waits on that queued child until cancelled.
    const { job_id: child } = await call('POST', '/api/2.2/jobs/create', {
      max_concurrent_runs: 1,
      queue: { enabled: true },
      tasks: [
        {
          task_key: 'c',
          run_job_task: { job_id: 987654321 },
          max_retries: 1,
          min_retry_interval_millis: 3_600_000,
        },
      ],
    });
    await call('POST', '/api/2.2/jobs/run-now', { job_id: child });
    const { job_id: parent } = await call('POST', '/api/2.2/jobs/create', {
      tasks: [{ task_key: 'p', run_job_task: { job_id: child } }],
    });
    const { run_id } = api.service.runNow({ job_id: parent }) as { run_id: number };
    const taskLife = () => (api.service.getRun(run_id, {}) as any).tasks[0].state.life_cycle_state;
    for (let i = 0; i < 1000 && taskLife() !== 'RUNNING'; i++) await new Promise((r) => setImmediate(r));
    expect(taskLife()).toBe('RUNNING');
    api.service.cancel(run_id); // the task is still creating its folder: nothing registered to cancel yet
    const done = await Promise.race([
      api.waitForRun(run_id),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000)),
    ]);
    expect(done?.result).toBe('CANCELED');
    await close();
  });
});
