/**
 * MINILAKE_ENFORCE=1, the rules Unity Catalog owns: which privilege a principal lacks to read a table
 * (USE CATALOG, then USE SCHEMA, then SELECT), inherited down the hierarchy, through groups and
 * `account users`, with ALL_PRIVILEGES, admins and the catalog's owner passing. SQL's use of it is proven
 * by the trust check (../shared/checks/trust) through the Statement API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '../src/index.js';

const B = '/api/2.1/unity-catalog';
let app: Hono;
let api: UnityCatalogApi;

const ok = async (method: string, p: string, body?: unknown) => {
  const res = await app.request(p, jsonInit(method, body));
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};
const grant = (type: string, name: string, principal: string, privilege: string, remove = false) =>
  ok('PATCH', `${B}/permissions/${type}/${name}`, {
    changes: [{ principal, [remove ? 'remove' : 'add']: [privilege] }],
  });

beforeAll(async () => {
  const s = await serviceApp(unityCatalogService, { config: { MINILAKE_ENFORCE: '1' } });
  app = s.app;
  api = s.instance.api!;
  await ok('POST', `${B}/catalogs`, { name: 'enf' });
  await ok('POST', `${B}/schemas`, { catalog_name: 'enf', name: 's' });
  await ok('POST', `${B}/tables`, {
    name: 't',
    catalog_name: 'enf',
    schema_name: 's',
    table_type: 'MANAGED',
    data_source_format: 'DELTA',
    columns: [{ name: 'id', type_name: 'INT', type_text: 'int', position: 0 }],
  });
});
afterAll(async () => {
  await api.engine.close();
});

const sp = (userName: string, groups: string[] = ['users']) => ({ userName, groups });
const missing = (who: { userName: string; groups: string[] }) =>
  api.missingPrivilege(who, 'SELECT', 'enf.s.t');

describe('missingPrivilege', () => {
  it('is on with MINILAKE_ENFORCE=1', () => expect(api.enforcing).toBe(true));

  it('names USE CATALOG, then USE SCHEMA, then SELECT, as each is granted', async () => {
    const who = sp('app-1');
    expect(await missing(who)).toEqual({
      privilege: 'USE CATALOG',
      securableType: 'Catalog',
      fullName: 'enf',
    });
    await grant('catalog', 'enf', 'app-1', 'USE_CATALOG');
    expect(await missing(who)).toEqual({
      privilege: 'USE SCHEMA',
      securableType: 'Schema',
      fullName: 'enf.s',
    });
    await grant('schema', 'enf.s', 'app-1', 'USE_SCHEMA');
    expect(await missing(who)).toMatchObject({
      privilege: 'SELECT',
      securableType: 'Table',
      fullName: 'enf.s.t',
    });
    // SELECT on the schema covers its tables (inheritance).
    await grant('schema', 'enf.s', 'app-1', 'SELECT');
    expect(await missing(who)).toBeUndefined();
    await grant('schema', 'enf.s', 'app-1', 'SELECT', true);
    expect(await missing(who)).toMatchObject({ privilege: 'SELECT' });
  });

  it('counts grants to a group and to account users, and ALL_PRIVILEGES', async () => {
    await grant('catalog', 'enf', 'analysts', 'ALL_PRIVILEGES');
    expect(await missing(sp('app-2', ['users', 'analysts']))).toBeUndefined();
    expect(await missing(sp('app-3'))).toMatchObject({ privilege: 'USE CATALOG' });
    await grant('catalog', 'enf', 'account users', 'USE_CATALOG');
    await grant('catalog', 'enf', 'account users', 'USE_SCHEMA');
    expect(await missing(sp('app-3'))).toMatchObject({ privilege: 'SELECT' });
  });

  it('lets admins and the catalog owner through, and leaves samples and unknown names alone', async () => {
    expect(await missing(sp('app-4', ['users', 'admins']))).toBeUndefined();
    expect(await missing(sp('dev@minilake.local'))).toBeUndefined();
    expect(await api.missingPrivilege(sp('app-4'), 'SELECT', 'samples.nyctaxi.trips')).toBeUndefined();
    expect(await api.missingPrivilege(sp('app-4'), 'SELECT', 'nosuch.s.t')).toBeUndefined();
    // A name that is no table here (a temporary view of the session, or nothing) is not Unity Catalog's.
    expect(await api.missingPrivilege(sp('app-4'), 'SELECT', 'enf.s.my_temp_view')).toBeUndefined();
  });
});
