/**
 * Job clusters in the compute service: a `job_cluster_key` cluster shared by the run's tasks and ended with
 * the run, a task's own `new_cluster` ended with the task, both shown as `cluster_instance`.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '@minilake/core';
import { computeService, type ComputeApi } from '@minilake/compute';
import { serviceApp } from '@minilake/testing';
import { jobsService } from '../src/index.js';

const flush = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

const spec = { spark_version: '15.4.x-scala2.12', node_type_id: 'i3.xlarge', num_workers: 0 };
// A task that fails once its cluster is up (no such file): what matters here is the cluster's life.
const pyTask = (key: string, extra: object) => ({
  task_key: key,
  spark_python_task: { python_file: '/Workspace/no/such/file.py' },
  ...extra,
});

describe('job clusters', () => {
  it('are created in the compute service as JOB clusters, shown as cluster_instance, ended with their work', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 10, 0, 0));
    const compute = await serviceApp(computeService, { clock });
    const jobs = await serviceApp(jobsService, {
      clock,
      peers: new Map([['compute', compute.instance.api]]),
    });
    const api = compute.instance.api as ComputeApi;
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await jobs.app.request(p, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
      return (await res.json()) as any;
    };
    const { job_id } = await call('POST', '/api/2.2/jobs/create', {
      name: 'clusters',
      job_clusters: [{ job_cluster_key: 'shared', new_cluster: spec }],
      tasks: [
        pyTask('a', { job_cluster_key: 'shared' }),
        pyTask('b', { job_cluster_key: 'shared' }),
        pyTask('own', { new_cluster: spec }),
      ],
    });
    const { run_id } = await call('POST', '/api/2.2/jobs/run-now', { job_id });
    // While the clusters start, the tasks wait on them and already name them.
    let run = await call('GET', `/api/2.2/jobs/runs/get?run_id=${run_id}`);
    for (let i = 0; i < 200 && !run.tasks.every((t: any) => t.cluster_instance); i++) {
      await flush();
      run = await call('GET', `/api/2.2/jobs/runs/get?run_id=${run_id}`);
    }
    const ids = Object.fromEntries(run.tasks.map((t: any) => [t.task_key, t.cluster_instance?.cluster_id]));
    expect(ids.a).toBeTruthy();
    expect(ids.b).toBe(ids.a);
    expect(ids.own).toBeTruthy();
    expect(ids.own).not.toBe(ids.a);
    const shared = api.getCluster(ids.a)!;
    expect(shared.cluster_source).toBe('JOB');
    expect(shared.cluster_name).toBe(`job-${job_id}-run-${run_id}-shared`);
    expect(api.getCluster(ids.own)!.cluster_name).toBe(`job-${job_id}-run-${run_id}`);
    expect(shared.state).toBe('PENDING');
    for (let i = 0; i < 200 && run.state.life_cycle_state !== 'TERMINATED'; i++) {
      clock.advance(250);
      await flush();
      run = await call('GET', `/api/2.2/jobs/runs/get?run_id=${run_id}`);
    }
    expect(run.state.life_cycle_state).toBe('TERMINATED');
    for (
      let i = 0;
      i < 200 && [ids.a, ids.own].some((id) => api.getCluster(id)!.state !== 'TERMINATED');
      i++
    ) {
      clock.advance(500);
      await flush();
    }
    for (const id of [ids.a, ids.own]) {
      const c = api.getCluster(id)!;
      expect(c.state).toBe('TERMINATED');
      expect((c.termination_reason as { code: string }).code).toBe('JOB_FINISHED');
    }
    await jobs.instance.close?.();
    await compute.instance.close?.();
  });
});
