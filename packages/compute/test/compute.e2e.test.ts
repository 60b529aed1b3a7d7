import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@databricks/sdk-experimental';
import { startServer, workspaceClient, type RunningServer } from '@minilake/testing';

const fast = { MINILAKE_CLUSTER_START_DELAY: '0.2', MINILAKE_CLUSTER_TERMINATE_DELAY: '0.2' };

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ env: fast });
});
afterAll(async () => {
  await server?.stop();
});

async function pollState(url: string, id: string, want: string): Promise<string> {
  let state = '';
  for (let i = 0; i < 200 && state !== want; i++) {
    const res = await fetch(`${url}/api/2.1/clusters/get?cluster_id=${id}`);
    state = ((await res.json()) as { state: string }).state;
    if (state !== want) await new Promise((r) => setTimeout(r, 50));
  }
  return state;
}

describe('compute through the TypeScript SDK', () => {
  it('creates a cluster and waits for RUNNING, then terminates it and waits for TERMINATED', async () => {
    const w = workspaceClient(server.url);
    const waiter = await w.clusters.create({
      cluster_name: 'ts-cluster',
      spark_version: '15.4.x-scala2.12',
      node_type_id: 'i3.xlarge',
      num_workers: 1,
      custom_tags: { from: 'ts' },
    });
    const running = await waiter.wait();
    expect(running.state).toBe('RUNNING');
    expect(running.custom_tags).toEqual({ from: 'ts' });

    const listed = [];
    for await (const c of w.clusters.list({ filter_by: { cluster_states: ['RUNNING'] } }))
      listed.push(c.cluster_id);
    expect(listed).toContain(waiter.cluster_id);

    const terminated = await (await w.clusters.delete({ cluster_id: waiter.cluster_id! })).wait();
    expect(terminated.state).toBe('TERMINATED');
    expect(terminated.termination_reason?.code).toBe('USER_REQUEST');

    const events = [];
    for await (const e of w.clusters.events({ cluster_id: waiter.cluster_id! })) events.push(e.type);
    expect(events[0]).toBe('TERMINATING');
    expect(events[events.length - 1]).toBe('CREATING');
  });

  it('reads the catalog and reports a missing cluster with the real 400', async () => {
    const w = workspaceClient(server.url);
    const versions = await w.clusters.sparkVersions();
    expect(versions.versions?.map((v) => v.key)).toContain('16.4.x-scala2.13');
    const nodes = await w.clusters.listNodeTypes();
    expect(nodes.node_types?.some((n) => n.node_type_id === 'i3.xlarge')).toBe(true);
    const err = await w.clusters.get({ cluster_id: '0000-000000-missing0' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).statusCode).toBe(400);
    expect((err as ApiError).message).toContain('Cluster 0000-000000-missing0 does not exist');
  });

  it('manages policies and pools', async () => {
    const w = workspaceClient(server.url);
    const { policy_id } = await w.clusterPolicies.create({
      name: 'ts-policy',
      definition: JSON.stringify({ spark_version: { type: 'fixed', value: '16.4.x-scala2.12' } }),
    });
    const policy = await w.clusterPolicies.get({ policy_id: policy_id! });
    expect(policy.name).toBe('ts-policy');
    const { instance_pool_id } = await w.instancePools.create({
      instance_pool_name: 'ts-pool',
      node_type_id: 'm5d.large',
    });
    const pool = await w.instancePools.get({ instance_pool_id: instance_pool_id! });
    expect(pool.state).toBe('ACTIVE');
    await w.instancePools.delete({ instance_pool_id: instance_pool_id! });
    await w.clusterPolicies.delete({ policy_id: policy_id! });
  });
});

describe('cluster timers after kill -9 with persistence', () => {
  it('a cluster that was starting when the process died finishes starting after the restart', async () => {
    const env = {
      MINILAKE_PERSIST: '1',
      MINILAKE_CLUSTER_START_DELAY: '1',
      MINILAKE_CLUSTER_TERMINATE_DELAY: '1',
    };
    const first = await startServer({ env });
    const res = await fetch(`${first.url}/api/2.1/clusters/create`, {
      method: 'POST',
      body: JSON.stringify({ cluster_name: 'durable', spark_version: '15.4.x-scala2.12', num_workers: 0 }),
    });
    const { cluster_id } = (await res.json()) as { cluster_id: string };
    const del = await fetch(`${first.url}/api/2.1/clusters/create`, {
      method: 'POST',
      body: JSON.stringify({ cluster_name: 'doomed', spark_version: '15.4.x-scala2.12', num_workers: 0 }),
    });
    const doomed = ((await del.json()) as { cluster_id: string }).cluster_id;
    await fetch(`${first.url}/api/2.1/clusters/delete`, {
      method: 'POST',
      body: JSON.stringify({ cluster_id: doomed }),
    });
    await first.kill9();

    const second = await startServer({ env, dataDir: first.dataDir });
    try {
      expect(await pollState(second.url, cluster_id, 'RUNNING')).toBe('RUNNING');
      expect(await pollState(second.url, doomed, 'TERMINATED')).toBe('TERMINATED');
    } finally {
      await second.stop();
      await rm(first.dataDir, { recursive: true, force: true });
    }
  });
});
