import { mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { StateDb } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '../src/index.js';

const B = '/api/2.1/unity-catalog';
let app: Hono;
let api: UnityCatalogApi;
let state: StateDb;
let journal: string;

const get = async (p: string) => {
  const res = await app.request(p);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Record<string, any>;
};

beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ml-uc-reads-'));
  const stateDir = path.join(dataDir, 'state');
  journal = path.join(stateDir, 'journal.jsonl');
  state = await StateDb.open(stateDir);
  const s = await serviceApp(unityCatalogService, { dataDir, state });
  app = s.app;
  api = s.instance.api!;
  for (const name of ['ra', 'rb'])
    expect((await app.request(`${B}/catalogs`, jsonInit('POST', { name }))).status).toBe(200);
});
afterAll(async () => api.engine.close());

describe('the engine view', () => {
  it('adopts objects made through SQL in every catalog after one undescribed change, with stable ids', async () => {
    await api.engine.run(`CREATE TABLE ra."default".t1 AS SELECT 1 AS x`);
    await api.engine.run(`CREATE SCHEMA rb.s2`);
    await api.engine.run(`CREATE VIEW rb.s2.v AS SELECT 2 AS y`);
    api.engine.notifyChange();
    const t1 = await get(`${B}/tables/ra.default.t1`);
    const v = await get(`${B}/tables/rb.s2.v`);
    expect(v).toMatchObject({ table_type: 'VIEW', view_definition: 'SELECT 2 AS y' });
    expect((await get(`${B}/schemas/rb.s2`)).schema_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get(`${B}/tables/ra.default.t1`)).table_id).toBe(t1.table_id);
    expect((await get(`${B}/tables/rb.s2.v`)).table_id).toBe(v.table_id);
    await api.engine.run(`DROP TABLE ra."default".t1`);
    api.engine.notifyChange();
    expect((await app.request(`${B}/tables/ra.default.t1`)).status).toBe(404);
    await api.engine.run(`CREATE TABLE ra."default".t1 AS SELECT 1 AS x`);
    api.engine.notifyChange();
    // A new object under an old name is a new table, as in Databricks.
    expect((await get(`${B}/tables/ra.default.t1`)).table_id).not.toBe(t1.table_id);
  });

  it('answers gets and lists without writing anything', async () => {
    await get(`${B}/tables/ra.default.t1`);
    await state.flush();
    const before = statSync(journal).size;
    for (let i = 0; i < 3; i++) {
      await get(`${B}/catalogs/ra`);
      await get(`${B}/catalogs`);
      await get(`${B}/schemas?catalog_name=rb`);
      await get(`${B}/schemas/rb.s2`);
      await get(`${B}/tables?catalog_name=rb&schema_name=s2`);
      await get(`${B}/tables/rb.s2.v`);
      await get(`${B}/table-summaries?catalog_name=ra`);
      await get(`${B}/tables/ra.default.t1/exists`);
      await get(`${B}/volumes?catalog_name=ra&schema_name=default`);
      await get(`${B}/metastore_summary`);
      await get(`${B}/permissions/catalog/ra`);
    }
    await state.flush();
    expect(statSync(journal).size).toBe(before);
  });
});
