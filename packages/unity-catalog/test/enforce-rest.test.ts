/**
 * MINILAKE_ENFORCE=1 on the Unity Catalog REST API: a principal that is no admin is refused what it lacks
 * (403 PERMISSION_DENIED naming the privilege and the securable, as Databricks words it), sees in GETs and
 * lists only what it may see, becomes the owner of what it creates, and may then drop and grant on it.
 * The request's principal is set as the host sets it after authenticating a token (runAsPrincipal).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { runAsPrincipal, type Principal } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '../src/index.js';

const B = '/api/2.1/unity-catalog';
let app: Hono;
let api: UnityCatalogApi;

const bot: Principal = {
  kind: 'service_principal',
  userName: 'bot-app',
  id: '7',
  displayName: 'bot',
  groups: ['users'],
};
const other: Principal = { ...bot, userName: 'other-app', id: '8' };

/** A request as `who` (undefined: the configured admin); status and JSON body. */
async function as(who: Principal | undefined, method: string, p: string, body?: unknown) {
  const send = () => app.request(p, jsonInit(method, body));
  const res = await (who ? runAsPrincipal(who, send) : send());
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, any> };
}
const ok = async (who: Principal | undefined, method: string, p: string, body?: unknown) => {
  const r = await as(who, method, p, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};
const denied = async (who: Principal, method: string, p: string, message: string, body?: unknown) => {
  const r = await as(who, method, p, body);
  expect(r.status, JSON.stringify(r.body)).toBe(403);
  expect(r.body).toMatchObject({ error_code: 'PERMISSION_DENIED', message });
  return r.body;
};
const grant = (type: string, name: string, principal: string, ...privileges: string[]) =>
  ok(undefined, 'PATCH', `${B}/permissions/${type}/${name}`, { changes: [{ principal, add: privileges }] });
const table = (catalog: string, schema: string, name: string) => ({
  name,
  catalog_name: catalog,
  schema_name: schema,
  table_type: 'MANAGED',
  data_source_format: 'DELTA',
  columns: [{ name: 'id', type_name: 'INT', type_text: 'int', position: 0 }],
});

beforeAll(async () => {
  const s = await serviceApp(unityCatalogService, { config: { MINILAKE_ENFORCE: '1' } });
  app = s.app;
  api = s.instance.api!;
  await ok(undefined, 'POST', `${B}/catalogs`, { name: 'rc' });
  await ok(undefined, 'POST', `${B}/schemas`, { catalog_name: 'rc', name: 's' });
  await ok(undefined, 'POST', `${B}/tables`, table('rc', 's', 't'));
  await ok(undefined, 'POST', `${B}/volumes`, {
    catalog_name: 'rc',
    schema_name: 's',
    name: 'v',
    volume_type: 'MANAGED',
  });
});
afterAll(async () => {
  await api.engine.close();
});

describe('MINILAKE_ENFORCE=1, REST', () => {
  it('refuses GETs the caller may not see, and lists only what it may see', async () => {
    await denied(bot, 'GET', `${B}/catalogs/rc`, "User does not have USE CATALOG on Catalog 'rc'.");
    const before = await ok(bot, 'GET', `${B}/catalogs`);
    expect((before.catalogs ?? []).map((c: { name: string }) => c.name)).not.toContain('rc');
    await grant('catalog', 'rc', 'bot-app', 'USE_CATALOG');
    expect((await ok(bot, 'GET', `${B}/catalogs/rc`)).name).toBe('rc');
    expect((await ok(bot, 'GET', `${B}/catalogs`)).catalogs.map((c: { name: string }) => c.name)).toContain(
      'rc',
    );

    await denied(bot, 'GET', `${B}/tables/rc.s.t`, "User does not have USE SCHEMA on Schema 'rc.s'.");
    expect((await ok(bot, 'GET', `${B}/schemas?catalog_name=rc`)).schemas ?? []).toEqual([]);
    await grant('schema', 'rc.s', 'bot-app', 'USE_SCHEMA');
    await denied(bot, 'GET', `${B}/tables/rc.s.t`, "User does not have SELECT on Table 'rc.s.t'.");
    expect((await ok(bot, 'GET', `${B}/tables?catalog_name=rc&schema_name=s`)).tables).toEqual([]);
    await grant('table', 'rc.s.t', 'bot-app', 'SELECT');
    expect((await ok(bot, 'GET', `${B}/tables/rc.s.t`)).full_name).toBe('rc.s.t');
    const listed = await ok(bot, 'GET', `${B}/tables?catalog_name=rc&schema_name=s`);
    expect(listed.tables.map((t: { name: string }) => t.name)).toEqual(['t']);

    await denied(bot, 'GET', `${B}/volumes/rc.s.v`, "User does not have READ VOLUME on Volume 'rc.s.v'.");
    // Admins see everything (the configured user is one).
    expect((await ok(undefined, 'GET', `${B}/volumes/rc.s.v`)).full_name).toBe('rc.s.v');
  });

  it("answers Spark's file systems whether the caller may read, write or list a volume's files", async () => {
    // Spark's file systems ask here for a session's caller (packages/engine-spark VolumesFileSystem).
    const access = (mode: string) => `/_minilake/unity-catalog/volumes/rc.s.v/access?mode=${mode}`;
    const readMsg = "User does not have READ VOLUME on Volume 'rc.s.v'.";
    await denied(other, 'GET', access('read'), "User does not have USE CATALOG on Catalog 'rc'.");
    await grant('catalog', 'rc', 'other-app', 'USE_CATALOG');
    await grant('schema', 'rc.s', 'other-app', 'USE_SCHEMA');
    await grant('volume', 'rc.s.v', 'other-app', 'WRITE_VOLUME');
    await ok(other, 'GET', access('write'));
    await ok(other, 'GET', access('any')); // a status before a write: WRITE VOLUME will do
    await denied(other, 'GET', access('read'), readMsg);
    await grant('volume', 'rc.s.v', 'other-app', 'READ_VOLUME');
    await ok(other, 'GET', access('read'));
    await ok(undefined, 'GET', access('write'));
    expect((await as(undefined, 'GET', access('delete'))).status).toBe(400);
    expect(
      (await as(undefined, 'GET', '/_minilake/unity-catalog/volumes/rc.s/access?mode=read')).status,
    ).toBe(400);
    expect(
      (await as(undefined, 'GET', '/_minilake/unity-catalog/volumes/rc.s.nope/access?mode=read')).status,
    ).toBe(404);
  });

  it('vends table credentials to read with SELECT and to write with MODIFY', async () => {
    // The bot holds USE CATALOG, USE SCHEMA and SELECT on rc.s.t (the test above); a Spark catalog asks here.
    const id = (await ok(undefined, 'GET', `${B}/tables/rc.s.t`)).table_id;
    const creds = (operation: string) => ({ table_id: id, operation });
    await ok(bot, 'POST', `${B}/temporary-table-credentials`, creds('READ'));
    await denied(
      bot,
      'POST',
      `${B}/temporary-table-credentials`,
      "User does not have MODIFY on Table 'rc.s.t'.",
      creds('READ_WRITE'),
    );
    await grant('table', 'rc.s.t', 'bot-app', 'MODIFY');
    await ok(bot, 'POST', `${B}/temporary-table-credentials`, creds('READ_WRITE'));
  });

  it('needs CREATE TABLE / CREATE VOLUME on the schema, and makes the creator the owner', async () => {
    await denied(
      bot,
      'POST',
      `${B}/tables`,
      "User does not have CREATE TABLE on Schema 'rc.s'.",
      table('rc', 's', 'mine'),
    );
    await denied(bot, 'POST', `${B}/volumes`, "User does not have CREATE VOLUME on Schema 'rc.s'.", {
      catalog_name: 'rc',
      schema_name: 's',
      name: 'mv',
      volume_type: 'MANAGED',
    });
    // Inherited from the catalog.
    await grant('catalog', 'rc', 'bot-app', 'CREATE_TABLE');
    const t = await ok(bot, 'POST', `${B}/tables`, table('rc', 's', 'mine'));
    expect(t.owner).toBe('bot-app');
    expect(t.created_by).toBe('bot-app');
    // The owner reads its table without SELECT, and may grant on it and drop it.
    expect((await ok(bot, 'GET', `${B}/tables/rc.s.mine`)).owner).toBe('bot-app');
    await ok(bot, 'PATCH', `${B}/permissions/table/rc.s.mine`, {
      changes: [{ principal: 'x', add: ['SELECT'] }],
    });
    await ok(bot, 'DELETE', `${B}/tables/rc.s.mine`);
  });

  it('needs ownership (or MANAGE) to drop, update and grant', async () => {
    await denied(bot, 'DELETE', `${B}/tables/rc.s.t`, "User is not an owner of Table 'rc.s.t'.");
    await denied(bot, 'PATCH', `${B}/tables/rc.s.t`, "User is not an owner of Table 'rc.s.t'.", {
      comment: 'x',
    });
    await denied(
      bot,
      'PATCH',
      `${B}/permissions/table/rc.s.t`,
      "User does not have MANAGE on Table 'rc.s.t'.",
      {
        changes: [{ principal: 'bot-app', add: ['MODIFY'] }],
      },
    );
    await denied(bot, 'DELETE', `${B}/schemas/rc.s`, "User is not an owner of Schema 'rc.s'.");
    await denied(bot, 'DELETE', `${B}/catalogs/rc`, "User is not an owner of Catalog 'rc'.");
    // ALL PRIVILEGES does not include MANAGE (as on Databricks); MANAGE itself does it.
    await grant('table', 'rc.s.t', 'bot-app', 'ALL_PRIVILEGES');
    await denied(bot, 'PATCH', `${B}/tables/rc.s.t`, "User is not an owner of Table 'rc.s.t'.", {
      comment: 'x',
    });
    await grant('table', 'rc.s.t', 'bot-app', 'MANAGE');
    await ok(bot, 'PATCH', `${B}/tables/rc.s.t`, { comment: 'managed' });
    await ok(bot, 'PATCH', `${B}/permissions/table/rc.s.t`, {
      changes: [{ principal: 'other-app', add: ['SELECT'] }],
    });
  });

  it('needs CREATE CATALOG on the metastore, CREATE SCHEMA on the catalog', async () => {
    await denied(bot, 'POST', `${B}/catalogs`, "User does not have CREATE CATALOG on Metastore 'minilake'.", {
      name: 'botcat',
    });
    await denied(bot, 'POST', `${B}/schemas`, "User does not have CREATE SCHEMA on Catalog 'rc'.", {
      catalog_name: 'rc',
      name: 'bs',
    });
    await grant('metastore', api.metastoreId(), 'bot-app', 'CREATE_CATALOG');
    const c = await ok(bot, 'POST', `${B}/catalogs`, { name: 'botcat' });
    expect(c.owner).toBe('bot-app');
    // The catalog's owner does anything in it; another principal sees nothing of it.
    await ok(bot, 'POST', `${B}/schemas`, { catalog_name: 'botcat', name: 'x' });
    await ok(bot, 'POST', `${B}/tables`, table('botcat', 'x', 'y'));
    await denied(
      other,
      'GET',
      `${B}/tables/botcat.x.y`,
      "User does not have USE CATALOG on Catalog 'botcat'.",
    );
    await ok(bot, 'DELETE', `${B}/catalogs/botcat?force=true`);
  });

  it('counts grants to a group and to account users', async () => {
    const analyst: Principal = { ...bot, userName: 'ann', groups: ['users', 'analysts'] };
    await denied(analyst, 'GET', `${B}/schemas/rc.s`, "User does not have USE CATALOG on Catalog 'rc'.");
    await grant('catalog', 'rc', 'account users', 'USE_CATALOG');
    await grant('catalog', 'rc', 'analysts', 'USE_SCHEMA');
    expect((await ok(analyst, 'GET', `${B}/schemas/rc.s`)).full_name).toBe('rc.s');
  });
});

describe('missingPrivilege for SQL writes', () => {
  it('names MODIFY on the table once USE CATALOG and USE SCHEMA are there', async () => {
    const who = { userName: 'writer', groups: ['users'] };
    await grant('catalog', 'rc', 'writer', 'USE_CATALOG');
    await grant('schema', 'rc.s', 'writer', 'USE_SCHEMA', 'SELECT');
    expect(await api.missingPrivilege(who, 'MODIFY', 'rc.s.t')).toMatchObject({
      privilege: 'MODIFY',
      securableType: 'Table',
      fullName: 'rc.s.t',
    });
    await grant('schema', 'rc.s', 'writer', 'MODIFY');
    expect(await api.missingPrivilege(who, 'MODIFY', 'rc.s.t')).toBeUndefined();
  });

  it('checks CREATE FUNCTION, EXECUTE and WRITE VOLUME through privilegeMissing', () => {
    const who = { userName: 'fn-user', groups: ['users'] };
    // `account users` hold USE CATALOG on rc by now (the test above).
    expect(
      api.privilegeMissing(who, { on: 'schema', fullName: 'rc.s', privilege: 'CREATE_FUNCTION' }),
    ).toMatchObject({ privilege: 'USE SCHEMA' });
    expect(
      api.privilegeMissing(who, { on: 'volume', fullName: 'rc.s.v', privilege: 'WRITE_VOLUME' }),
    ).toMatchObject({
      privilege: 'USE SCHEMA',
    });
    expect(
      api.privilegeMissing(who, { on: 'function', fullName: 'rc.s.f', privilege: 'EXECUTE' }),
    ).toMatchObject({
      privilege: 'USE SCHEMA',
    });
    expect(
      api.privilegeMissing({ userName: 'x', groups: ['admins'] }, { on: 'metastore', privilege: 'MANAGE' }),
    ).toBe(undefined);
  });
});
