/**
 * MINILAKE_ENFORCE=1 over Thrift, in process: a session belongs to the principal whose request opened it; its
 * metadata calls (GetCatalogs, GetSchemas, GetTables, GetColumns, GetFunctions, GetPrimaryKeys) answer only
 * what that caller may see (Unity Catalog's `sees`, as REST lists and SHOW filter), and DESCRIBE of a table it
 * may not see is refused. Calls are encoded by the generated client from @databricks/sql and sent through
 * `app.request()` inside the caller's principal scope, as the host's authentication runs a request.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runAsPrincipal, type Principal, type ServiceInstance, type SharedResource } from '@minilake/core';
import { serviceApp } from '@minilake/testing';
import { sqlService, type SqlApi } from '@minilake/sql';
import { unityCatalogService, type UnityCatalogApi } from '@minilake/unity-catalog';
import type { Hono } from 'hono';
import { thriftService } from '../src/index.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const thrift = require('thrift') as Any;
const TCLIService = require('@databricks/sql/thrift/TCLIService.js') as Any;

const instances: ServiceInstance[] = [];
let dataDir: string;
let app: Hono;
let uc: UnityCatalogApi;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'ml-thrift-enforce-'));
  const sharedResources = new Map<string, Promise<SharedResource>>();
  const ucs = await serviceApp(unityCatalogService, {
    dataDir,
    sharedResources,
    config: { MINILAKE_ENFORCE: '1' },
  });
  instances.push(ucs.instance);
  uc = ucs.instance.api as UnityCatalogApi;
  const sql = await serviceApp(sqlService, {
    dataDir,
    sharedResources,
    peers: new Map<string, unknown>([['unity-catalog', uc]]),
    config: { MINILAKE_WAREHOUSE_START_DELAY: '0' },
  });
  instances.push(sql.instance);
  const made = await serviceApp(thriftService, {
    peers: new Map<string, unknown>([
      ['sql', sql.instance.api as SqlApi],
      ['unity-catalog', uc],
    ]),
  });
  instances.push(made.instance);
  app = made.app;
});
afterAll(async () => {
  for (const i of instances.splice(0).reverse()) await i.close?.();
  await rm(dataDir, { recursive: true, force: true });
});

/** One Thrift call as `who` (the configured user, an admin, without one). */
async function call(method: string, req: Record<string, unknown>, who?: Principal): Promise<Any> {
  let sent: Buffer | undefined;
  const out = new thrift.TBufferedTransport(undefined, (b: Buffer) => (sent = b));
  const client = new TCLIService.Client(out, thrift.TBinaryProtocol);
  const reply = client[method](req) as Promise<Any>;
  const send = () =>
    app.request('/sql/1.0/warehouses/dev', {
      method: 'POST',
      headers: { 'content-type': 'application/x-thrift' },
      body: new Uint8Array(sent!),
    });
  const res = await (who ? runAsPrincipal(who, send) : send());
  const input = new thrift.TBufferedTransport();
  const body = Buffer.from(await res.arrayBuffer());
  input.inBuf = body;
  input.writeCursor = body.length;
  const proto = new thrift.TBinaryProtocol(input);
  const m = proto.readMessageBegin();
  client[`recv_${m.fname}`](proto, m.mtype, m.rseqid);
  return reply;
}

const open = async (who?: Principal) =>
  (await call('OpenSession', { client_protocol_i64: 42247 }, who)).sessionHandle;

/** Runs a statement in a session; its error message, or undefined when it succeeded. */
async function run(sessionHandle: Any, statement: string, who?: Principal): Promise<string | undefined> {
  const r = await call(
    'ExecuteStatement',
    { sessionHandle, statement, runAsync: false, getDirectResults: { maxRows: 1000 } },
    who,
  );
  if (r.status.statusCode !== 0) return String(r.status.errorMessage);
  const st = r.directResults?.operationStatus;
  return st?.operationState === 2 ? undefined : String(st?.errorMessage);
}

/** A metadata call's column `col` (0-based) as strings. */
async function meta(method: string, req: Record<string, unknown>, col: number, who?: Principal) {
  const r = await call(method, { ...req, getDirectResults: { maxRows: 10000 } }, who);
  expect(r.status.statusCode, JSON.stringify(r.status)).toBe(0);
  return (r.directResults.resultSet.results.columns[col].stringVal.values as string[]).map(String);
}

describe('MINILAKE_ENFORCE=1: Thrift metadata as the session caller sees Unity Catalog', () => {
  const cat = `thr_${Date.now().toString(36)}`;
  const bot: Principal = {
    kind: 'service_principal',
    userName: 'b0t-app-id',
    id: '42',
    displayName: 'bot',
    groups: ['users'],
  };
  let admin: Any;

  beforeAll(async () => {
    admin = await open();
    for (const q of [
      `CREATE CATALOG ${cat}`,
      `CREATE SCHEMA ${cat}.s`,
      `CREATE TABLE ${cat}.s.t (id BIGINT, v STRING)`,
      `CREATE TABLE ${cat}.s.hidden (secret STRING)`,
      `CREATE FUNCTION ${cat}.s.f(x INT) RETURNS INT RETURN x + 1`,
    ])
      expect(await run(admin, q), q).toBeUndefined();
  });

  it('lists nothing of a catalog without a grant, and refuses DESCRIBE', async () => {
    const s = await open(bot);
    expect(await meta('GetCatalogs', { sessionHandle: s }, 0, bot)).not.toContain(cat);
    expect(await meta('GetSchemas', { sessionHandle: s, catalogName: cat }, 0, bot)).toEqual([]);
    expect(await meta('GetTables', { sessionHandle: s, catalogName: cat }, 2, bot)).toEqual([]);
    expect(await meta('GetColumns', { sessionHandle: s, catalogName: cat }, 3, bot)).toEqual([]);
    expect(
      await meta('GetFunctions', { sessionHandle: s, catalogName: cat, functionName: '%' }, 2, bot),
    ).toEqual([]);
    const pk = { sessionHandle: s, catalogName: cat, schemaName: 's', tableName: 't' };
    expect(await meta('GetPrimaryKeys', pk, 3, bot)).toEqual([]);
    expect(await run(s, `DESCRIBE TABLE ${cat}.s.t`, bot)).toContain(
      `[INSUFFICIENT_PERMISSIONS] Insufficient privileges:\nUser does not have USE CATALOG on Catalog '${cat}'.`,
    );
    // The admin's session, unfiltered.
    expect(await meta('GetCatalogs', { sessionHandle: admin }, 0)).toContain(cat);
    expect(await meta('GetTables', { sessionHandle: admin, catalogName: cat }, 2)).toEqual(['hidden', 't']);
    expect(
      await meta('GetFunctions', { sessionHandle: admin, catalogName: cat, functionName: '%' }, 2),
    ).toEqual(['f']);
  });

  it('after USE CATALOG, USE SCHEMA and SELECT sees exactly the granted table', async () => {
    expect(await run(admin, `GRANT USE CATALOG ON CATALOG ${cat} TO \`${bot.userName}\``)).toBeUndefined();
    expect(await run(admin, `GRANT USE SCHEMA ON SCHEMA ${cat}.s TO \`${bot.userName}\``)).toBeUndefined();
    expect(await run(admin, `GRANT SELECT ON TABLE ${cat}.s.t TO \`${bot.userName}\``)).toBeUndefined();
    const s = await open(bot);
    expect(await meta('GetCatalogs', { sessionHandle: s }, 0, bot)).toContain(cat);
    expect(await meta('GetSchemas', { sessionHandle: s, catalogName: cat }, 0, bot)).toContain('s');
    expect(await meta('GetTables', { sessionHandle: s, catalogName: cat }, 2, bot)).toEqual(['t']);
    expect(await meta('GetColumns', { sessionHandle: s, catalogName: cat }, 3, bot)).toEqual(['id', 'v']);
    expect(
      await meta('GetFunctions', { sessionHandle: s, catalogName: cat, functionName: '%' }, 2, bot),
    ).toEqual([]);
    expect(await run(s, `DESCRIBE TABLE ${cat}.s.t`, bot)).toBeUndefined();
    expect(await run(s, `DESCRIBE TABLE ${cat}.s.hidden`, bot)).toContain(
      `User does not have SELECT on Table '${cat}.s.hidden'.`,
    );
  });

  it("refuses another caller's session handle", async () => {
    const r = await call('GetCatalogs', { sessionHandle: admin }, bot);
    expect(r.status.statusCode).toBe(4); // INVALID_HANDLE
    const mine = await open(bot);
    expect((await call('GetCatalogs', { sessionHandle: mine })).status.statusCode).toBe(4);
  });
});
