import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { ManualClock } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { computeService } from '../src/index.js';

type Json = Record<string, any>;

let app: Hono;
let clock: ManualClock;

const post = (path: string, body: unknown) => app.request(path, jsonInit('POST', body));
async function ok(path: string, body?: unknown): Promise<Json> {
  const res = body === undefined ? await app.request(path) : await post(path, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Json;
}
const base = { spark_version: '15.4.x-scala2.12', node_type_id: 'i3.xlarge', num_workers: 1 };

beforeEach(async () => {
  clock = new ManualClock();
  ({ app } = await serviceApp(computeService, {
    clock,
    config: { MINILAKE_CLUSTER_START_DELAY: '2', MINILAKE_CLUSTER_TERMINATE_DELAY: '1' },
  }));
});

describe('cluster policies', () => {
  const definition = JSON.stringify({
    spark_version: { type: 'fixed', value: '16.4.x-scala2.12' },
    'custom_tags.team': { type: 'fixed', value: 'data' },
    'spark_conf.spark.databricks.cluster.profile': { type: 'fixed', value: 'singleNode' },
    autotermination_minutes: { type: 'range', maxValue: 60, defaultValue: 30 },
    node_type_id: { type: 'allowlist', values: ['i3.xlarge', 'm5d.large'] },
    instance_pool_id: { type: 'forbidden' },
  });

  it('creates, gets, lists, edits and deletes', async () => {
    const { policy_id } = await ok('/api/2.0/policies/clusters/create', {
      name: 'team policy',
      definition,
      description: 'd',
      max_clusters_per_user: 3,
    });
    expect(policy_id).toMatch(/^[0-9A-F]{16}$/);
    const p = await ok(`/api/2.0/policies/clusters/get?policy_id=${policy_id}`);
    expect(p).toMatchObject({
      policy_id,
      name: 'team policy',
      definition,
      description: 'd',
      max_clusters_per_user: 3,
      creator_user_name: 'dev@minilake.local',
      created_at_timestamp: clock.now(),
      is_default: false,
    });
    await expectDatabricksError(
      await post('/api/2.0/policies/clusters/create', { name: 'team policy', definition }),
      409,
      'RESOURCE_ALREADY_EXISTS',
    );
    await ok('/api/2.0/policies/clusters/edit', { policy_id, name: 'renamed', definition: '{}' });
    const edited = await ok(`/api/2.0/policies/clusters/get?policy_id=${policy_id}`);
    expect(edited.name).toBe('renamed');
    expect(edited.description).toBeUndefined();
    expect((await ok('/api/2.0/policies/clusters/list')).policies).toHaveLength(1);
    await ok('/api/2.0/policies/clusters/delete', { policy_id });
    await expectDatabricksError(
      await app.request(`/api/2.0/policies/clusters/get?policy_id=${policy_id}`),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });

  it('rejects an invalid definition', async () => {
    for (const bad of [
      'not json',
      '[]',
      '{"a": {"type": "bogus"}}',
      '{"a": {"type": "regex", "pattern": "("}}',
    ]) {
      await expectDatabricksError(
        await post('/api/2.0/policies/clusters/create', { name: 'x', definition: bad }),
        400,
        'INVALID_PARAMETER_VALUE',
      );
    }
  });

  it('applies fixed values to a cluster, defaults on request, and validates the rest', async () => {
    const { policy_id } = await ok('/api/2.0/policies/clusters/create', { name: 'p', definition });
    const { spark_version: _omit, ...noVersion } = base;
    const { cluster_id } = await ok('/api/2.1/clusters/create', { ...noVersion, policy_id });
    const c = await ok(`/api/2.1/clusters/get?cluster_id=${cluster_id}`);
    expect(c.spark_version).toBe('16.4.x-scala2.12');
    expect(c.custom_tags).toEqual({ team: 'data' });
    expect(c.spark_conf).toEqual({ 'spark.databricks.cluster.profile': 'singleNode' });
    expect(c.autotermination_minutes).toBeUndefined();
    expect(c.policy_id).toBe(policy_id);

    const withDefaults = await ok('/api/2.1/clusters/create', {
      ...noVersion,
      policy_id,
      apply_policy_default_values: true,
    });
    const d = await ok(`/api/2.1/clusters/get?cluster_id=${withDefaults.cluster_id}`);
    expect(d.autotermination_minutes).toBe(30);
    expect(d.spec.apply_policy_default_values).toBe(true);
    expect(d.apply_policy_default_values).toBeUndefined();

    const violations = [
      { ...base, policy_id },
      { ...noVersion, policy_id, autotermination_minutes: 120 },
      { ...noVersion, policy_id, node_type_id: 'r5d.xlarge' },
    ];
    for (const v of violations) {
      const err = await expectDatabricksError(
        await post('/api/2.1/clusters/create', v),
        400,
        'INVALID_PARAMETER_VALUE',
      );
      expect(err.message).toContain('Validation failed for');
    }
    await expectDatabricksError(
      await post('/api/2.1/clusters/create', { ...base, policy_id: 'NOPE' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    const listed = await ok(`/api/2.1/clusters/list?filter_by.policy_id=${policy_id}`);
    expect(listed.clusters).toHaveLength(2);
  });

  it('serves policy families and builds definitions from them', async () => {
    const families = await ok('/api/2.0/policy-families');
    expect(families.policy_families.map((f: Json) => f.name)).toContain('Personal Compute');
    const fam = await ok('/api/2.0/policy-families/personal-vm');
    expect(JSON.parse(fam.definition)['num_workers']).toEqual({ type: 'fixed', value: 0, hidden: true });
    const page = await ok('/api/2.0/policy-families?max_results=2');
    expect(page.policy_families).toHaveLength(2);
    expect(page.next_page_token).toBeTruthy();
    await expectDatabricksError(
      await app.request('/api/2.0/policy-families/nope'),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );

    const overrides = JSON.stringify({ autotermination_minutes: { type: 'fixed', value: 60 } });
    const { policy_id } = await ok('/api/2.0/policies/clusters/create', {
      name: 'personal',
      policy_family_id: 'personal-vm',
      policy_family_definition_overrides: overrides,
    });
    const p = await ok(`/api/2.0/policies/clusters/get?policy_id=${policy_id}`);
    const def = JSON.parse(p.definition);
    expect(def.autotermination_minutes).toEqual({ type: 'fixed', value: 60 });
    expect(def.num_workers.value).toBe(0);
    expect(p.policy_family_id).toBe('personal-vm');
    expect(p.policy_family_definition_overrides).toBe(overrides);
    await expectDatabricksError(
      await post('/api/2.0/policies/clusters/create', {
        name: 'both',
        policy_family_id: 'personal-vm',
        definition: '{}',
      }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });
});

describe('instance pools', () => {
  it('creates, edits, reports stats and deletes', async () => {
    const { instance_pool_id } = await ok('/api/2.0/instance-pools/create', {
      instance_pool_name: 'pool',
      node_type_id: 'i3.xlarge',
      min_idle_instances: 1,
      max_capacity: 10,
      custom_tags: { a: 'b' },
      preloaded_spark_versions: ['15.4.x-scala2.12'],
    });
    expect(instance_pool_id).toMatch(/-pool-/);
    let p = await ok(`/api/2.0/instance-pools/get?instance_pool_id=${instance_pool_id}`);
    expect(p).toMatchObject({
      instance_pool_name: 'pool',
      state: 'ACTIVE',
      min_idle_instances: 1,
      max_capacity: 10,
      preloaded_spark_versions: ['15.4.x-scala2.12'],
      stats: { used_count: 0, idle_count: 1, pending_used_count: 0, pending_idle_count: 0 },
    });
    expect(p.default_tags.DatabricksInstancePoolId).toBe(instance_pool_id);

    const { cluster_id } = await ok('/api/2.1/clusters/create', {
      spark_version: '15.4.x-scala2.12',
      instance_pool_id,
      num_workers: 2,
    });
    clock.advance(2000);
    const c = await ok(`/api/2.1/clusters/get?cluster_id=${cluster_id}`);
    expect(c.node_type_id).toBe('i3.xlarge');
    expect(c.driver_instance_pool_id).toBe(instance_pool_id);
    expect(c.aws_attributes).toBeUndefined();
    p = await ok(`/api/2.0/instance-pools/get?instance_pool_id=${instance_pool_id}`);
    expect(p.stats.used_count).toBe(3);

    await ok('/api/2.0/instance-pools/edit', {
      instance_pool_id,
      instance_pool_name: 'renamed',
      node_type_id: 'i3.xlarge',
      max_capacity: 20,
    });
    p = await ok(`/api/2.0/instance-pools/get?instance_pool_id=${instance_pool_id}`);
    expect(p.instance_pool_name).toBe('renamed');
    expect(p.max_capacity).toBe(20);
    expect(p.custom_tags).toBeUndefined();
    expect(p.preloaded_spark_versions).toEqual(['15.4.x-scala2.12']);
    await expectDatabricksError(
      await post('/api/2.0/instance-pools/edit', {
        instance_pool_id,
        instance_pool_name: 'x',
        node_type_id: 'm5d.large',
      }),
      400,
      'INVALID_PARAMETER_VALUE',
    );

    expect((await ok('/api/2.0/instance-pools/list')).instance_pools).toHaveLength(1);
    await ok('/api/2.0/instance-pools/delete', { instance_pool_id });
    expect((await ok('/api/2.0/instance-pools/list')).instance_pools).toEqual([]);
    p = await ok(`/api/2.0/instance-pools/get?instance_pool_id=${instance_pool_id}`);
    expect(p.state).toBe('DELETED');
    await expectDatabricksError(
      await post('/api/2.1/clusters/create', { spark_version: '15.4.x-scala2.12', instance_pool_id }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await app.request('/api/2.0/instance-pools/get?instance_pool_id=nope'),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });
});

describe('libraries', () => {
  it('records installs with statuses that follow the cluster state', async () => {
    const { cluster_id } = await ok('/api/2.1/clusters/create', base);
    const libs = [{ pypi: { package: 'requests==2.32.0' } }, { jar: '/Volumes/a/b/c/x.jar' }];
    await ok('/api/2.0/libraries/install', { cluster_id, libraries: libs });
    await ok('/api/2.0/libraries/install', { cluster_id, libraries: [libs[0]] }); // idempotent
    let st = await ok(`/api/2.0/libraries/cluster-status?cluster_id=${cluster_id}`);
    expect(st.library_statuses.map((s: Json) => s.status)).toEqual(['PENDING', 'PENDING']);
    clock.advance(2000);
    st = await ok(`/api/2.0/libraries/cluster-status?cluster_id=${cluster_id}`);
    expect(st.library_statuses).toEqual([
      { library: libs[0], status: 'INSTALLED', is_library_for_all_clusters: false },
      { library: libs[1], status: 'INSTALLED', is_library_for_all_clusters: false },
    ]);
    await ok('/api/2.0/libraries/uninstall', { cluster_id, libraries: [libs[1]] });
    st = await ok(`/api/2.0/libraries/cluster-status?cluster_id=${cluster_id}`);
    expect(st.library_statuses[1].status).toBe('UNINSTALL_ON_RESTART');
    const all = await ok('/api/2.0/libraries/all-cluster-statuses');
    expect(all.statuses).toHaveLength(1);
    await ok('/api/2.1/clusters/restart', { cluster_id });
    clock.advance(2000);
    st = await ok(`/api/2.0/libraries/cluster-status?cluster_id=${cluster_id}`);
    expect(st.library_statuses.map((s: Json) => s.library)).toEqual([libs[0]]);

    await expectDatabricksError(
      await post('/api/2.0/libraries/install', { cluster_id, libraries: [{ jar: 'a', whl: 'b' }] }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    const missing = await expectDatabricksError(
      await app.request('/api/2.0/libraries/cluster-status?cluster_id=nope'),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    expect(missing.message).toBe('Cluster nope does not exist');
  });
});

describe('reset', () => {
  it('empties everything and cancels timers', async () => {
    const clock2 = new ManualClock();
    const { app: app2, instance } = await serviceApp(computeService, { clock: clock2 });
    const res = await app2.request(
      '/api/2.1/clusters/create',
      jsonInit('POST', { spark_version: '15.4.x-scala2.12', num_workers: 0 }),
    );
    expect(res.status).toBe(200);
    for (const m of instance.state) await m.reset();
    clock2.advance(10_000);
    const list = (await (await app2.request('/api/2.1/clusters/list')).json()) as Json;
    expect(list.clusters).toEqual([]);
  });
});
