/**
 * In process: TCLIService calls encoded by the generated client from @databricks/sql, sent through
 * `app.request()` to the thrift app on the real sql service and engine; plus the small parsers.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  ManualClock,
  systemClock,
  type Clock,
  type ServiceInstance,
  type SharedResource,
} from '@minilake/core';
import { serviceApp } from '@minilake/testing';
import { sqlService, type SqlApi } from '@minilake/sql';
import { unityCatalogService, type UnityCatalogApi } from '@minilake/unity-catalog';
import type { Hono } from 'hono';
import { thriftService } from '../src/index.js';
import { pattern } from '../src/metadata.js';
import { sessionCommand } from '../src/session-commands.js';
import { parseType, scalarName } from '../src/types.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const thrift = require('thrift') as Any;
const TCLIService = require('@databricks/sql/thrift/TCLIService.js') as Any;

const instances: ServiceInstance[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const i of instances.splice(0).reverse()) await i.close?.();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function setup<C extends Clock>(clock: C = systemClock as C): Promise<{ app: Hono; clock: C }> {
  // Unity Catalog and sql on one engine (one data dir, shared resources), as the host runs them.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ml-thrift-'));
  dirs.push(dataDir);
  const sharedResources = new Map<string, Promise<SharedResource>>();
  const uc = await serviceApp(unityCatalogService, { clock, dataDir, sharedResources });
  instances.push(uc.instance);
  const sql = await serviceApp(sqlService, {
    clock,
    dataDir,
    sharedResources,
    peers: new Map<string, unknown>([['unity-catalog', uc.instance.api]]),
    config: { MINILAKE_WAREHOUSE_START_DELAY: '0' },
  });
  instances.push(sql.instance);
  const made = await serviceApp(thriftService, {
    clock,
    peers: new Map<string, unknown>([
      ['sql', sql.instance.api as SqlApi],
      ['unity-catalog', uc.instance.api as UnityCatalogApi],
    ]),
    config: { MINILAKE_THRIFT_SESSION_IDLE: '60' },
  });
  instances.push(made.instance);
  return { app: made.app, clock };
}

/** One Thrift call over app.request, encoded and decoded by the generated client. */
async function call(app: Hono, method: string, req: Record<string, unknown>): Promise<Any> {
  let sent: Buffer | undefined;
  const out = new thrift.TBufferedTransport(undefined, (b: Buffer) => (sent = b));
  const client = new TCLIService.Client(out, thrift.TBinaryProtocol);
  const reply = client[method](req) as Promise<Any>;
  const res = await app.request('/sql/1.0/warehouses/dev', {
    method: 'POST',
    headers: { 'content-type': 'application/x-thrift', 'user-agent': 'UnitTest/1.0' },
    body: new Uint8Array(sent!),
  });
  expect(res.status).toBe(200);
  const input = new thrift.TBufferedTransport();
  const body = Buffer.from(await res.arrayBuffer());
  input.inBuf = body;
  input.writeCursor = body.length;
  const proto = new thrift.TBinaryProtocol(input);
  const m = proto.readMessageBegin();
  client[`recv_${m.fname}`](proto, m.mtype, m.rseqid);
  return reply;
}

describe('TCLIService in process', () => {
  it('types intervals and NULL as Databricks does, in the session time zone of the configuration', async () => {
    const { app } = await setup();
    const open = await call(app, 'OpenSession', {
      client_protocol_i64: 42247,
      configuration: { 'spark.sql.session.timeZone': 'Asia/Tokyo' },
    });
    const exec = await call(app, 'ExecuteStatement', {
      sessionHandle: open.sessionHandle,
      statement:
        "SELECT INTERVAL '1-2' YEAR TO MONTH AS ym, INTERVAL 3 DAYS AS d, NULL AS n, " +
        "hour(TIMESTAMP'2024-06-01 12:00:00Z') AS h",
      runAsync: false,
      getDirectResults: { maxRows: 10 },
      canReadArrowResult: false,
    });
    const dr = exec.directResults;
    const types = dr.resultSetMetadata.schema.columns.map(
      (c: Any) => c.typeDesc.types[0].primitiveEntry.type,
    );
    expect(types).toEqual([20, 21, 16, 3]); // INTERVAL_YEAR_MONTH, INTERVAL_DAY_TIME, NULL, INT
    const cols = dr.resultSet.results.columns;
    expect(cols[0].stringVal.values).toEqual(['1-2']);
    expect(cols[1].stringVal.values).toEqual(['3 00:00:00.000000000']);
    expect(cols[3].i32Val.values).toEqual([21]);
    await call(app, 'CloseSession', { sessionHandle: open.sessionHandle });
  });

  it('opens a V8 session, runs a statement with direct results in one call, and closes it', async () => {
    const { app } = await setup();
    const open = await call(app, 'OpenSession', {
      client_protocol_i64: 42247,
      canUseMultipleCatalogs: true,
      configuration: { 'spark.sql.session.timeZone': 'Europe/Paris' },
    });
    expect(open.status.statusCode).toBe(0);
    expect(open.serverProtocolVersion).toBeGreaterThanOrEqual(42244);
    expect(open.canUseMultipleCatalogs).toBe(true);
    expect(open.sessionHandle.sessionId.guid).toHaveLength(16);

    const exec = await call(app, 'ExecuteStatement', {
      sessionHandle: open.sessionHandle,
      statement: 'SELECT 1 AS x, CAST(2.5 AS DECIMAL(4,1)) AS d',
      runAsync: false,
      getDirectResults: { maxRows: 1000 },
      canReadArrowResult: false,
    });
    const dr = exec.directResults;
    expect(dr.operationStatus.operationState).toBe(2); // FINISHED
    expect(dr.resultSetMetadata.resultFormat).toBe(1); // COLUMN_BASED_SET
    const types = dr.resultSetMetadata.schema.columns.map((c: Any) => c.typeDesc.types[0].primitiveEntry);
    expect(types[0].type).toBe(3); // INT_TYPE
    expect(types[1].type).toBe(15); // DECIMAL_TYPE
    expect(types[1].typeQualifiers.qualifiers.precision.i32Value).toBe(4);
    expect(dr.resultSet.hasMoreRows).toBe(false);
    expect(dr.resultSet.results.columns[0].i32Val.values).toEqual([1]);
    expect(dr.resultSet.results.columns[1].stringVal.values).toEqual(['2.5']);
    expect(dr.closeOperation.status.statusCode).toBe(0);

    // The operation was closed with the direct results: its handle is gone.
    const status = await call(app, 'GetOperationStatus', { operationHandle: exec.operationHandle });
    expect(status.status.statusCode).toBe(4); // INVALID_HANDLE_STATUS

    expect((await call(app, 'CloseSession', { sessionHandle: open.sessionHandle })).status.statusCode).toBe(
      0,
    );
    const again = await call(app, 'ExecuteStatement', {
      sessionHandle: open.sessionHandle,
      statement: 'SELECT 1',
    });
    expect(again.status.statusCode).toBe(4);
  });

  it('closes a session that stayed idle longer than MINILAKE_THRIFT_SESSION_IDLE', async () => {
    const { app, clock } = await setup(new ManualClock());
    const open = await call(app, 'OpenSession', { client_protocol_i64: 42248 });
    clock.advance(30_000);
    const ok = await call(app, 'GetInfo', { sessionHandle: open.sessionHandle, infoType: 17 });
    expect(ok.infoValue.stringValue).toBe('Spark SQL');
    clock.advance(61_000);
    const gone = await call(app, 'GetInfo', { sessionHandle: open.sessionHandle, infoType: 17 });
    expect(gone.status.statusCode).toBe(4);
  });

  it('pages a result without direct results: FetchResults until hasMoreRows is false, then an empty page', async () => {
    const { app } = await setup();
    const open = await call(app, 'OpenSession', { client_protocol_i64: 42248 });
    const exec = await call(app, 'ExecuteStatement', {
      sessionHandle: open.sessionHandle,
      statement: 'SELECT * FROM range(25)',
      runAsync: false,
    });
    const pages: number[] = [];
    for (let i = 0; i < 5; i++) {
      const page = await call(app, 'FetchResults', {
        operationHandle: exec.operationHandle,
        orientation: 0,
        maxRows: 10,
      });
      const values = page.results.columns?.[0]?.i64Val?.values ?? [];
      pages.push(values.length);
      if (!page.hasMoreRows) break;
    }
    expect(pages).toEqual([10, 10, 5]);
    const after = await call(app, 'FetchResults', {
      operationHandle: exec.operationHandle,
      orientation: 0,
      maxRows: 10,
    });
    expect(after.results.columns[0].i64Val.values).toEqual([]);
  });
});

describe('parsers', () => {
  it('parses Databricks type text, nested and qualified', () => {
    expect(parseType('DECIMAL(10,2)')).toEqual({ kind: 'decimal', precision: 10, scale: 2 });
    expect(parseType('ARRAY<STRUCT<a: INT, `b c`: MAP<STRING, BIGINT>>>')).toEqual({
      kind: 'array',
      element: {
        kind: 'struct',
        fields: [
          { name: 'a', type: { kind: 'primitive', name: 'int' }, nullable: true },
          {
            name: 'b c',
            type: {
              kind: 'map',
              key: { kind: 'primitive', name: 'string' },
              value: { kind: 'primitive', name: 'bigint' },
            },
            nullable: true,
          },
        ],
      },
    });
    expect(scalarName(parseType('INTERVAL YEAR TO MONTH'))).toBe('INTERVAL_YM');
    // Text Unity Catalog's parser rejects still reaches the client, as a STRING.
    expect(parseType('GEOGRAPHY(4326)')).toEqual({ kind: 'primitive', name: 'string' });
  });

  it('recognises session commands after leading comments', () => {
    expect(sessionCommand('/* {"app": "dbt"} */ USE CATALOG `my cat`')).toEqual({
      kind: 'use',
      catalog: 'my cat',
      schema: 'default',
    });
    expect(sessionCommand('use a.b')).toEqual({ kind: 'use', catalog: 'a', schema: 'b' });
    expect(sessionCommand('USE SCHEMA s')).toEqual({ kind: 'use', schema: 's' });
    expect(sessionCommand('-- x\nSET spark.sql.session.timeZone = America/New_York')).toEqual({
      kind: 'set',
      key: 'spark.sql.session.timeZone',
      value: 'America/New_York',
    });
    expect(sessionCommand("SET TIME ZONE 'Asia/Tokyo'")).toEqual({
      kind: 'set',
      key: 'spark.sql.session.timeZone',
      value: 'Asia/Tokyo',
    });
    expect(sessionCommand('SELECT 1')).toBeUndefined();
  });

  it('matches JDBC patterns', () => {
    expect(pattern('t%')('table')).toBe(true);
    expect(pattern('t_b')('tab')).toBe(true);
    expect(pattern('t_b')('tabs')).toBe(false);
    expect(pattern('my\\_t')('my_t')).toBe(true);
    expect(pattern('my\\_t')('myxt')).toBe(false);
    expect(pattern(null)('anything')).toBe(true);
  });
});
