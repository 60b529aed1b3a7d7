/**
 * What the Databricks CLI's direct engine and the Terraform provider compare after a deploy (issue 17):
 * each request below is the one they send, and each expectation is what Databricks answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '../src/index.js';

const B = '/api/2.1/unity-catalog';
let app: Hono;
let api: UnityCatalogApi;

const call = async (method: string, p: string, body?: unknown) => {
  const res = await app.request(p, jsonInit(method, body));
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Record<string, any>;
};
const raw = async (method: string, p: string, body?: unknown) => {
  const res = await app.request(p, jsonInit(method, body));
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

beforeAll(async () => {
  const s = await serviceApp(unityCatalogService);
  app = s.app;
  api = s.instance.api!;
  await call('POST', `${B}/catalogs`, { name: 'bund' });
  await call('POST', `${B}/schemas`, { name: 'res', catalog_name: 'bund' });
  await call('POST', `${B}/tables`, {
    name: 't',
    catalog_name: 'bund',
    schema_name: 'res',
    table_type: 'MANAGED',
    columns: [{ name: 'id', type_text: 'int' }],
  });
  await call('POST', `${B}/volumes`, {
    name: 'v',
    catalog_name: 'bund',
    schema_name: 'res',
    volume_type: 'MANAGED',
  });
  await call('POST', `${B}/functions`, {
    function_info: {
      name: 'f',
      catalog_name: 'bund',
      schema_name: 'res',
      data_type: 'INT',
      full_data_type: 'INT',
      routine_body: 'SQL',
      routine_definition: '1',
      parameter_style: 'S',
      is_deterministic: true,
      sql_data_access: 'CONTAINS_SQL',
      is_null_call: false,
      security_type: 'DEFINER',
      specific_name: 'f',
      input_params: { parameters: [] },
    },
  });
});
afterAll(async () => api.engine.close());

describe('grants PATCH with add and remove in one change', () => {
  const securables: [string, string, string][] = [
    ['catalog', 'bund', 'USE_CATALOG'],
    ['schema', 'bund.res', 'USE_SCHEMA'],
    ['table', 'bund.res.t', 'SELECT'],
    ['volume', 'bund.res.v', 'READ_VOLUME'],
    ['function', 'bund.res.f', 'EXECUTE'],
  ];
  it.each(securables)('keeps what the change adds on a %s', async (type, name, privilege) => {
    // Exactly what `databricks bundle deploy` (direct engine) sends.
    const body = { changes: [{ principal: 'P', add: [privilege], remove: ['ALL_PRIVILEGES'] }] };
    const r = await call('PATCH', `${B}/permissions/${type}/${name}`, body);
    expect(r).toEqual({ privilege_assignments: [{ principal: 'P', privileges: [privilege] }] });
    expect(await call('GET', `${B}/permissions/${type}/${name}`)).toEqual(r);
    // Sent again (the next deploy), nothing changes.
    expect(await call('PATCH', `${B}/permissions/${type}/${name}`, body)).toEqual(r);
  });
  it('remove ALL_PRIVILEGES revokes everything the principal holds before add applies (the CLI goldens)', async () => {
    // The bundle declared ALL_PRIVILEGES; a concrete privilege was granted out of band (`grants update`).
    await call('PATCH', `${B}/permissions/schema/bund.res`, {
      changes: [{ principal: 'R', add: ['ALL_PRIVILEGES'] }],
    });
    await call('PATCH', `${B}/permissions/schema/bund.res`, {
      changes: [{ principal: 'R', add: ['USE_SCHEMA'] }],
    });
    const both = await call('GET', `${B}/permissions/schema/bund.res?principal=R`);
    expect(both.privilege_assignments).toEqual([
      { principal: 'R', privileges: ['ALL_PRIVILEGES', 'USE_SCHEMA'] },
    ]);
    // What the direct engine sends to make a principal hold exactly USE_SCHEMA: the rest is revoked.
    const exact = await call('PATCH', `${B}/permissions/schema/bund.res`, {
      changes: [{ principal: 'R', add: ['USE_SCHEMA'], remove: ['ALL_PRIVILEGES'] }],
    });
    expect(exact.privilege_assignments).toContainEqual({ principal: 'R', privileges: ['USE_SCHEMA'] });
    // ... and for a principal dropped from the config, remove ALL_PRIVILEGES alone revokes everything.
    const gone = await call('PATCH', `${B}/permissions/schema/bund.res`, {
      changes: [{ principal: 'R', remove: ['ALL_PRIVILEGES'] }],
    });
    expect(gone.privilege_assignments.map((a: any) => a.principal)).not.toContain('R');
    // A named privilege in both lists is kept; ALL_PRIVILEGES in both is refused.
    const kept = await call('PATCH', `${B}/permissions/schema/bund.res`, {
      changes: [{ principal: 'R', add: ['USE_SCHEMA'], remove: ['USE_SCHEMA'] }],
    });
    expect(kept.privilege_assignments).toContainEqual({ principal: 'R', privileges: ['USE_SCHEMA'] });
    const dup = await raw('PATCH', `${B}/permissions/schema/bund.res`, {
      changes: [{ principal: 'R', add: ['ALL_PRIVILEGES'], remove: ['ALL_PRIVILEGES'] }],
    });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({
      error_code: 'INVALID_PARAMETER_VALUE',
      message: 'Duplicate privileges to add and delete',
    });
  });
  it('removes a privilege the principal holds, and removing one it does not hold removes nothing', async () => {
    await call('PATCH', `${B}/permissions/schema/bund.res`, {
      changes: [{ principal: 'Q', add: ['SELECT', 'MODIFY'] }],
    });
    const r = await call('PATCH', `${B}/permissions/schema/bund.res`, {
      changes: [{ principal: 'Q', remove: ['MODIFY', 'CREATE_TABLE'] }],
    });
    expect(r.privilege_assignments).toContainEqual({ principal: 'Q', privileges: ['SELECT'] });
  });
});

describe('messages the CLI goldens record', () => {
  it('a catalog, schema or volume with a name Databricks refuses gets its RPC message', async () => {
    const empty = await raw('POST', `${B}/catalogs`, { name: '' });
    expect(empty).toEqual({
      status: 400,
      body: {
        error_code: 'INVALID_PARAMETER_VALUE',
        message:
          'Invalid input: RPC CreateCatalog Field managedcatalog.CatalogInfo.name: name "" is not a valid name. Valid names cannot contain spaces, periods, forward slashes, or control characters.',
      },
    });
    const dotted = await raw('POST', `${B}/schemas`, { catalog_name: 'bund', name: 'a.b' });
    expect(dotted.body.message).toBe(
      'Invalid input: RPC CreateSchema Field managedcatalog.SchemaInfo.name: name "a.b" is not a valid name. Valid names cannot contain spaces, periods, forward slashes, or control characters.',
    );
    // A name Databricks takes but MiniLake cannot (a quote) says what MiniLake accepts.
    const quoted = await raw('POST', `${B}/catalogs`, { name: "it's" });
    expect(quoted.body.message).toContain('names must be 1 to 255 letters, digits, underscores or hyphens');
  });
});

describe('absent, not empty', () => {
  it('leaves out properties on a catalog and a schema created without them, and provisioning_info', async () => {
    const c = await call('GET', `${B}/catalogs/bund`);
    expect(c).not.toHaveProperty('properties');
    expect(c).not.toHaveProperty('provisioning_info');
    const s = await call('GET', `${B}/schemas/bund.res`);
    expect(s).not.toHaveProperty('properties');
    const d = await call('GET', `${B}/schemas/bund.default`);
    expect(d).not.toHaveProperty('properties');
    // Given properties are still there.
    const p = await call('POST', `${B}/schemas`, {
      name: 'withp',
      catalog_name: 'bund',
      properties: { a: 'b' },
    });
    expect(p.properties).toEqual({ a: 'b' });
    expect((await call('GET', `${B}/schemas/bund.withp`)).properties).toEqual({ a: 'b' });
  });
  it('answers a volume without browse_only', async () => {
    const v = await call('GET', `${B}/volumes/bund.res.v`);
    expect(v).not.toHaveProperty('browse_only');
    const listed = await call('GET', `${B}/volumes?catalog_name=bund&schema_name=res`);
    expect(listed.volumes[0]).not.toHaveProperty('browse_only');
  });
});

describe('server-side defaults', () => {
  it('answers a schema and a catalog created without it with enable_predictive_optimization INHERIT', async () => {
    const created = await call('POST', `${B}/schemas`, { name: 'po', catalog_name: 'bund' });
    expect(created.enable_predictive_optimization).toBe('INHERIT');
    expect((await call('GET', `${B}/schemas/bund.po`)).enable_predictive_optimization).toBe('INHERIT');
    expect((await call('GET', `${B}/catalogs/bund`)).enable_predictive_optimization).toBe('INHERIT');
    const set = await call('PATCH', `${B}/schemas/bund.po`, { enable_predictive_optimization: 'DISABLE' });
    expect(set.enable_predictive_optimization).toBe('DISABLE');
  });
});

describe("Databricks' error words", () => {
  it('refuses a MANAGED volume with a storage_location as Databricks does', async () => {
    const res = await app.request(
      `${B}/volumes`,
      jsonInit('POST', {
        catalog_name: 'bund',
        schema_name: 'res',
        name: 'bad',
        volume_type: 'MANAGED',
        storage_location: '/tmp/somewhere',
      }),
    );
    const err = await expectDatabricksError(res, 400, 'INVALID_PARAMETER_VALUE');
    expect(err.message).toBe('CreateVolume storage_location can not be provided.');
  });
});
