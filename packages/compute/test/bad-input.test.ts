import { describe, expect, it } from 'vitest';
import { ManualClock } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { computeService } from '../src/index.js';

const POSTS = [
  '/api/2.1/clusters/create',
  '/api/2.1/clusters/edit',
  '/api/2.1/clusters/update',
  '/api/2.1/clusters/start',
  '/api/2.1/clusters/restart',
  '/api/2.1/clusters/resize',
  '/api/2.1/clusters/delete',
  '/api/2.1/clusters/permanent-delete',
  '/api/2.1/clusters/pin',
  '/api/2.1/clusters/unpin',
  '/api/2.1/clusters/change-owner',
  '/api/2.1/clusters/events',
  '/api/2.0/policies/clusters/create',
  '/api/2.0/policies/clusters/edit',
  '/api/2.0/policies/clusters/delete',
  '/api/2.0/instance-pools/create',
  '/api/2.0/instance-pools/edit',
  '/api/2.0/instance-pools/delete',
  '/api/2.0/libraries/install',
  '/api/2.0/libraries/uninstall',
];
const GETS = [
  '/api/2.1/clusters/get',
  '/api/2.1/clusters/get?cluster_id=',
  '/api/2.1/clusters/list?page_size=-1',
  '/api/2.1/clusters/list?page_size=abc',
  '/api/2.1/clusters/list?page_token=%%%',
  '/api/2.1/clusters/list?filter_by.is_pinned=maybe',
  '/api/2.1/clusters/list?sort_by.field=NAME',
  '/api/2.0/policies/clusters/get',
  '/api/2.0/policies/clusters/list?sort_column=X',
  '/api/2.0/policy-families?max_results=-3',
  '/api/2.0/policy-families?page_token=zzz',
  '/api/2.0/instance-pools/get',
  '/api/2.0/libraries/cluster-status',
];
const BODIES: unknown[] = [
  {},
  [],
  'text',
  null,
  { cluster_id: 5 },
  { cluster_id: 'x', num_workers: '2', spark_version: 1 },
  { cluster_id: 'x', autoscale: { min_workers: 'a' } },
  { spark_version: '15.4.x-scala2.12', custom_tags: { a: 1 } },
  { spark_version: '15.4.x-scala2.12', autoscale: { min_workers: 5, max_workers: 2 } },
  { spark_version: '15.4.x-scala2.12', autotermination_minutes: 3 },
  { cluster_id: 'x', update_mask: 5 },
  { cluster_id: 'x', limit: 100000, order: 'UP' },
  { name: 'p', definition: '{"a":{"type":"fixed"}}' },
  { name: 'p', policy_family_definition_overrides: '{}' },
  { name: 'p', policy_family_id: 'nope' },
  { instance_pool_name: 'p', node_type_id: 'i3.xlarge', min_idle_instances: 5, max_capacity: 1 },
  { cluster_id: 'x', libraries: [{}] },
  { cluster_id: 'x', libraries: 'jar' },
];

describe('bad input is a Databricks-shaped 4xx, never a 500', () => {
  it('on every write endpoint', async () => {
    const { app } = await serviceApp(computeService, { clock: new ManualClock() });
    for (const path of POSTS) {
      for (const body of BODIES) {
        const init = jsonInit('POST');
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        const res = await app.request(path, init);
        const text = await res.text();
        expect(res.status, `${path} ${init.body} -> ${text}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${path} ${init.body} -> ${text}`).toBeLessThan(500);
        const parsed = JSON.parse(text) as { error_code: string; message: string };
        expect(typeof parsed.error_code).toBe('string');
      }
    }
    for (const path of GETS) {
      const res = await app.request(path);
      const text = await res.text();
      expect(res.status, `${path} -> ${text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${path} -> ${text}`).toBeLessThan(500);
    }
  });
});
