import { describe, expect, it } from 'vitest';
import { ManualClock } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { computeService } from '../src/index.js';

interface Hooks {
  exists(id: string): boolean;
  owner?(id: string): string | undefined;
}

/** Stands in for the iam service: records what compute registers and drops. */
function fakeIam() {
  const hooks = new Map<string, Hooks>();
  const defs = new Map<string, Record<string, unknown>>();
  const dropped: string[] = [];
  return {
    hooks,
    defs,
    dropped,
    api: {
      registerObjectType: (def: { request: string }, h: Hooks) => {
        hooks.set(def.request, h);
        defs.set(def.request, def);
      },
      dropPermissions: (type: string, id: string) => dropped.push(`${type}:${id}`),
      // MINILAKE_ENFORCE off: nothing is refused.
      enforcing: false,
      check: () => {},
    },
  };
}

describe('permissions hooks given to iam', () => {
  it('registers clusters, policies and pools, and drops their ACLs when they go', async () => {
    const iam = fakeIam();
    const { app } = await serviceApp(computeService, {
      clock: new ManualClock(),
      peers: new Map([['iam', iam.api]]),
    });
    const post = async (p: string, body: unknown) => {
      const res = await app.request(p, jsonInit('POST', body));
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return JSON.parse(text) as Record<string, string>;
    };
    expect([...iam.hooks.keys()].sort()).toEqual(['cluster-policies', 'clusters', 'instance-pools']);
    expect(iam.defs.get('clusters')).toEqual({
      request: 'clusters',
      objectType: 'cluster',
      levels: ['CAN_ATTACH_TO', 'CAN_RESTART', 'CAN_MANAGE'],
      owner: 'CAN_MANAGE',
      admins: 'CAN_MANAGE',
    });
    expect(iam.defs.get('cluster-policies')).toMatchObject({
      objectType: 'cluster-policy',
      levels: ['CAN_USE'],
    });
    expect(iam.defs.get('instance-pools')).toMatchObject({
      objectType: 'instance-pool',
      owner: 'CAN_MANAGE',
    });
    const clusters = iam.hooks.get('clusters')!;
    const policies = iam.hooks.get('cluster-policies')!;
    const pools = iam.hooks.get('instance-pools')!;

    const { cluster_id } = await post('/api/2.1/clusters/create', {
      cluster_name: 'c',
      spark_version: '15.4.x-scala2.12',
      num_workers: 0,
    });
    expect(clusters.exists(cluster_id!)).toBe(true);
    expect(clusters.exists('0101-000000-nosuchcl')).toBe(false);
    expect(clusters.owner!(cluster_id!)).toBe('dev@minilake.local');
    await post('/api/2.1/clusters/delete', { cluster_id });
    expect(clusters.exists(cluster_id!)).toBe(true); // terminated, not gone
    expect(iam.dropped).toEqual([]);
    await post('/api/2.1/clusters/permanent-delete', { cluster_id });
    expect(clusters.exists(cluster_id!)).toBe(false);
    expect(iam.dropped).toEqual([`clusters:${cluster_id}`]);

    const { policy_id } = await post('/api/2.0/policies/clusters/create', { name: 'p', definition: '{}' });
    expect(policies.exists(policy_id!)).toBe(true);
    expect(policies.exists('NOPE')).toBe(false);
    await post('/api/2.0/policies/clusters/delete', { policy_id });
    expect(policies.exists(policy_id!)).toBe(false);

    const { instance_pool_id } = await post('/api/2.0/instance-pools/create', {
      instance_pool_name: 'pool',
      node_type_id: 'i3.xlarge',
    });
    expect(pools.exists(instance_pool_id!)).toBe(true);
    await post('/api/2.0/instance-pools/delete', { instance_pool_id });
    expect(pools.exists(instance_pool_id!)).toBe(false);
    expect(iam.dropped).toEqual([
      `clusters:${cluster_id}`,
      `cluster-policies:${policy_id}`,
      `instance-pools:${instance_pool_id}`,
    ]);
  });

  it('works without an iam service', async () => {
    const { app } = await serviceApp(computeService, { clock: new ManualClock() });
    const res = await app.request(
      '/api/2.1/clusters/create',
      jsonInit('POST', { spark_version: '15.4.x-scala2.12', num_workers: 0 }),
    );
    expect(res.status).toBe(200);
  });
});
