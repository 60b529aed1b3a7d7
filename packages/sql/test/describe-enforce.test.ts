/**
 * MINILAKE_ENFORCE=1: DESCRIBE TABLE [EXTENDED|DETAIL|HISTORY|AS JSON], SHOW COLUMNS, SHOW TBLPROPERTIES and
 * SHOW CREATE TABLE of a table the caller may not see are refused with Databricks' INSUFFICIENT_PERMISSIONS
 * (the first of USE CATALOG, USE SCHEMA, SELECT it lacks); a table it sees is described as before. The real
 * unity-catalog service in process, SQL through executeDatabricksSql with the caller bound as the Statement
 * API binds it (authorize + visibilityOf); the setup runs as the configured user, a workspace admin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceApp } from '@minilake/testing';
import { unityCatalogService, type Caller, type UnityCatalogApi } from '@minilake/unity-catalog';
import { executeDatabricksSql, visibilityOf } from '../src/dialect/index.js';
import { authorizerOf } from '../src/statement-errors.js';

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
/** Runs `statement`; as `who` (checked and filtered as statements.ts binds a caller) when given. */
async function sql(statement: string, who?: Caller): Promise<Row[]> {
  const bound = who
    ? {
        user: who.userName,
        visibility: visibilityOf(uc, who),
        authorize: authorizerOf(uc, who),
      }
    : {};
  const r = (await executeDatabricksSql(
    lease.conn as never,
    { statement, ...bound },
    { engine: uc.engine, uc },
  )) as unknown as { getRowObjectsJson(): Promise<Row[]> };
  return r.getRowObjectsJson();
}
const grant = (type: string, name: string, principal: string, ...add: string[]) =>
  uc.updatePermissions(type, name, [{ principal, add }]);

describe('MINILAKE_ENFORCE=1: DESCRIBE and SHOW of one table', () => {
  const cat = `dse_${Date.now().toString(36)}`;
  const bot: Caller = { userName: 'describe-bot', groups: ['users'] };
  const admin: Caller = { userName: 'someone-admin', groups: ['admins'] };
  const reads = (t: string) => [
    `DESCRIBE TABLE ${t}`,
    `DESCRIBE TABLE EXTENDED ${t}`,
    `DESCRIBE ${t} AS JSON`,
    `SHOW COLUMNS IN ${t}`,
    `SHOW TBLPROPERTIES ${t}`,
  ];
  // Also refused; on a MANAGED (DuckDB) table they are otherwise not supported, so refusal comes first.
  const deltaReads = (t: string) => [`DESCRIBE DETAIL ${t}`, `DESCRIBE HISTORY ${t}`];

  beforeAll(async () => {
    await sql(`CREATE CATALOG ${cat}`);
    await sql(`CREATE SCHEMA ${cat}.s`);
    await sql(`CREATE TABLE ${cat}.s.t (id BIGINT, v STRING)`);
    await sql(`CREATE TABLE ${cat}.s.hidden (secret STRING)`);
  });

  it('refuses every metadata read, naming the first missing privilege', async () => {
    for (const q of [...reads(`${cat}.s.t`), ...deltaReads(`${cat}.s.t`), `SHOW CREATE TABLE ${cat}.s.t`])
      await expect(sql(q, bot), q).rejects.toThrow(
        `[INSUFFICIENT_PERMISSIONS] Insufficient privileges:\nUser does not have USE CATALOG on Catalog '${cat}'.`,
      );
    await grant('catalog', cat, bot.userName, 'USE_CATALOG');
    await expect(sql(`DESCRIBE TABLE ${cat}.s.t`, bot)).rejects.toThrow(
      `User does not have USE SCHEMA on Schema '${cat}.s'.`,
    );
    await grant('schema', `${cat}.s`, bot.userName, 'USE_SCHEMA');
    const e = await sql(`DESCRIBE TABLE ${cat}.s.t`, bot).catch((x: unknown) => x);
    expect(e).toMatchObject({ errorCode: 'PERMISSION_DENIED', sqlState: '42501' });
    expect(String((e as Error).message)).toContain(`User does not have SELECT on Table '${cat}.s.t'.`);
  });

  it('describes a table the caller sees as before, and still refuses its neighbour', async () => {
    await grant('table', `${cat}.s.t`, bot.userName, 'SELECT');
    for (const q of reads(`${cat}.s.t`)) expect(await sql(q, bot), q).toEqual(await sql(q, admin));
    for (const q of deltaReads(`${cat}.s.t`))
      await expect(sql(q, bot), q).rejects.toThrow('not an EXTERNAL Delta table');
    expect((await sql(`SHOW COLUMNS IN ${cat}.s.t`, bot)).map((r) => r.col_name)).toEqual(['id', 'v']);
    // Refused for being not visible, not "not supported": the refusal comes first.
    await expect(sql(`SHOW CREATE TABLE ${cat}.s.hidden`, bot)).rejects.toThrow(
      `User does not have SELECT on Table '${cat}.s.hidden'.`,
    );
    await expect(sql(`SHOW CREATE TABLE ${cat}.s.t`, bot)).rejects.toThrow(/SHOW CREATE TABLE/);
    for (const q of [...reads(`${cat}.s.hidden`), ...deltaReads(`${cat}.s.hidden`)])
      await expect(sql(q, bot), q).rejects.toThrow(`User does not have SELECT on Table '${cat}.s.hidden'.`);
  });

  it('changes nothing for an admin, or without a caller bound', async () => {
    for (const q of reads(`${cat}.s.hidden`)) {
      await expect(sql(q, admin), q).resolves.toBeDefined();
      await expect(sql(q), q).resolves.toBeDefined();
    }
  });
});

describe('MINILAKE_ENFORCE=1: DESCRIBE and SHOW of a catalog and a schema', () => {
  const cat = `dsn_${Date.now().toString(36)}`;
  const bot: Caller = { userName: 'namespace-bot', groups: ['users'] };
  const admin: Caller = { userName: 'someone-admin', groups: ['admins'] };
  const names = async (q: string, who: Caller) => (await sql(q, who)).map((r) => Object.values(r)[1]);

  beforeAll(async () => {
    await sql(`CREATE CATALOG ${cat}`);
    await sql(`CREATE SCHEMA ${cat}.s`);
    await sql(`CREATE SCHEMA ${cat}.other`);
    await sql(`CREATE TABLE ${cat}.s.t (id BIGINT)`);
    await sql(`CREATE TABLE ${cat}.s.hidden (id BIGINT)`);
  });

  it('refuses DESCRIBE CATALOG and DESCRIBE SCHEMA as the REST GET does, and lists nothing it may not see', async () => {
    for (const q of [
      `DESCRIBE CATALOG ${cat}`,
      `DESCRIBE CATALOG EXTENDED ${cat}`,
      `DESCRIBE SCHEMA ${cat}.s`,
    ])
      await expect(sql(q, bot), q).rejects.toThrow(
        `[INSUFFICIENT_PERMISSIONS] Insufficient privileges:\nUser does not have USE CATALOG on Catalog '${cat}'.`,
      );
    expect(await sql(`SHOW SCHEMAS IN ${cat}`, bot)).toEqual([]);
    expect(await sql(`SHOW TABLES IN ${cat}.s`, bot)).toEqual([]);

    await grant('catalog', cat, bot.userName, 'USE_CATALOG');
    expect((await sql(`DESCRIBE CATALOG ${cat}`, bot))[0]).toEqual({
      info_name: 'Catalog Name',
      info_value: cat,
    });
    const e = await sql(`DESCRIBE SCHEMA EXTENDED ${cat}.s`, bot).catch((x: unknown) => x);
    expect(e).toMatchObject({ errorCode: 'PERMISSION_DENIED', sqlState: '42501' });
    expect(String((e as Error).message)).toContain(`User does not have USE SCHEMA on Schema '${cat}.s'.`);
    expect(await sql(`SHOW SCHEMAS IN ${cat}`, bot)).toEqual([]);

    await grant('schema', `${cat}.s`, bot.userName, 'USE_SCHEMA');
    expect(await sql(`DESCRIBE SCHEMA ${cat}.s`, bot)).toEqual(await sql(`DESCRIBE SCHEMA ${cat}.s`, admin));
    expect(await sql(`SHOW SCHEMAS IN ${cat}`, bot)).toEqual([{ databaseName: 's' }]);
    expect(await names(`SHOW TABLES IN ${cat}.s`, bot)).toEqual([]);
    await grant('table', `${cat}.s.t`, bot.userName, 'SELECT');
    expect(await names(`SHOW TABLES IN ${cat}.s`, bot)).toEqual(['t']);
    await expect(sql(`DESCRIBE SCHEMA ${cat}.other`, bot)).rejects.toThrow(
      `User does not have USE SCHEMA on Schema '${cat}.other'.`,
    );
  });

  it('changes nothing for an admin, or without a caller bound', async () => {
    expect(await names(`SHOW TABLES IN ${cat}.s`, admin)).toEqual(['hidden', 't']);
    expect((await sql(`SHOW SCHEMAS IN ${cat}`)).map((r) => r.databaseName)).toEqual([
      'default',
      'other',
      's',
    ]);
    await expect(sql(`DESCRIBE SCHEMA ${cat}.other`)).resolves.toHaveLength(5);
  });
});
