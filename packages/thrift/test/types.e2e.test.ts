/**
 * Every Databricks type through the real `@databricks/sql` driver (2.1.0) against the built server, with Arrow
 * results (the driver's default) and column-based ones (`arrowEnabled: false`), plus ANSI intervals and the
 * session time zone. Plain http, as in thrift.e2e.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DBSQLClient } from '@databricks/sql';
import { jsonInit, startServer, uniqueName, type RunningServer } from '@minilake/testing';

let server: RunningServer;
let warehouseId: string;

/** A driver over http (its private connection options wrapped), Arrow on or off (its private config). */
async function connect(arrow: boolean): Promise<DBSQLClient> {
  const client = new DBSQLClient();
  const c = client as unknown as {
    getConnectionOptions(o: unknown): Record<string, unknown>;
    config: Record<string, unknown>;
  };
  const original = c.getConnectionOptions.bind(client);
  c.getConnectionOptions = (o) => ({ ...original(o), https: false });
  c.config.arrowEnabled = arrow;
  await client.connect({
    host: '127.0.0.1',
    port: server.port,
    path: `/sql/1.0/warehouses/${warehouseId}`,
    token: 'dapi-test',
  });
  return client;
}

async function row(
  arrow: boolean,
  statement: string,
  configuration?: Record<string, string>,
): Promise<Record<string, unknown>> {
  const client = await connect(arrow);
  const session = await client.openSession(configuration ? { configuration } : {});
  const op = await session.executeStatement(statement);
  const rows = (await op.fetchAll()) as Record<string, unknown>[];
  await op.close();
  await session.close();
  await client.close();
  return rows[0]!;
}

beforeAll(async () => {
  server = await startServer({ env: { MINILAKE_WAREHOUSE_START_DELAY: '0.1' } });
  const res = await fetch(
    `${server.url}/api/2.0/sql/warehouses`,
    jsonInit('POST', { name: uniqueName('wh') }),
  );
  warehouseId = ((await res.json()) as { id: string }).id;
});
afterAll(async () => {
  await server?.stop();
});

/** Expression, the driver's value with Arrow results, and with column-based results. */
const TYPES: [string, unknown, unknown][] = [
  ['true', true, true],
  ['CAST(1 AS TINYINT)', 1, 1],
  ['CAST(2 AS SMALLINT)', 2, 2],
  ['3', 3, 3],
  ['CAST(4 AS BIGINT)', 4, 4],
  ['CAST(0.5 AS FLOAT)', 0.5, 0.5],
  ['1.5D', 1.5, 1.5],
  ['CAST(2.50 AS DECIMAL(10,2))', 2.5, 2.5],
  ["'a'", 'a', 'a'],
  ["CAST('ab' AS VARCHAR(5))", 'ab', 'ab'],
  ["CAST('abc' AS BINARY)", Buffer.from('abc'), Buffer.from('abc')],
  // Column-based sets carry dates and timestamps as Databricks' text, which the driver passes through.
  ["DATE'2024-01-02'", new Date('2024-01-02T00:00:00Z'), '2024-01-02'],
  ["TIMESTAMP'2024-01-02 03:04:05.123'", new Date('2024-01-02T03:04:05.123Z'), '2024-01-02 03:04:05.123'],
  ['array(1, 2)', [1, 2], [1, 2]],
  ["map('k', 1)", { k: 1 }, { k: 1 }],
  ["named_struct('x', 1, 'y', 'z')", { x: 1, y: 'z' }, { x: 1, y: 'z' }],
  ["INTERVAL '1-2' YEAR TO MONTH", '1-2', '1-2'],
  ["INTERVAL '1 02:03:04' DAY TO SECOND", '1 02:03:04.000000000', '1 02:03:04.000000000'],
  [`parse_json('{"a":1}')`, '{"a":1}', '{"a":1}'],
  ['NULL', null, null],
];
const QUERY = `SELECT ${TYPES.map(([e], i) => `${e} AS c${i}`).join(', ')}`;

/** Buffers and Dates compared by content. */
const plain = (v: unknown): unknown =>
  v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v instanceof Date ? v.toISOString() : v;

describe('@databricks/sql type fidelity', () => {
  for (const arrow of [true, false]) {
    it(`reads every Databricks type (${arrow ? 'Arrow' : 'column-based'} results)`, async () => {
      const r = await row(arrow, QUERY);
      const got = TYPES.map((_, i) => plain(r[`c${i}`]));
      expect(got).toEqual(TYPES.map(([, a, c]) => plain(arrow ? a : c)));
    });
  }

  it('reads TIMESTAMP literals in the session time zone the session configuration names', async () => {
    const q =
      "SELECT TIMESTAMP'2024-06-01 12:00:00' AS ts, hour(TIMESTAMP'2024-06-01 12:00:00Z') AS h, " +
      "DATE'2024-01-31' + INTERVAL 1 DAY AS d";
    const r = await row(true, q, { 'spark.sql.session.timeZone': 'America/New_York' });
    expect((r.ts as Date).toISOString()).toBe('2024-06-01T16:00:00.000Z');
    expect(r.h).toBe(8);
    expect((r.d as Date).toISOString()).toBe('2024-02-01T00:00:00.000Z');
  });
});
