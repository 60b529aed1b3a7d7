import { mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '../src/index.js';

const B = '/api/2.1/unity-catalog';
let app: Hono;
let api: UnityCatalogApi;
let dataDir: string;
let outside: string;

const req = (method: string, p: string, body?: unknown) => app.request(p, jsonInit(method, body));
const ok = async (method: string, p: string, body?: unknown) => {
  const res = await req(method, p, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Record<string, any>;
};
const bad = async (
  method: string,
  p: string,
  body: unknown,
  status = 400,
  code = 'INVALID_PARAMETER_VALUE',
) => expectDatabricksError(await req(method, p, body), status, code);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'ml-uc-audit-'));
  outside = mkdtempSync(path.join(os.tmpdir(), 'ml-uc-ext-'));
  const s = await serviceApp(unityCatalogService, { dataDir });
  app = s.app;
  api = s.instance.api!;
  await ok('POST', `${B}/catalogs`, { name: 'main' });
});
afterAll(async () => {
  await api.engine.close();
});

const vol = (name: string, storage_location: string) => ({
  name,
  catalog_name: 'main',
  schema_name: 'default',
  volume_type: 'EXTERNAL',
  storage_location,
});
const extTable = (name: string, storage_location: string) => ({
  name,
  catalog_name: 'main',
  schema_name: 'default',
  table_type: 'EXTERNAL',
  data_source_format: 'DELTA',
  storage_location,
  columns: [{ name: 'id', type_name: 'INT', type_text: 'int', position: 0 }],
});

describe('external locations never overlap the data directory', () => {
  it('refuses volumes above, at or inside the data dir, .. and foreign schemes', async () => {
    const parent = path.dirname(dataDir);
    for (const loc of [
      'file:///',
      '/',
      `file://${parent}`,
      `file:${parent}`,
      `file://${dataDir}`,
      `file://${dataDir}/volumes/x`,
      `file://${dataDir}/duckdb`,
      'file:///tmp/../etc',
      's3://bucket/x',
      'http://host/x',
      'relative/dir',
    ])
      await bad('POST', `${B}/volumes`, vol('v1', loc));
    // A symlink outside pointing at the data dir is resolved first.
    const link = path.join(outside, 'link');
    symlinkSync(dataDir, link);
    await bad('POST', `${B}/volumes`, vol('v1', `file://${link}/sub`));
  });
  it('refuses external tables that overlap the data dir, but keeps cloud URIs as metadata', async () => {
    await bad('POST', `${B}/tables`, extTable('t1', 'file:///'));
    await bad('POST', `${B}/tables`, extTable('t1', `${dataDir}/duckdb/catalogs`));
    await bad('POST', `${B}/tables`, extTable('t1', 'ftp://x/y'));
    const t = await ok('POST', `${B}/tables`, extTable('t_s3', 's3://bucket/path/t'));
    expect(t.storage_location).toBe('s3://bucket/path/t');
  });
  it('refuses two external volumes that overlap each other', async () => {
    const a = await ok('POST', `${B}/volumes`, vol('va', `file://${outside}/a`));
    expect(a.storage_location).toBe(`file://${outside}/a`);
    await bad('POST', `${B}/volumes`, vol('vb', `file://${outside}/a/inner`));
    await bad('POST', `${B}/volumes`, vol('vb', `file://${outside}`));
    await bad('POST', `${B}/volumes`, vol('vb', `${outside}/a`));
    await bad('POST', `${B}/tables`, extTable('tb', `${outside}/a/t`));
    await ok('POST', `${B}/volumes`, vol('vb', `file://${outside}/b`));
  });
});

describe('managed tables', () => {
  it('report their catalog database file as storage_location, a parseable file: URI', async () => {
    await ok('POST', `${B}/tables`, {
      name: 'm1',
      catalog_name: 'main',
      schema_name: 'default',
      table_type: 'MANAGED',
      data_source_format: 'DELTA',
      columns: [{ name: 'id', type_name: 'INT', type_text: 'int', position: 0 }],
    });
    const t = await ok('GET', `${B}/tables/main.default.m1`);
    expect(t.storage_location).toBe(`file://${api.engine.catalogFile('main')}`);
    expect(new URL(t.storage_location).protocol).toBe('file:');
    const list = await ok('GET', `${B}/tables?catalog_name=main&schema_name=default`);
    expect(list.tables.find((x: any) => x.name === 'm1').storage_location).toBe(t.storage_location);
  });
});
