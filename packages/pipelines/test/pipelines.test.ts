/**
 * The API without running Spark: settings as Databricks echoes them, edit rules, list filters and paging,
 * the events' filter language and pages, and an update whose engine is missing (FAILED, saying so).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import type { SharedResource } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService } from '@minilake/unity-catalog';
import { workspaceService } from '@minilake/workspace';
import { pipelinesService } from '../src/index.js';
import { parseFilter } from '../src/events.js';

let app: Hono;
let close: () => Promise<void>;

beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pl-unit-'));
  const shared = new Map<string, Promise<SharedResource>>();
  const uc = await serviceApp(unityCatalogService, { dataDir, sharedResources: shared });
  const ws = await serviceApp(workspaceService, { dataDir, sharedResources: shared });
  const pl = await serviceApp(pipelinesService, {
    dataDir,
    sharedResources: shared,
    peers: new Map<string, unknown>([
      ['unity-catalog', uc.instance.api],
      ['workspace', ws.instance.api],
    ]),
    // No Spark here: an update fails at once, saying what is missing.
    config: { MINILAKE_SPARK_PYTHON: path.join(dataDir, 'no-such-python') },
  });
  app = pl.app;
  close = async () => {
    await pl.instance.close?.();
    await ws.instance.close?.();
    await uc.instance.close?.();
  };
});
afterAll(() => close());

const call = async (method: string, p: string, body?: unknown) => {
  const r = await app.request(p, body === undefined ? { method } : jsonInit(method, body));
  return { status: r.status, body: (await r.json()) as Record<string, any> };
};

describe('settings', () => {
  it('echoes the spec as sent plus id, and storage only without a catalog', async () => {
    const spec = {
      name: 'echo',
      catalog: 'main',
      schema: 's',
      libraries: [{ glob: { include: '/Workspace/Users/a/x/**' } }],
      configuration: { 'my.key': 'v' },
      development: true,
      serverless: true,
      edition: 'ADVANCED',
      channel: 'CURRENT',
      allow_duplicate_names: false,
    };
    const c = await call('POST', '/api/2.0/pipelines', spec);
    expect(c.status).toBe(200);
    const g = await call('GET', `/api/2.0/pipelines/${c.body.pipeline_id}`);
    const { allow_duplicate_names: _, ...sent } = spec;
    expect(g.body.spec).toEqual({ ...sent, id: c.body.pipeline_id });
    expect(g.body).toMatchObject({ name: 'echo', state: 'IDLE', pipeline_id: c.body.pipeline_id });
    const hms = await call('POST', '/api/2.0/pipelines', { name: 'hms', target: 't' });
    const h = await call('GET', `/api/2.0/pipelines/${hms.body.pipeline_id}`);
    expect(h.body.spec.storage).toBe(`dbfs:/pipelines/${hms.body.pipeline_id}`);
  });

  it('dry_run answers the effective settings and creates nothing', async () => {
    const before = (await call('GET', '/api/2.0/pipelines?max_results=100')).body.statuses?.length ?? 0;
    const r = await call('POST', '/api/2.0/pipelines', {
      name: 'dry',
      catalog: 'main',
      schema: 's',
      dry_run: true,
    });
    expect(r.body.effective_settings).toMatchObject({ name: 'dry', catalog: 'main', id: r.body.pipeline_id });
    expect((await call('GET', `/api/2.0/pipelines/${r.body.pipeline_id}`)).status).toBe(404);
    expect((await call('GET', '/api/2.0/pipelines?max_results=100')).body.statuses?.length ?? 0).toBe(before);
  });

  it('refuses what Databricks refuses', async () => {
    const bad = await call('POST', '/api/2.0/pipelines', { name: 'b', target: 'a.b' });
    expect(bad).toMatchObject({ status: 400, body: { error_code: 'INVALID_PARAMETER_VALUE' } });
    expect(
      (await call('POST', '/api/2.0/pipelines', { name: 'b', catalog: 'c', storage: 'dbfs:/x' })).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/api/2.0/pipelines', {
          name: 'b',
          libraries: [{ file: {}, glob: { include: 'x' } }],
        })
      ).status,
    ).toBe(400);
    await call('POST', '/api/2.0/pipelines', { name: 'dup', catalog: 'main' });
    const dup = await call('POST', '/api/2.0/pipelines', { name: 'dup', catalog: 'main' });
    expect(dup).toMatchObject({ status: 409, body: { error_code: 'RESOURCE_CONFLICT' } });
    expect(
      (
        await call('POST', '/api/2.0/pipelines', {
          name: 'dup',
          catalog: 'main',
          allow_duplicate_names: true,
        })
      ).status,
    ).toBe(200);
    const missing = await call('GET', '/api/2.0/pipelines/0000-nope');
    expect(missing).toMatchObject({
      status: 404,
      body: {
        error_code: 'RESOURCE_DOES_NOT_EXIST',
        message: 'The specified pipeline 0000-nope was not found.',
      },
    });
  });

  it('edit replaces the spec, keeps the id, and follows the move and storage rules', async () => {
    const { body } = await call('POST', '/api/2.0/pipelines', {
      name: 'ed',
      catalog: 'main',
      schema: 'a',
      development: true,
    });
    const id = body.pipeline_id as string;
    const before = (await call('GET', `/api/2.0/pipelines/${id}`)).body.last_modified as number;
    expect(
      (await call('PUT', `/api/2.0/pipelines/${id}`, { name: 'ed2', catalog: 'main', schema: 'b' })).status,
    ).toBe(200);
    const g = (await call('GET', `/api/2.0/pipelines/${id}`)).body;
    expect(g.spec).toEqual({ name: 'ed2', catalog: 'main', schema: 'b', id });
    expect(g.last_modified).toBeGreaterThan(before);
    expect((await call('PUT', `/api/2.0/pipelines/${id}`, { name: 'ed2', storage: 'dbfs:/x' })).status).toBe(
      400,
    );
    const stale = await call('PUT', `/api/2.0/pipelines/${id}`, {
      name: 'ed3',
      catalog: 'main',
      expected_last_modified: 1,
    });
    expect(stale.status).toBe(409);
    expect((await call('PUT', '/api/2.0/pipelines/0000-nope', { name: 'x' })).status).toBe(404);
  });

  it('lists with filters, order and pages, and deletes', async () => {
    const ids: string[] = [];
    for (const n of ['pg_a', 'pg_b', 'pg_c'])
      ids.push((await call('POST', '/api/2.0/pipelines', { name: n, catalog: 'main' })).body.pipeline_id);
    const f = await call(
      'GET',
      `/api/2.0/pipelines?filter=${encodeURIComponent("name LIKE 'pg\\_%'")}&max_results=2&order_by=name%20desc`,
    );
    expect(f.body.statuses.map((s: { name: string }) => s.name)).toEqual(['pg_c', 'pg_b']);
    const next = await call(
      'GET',
      `/api/2.0/pipelines?page_token=${f.body.next_page_token}&max_results=2&filter=${encodeURIComponent("name LIKE 'pg%'")}&order_by=name%20desc`,
    );
    expect(next.body.statuses.map((s: { name: string }) => s.name)).toEqual(['pg_a']);
    expect(next.body.next_page_token).toBeUndefined();
    expect((await call('GET', '/api/2.0/pipelines?max_results=101')).status).toBe(400);
    expect((await call('GET', `/api/2.0/pipelines?filter=${encodeURIComponent('state = 1')}`)).status).toBe(
      400,
    );
    expect((await call('DELETE', `/api/2.0/pipelines/${ids[0]}`)).status).toBe(200);
    expect((await call('GET', `/api/2.0/pipelines/${ids[0]}`)).status).toBe(404);
    expect((await call('DELETE', `/api/2.0/pipelines/${ids[0]}`)).status).toBe(404);
  });
});

describe('updates and events', () => {
  it('an update without Spark ends FAILED with the reason, and its events page and filter', async () => {
    const { body } = await call('POST', '/api/2.0/pipelines', {
      name: 'nospark',
      catalog: 'main',
      schema: 's',
    });
    const id = body.pipeline_id as string;
    const s = await call('POST', `/api/2.0/pipelines/${id}/updates`, { full_refresh: true });
    expect(s.status).toBe(200);
    const uid = s.body.update_id as string;
    let state = '';
    for (let i = 0; i < 200 && !['FAILED', 'COMPLETED', 'CANCELED'].includes(state); i++) {
      state = (await call('GET', `/api/2.0/pipelines/${id}/updates/${uid}`)).body.update.state;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(state).toBe('FAILED');
    const u = (await call('GET', `/api/2.0/pipelines/${id}/updates/${uid}`)).body.update;
    expect(u).toMatchObject({
      pipeline_id: id,
      update_id: uid,
      full_refresh: true,
      cause: 'API_CALL',
      validate_only: false,
    });
    const list = await call('GET', `/api/2.0/pipelines/${id}/updates`);
    expect(list.body.updates[0].update_id).toBe(uid);
    const g = (await call('GET', `/api/2.0/pipelines/${id}`)).body;
    expect(g).toMatchObject({
      state: 'IDLE',
      health: 'UNHEALTHY',
      latest_updates: [{ update_id: uid, state: 'FAILED' }],
    });
    const all = (await call('GET', `/api/2.0/pipelines/${id}/events`)).body.events as {
      event_type: string;
      level: string;
      timestamp: string;
      message: string;
    }[];
    // newest first by default
    expect(all[0]!.message).toMatch(/is FAILED\.$/);
    expect(all.at(-1)!.event_type).toBe('create_update');
    const errs = (
      await call('GET', `/api/2.0/pipelines/${id}/events?filter=${encodeURIComponent("level='ERROR'")}`)
    ).body.events;
    expect(errs.length).toBeGreaterThan(0);
    expect(JSON.stringify(errs)).toContain('Spark');
    const asc = await call('GET', `/api/2.0/pipelines/${id}/events?order_by=timestamp%20asc&max_results=2`);
    expect(asc.body.events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'create_update',
      'update_progress',
    ]);
    const p2 = await call(
      'GET',
      `/api/2.0/pipelines/${id}/events?page_token=${asc.body.next_page_token}&max_results=2`,
    );
    expect(p2.body.events).toHaveLength(2);
    expect(p2.body.prev_page_token).toBeDefined();
    const back = await call(
      'GET',
      `/api/2.0/pipelines/${id}/events?page_token=${p2.body.prev_page_token}&max_results=2`,
    );
    expect(back.body.events).toEqual(asc.body.events);
    const byUpdate = await call(
      'GET',
      `/api/2.0/pipelines/${id}/events?filter=${encodeURIComponent(`update_id = '${uid}' AND timestamp > '${all.at(-1)!.timestamp}'`)}`,
    );
    expect(byUpdate.body.events.length).toBe(all.length - 1);
    expect(
      (await call('GET', `/api/2.0/pipelines/${id}/events?filter=${encodeURIComponent('level = ')}`)).status,
    ).toBe(400);
    expect(
      (
        await call('POST', `/api/2.0/pipelines/${id}/updates`, {
          full_refresh: true,
          refresh_selection: ['a'],
        })
      ).status,
    ).toBe(400);
    expect(
      (await call('POST', `/api/2.0/pipelines/${id}/updates`, { rewind_spec: { datasets: [] } })).status,
    ).toBe(400);
  });

  it('parses the event filter language', () => {
    expect(() =>
      parseFilter("level in ('ERROR', 'WARN') AND (timestamp > '2021-07-22T06:37:33.083Z' OR NOT id = 'x')"),
    ).not.toThrow();
    expect(() => parseFilter("level = 'ERROR' AND")).toThrow();
    expect(() => parseFilter("message LIKE '%boom%'")).not.toThrow();
  });
});
