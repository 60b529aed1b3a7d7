/**
 * Issue 30, Unity Catalog privileges beyond SELECT, in process: with MINILAKE_AUTH=tokens MINILAKE_ENFORCE=1 a
 * service principal (on-behalf-of token) is refused SQL writes, CREATE TABLE/SCHEMA, DROP, GRANT and volume
 * files until the admin grants what each needs, with Databricks' messages, and sees in information_schema and
 * SHOW only what it was granted; the admin is never refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMinilake, parseConfig, type Minilake } from '../src/index.js';

const ADMIN = 'uc-admin-token';
type Json = Record<string, any>;

let ml: Minilake;
let sp: { app: string; token: string };
let wh: string;

async function call(token: string, method: string, path: string, body?: unknown, raw?: string) {
  const res = await ml.app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: Json = {};
  try {
    json = text ? (JSON.parse(text) as Json) : {};
  } catch {
    json = { text };
  }
  return { status: res.status, body: json };
}

/** Runs a statement; its final state and error message. */
async function sql(token: string, statement: string) {
  const r = await call(token, 'POST', '/api/2.0/sql/statements', {
    warehouse_id: wh,
    statement,
    wait_timeout: '30s',
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return {
    state: r.body.status?.state as string,
    error: (r.body.status?.error?.message ?? '') as string,
    code: (r.body.status?.error?.error_code ?? '') as string,
    rows: r.body.result?.data_array as string[][] | undefined,
  };
}
const admin = async (statement: string) => {
  const r = await sql(ADMIN, statement);
  expect(r.state, `${statement}: ${r.error}`).toBe('SUCCEEDED');
  return r;
};
/** The service principal is refused `statement` for `missing`; nothing ran. */
const refused = async (statement: string, missing: string) => {
  const r = await sql(sp.token, statement);
  expect(r.state, statement).toBe('FAILED');
  expect(r.code).toBe('PERMISSION_DENIED');
  expect(r.error).toContain(`[INSUFFICIENT_PERMISSIONS] Insufficient privileges:\n${missing}`);
};
const allowed = async (statement: string) => {
  const r = await sql(sp.token, statement);
  expect(r.state, `${statement}: ${r.error}`).toBe('SUCCEEDED');
  return r;
};
const grant = async (type: string, name: string, ...privileges: string[]) => {
  const r = await call(ADMIN, 'PATCH', `/api/2.1/unity-catalog/permissions/${type}/${name}`, {
    changes: [{ principal: sp.app, add: privileges }],
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};

beforeAll(async () => {
  ml = await createMinilake(
    parseConfig({
      MINILAKE_SERVICES: 'sql,unity-catalog,files',
      MINILAKE_AUTH: 'tokens',
      MINILAKE_ENFORCE: '1',
      MINILAKE_ADMIN_TOKEN: ADMIN,
      MINILAKE_LOG_LEVEL: 'silent',
    }),
  );
  const created = await call(ADMIN, 'POST', '/api/2.0/preview/scim/v2/ServicePrincipals', {
    displayName: 'uc-bot',
  });
  const obo = await call(ADMIN, 'POST', '/api/2.0/token-management/on-behalf-of/tokens', {
    application_id: created.body.applicationId,
    lifetime_seconds: 3600,
  });
  sp = { app: created.body.applicationId, token: obo.body.token_value };
  wh = (await call(ADMIN, 'POST', '/api/2.0/sql/warehouses', { name: 'uc', cluster_size: 'Small' })).body.id;
  await call(ADMIN, 'PATCH', `/api/2.0/permissions/warehouses/${wh}`, {
    access_control_list: [{ service_principal_name: sp.app, permission_level: 'CAN_USE' }],
  });
  expect((await call(ADMIN, 'POST', '/api/2.1/unity-catalog/catalogs', { name: 'ucx' })).status).toBe(200);
  await admin('CREATE SCHEMA ucx.s');
  await admin('CREATE TABLE ucx.s.t (id BIGINT, v STRING)');
  await admin("INSERT INTO ucx.s.t VALUES (1, 'a')");
  await admin('CREATE TABLE ucx.s.src (id BIGINT, v STRING)');
  await admin("INSERT INTO ucx.s.src VALUES (1, 'z'), (2, 'b')");
  const vol = await call(ADMIN, 'POST', '/api/2.1/unity-catalog/volumes', {
    catalog_name: 'ucx',
    schema_name: 's',
    name: 'v',
    volume_type: 'MANAGED',
  });
  expect(vol.status).toBe(200);
}, 120_000);
afterAll(() => ml?.close());

describe('MINILAKE_ENFORCE=1: SQL beyond SELECT', () => {
  it('needs USE CATALOG, USE SCHEMA and MODIFY to write; SELECT on what a MERGE reads', async () => {
    const insert = "INSERT INTO ucx.s.t VALUES (2, 'sp')";
    await refused(insert, "User does not have USE CATALOG on Catalog 'ucx'.");
    await grant('catalog', 'ucx', 'USE_CATALOG');
    await refused(insert, "User does not have USE SCHEMA on Schema 'ucx.s'.");
    await grant('schema', 'ucx.s', 'USE_SCHEMA');
    await refused(insert, "User does not have MODIFY on Table 'ucx.s.t'.");
    await refused("UPDATE ucx.s.t SET v = 'x' WHERE id = 1", "User does not have MODIFY on Table 'ucx.s.t'.");
    await refused('DELETE FROM ucx.s.t WHERE id = 1', "User does not have MODIFY on Table 'ucx.s.t'.");
    await refused('TRUNCATE TABLE ucx.s.t', "User does not have MODIFY on Table 'ucx.s.t'.");
    await grant('table', 'ucx.s.t', 'MODIFY');
    await allowed(insert);
    const merge =
      'MERGE INTO ucx.s.t USING ucx.s.src ON t.id = src.id WHEN MATCHED THEN UPDATE SET v = src.v WHEN NOT MATCHED THEN INSERT *';
    await refused(merge, "User does not have SELECT on Table 'ucx.s.src'.");
    await grant('table', 'ucx.s.src', 'SELECT');
    await allowed(merge);
    const rows = (await admin('SELECT id, v FROM ucx.s.t ORDER BY id')).rows;
    expect(rows).toEqual([
      ['1', 'z'],
      ['2', 'b'],
    ]);
  });

  it('needs CREATE TABLE on the schema; the creator owns the table and may drop it', async () => {
    await refused('CREATE TABLE ucx.s.mine (id INT)', "User does not have CREATE TABLE on Schema 'ucx.s'.");
    await refused(
      'CREATE VIEW ucx.s.mine_v AS SELECT 1 AS x',
      "User does not have CREATE TABLE on Schema 'ucx.s'.",
    );
    await grant('schema', 'ucx.s', 'CREATE_TABLE');
    await allowed('CREATE TABLE ucx.s.mine (id INT)');
    await allowed('INSERT INTO ucx.s.mine VALUES (7)');
    expect((await allowed('SELECT id FROM ucx.s.mine')).rows).toEqual([['7']]);
    const info = await call(ADMIN, 'GET', '/api/2.1/unity-catalog/tables/ucx.s.mine');
    expect(info.body.owner).toBe(sp.app);
    await allowed('DROP TABLE ucx.s.mine');
  });

  it('needs ownership to DROP or ALTER, and ownership or MANAGE to GRANT', async () => {
    await refused('DROP TABLE ucx.s.t', "User is not an owner of Table 'ucx.s.t'.");
    await refused(
      "ALTER TABLE ucx.s.t SET TBLPROPERTIES ('a' = 'b')",
      "User is not an owner of Table 'ucx.s.t'.",
    );
    await refused("COMMENT ON TABLE ucx.s.t IS 'x'", "User is not an owner of Table 'ucx.s.t'.");
    await refused(
      'GRANT SELECT ON TABLE ucx.s.t TO `someone`',
      "User does not have MANAGE on Table 'ucx.s.t'.",
    );
    await refused('DROP SCHEMA ucx.s CASCADE', "User is not an owner of Schema 'ucx.s'.");
    await refused('CREATE SCHEMA ucx.other', "User does not have CREATE SCHEMA on Catalog 'ucx'.");
    await refused('CREATE CATALOG spcat', "User does not have CREATE CATALOG on Metastore 'minilake'.");
    // A table that does not exist is still the engine's error to report.
    const r = await sql(sp.token, 'DROP TABLE IF EXISTS ucx.s.nothing');
    expect(r.state, r.error).toBe('SUCCEEDED');
    // Nothing was dropped.
    expect((await admin('SELECT count(*) FROM ucx.s.t')).rows).toEqual([['2']]);
  });

  it('needs EXECUTE to call a Unity Catalog function, CREATE FUNCTION to make one', async () => {
    await admin('CREATE FUNCTION ucx.s.plus1(x INT) RETURNS INT RETURN x + 1');
    await refused('SELECT ucx.s.plus1(1) AS v', "User does not have EXECUTE on Function 'ucx.s.plus1'.");
    // Named from the session's catalog too (`USE CATALOG ucx; SELECT s.plus1(1)`).
    const r = await sql(sp.token, 'USE CATALOG ucx; SELECT s.plus1(1) AS v');
    expect(r.state).toBe('FAILED');
    expect(r.error).toContain("User does not have EXECUTE on Function 'ucx.s.plus1'.");
    await grant('function', 'ucx.s.plus1', 'EXECUTE');
    expect((await allowed('SELECT ucx.s.plus1(1) AS v')).rows).toEqual([['2']]);
    await refused(
      'CREATE FUNCTION ucx.s.twice(x INT) RETURNS INT RETURN x * 2',
      "User does not have CREATE FUNCTION on Schema 'ucx.s'.",
    );
    await grant('schema', 'ucx.s', 'CREATE_FUNCTION');
    await allowed('CREATE FUNCTION ucx.s.twice(x INT) RETURNS INT RETURN x * 2');
    expect((await allowed('SELECT ucx.s.twice(4) AS v')).rows).toEqual([['8']]);
  });

  it('lists in information_schema and SHOW only what the caller may see', async () => {
    expect((await call(ADMIN, 'POST', '/api/2.1/unity-catalog/catalogs', { name: 'ucy' })).status).toBe(200);
    await admin('CREATE SCHEMA ucy.s');
    await admin('CREATE TABLE ucy.s.t (id BIGINT)');
    await admin('CREATE TABLE ucy.s.other (id BIGINT)');
    const tables =
      "SELECT table_name FROM system.information_schema.tables WHERE table_catalog = 'ucy' ORDER BY 1";
    expect((await admin(tables)).rows).toEqual([['other'], ['t']]);
    expect((await allowed(tables)).rows ?? []).toEqual([]);
    expect((await allowed('SHOW CATALOGS')).rows?.flat()).not.toContain('ucy');
    await grant('catalog', 'ucy', 'USE_CATALOG');
    await grant('schema', 'ucy.s', 'USE_SCHEMA');
    await grant('table', 'ucy.s.t', 'SELECT');
    expect((await allowed(tables)).rows).toEqual([['t']]);
    expect((await allowed('SHOW CATALOGS')).rows?.flat()).toContain('ucy');
    expect((await allowed('SHOW TABLES IN ucy.s')).rows?.map((r) => r[1])).toEqual(['t']);
  });

  it('needs READ VOLUME / WRITE VOLUME for volume files', async () => {
    const p = '/api/2.0/fs/files/Volumes/ucx/s/v/hello.txt';
    const put = await call(sp.token, 'PUT', p, undefined, 'hi');
    expect(put.status).toBe(403);
    expect(put.body).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      message: "User does not have WRITE VOLUME on Volume 'ucx.s.v'.",
    });
    expect((await call(ADMIN, 'PUT', p, undefined, 'hi')).status).toBe(204);
    const get = await call(sp.token, 'GET', p);
    expect(get.status).toBe(403);
    expect(get.body.message).toBe("User does not have READ VOLUME on Volume 'ucx.s.v'.");
    await grant('volume', 'ucx.s.v', 'READ_VOLUME');
    expect((await call(sp.token, 'GET', p)).body).toEqual({ text: 'hi' });
    expect((await call(sp.token, 'GET', '/api/2.0/fs/directories/Volumes/ucx/s/v')).status).toBe(200);
    expect((await call(sp.token, 'DELETE', p)).status).toBe(403);
    await grant('volume', 'ucx.s.v', 'WRITE_VOLUME');
    expect((await call(sp.token, 'PUT', p, undefined, 'bye')).status).toBe(204);
    expect((await call(sp.token, 'DELETE', p)).status).toBe(204);
  });
});
