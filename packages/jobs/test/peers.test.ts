/**
 * Jobs with the peers it calls in process: sql_task on the statement service and on sql-objects' Api, job
 * ACLs through iam's Api, and each run's own token minted through iam. Every wait is on the run's end or on
 * the injected clock, never on real time.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@minilake/core';
import { iamService, type IamApi } from '@minilake/iam';
import { sqlService, type SqlApi } from '@minilake/sql';
import { sqlObjectsService, type SqlObjectsApi } from '@minilake/sql-objects';
import { serviceApp } from '@minilake/testing';
import { jobsService, type JobsApi } from '../src/index.js';

type App = Awaited<ReturnType<typeof serviceApp>>['app'];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const clock = new ManualClock(Date.UTC(2026, 0, 5, 10, 0, 0));
const dir = mkdtempSync(path.join(os.tmpdir(), 'jobs-peers-'));
let jobs: App;
let iam: App;
let sqlObjects: App;
let sql: SqlApi;
let api: JobsApi;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  const i = await serviceApp(iamService, { clock });
  iam = i.app;
  // SQL on the system clock: its warehouse starts at once (a manual clock would hold it until a step).
  const s = await serviceApp(sqlService, { config: { MINILAKE_WAREHOUSE_START_DELAY: '0' } });
  sql = s.instance.api as SqlApi;
  const o = await serviceApp(sqlObjectsService, { peers: new Map<string, unknown>([['sql', sql]]) });
  sqlObjects = o.app;
  const j = await serviceApp(jobsService, {
    clock,
    peers: new Map<string, unknown>([
      ['iam', i.instance.api as IamApi],
      ['sql', sql],
      ['sql-objects', o.instance.api as SqlObjectsApi],
    ]),
  });
  jobs = j.app;
  api = j.instance.api as JobsApi;
  closers.push(
    () => j.instance.close?.(),
    () => o.instance.close?.(),
    () => s.instance.close?.(),
  );
});
afterAll(async () => {
  for (const c of closers) await c();
});

async function call(app: App, method: string, p: string, body?: unknown) {
  const res = await app.request(p, {
    method,
    ...(body !== undefined
      ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Any };
}

/** Turns the event loop until `done()` holds (bounded): work on the file system's thread pool needs turns. */
async function until(done: () => Promise<boolean>) {
  for (let i = 0; i < 2000 && !(await done()); i++) await new Promise((r) => setImmediate(r));
}

/** Submits a one-time run and answers it once it ended, with its first task's output. */
async function submit(tasks: unknown[], extra: Record<string, unknown> = {}) {
  const r = await call(jobs, 'POST', '/api/2.2/jobs/runs/submit', { run_name: 'peers', tasks, ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await api.waitForRun(r.body.run_id);
  const run = (await call(jobs, 'GET', `/api/2.2/jobs/runs/get?run_id=${r.body.run_id}`)).body;
  const output = (await call(jobs, 'GET', `/api/2.2/jobs/runs/get-output?run_id=${run.tasks[0].run_id}`))
    .body;
  return { run, output };
}

describe('sql_task', () => {
  it('runs a SQL file on the statement service, with its parameters bound', async () => {
    const file = path.join(dir, 'make.sql');
    writeFileSync(file, 'CREATE TABLE jobs_peer_t AS SELECT CAST(:n AS INT) AS n');
    const { run, output } = await submit([
      { task_key: 'f', sql_task: { warehouse_id: 'dev', file: { path: file }, parameters: { n: '7' } } },
    ]);
    expect(run.state.result_state, JSON.stringify(output)).toBe('SUCCESS');
    expect(output.logs).toMatch(/^Statement \S+ succeeded/);
    const rows = await sql.statements.run({ statement: 'SELECT n FROM jobs_peer_t', warehouseId: 'dev' });
    expect(rows.rows).toEqual([['7']]);

    const bad = await submit([{ task_key: 'f', sql_task: { warehouse_id: 'nope', file: { path: file } } }]);
    expect(bad.run.state.result_state).toBe('FAILED');
    expect(bad.output.error).toMatch(/nope/);
  });

  it('runs a saved query and evaluates an alert through sql-objects', async () => {
    const q = await call(sqlObjects, 'POST', '/api/2.0/sql/queries', {
      query: {
        display_name: 'n',
        query_text: 'SELECT :k * 2 AS v',
        warehouse_id: 'dev',
        parameters: [{ name: 'k', numeric_value: { value: 1 } }],
      },
    });
    const ran = await submit([
      {
        task_key: 'q',
        sql_task: { warehouse_id: 'dev', query: { query_id: q.body.id }, parameters: { k: '21' } },
      },
    ]);
    expect(ran.run.state.result_state).toBe('SUCCESS');
    expect(ran.output.logs).toMatch(new RegExp(`^Query ${q.body.id}: statement \\S+ succeeded \\(1 rows\\)`));

    const a = await call(sqlObjects, 'POST', '/api/2.0/sql/alerts', {
      alert: {
        display_name: 'a',
        query_id: q.body.id,
        condition: {
          op: 'GREATER_THAN',
          operand: { column: { name: 'v' } },
          threshold: { value: { double_value: 1 } },
        },
      },
    });
    const evaluated = await submit([
      { task_key: 'a', sql_task: { warehouse_id: 'dev', alert: { alert_id: a.body.id, subscriptions: [] } } },
    ]);
    expect(evaluated.output.logs).toBe(`Alert ${a.body.id}: TRIGGERED.\n`);
    expect((await call(sqlObjects, 'GET', `/api/2.0/sql/alerts/${a.body.id}`)).body.state).toBe('TRIGGERED');

    const missing = await submit([
      { task_key: 'q', sql_task: { warehouse_id: 'dev', query: { query_id: 'gone' } } },
    ]);
    expect(missing.output.error).toBe('Query gone does not exist.');
    const invalid = await submit([
      { task_key: 'q', sql_task: { warehouse_id: 'dev', alert: { alert_id: 'x', subscriptions: 'all' } } },
    ]);
    expect(invalid.output.error).toMatch(/^Invalid sql_task\.alert\.subscriptions: /);
  });
});

describe('iam', () => {
  it('a job created with an access_control_list has it; an invalid one refuses the create', async () => {
    const c = await call(jobs, 'POST', '/api/2.2/jobs/create', {
      name: 'acl',
      tasks: [{ task_key: 'a', condition_task: { op: 'EQUAL_TO', left: '1', right: '1' } }],
      access_control_list: [{ group_name: 'users', permission_level: 'CAN_VIEW' }],
    });
    expect(c.status).toBe(200);
    const acl = (await call(iam, 'GET', `/api/2.0/permissions/jobs/${c.body.job_id}`)).body;
    expect(acl.access_control_list).toContainEqual(
      expect.objectContaining({
        group_name: 'users',
        all_permissions: [expect.objectContaining({ permission_level: 'CAN_VIEW' })],
      }),
    );
    const before = (await call(jobs, 'GET', '/api/2.2/jobs/list')).body.jobs.length;
    const bad = await call(jobs, 'POST', '/api/2.2/jobs/create', {
      name: 'bad-acl',
      access_control_list: [{ group_name: 'no-such-group', permission_level: 'CAN_VIEW' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe('INVALID_PARAMETER_VALUE');
    expect((await call(jobs, 'GET', '/api/2.2/jobs/list')).body.jobs).toHaveLength(before);
  });

  it('each run has its own token while it is active, owned by its run_as, revoked when it ends', async () => {
    const sp = await call(iam, 'POST', '/api/2.0/preview/scim/v2/ServicePrincipals', {
      displayName: 'runner',
    });
    const appId = sp.body.applicationId;
    const tokens = async () =>
      ((await call(iam, 'GET', '/api/2.0/token-management/tokens')).body.token_infos ?? []) as Any[];
    const job = await call(jobs, 'POST', '/api/2.2/jobs/create', {
      name: 'tok',
      run_as: { service_principal_name: appId },
      // A task that fails and waits a minute on the clock for its retry: the run stays active meanwhile.
      tasks: [
        {
          task_key: 'a',
          dbt_task: { commands: ['dbt run'] },
          max_retries: 1,
          min_retry_interval_millis: 60_000,
        },
      ],
    });
    const run = await call(jobs, 'POST', '/api/2.2/jobs/run-now', { job_id: job.body.job_id });
    const mine = async () => (await tokens()).filter((t) => t.comment === `Job run ${run.body.run_id}`);
    const [token] = await mine();
    expect(token).toMatchObject({ owner_id: Number(sp.body.id), created_by_username: expect.any(String) });
    expect(token.expiry_time).toBeGreaterThan(clock.now());
    // The first attempt fails on its own (a task type MiniLake does not run); its retry waits on the clock.
    await until(async () => {
      const r = (await call(jobs, 'GET', `/api/2.2/jobs/runs/get?run_id=${run.body.run_id}`)).body;
      return r.tasks.some((t: Any) => t.state.life_cycle_state === 'WAITING_FOR_RETRY');
    });
    clock.advance(60_000);
    const ended = await api.waitForRun(run.body.run_id);
    expect(ended?.result).toBe('FAILED');
    expect(await mine()).toHaveLength(0);
  });
});
