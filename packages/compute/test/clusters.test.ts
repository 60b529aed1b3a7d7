import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { ManualClock } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { computeService } from '../src/index.js';

type Json = Record<string, any>;

let app: Hono;
let clock: ManualClock;

const config = { MINILAKE_CLUSTER_START_DELAY: '2', MINILAKE_CLUSTER_TERMINATE_DELAY: '1' };

async function post(path: string, body: unknown): Promise<Response> {
  return app.request(path, jsonInit('POST', body));
}
async function ok(path: string, body?: unknown): Promise<Json> {
  const res = body === undefined ? await app.request(path) : await post(path, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Json;
}
const get = (id: string) => ok(`/api/2.1/clusters/get?cluster_id=${id}`);
const spec = (name = 'c1') => ({
  cluster_name: name,
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'i3.xlarge',
  num_workers: 2,
});
async function create(extra: Json = {}): Promise<string> {
  return (await ok('/api/2.1/clusters/create', { ...spec(), ...extra })).cluster_id as string;
}
async function events(id: string, extra: Json = {}): Promise<Json> {
  return ok('/api/2.1/clusters/events', { cluster_id: id, order: 'ASC', ...extra });
}

beforeEach(async () => {
  clock = new ManualClock();
  ({ app } = await serviceApp(computeService, { clock, config }));
});

describe('cluster state machine', () => {
  it('goes PENDING -> RUNNING after the start delay, with runtime fields', async () => {
    const id = await create();
    expect(id).toMatch(/^\d{4}-\d{6}-[a-z]{8}$/);
    let c = await get(id);
    expect(c.state).toBe('PENDING');
    expect(c.start_time).toBe(clock.now());
    expect(c.creator_user_name).toBe('dev@minilake.local');
    expect(c.cluster_source).toBe('API');
    expect(c.default_tags).toEqual({
      Vendor: 'Databricks',
      Creator: 'dev@minilake.local',
      ClusterName: 'c1',
      ClusterId: id,
    });
    clock.advance(1999);
    expect((await get(id)).state).toBe('PENDING');
    clock.advance(1);
    c = await get(id);
    expect(c.state).toBe('RUNNING');
    expect(c.driver.private_ip).toMatch(/^10\./);
    expect(c.executors).toHaveLength(2);
    expect(typeof c.spark_context_id).toBe('number');
    expect(c.driver_node_type_id).toBe('i3.xlarge');
    expect(c.cluster_cores).toBe(12);
    expect(c.spec).toEqual(spec());
  });

  it('echoes attributes it does not interpret exactly', async () => {
    const extra = {
      aws_attributes: {
        availability: 'ON_DEMAND',
        zone_id: 'auto',
        ebs_volume_count: 1,
        ebs_volume_size: 100,
      },
      docker_image: { url: 'repo/img:1', basic_auth: { username: 'u', password: 'p' } },
      custom_tags: { team: 'data' },
      spark_conf: { 'spark.sql.shuffle.partitions': '8' },
      spark_env_vars: { A: 'b' },
      data_security_mode: 'USER_ISOLATION',
      runtime_engine: 'PHOTON',
      init_scripts: [{ workspace: { destination: '/Users/x/init.sh' } }],
      some_future_field: { nested: [1, 2] },
    };
    const id = await create(extra);
    const c = await get(id);
    for (const [k, v] of Object.entries(extra)) expect(c[k], k).toEqual(v);
    expect(c.apply_policy_default_values).toBeUndefined();
  });

  it('a cluster deleted while PENDING ends TERMINATED and never RUNNING', async () => {
    const id = await create();
    clock.advance(500);
    await ok('/api/2.1/clusters/delete', { cluster_id: id });
    expect((await get(id)).state).toBe('TERMINATING');
    clock.advance(10_000);
    const c = await get(id);
    expect(c.state).toBe('TERMINATED');
    expect(c.termination_reason).toEqual({
      code: 'USER_REQUEST',
      type: 'SUCCESS',
      parameters: { username: 'dev@minilake.local' },
    });
    expect(c.terminated_time).toBe(clock.now() - 10_000 + 1000);
    const types = (await events(id)).events.map((e: Json) => e.type);
    expect(types).toEqual(['CREATING', 'TERMINATING']);
  });

  it('starts, restarts, resizes and terminates with an event log', async () => {
    const id = await create();
    clock.advance(2000);
    const first = (await get(id)).spark_context_id;
    await ok('/api/2.1/clusters/restart', { cluster_id: id });
    expect((await get(id)).state).toBe('RESTARTING');
    clock.advance(2000);
    const restarted = await get(id);
    expect(restarted.state).toBe('RUNNING');
    expect(restarted.spark_context_id).not.toBe(first);
    expect(restarted.last_state_loss_time).toBe(clock.now() - 2000);

    await ok('/api/2.1/clusters/resize', { cluster_id: id, num_workers: 5 });
    expect((await get(id)).state).toBe('RESIZING');
    clock.advance(2000);
    const resized = await get(id);
    expect(resized.state).toBe('RUNNING');
    expect(resized.num_workers).toBe(5);
    expect(resized.executors).toHaveLength(5);
    expect(resized.spark_context_id).toBe(restarted.spark_context_id);

    await ok('/api/2.1/clusters/delete', { cluster_id: id });
    await ok('/api/2.1/clusters/delete', { cluster_id: id }); // idempotent
    clock.advance(1000);
    expect((await get(id)).state).toBe('TERMINATED');
    expect((await get(id)).driver).toBeUndefined();

    await ok('/api/2.1/clusters/start', { cluster_id: id });
    const pending = await get(id);
    expect(pending.state).toBe('PENDING');
    expect(pending.termination_reason).toBeUndefined();
    clock.advance(2000);
    expect((await get(id)).state).toBe('RUNNING');

    const log = await events(id);
    expect(log.events.map((e: Json) => e.type)).toEqual([
      'CREATING',
      'RUNNING',
      'DRIVER_HEALTHY',
      'RESTARTING',
      'RUNNING',
      'DRIVER_HEALTHY',
      'RESIZING',
      'UPSIZE_COMPLETED',
      'TERMINATING',
      'STARTING',
      'RUNNING',
      'DRIVER_HEALTHY',
    ]);
    const resizing = log.events.find((e: Json) => e.type === 'RESIZING');
    expect(resizing.details).toMatchObject({ current_num_workers: 2, target_num_workers: 5 });
    expect(log.total_count).toBe(12);
    for (const e of log.events) expect(e.cluster_id).toBe(id);
  });

  it('rejects operations in the wrong state with INVALID_STATE', async () => {
    const id = await create();
    const start = await expectDatabricksError(
      await post('/api/2.1/clusters/start', { cluster_id: id }),
      400,
      'INVALID_STATE',
    );
    expect(start.message).toBe(`Cluster ${id} is in unexpected state Pending.`);
    await expectDatabricksError(
      await post('/api/2.1/clusters/restart', { cluster_id: id }),
      400,
      'INVALID_STATE',
    );
    await expectDatabricksError(
      await post('/api/2.1/clusters/resize', { cluster_id: id, num_workers: 1 }),
      400,
      'INVALID_STATE',
    );
    await expectDatabricksError(
      await post('/api/2.1/clusters/edit', { cluster_id: id, ...spec() }),
      400,
      'INVALID_STATE',
    );
  });

  it('answers a missing cluster with the real 400 quirk on get and elsewhere', async () => {
    const body = await expectDatabricksError(
      await app.request('/api/2.1/clusters/get?cluster_id=0000-000000-missing0'),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    expect(body.message).toBe('Cluster 0000-000000-missing0 does not exist');
    await expectDatabricksError(
      await post('/api/2.0/clusters/delete', { cluster_id: 'nope' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await post('/api/2.1/clusters/create', { cluster_name: 'x' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await post('/api/2.1/clusters/create', { ...spec(), num_workers: -1 }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });

  it('edits a running cluster by restarting it, and a terminated one in place', async () => {
    const id = await create();
    clock.advance(2000);
    await ok('/api/2.0/clusters/edit', {
      cluster_id: id,
      ...spec('renamed'),
      num_workers: 1,
      custom_tags: { a: 'b' },
    });
    let c = await get(id);
    expect(c.state).toBe('RESTARTING');
    expect(c.cluster_name).toBe('renamed');
    expect(c.custom_tags).toEqual({ a: 'b' });
    expect(c.default_tags.ClusterName).toBe('renamed');
    clock.advance(2000);
    c = await get(id);
    expect(c.state).toBe('RUNNING');
    expect(c.executors).toHaveLength(1);
    const edited = (await events(id, { event_types: ['EDITED'] })).events;
    expect(edited).toHaveLength(1);
    expect(edited[0].details.previous_attributes.cluster_name).toBe('c1');
    expect(edited[0].details.attributes.cluster_name).toBe('renamed');

    await ok('/api/2.1/clusters/delete', { cluster_id: id });
    clock.advance(1000);
    await ok('/api/2.1/clusters/update', {
      cluster_id: id,
      update_mask: 'num_workers,autotermination_minutes',
      cluster: { num_workers: 7, autotermination_minutes: 30 },
    });
    c = await get(id);
    expect(c.state).toBe('TERMINATED');
    expect(c.num_workers).toBe(7);
    expect(c.autotermination_minutes).toBe(30);
    expect(c.cluster_name).toBe('renamed');
    expect(c.custom_tags).toEqual({ a: 'b' });
  });

  it('pins, unpins, changes owner and permanently deletes', async () => {
    const id = await create();
    await ok('/api/2.1/clusters/pin', { cluster_id: id });
    const blocked = await expectDatabricksError(
      await post('/api/2.1/clusters/permanent-delete', { cluster_id: id }),
      400,
      'INVALID_STATE',
    );
    expect(blocked.message).toContain('unpin the cluster first');
    await expectDatabricksError(
      await post('/api/2.1/clusters/change-owner', { cluster_id: id, owner_username: 'x@y.z' }),
      400,
      'INVALID_STATE',
    );
    await ok('/api/2.1/clusters/delete', { cluster_id: id });
    clock.advance(1000);
    await ok('/api/2.1/clusters/change-owner', { cluster_id: id, owner_username: 'other@example.com' });
    expect((await get(id)).creator_user_name).toBe('other@example.com');
    await ok('/api/2.1/clusters/unpin', { cluster_id: id });
    const types = (await events(id)).events.map((e: Json) => e.type);
    expect(types).toContain('PINNED');
    expect(types).toContain('UNPINNED');
    await ok('/api/2.1/clusters/permanent-delete', { cluster_id: id });
    await expectDatabricksError(
      await app.request(`/api/2.1/clusters/get?cluster_id=${id}`),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    expect((await ok('/api/2.1/clusters/list')).clusters).toEqual([]);
  });

  it('auto-terminates an idle RUNNING cluster after autotermination_minutes', async () => {
    const { app: app2, instance } = await serviceApp(computeService, { clock, config });
    app = app2;
    const id = await create({ autotermination_minutes: 10 });
    clock.advance(2000);
    clock.advance(9 * 60_000);
    instance.api!.recordActivity(id); // a job ran: the countdown starts again
    clock.advance(10 * 60_000 - 1);
    expect((await get(id)).state).toBe('RUNNING');
    clock.advance(1);
    expect((await get(id)).state).toBe('TERMINATING');
    clock.advance(1000);
    const c = await get(id);
    expect(c.state).toBe('TERMINATED');
    expect(c.termination_reason).toEqual({
      code: 'INACTIVITY',
      type: 'SUCCESS',
      parameters: { inactivity_duration_min: '10' },
    });
    expect(c.state_message).toBe('Inactive cluster terminated (inactive for 10 minutes).');
    // A restart re-arms the countdown from the new RUNNING.
    await ok('/api/2.1/clusters/start', { cluster_id: id });
    clock.advance(2000 + 10 * 60_000 - 1);
    expect((await get(id)).state).toBe('RUNNING');
    clock.advance(1);
    expect((await get(id)).state).toBe('TERMINATING');
  });

  it('permanently deleting a PENDING cluster cancels its timer', async () => {
    const id = await create();
    await ok('/api/2.1/clusters/permanent-delete', { cluster_id: id });
    clock.advance(5000);
    expect((await ok('/api/2.1/clusters/list')).clusters).toEqual([]);
  });
});

describe('clusters/list', () => {
  it('filters, sorts and pages', async () => {
    const a = await create({ cluster_name: 'alpha' });
    const b = await create({ cluster_name: 'bravo' });
    const c = await create({ cluster_name: 'charlie' });
    clock.advance(2000);
    await ok('/api/2.1/clusters/delete', { cluster_id: b });
    clock.advance(1000);
    await ok('/api/2.1/clusters/pin', { cluster_id: c });

    const all = (await ok('/api/2.1/clusters/list')).clusters.map((x: Json) => x.cluster_name);
    expect(all).toEqual(['charlie', 'alpha', 'bravo']); // running first, pinned first, then name

    const running = await ok(
      '/api/2.1/clusters/list?filter_by.cluster_states=RUNNING&filter_by.cluster_states=PENDING',
    );
    expect(running.clusters.map((x: Json) => x.cluster_id).sort()).toEqual([a, c].sort());
    const terminated = await ok('/api/2.1/clusters/list?filter_by.cluster_states=TERMINATED');
    expect(terminated.clusters.map((x: Json) => x.cluster_id)).toEqual([b]);
    const pinned = await ok('/api/2.1/clusters/list?filter_by.is_pinned=true');
    expect(pinned.clusters.map((x: Json) => x.cluster_id)).toEqual([c]);
    const jobs = await ok('/api/2.1/clusters/list?filter_by.cluster_sources=JOB');
    expect(jobs.clusters).toEqual([]);

    const desc = await ok('/api/2.1/clusters/list?sort_by.field=CLUSTER_NAME&sort_by.direction=DESC');
    expect(desc.clusters.map((x: Json) => x.cluster_name)).toEqual(['charlie', 'bravo', 'alpha']);

    const names: string[] = [];
    let token: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await ok(
        `/api/2.1/clusters/list?page_size=2&sort_by.field=CLUSTER_NAME${token ? `&page_token=${token}` : ''}`,
      );
      names.push(...page.clusters.map((x: Json) => x.cluster_name));
      token = page.next_page_token;
      if (!token) break;
    }
    expect(names).toEqual(['alpha', 'bravo', 'charlie']);
    await expectDatabricksError(
      await app.request('/api/2.1/clusters/list?filter_by.cluster_states=BOGUS'),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });
});

describe('events paging', () => {
  it('pages with offset/limit and next_page, newest first by default', async () => {
    const id = await create();
    clock.advance(2000);
    for (let i = 0; i < 3; i++) {
      await ok('/api/2.1/clusters/pin', { cluster_id: id });
      clock.advance(10);
      await ok('/api/2.1/clusters/unpin', { cluster_id: id });
      clock.advance(10);
    }
    const first = await ok('/api/2.1/clusters/events', { cluster_id: id, limit: 4 });
    expect(first.total_count).toBe(9);
    expect(first.events[0].type).toBe('UNPINNED');
    expect(first.next_page).toMatchObject({ cluster_id: id, offset: 4, limit: 4 });
    const seen = [...first.events];
    let next = first.next_page;
    for (let i = 0; next && i < 5; i++) {
      const page = await ok('/api/2.1/clusters/events', next);
      seen.push(...page.events);
      next = page.next_page;
    }
    expect(seen).toHaveLength(9);
    expect(seen[seen.length - 1].type).toBe('CREATING');
    const pinnedOnly = await events(id, { event_types: ['PINNED'] });
    expect(pinnedOnly.events).toHaveLength(3);
    const tokenPage = await ok('/api/2.1/clusters/events', { cluster_id: id, page_size: 5 });
    expect(tokenPage.events).toHaveLength(5);
    expect(tokenPage.next_page_token).toBeTruthy();
  });
});

describe('catalog endpoints', () => {
  it('lists spark versions, node types and zones on both API versions', async () => {
    for (const v of ['2.0', '2.1']) {
      const versions = (await ok(`/api/${v}/clusters/spark-versions`)).versions as Json[];
      expect(versions.map((x) => x.key)).toContain('15.4.x-scala2.12');
      expect(versions.map((x) => x.key)).toContain('16.4.x-scala2.13');
      const nodes = (await ok(`/api/${v}/clusters/list-node-types`)).node_types as Json[];
      const i3 = nodes.find((n) => n.node_type_id === 'i3.xlarge')!;
      expect(i3.num_cores).toBe(4);
      expect(i3.memory_mb).toBe(31232);
      expect(nodes.some((n) => n.node_type_id === 'Standard_DS3_v2')).toBe(true);
      const zones = await ok(`/api/${v}/clusters/list-zones`);
      expect(zones.zones).toContain(zones.default_zone);
    }
  });
});
