/**
 * Issue 30, concurrency storms on the id-keyed stores: jobs and their runs, clusters, warehouses, pipelines,
 * SQL queries and alerts, Lakeview dashboards (MLflow experiments: storms-mlflow.test.ts).
 * Every client creates under the SAME name and gets / updates / deletes whichever of the objects exist, the
 * first of them made before the storm so that all clients meet on it. Afterwards every object a client was
 * told about exists iff no delete of it was acknowledged, and get and list agree. Why in process: ./storm.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMinilake, parseConfig, type Minilake } from '../src/index.js';
import {
  call,
  idsOf as ids,
  listAll as listAllOn,
  newTally,
  ok,
  pick,
  runIdStorm as runIdStormOn,
  type Answer,
  type IdStorm,
  type Tally,
} from './storm.js';

const seed = Number(process.env.STORM_SEED ?? 30);
let ml: Minilake;
let wh: string;
const figures: string[] = [];

beforeAll(async () => {
  ml = await createMinilake(
    parseConfig({
      MINILAKE_SERVICES: 'unity-catalog,sql,sql-objects,workspace,files,compute,jobs,pipelines,lakeview',
      MINILAKE_CLUSTER_RUNTIME: 'none',
      MINILAKE_CLUSTER_START_DELAY: '0.05',
      MINILAKE_CLUSTER_TERMINATE_DELAY: '0.05',
      MINILAKE_WAREHOUSE_START_DELAY: '0.05',
      MINILAKE_LOG_LEVEL: 'silent',
    }),
  );
  const t = newTally();
  wh = (await call(ml, t, 'wh', 'POST', '/api/2.0/sql/warehouses', { name: 'storm', cluster_size: 'Small' }))
    .body.id as string;
  expect(
    (await call(ml, t, 'catalog', 'POST', '/api/2.1/unity-catalog/catalogs', { name: 'storm' })).status,
  ).toBe(200);
});
afterAll(async () => {
  console.log(figures.join('\n'));
  await ml?.close();
});

const runIdStorm = (label: string, s: IdStorm) => runIdStormOn(ml, label, s, { seed, figures });
const listAll = (t: Tally, url: string, field: string) => listAllOn(ml, t, url, field);

const J = '/api/2.2/jobs';
const cond = { task_key: 't', condition_task: { op: 'EQUAL_TO', left: '1', right: '1' } };

describe('storms on one object', () => {
  it('jobs, and runs of one job (run-now / cancel / get / delete)', async () => {
    const runs: { run: string; job: string }[] = [];
    const runDeleted = new Set<string>();
    const jobDeleted = new Set<string>();
    await runIdStorm('jobs', {
      async create(t) {
        const a = await call(ml, t, 'create', 'POST', `${J}/create`, { name: 'storm-job', tasks: [cond] });
        return { a, id: ok(a) ? String(a.body.job_id) : undefined };
      },
      ops: [
        async (id, t) => ({ a: await call(ml, t, 'get', 'GET', `${J}/get?job_id=${id}`) }),
        async (id, t, r) => ({
          a: await call(ml, t, 'update', 'POST', `${J}/update`, {
            job_id: Number(id),
            new_settings: { description: String(r()) },
          }),
        }),
        async (id, t) => ({
          a: await call(ml, t, 'reset', 'POST', `${J}/reset`, {
            job_id: Number(id),
            new_settings: { name: 'storm-job', tasks: [cond] },
          }),
        }),
        async (id, t) => {
          const a = await call(ml, t, 'delete', 'POST', `${J}/delete`, { job_id: Number(id) });
          if (ok(a)) jobDeleted.add(id);
          return { a, deletes: true };
        },
        async (id, t) => {
          const a = await call(ml, t, 'run-now', 'POST', `${J}/run-now`, { job_id: Number(id) });
          if (ok(a)) runs.push({ run: String(a.body.run_id), job: id });
          return { a };
        },
        async (_id, t, r) => {
          const run = runs.length ? pick(r, runs).run : '1';
          return { a: await call(ml, t, 'cancel', 'POST', `${J}/runs/cancel`, { run_id: Number(run) }) };
        },
        async (_id, t, r) => {
          const run = runs.length ? pick(r, runs).run : '1';
          return { a: await call(ml, t, 'get-run', 'GET', `${J}/runs/get?run_id=${run}`) };
        },
        async (_id, t, r) => {
          const run = runs.length ? pick(r, runs).run : '1';
          const a = await call(ml, t, 'delete-run', 'POST', `${J}/runs/delete`, { run_id: Number(run) });
          if (ok(a)) runDeleted.add(run);
          return { a };
        },
        async (id, t) => ({ a: await call(ml, t, 'list-runs', 'GET', `${J}/runs/list?job_id=${id}`) }),
      ],
      get: async (id, t) => ok(await call(ml, t, 'get', 'GET', `${J}/get?job_id=${id}`)),
      list: async (t) => ids(await listAll(t, `${J}/list?name=storm-job&limit=100`, 'jobs'), 'job_id'),
    });
    expect(runs.length).toBeGreaterThan(0);
    const t = newTally();
    for (const { run, job } of runs) {
      if (jobDeleted.has(job)) continue;
      const got = await call(ml, t, 'get-run', 'GET', `${J}/runs/get?run_id=${run}`);
      expect(ok(got), `run ${run}: there iff no delete was acknowledged`).toBe(!runDeleted.has(run));
    }
    expect(t.bad).toEqual([]);
  });

  it('clusters (edit / start / terminate / permanent-delete)', async () => {
    const spec = { spark_version: '19.3.x-scala2.13', node_type_id: 'm5d.large', num_workers: 0 };
    await runIdStorm('clusters', {
      async create(t) {
        const a = await call(ml, t, 'create', 'POST', '/api/2.1/clusters/create', {
          cluster_name: 'storm',
          ...spec,
        });
        return { a, id: ok(a) ? (a.body.cluster_id as string) : undefined };
      },
      ops: [
        async (id, t) => ({ a: await call(ml, t, 'get', 'GET', `/api/2.1/clusters/get?cluster_id=${id}`) }),
        async (id, t) => ({
          a: await call(ml, t, 'edit', 'POST', '/api/2.1/clusters/edit', {
            cluster_id: id,
            cluster_name: 'storm',
            ...spec,
            num_workers: 1,
          }),
        }),
        async (id, t) => ({
          a: await call(ml, t, 'start', 'POST', '/api/2.1/clusters/start', { cluster_id: id }),
        }),
        async (id, t) => ({
          a: await call(ml, t, 'terminate', 'POST', '/api/2.1/clusters/delete', { cluster_id: id }),
        }),
        async (id, t) => ({
          a: await call(ml, t, 'permanent-delete', 'POST', '/api/2.1/clusters/permanent-delete', {
            cluster_id: id,
          }),
          deletes: true,
        }),
      ],
      get: async (id, t) => ok(await call(ml, t, 'get', 'GET', `/api/2.1/clusters/get?cluster_id=${id}`)),
      list: async (t) =>
        ids(await listAll(t, '/api/2.1/clusters/list?page_size=100', 'clusters'), 'cluster_id'),
    });
  });

  it('warehouses (edit / start / stop / delete)', async () => {
    const W = '/api/2.0/sql/warehouses';
    await runIdStorm('warehouses', {
      async create(t) {
        const a = await call(ml, t, 'create', 'POST', W, { name: 'storm-wh', cluster_size: '2X-Small' });
        return { a, id: ok(a) ? (a.body.id as string) : undefined };
      },
      ops: [
        async (id, t) => ({ a: await call(ml, t, 'get', 'GET', `${W}/${id}`) }),
        async (id, t) => ({
          a: await call(ml, t, 'edit', 'POST', `${W}/${id}/edit`, {
            name: 'storm-wh',
            cluster_size: 'Small',
          }),
        }),
        async (id, t) => ({ a: await call(ml, t, 'start', 'POST', `${W}/${id}/start`) }),
        async (id, t) => ({ a: await call(ml, t, 'stop', 'POST', `${W}/${id}/stop`) }),
        async (id, t) => ({ a: await call(ml, t, 'delete', 'DELETE', `${W}/${id}`), deletes: true }),
      ],
      // GET still answers for a deleted warehouse (state DELETED), as Databricks does; the list leaves it out.
      get: async (id, t) => {
        const a = await call(ml, t, 'get', 'GET', `${W}/${id}`);
        return ok(a) && a.body.state !== 'DELETED' && a.body.state !== 'DELETING';
      },
      list: async (t) => ids(await listAll(t, `${W}?page_size=100`, 'warehouses'), 'id'),
    });
  });

  it('pipelines (one name: the duplicates are refused)', async () => {
    const P = '/api/2.0/pipelines';
    const settings = {
      name: 'storm-pipeline',
      catalog: 'storm',
      schema: 's',
      libraries: [{ glob: { include: '/Workspace/Shared/storm/**' } }],
    };
    await runIdStorm('pipelines', {
      async create(t) {
        const a = await call(ml, t, 'create', 'POST', P, settings);
        return { a, id: ok(a) ? (a.body.pipeline_id as string) : undefined };
      },
      ops: [
        async (id, t) => ({ a: await call(ml, t, 'get', 'GET', `${P}/${id}`) }),
        async (id, t, r) => ({
          a: await call(ml, t, 'edit', 'PUT', `${P}/${id}`, {
            ...settings,
            configuration: { x: String(r()) },
          }),
        }),
        async (id, t) => ({ a: await call(ml, t, 'delete', 'DELETE', `${P}/${id}`), deletes: true }),
        async (_id, t) => ({ a: await call(ml, t, 'list', 'GET', P) }),
      ],
      get: async (id, t) => ok(await call(ml, t, 'get', 'GET', `${P}/${id}`)),
      list: async (t) => ids(await listAll(t, `${P}?max_results=100`, 'statuses'), 'pipeline_id'),
    });
  });

  it('SQL queries and alerts', async () => {
    const Q = '/api/2.0/sql/queries';
    const A = '/api/2.0/sql/alerts';
    const live = (a: Answer) => ok(a) && a.body.lifecycle_state !== 'TRASHED';
    const queries = await runIdStorm('queries', {
      async create(t) {
        const a = await call(ml, t, 'create', 'POST', Q, {
          query: { display_name: 'storm-query', query_text: 'SELECT 1 AS a', warehouse_id: wh },
        });
        return { a, id: ok(a) ? (a.body.id as string) : undefined };
      },
      ops: [
        async (id, t) => ({ a: await call(ml, t, 'get', 'GET', `${Q}/${id}`) }),
        async (id, t, r) => ({
          a: await call(ml, t, 'update', 'PATCH', `${Q}/${id}`, {
            update_mask: 'description',
            query: { description: String(r()) },
          }),
        }),
        async (id, t) => ({ a: await call(ml, t, 'trash', 'DELETE', `${Q}/${id}`), deletes: true }),
      ],
      get: async (id, t) => live(await call(ml, t, 'get', 'GET', `${Q}/${id}`)),
      list: async (t) => ids(await listAll(t, `${Q}?page_size=100`, 'results'), 'id'),
    });
    // Alerts on one query that survived (or a fresh one).
    const t = newTally();
    const query =
      (
        await call(ml, t, 'q', 'POST', Q, {
          query: { display_name: 'storm-alert-query', query_text: 'SELECT 1 AS a', warehouse_id: wh },
        })
      ).body.id ?? queries[0];
    const alert = {
      display_name: 'storm-alert',
      query_id: query,
      condition: {
        op: 'GREATER_THAN',
        operand: { column: { name: 'a' } },
        threshold: { value: { double_value: 0 } },
      },
    };
    await runIdStorm('alerts', {
      async create(t) {
        const a = await call(ml, t, 'create', 'POST', A, { alert });
        return { a, id: ok(a) ? (a.body.id as string) : undefined };
      },
      ops: [
        async (id, t) => ({ a: await call(ml, t, 'get', 'GET', `${A}/${id}`) }),
        async (id, t) => ({
          a: await call(ml, t, 'update', 'PATCH', `${A}/${id}`, {
            update_mask: 'seconds_to_retrigger',
            alert: { seconds_to_retrigger: 60 },
          }),
        }),
        async (id, t) => ({ a: await call(ml, t, 'trash', 'DELETE', `${A}/${id}`), deletes: true }),
      ],
      get: async (id, t) => live(await call(ml, t, 'get', 'GET', `${A}/${id}`)),
      list: async (t) => ids(await listAll(t, `${A}?page_size=100`, 'results'), 'id'),
    });
  });

  it('Lakeview dashboards (one display name in one folder)', async () => {
    const D = '/api/2.0/lakeview/dashboards';
    const live = (a: Answer) => ok(a) && a.body.lifecycle_state !== 'TRASHED';
    await runIdStorm('dashboards', {
      async create(t) {
        const a = await call(ml, t, 'create', 'POST', D, {
          display_name: 'storm-dashboard',
          parent_path: '/Users/dev@minilake.local',
          serialized_dashboard: '{"pages":[]}',
          warehouse_id: wh,
        });
        return { a, id: ok(a) ? (a.body.dashboard_id as string) : undefined };
      },
      ops: [
        async (id, t) => ({ a: await call(ml, t, 'get', 'GET', `${D}/${id}`) }),
        async (id, t) => ({
          a: await call(ml, t, 'update', 'PATCH', `${D}/${id}`, { serialized_dashboard: '{"pages":[]}' }),
        }),
        async (id, t) => ({ a: await call(ml, t, 'trash', 'DELETE', `${D}/${id}`), deletes: true }),
        async (id, t) => ({
          a: await call(ml, t, 'publish', 'POST', `${D}/${id}/published`, { warehouse_id: wh }),
        }),
      ],
      get: async (id, t) => live(await call(ml, t, 'get', 'GET', `${D}/${id}`)),
      list: async (t) => ids(await listAll(t, `${D}?page_size=100`, 'dashboards'), 'dashboard_id'),
    });
  });
});
