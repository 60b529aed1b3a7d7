/**
 * MINILAKE_ENFORCE=1: information_schema and SHOW CATALOGS/SCHEMAS/TABLES list only what the statement's
 * caller may see, by Unity Catalog's own rule (the one its REST lists filter by), bound to the caller as the
 * Statement API binds it (visibilityOf). The real unity-catalog service in process, SQL through
 * executeDatabricksSql; the setup runs as the configured user, a workspace admin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceApp } from '@minilake/testing';
import { unityCatalogService, type Caller, type UnityCatalogApi } from '@minilake/unity-catalog';
import { executeDatabricksSql, visibilityOf } from '../src/dialect/index.js';

let uc: UnityCatalogApi;
let lease: Awaited<ReturnType<UnityCatalogApi['engine']['acquire']>>;
let close: () => Promise<void>;

beforeAll(async () => {
  const s = await serviceApp(unityCatalogService, { config: { MINILAKE_ENFORCE: '1' } });
  uc = s.instance.api!;
  lease = await uc.engine.acquire();
  close = async () => {
    lease.release();
    await s.instance.close?.();
    await uc.engine.close();
  };
});
afterAll(async () => {
  await close();
});

type Row = Record<string, unknown>;
/** Runs `statement`; as `who` (its visibility bound) when given, else unfiltered as the admin setup. */
async function sql(statement: string, who?: Caller): Promise<Row[]> {
  const r = (await executeDatabricksSql(
    lease.conn as never,
    { statement, ...(who ? { user: who.userName, visibility: visibilityOf(uc, who) } : {}) },
    { engine: uc.engine, uc },
  )) as unknown as { getRowObjectsJson(): Promise<Row[]> };
  return r.getRowObjectsJson();
}
const grant = (type: string, name: string, principal: string, ...add: string[]) =>
  uc.updatePermissions(type, name, [{ principal, add }]);

describe('MINILAKE_ENFORCE=1: information_schema and SHOW filtered by privileges', () => {
  const cat = `ise_${Date.now().toString(36)}`;
  const bot: Caller = { userName: 'app-bot', groups: ['users'] };
  const admin: Caller = { userName: 'someone-admin', groups: ['admins'] };

  beforeAll(async () => {
    await sql(`CREATE CATALOG ${cat}`);
    await sql(`CREATE SCHEMA ${cat}.s`);
    await sql(`CREATE TABLE ${cat}.s.t (id BIGINT, v STRING)`);
    await sql(`CREATE TABLE ${cat}.s.hidden (secret STRING)`);
    await sql(`CREATE VIEW ${cat}.s.hidden_v AS SELECT secret FROM ${cat}.s.hidden`);
    await sql(`CREATE FUNCTION ${cat}.s.f(x INT) RETURNS INT RETURN x + 1`);
    await grant('table', `${cat}.s.t`, 'someone-else', 'MODIFY');
  });

  const tables = (who: Caller, from = 'system') =>
    sql(
      `SELECT table_schema, table_name FROM ${from}.information_schema.tables WHERE table_catalog = '${cat}' ORDER BY 1, 2`,
      who,
    );

  it('shows nothing of a catalog the caller has no privilege on', async () => {
    expect(
      await sql(`SELECT * FROM system.information_schema.catalogs WHERE catalog_name = '${cat}'`, bot),
    ).toEqual([]);
    expect(
      await sql(`SELECT * FROM system.information_schema.schemata WHERE catalog_name = '${cat}'`, bot),
    ).toEqual([]);
    expect(await tables(bot)).toEqual([]);
    expect(await tables(bot, cat)).toEqual([]);
    expect(await sql(`SELECT * FROM ${cat}.information_schema.columns`, bot)).toEqual([]);
    expect(await sql(`SELECT * FROM ${cat}.information_schema.routines`, bot)).toEqual([]);
    expect(await sql(`SELECT * FROM ${cat}.information_schema.table_privileges`, bot)).toEqual([]);
    expect((await sql('SHOW CATALOGS', bot)).map((r) => r.catalog)).not.toContain(cat);
    expect(await sql(`SHOW SCHEMAS IN ${cat}`, bot)).toEqual([]);
    expect(await sql(`SHOW TABLES IN ${cat}.s`, bot)).toEqual([]);
    // Unfiltered (no MINILAKE_ENFORCE binding, or an admin), everything is there.
    expect((await tables(admin)).map((r) => r.table_name)).toEqual(['hidden', 'hidden_v', 't']);
    expect((await sql('SHOW CATALOGS', admin)).map((r) => r.catalog)).toContain(cat);
  });

  it('shows exactly what USE CATALOG, USE SCHEMA and SELECT make visible', async () => {
    await grant('catalog', cat, bot.userName, 'USE_CATALOG');
    expect(
      (await sql(`SELECT catalog_name FROM system.information_schema.catalogs`, bot)).map(
        (r) => r.catalog_name,
      ),
    ).toContain(cat);
    // The catalog alone: its information_schema, not its schemas (USE SCHEMA is not granted).
    expect(
      (await sql(`SELECT schema_name FROM ${cat}.information_schema.schemata ORDER BY 1`, bot)).map(
        (r) => r.schema_name,
      ),
    ).toEqual(['information_schema']);
    expect(await sql(`SHOW SCHEMAS IN ${cat}`, bot)).toEqual([]);

    await grant('schema', `${cat}.s`, bot.userName, 'USE_SCHEMA');
    expect((await sql(`SHOW SCHEMAS IN ${cat}`, bot)).map((r) => r.databaseName)).toEqual(['s']);
    expect(await tables(bot)).toEqual([]);

    await grant('table', `${cat}.s.t`, bot.userName, 'SELECT');
    expect(await tables(bot)).toEqual([{ table_schema: 's', table_name: 't' }]);
    expect(await tables(bot, cat)).toEqual([{ table_schema: 's', table_name: 't' }]);
    expect(
      (
        await sql(`SELECT table_name, column_name FROM ${cat}.information_schema.columns ORDER BY 2`, bot)
      ).map((r) => [r.table_name, r.column_name]),
    ).toEqual([
      ['t', 'id'],
      ['t', 'v'],
    ]);
    expect(await sql(`SELECT * FROM ${cat}.information_schema.views`, bot)).toEqual([]);
    expect(await sql(`SELECT * FROM ${cat}.information_schema.routines`, bot)).toEqual([]);
    expect((await sql(`SHOW TABLES IN ${cat}.s`, bot)).map((r) => r.tableName)).toEqual(['t']);
  });

  it('shows a caller its own grants, and every grant to who may manage them', async () => {
    const privs = (who: Caller) =>
      sql(
        `SELECT grantee, table_name, privilege_type FROM ${cat}.information_schema.table_privileges ORDER BY 1, 3`,
        who,
      );
    expect(await privs(bot)).toEqual([{ grantee: bot.userName, table_name: 't', privilege_type: 'SELECT' }]);
    expect(await privs(admin)).toEqual([
      { grantee: bot.userName, table_name: 't', privilege_type: 'SELECT' },
      { grantee: 'someone-else', table_name: 't', privilege_type: 'MODIFY' },
    ]);
    // The catalog's owner manages every grant in it.
    const owner = String((uc.getCatalog(cat) as { owner: string }).owner);
    expect(await privs({ userName: owner, groups: [] })).toHaveLength(2);
  });

  it('a function needs EXECUTE to be listed', async () => {
    await grant('function', `${cat}.s.f`, bot.userName, 'EXECUTE');
    expect(
      (await sql(`SELECT routine_name FROM ${cat}.information_schema.routines`, bot)).map(
        (r) => r.routine_name,
      ),
    ).toEqual(['f']);
  });
});
