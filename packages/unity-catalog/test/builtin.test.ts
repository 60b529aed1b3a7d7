import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { StateDb } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '../src/index.js';

const B = '/api/2.1/unity-catalog';
let app: Hono;
let api: UnityCatalogApi;

const req = (method: string, p: string, body?: unknown) => app.request(p, jsonInit(method, body));
const ok = async (method: string, p: string, body?: unknown) => {
  const res = await req(method, p, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Record<string, any>;
};

beforeAll(async () => {
  const s = await serviceApp(unityCatalogService, {
    dataDir: mkdtempSync(path.join(os.tmpdir(), 'ml-uc-b-')),
  });
  app = s.app;
  api = s.instance.api!;
});
afterAll(async () => {
  await api.engine.close();
});

describe('a fresh workspace', () => {
  it('has main with default, hive_metastore and samples, typed as Databricks types them', async () => {
    const list = (await ok('GET', `${B}/catalogs`)).catalogs as Record<string, unknown>[];
    expect(list.map((c) => c.name)).toEqual(['hive_metastore', 'main', 'samples']);
    expect(list.find((c) => c.name === 'main')).toMatchObject({ catalog_type: 'MANAGED_CATALOG' });
    expect(list.find((c) => c.name === 'samples')).toMatchObject({
      catalog_type: 'DELTASHARING_CATALOG',
      securable_kind: 'CATALOG_SYSTEM_DELTASHARING',
      owner: 'System user',
    });
    expect(list.find((c) => c.name === 'hive_metastore')).toMatchObject({
      securable_kind: 'CATALOG_INTERNAL',
    });
    await ok('GET', `${B}/schemas/main.default`);
    await ok('GET', `${B}/schemas/hive_metastore.default`);
    const schemas = (await ok('GET', `${B}/schemas?catalog_name=samples`)).schemas as { name: string }[];
    expect(schemas.map((s) => s.name).filter((n) => n !== 'information_schema')).toEqual(['nyctaxi', 'tpch']);
    const tpch = (await ok('GET', `${B}/tables?catalog_name=samples&schema_name=tpch`)).tables as {
      name: string;
    }[];
    expect(tpch.map((t) => t.name)).toEqual([
      'customer',
      'lineitem',
      'nation',
      'orders',
      'part',
      'partsupp',
      'region',
      'supplier',
    ]);
    const trips = await ok('GET', `${B}/tables/samples.nyctaxi.trips`);
    expect(trips).toMatchObject({ table_type: 'EXTERNAL', data_source_format: 'DELTA' });
    expect(
      (trips.columns as { name: string; type_text: string }[]).map((c) => `${c.name} ${c.type_text}`),
    ).toEqual([
      'tpep_pickup_datetime timestamp',
      'tpep_dropoff_datetime timestamp',
      'trip_distance double',
      'fare_amount double',
      'pickup_zip int',
      'dropoff_zip int',
    ]);
  });

  it('generates a sample table the first time something reads it', async () => {
    const region = await ok('GET', `${B}/tables/samples.tpch.region`);
    const dir = String(region.storage_location).replace(/^file:\/\//, '');
    expect(existsSync(path.join(dir, '_delta_log'))).toBe(false);
    const d = await api.describeTable('samples.tpch.region');
    const scan = await api.tables.of(d!).scan(d!);
    expect(await api.engine.all(`SELECT r_name FROM (${scan!.sql}) ORDER BY r_regionkey`)).toEqual(
      ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'].map((r_name) => ({ r_name })),
    );
    // Spark asks for temporary credentials before it opens the folder: the data must be there by then.
    const nation = await ok('GET', `${B}/tables/samples.tpch.nation`);
    await ok('POST', `${B}/temporary-table-credentials`, { table_id: nation.table_id, operation: 'READ' });
    expect(existsSync(path.join(String(nation.storage_location).slice(7), '_delta_log'))).toBe(true);
  });

  it('refuses every change to samples, and dropping or renaming the built-in catalogs', async () => {
    const denied = async (res: Response | Promise<Response>) =>
      expectDatabricksError(await res, 403, 'PERMISSION_DENIED');
    await denied(req('POST', `${B}/schemas`, { catalog_name: 'samples', name: 'mine' }));
    await denied(req('DELETE', `${B}/schemas/samples.tpch?force=true`));
    await denied(
      req('POST', `${B}/tables`, {
        catalog_name: 'samples',
        schema_name: 'tpch',
        name: 'x',
        table_type: 'MANAGED',
        columns: [{ name: 'a', type_text: 'int' }],
      }),
    );
    await denied(req('DELETE', `${B}/tables/samples.tpch.region`));
    await denied(req('PATCH', `${B}/tables/samples.tpch.region`, { owner: 'me' }));
    await denied(
      req('POST', `${B}/volumes`, {
        catalog_name: 'samples',
        schema_name: 'tpch',
        name: 'v',
        volume_type: 'MANAGED',
      }),
    );
    await expect(api.engine.run('CREATE TABLE samples.tpch.sneaky (a INT)')).rejects.toThrow(/read-only/);
    // Spark's way in: a staging table (a MANAGED CREATE TABLE), credentials to write a table's files or a
    // folder inside the catalog. Reading stays allowed, with the same credentials asked for READ.
    await denied(
      req('POST', `${B}/staging-tables`, { catalog_name: 'samples', schema_name: 'tpch', name: 'x' }),
    );
    const region = await ok('GET', `${B}/tables/samples.tpch.region`);
    const res = await req('POST', `${B}/temporary-table-credentials`, {
      table_id: region.table_id,
      operation: 'READ_WRITE',
    });
    await expectDatabricksError(res, 403, 'PERMISSION_DENIED');
    await ok('POST', `${B}/temporary-table-credentials`, { table_id: region.table_id, operation: 'READ' });
    for (const [url, operation] of [
      [region.storage_location, 'PATH_READ_WRITE'],
      [`${region.storage_location}/../new_t`, 'PATH_CREATE_TABLE'],
    ])
      await denied(req('POST', `${B}/temporary-path-credentials`, { url, operation }));
    await ok('POST', `${B}/temporary-path-credentials`, {
      url: region.storage_location,
      operation: 'PATH_READ',
    });
    for (const c of ['samples', 'hive_metastore']) {
      await expectDatabricksError(
        await req('DELETE', `${B}/catalogs/${c}?force=true`),
        400,
        'INVALID_PARAMETER_VALUE',
      );
      await expectDatabricksError(
        await req('PATCH', `${B}/catalogs/${c}`, { new_name: `${c}_2` }),
        c === 'samples' ? 403 : 400,
        c === 'samples' ? 'PERMISSION_DENIED' : 'INVALID_PARAMETER_VALUE',
      );
    }
    await expectDatabricksError(
      await req('POST', `${B}/catalogs`, { name: 'samples' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });

  it('hive_metastore takes schemas and tables, not volumes or Unity Catalog grants', async () => {
    await ok('POST', `${B}/schemas`, { catalog_name: 'hive_metastore', name: 'legacy' });
    await ok('POST', `${B}/tables`, {
      catalog_name: 'hive_metastore',
      schema_name: 'legacy',
      name: 't',
      table_type: 'MANAGED',
      columns: [{ name: 'a', type_text: 'int' }],
    });
    await ok('GET', `${B}/tables/hive_metastore.legacy.t`);
    await expectDatabricksError(
      await req('POST', `${B}/volumes`, {
        catalog_name: 'hive_metastore',
        schema_name: 'legacy',
        name: 'v',
        volume_type: 'MANAGED',
      }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await req('GET', `${B}/permissions/schema/hive_metastore.legacy`),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await ok('GET', `${B}/permissions/catalog/main`);
  });
});

describe('MINILAKE_EMPTY=1 and restarts', () => {
  it('starts bare when asked', async () => {
    const s = await serviceApp(unityCatalogService, {
      dataDir: mkdtempSync(path.join(os.tmpdir(), 'ml-uc-e-')),
      config: { MINILAKE_EMPTY: '1' },
    });
    expect(s.instance.api!.engine.catalogNames()).toEqual([]);
    await s.instance.api!.engine.close();
  });

  it('keeps a dropped main dropped across a restart; the provided catalogs stay', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ml-uc-d-'));
    const stateDir = path.join(dataDir, 'state');
    const first = await serviceApp(unityCatalogService, { dataDir, state: await StateDb.open(stateDir) });
    await first.instance.api!.deleteCatalog('main', true);
    await first.ctx.state.flush();
    await first.instance.api!.engine.close();
    const second = await serviceApp(unityCatalogService, { dataDir, state: await StateDb.open(stateDir) });
    expect(second.instance.api!.engine.catalogNames()).toEqual(['hive_metastore', 'samples']);
    await expect(second.instance.api!.engine.run('CREATE TABLE samples.tpch.x (a INT)')).rejects.toThrow(
      /read-only/,
    );
    await second.instance.api!.engine.close();
  });
});
