/**
 * The real `@databricks/sql` driver (2.1.0) against the built server over plain http. The driver hard-codes
 * https, so the test wraps its connection options with https: false (README, "Client settings").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DBSQLClient } from '@databricks/sql';
import { serverEntry, startServer, uniqueName, jsonInit, type RunningServer } from '@minilake/testing';

/** A DBSQLClient whose connection options say https: false (its private getConnectionOptions, wrapped). */
function httpClient(): DBSQLClient {
  const client = new DBSQLClient();
  const c = client as unknown as { getConnectionOptions(o: unknown): Record<string, unknown> };
  const original = c.getConnectionOptions.bind(client);
  c.getConnectionOptions = (o) => ({ ...original(o), https: false });
  return client;
}

let server: RunningServer;
let warehouseId: string;

async function call(path: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(server.url + path, init);
  return (await res.json()) as Record<string, unknown>;
}

async function connect(): Promise<DBSQLClient> {
  const client = httpClient();
  await client.connect({
    host: '127.0.0.1',
    port: server.port,
    path: `/sql/1.0/warehouses/${warehouseId}`,
    token: 'dapi-test',
  });
  return client;
}

beforeAll(async () => {
  server = await startServer({ env: { MINILAKE_WAREHOUSE_START_DELAY: '0.1' } });
  const wh = await call('/api/2.0/sql/warehouses', jsonInit('POST', { name: uniqueName('wh') }));
  warehouseId = wh.id as string;
});
afterAll(async () => {
  await server?.stop();
});

describe('@databricks/sql over Thrift', () => {
  it('runs a query with typed values and reads it back as the driver converts it', async () => {
    const client = await connect();
    const session = await client.openSession();
    const op = await session.executeStatement(
      "SELECT 1 AS i, 'a' AS s, CAST(2.50 AS DECIMAL(10,2)) AS d, DATE'2024-01-02' AS day, " +
        "TIMESTAMP'2024-01-02 03:04:05' AS ts, true AS b, array(1, 2) AS arr, NULL AS n",
    );
    const rows = (await op.fetchAll()) as Record<string, unknown>[];
    await op.close();
    expect(rows).toHaveLength(1);
    const r = rows[0]!;
    expect(r.i).toBe(1);
    expect(r.s).toBe('a');
    expect(r.d).toBe(2.5);
    expect(r.b).toBe(true);
    expect(r.arr).toEqual([1, 2]);
    expect(r.n).toBeNull();
    expect((r.day as Date).toISOString()).toBe('2024-01-02T00:00:00.000Z');
    expect((r.ts as Date).toISOString()).toBe('2024-01-02T03:04:05.000Z');
    await session.close();
    await client.close();
  });

  it('pages a large result, binds named parameters and sees tables made through the Statement API', async () => {
    const cat = uniqueName('cat');
    await call('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: cat }));
    await call(
      '/api/2.0/sql/statements',
      jsonInit('POST', {
        warehouse_id: warehouseId,
        statement: `CREATE TABLE ${cat}.default.t AS SELECT 7 AS id, 'seven' AS name`,
        wait_timeout: '30s',
      }),
    );
    const client = await connect();
    const session = await client.openSession({ initialCatalog: cat, initialSchema: 'default' });

    const big = await session.executeStatement('SELECT * FROM range(250000)', { maxRows: 100000 });
    expect(await big.fetchAll()).toHaveLength(250000);
    await big.close();

    const p = await session.executeStatement('SELECT :x + 1 AS y', { namedParameters: { x: 41 } });
    expect(await p.fetchAll()).toEqual([{ y: 42 }]);
    await p.close();

    const t = await session.executeStatement('SELECT id, name FROM t');
    expect(await t.fetchAll()).toEqual([{ id: 7, name: 'seven' }]);
    await t.close();

    const tables = await session.getTables({ catalogName: cat, schemaName: 'default' });
    const names = ((await tables.fetchAll()) as { TABLE_NAME: string }[]).map((x) => x.TABLE_NAME);
    expect(names).toContain('t');
    await tables.close();

    const cols = await session.getColumns({ catalogName: cat, schemaName: 'default', tableName: 't' });
    expect(((await cols.fetchAll()) as { COLUMN_NAME: string }[]).map((x) => x.COLUMN_NAME)).toEqual([
      'id',
      'name',
    ]);
    await cols.close();

    const catalogs = await session.getCatalogs();
    expect(((await catalogs.fetchAll()) as { TABLE_CAT: string }[]).map((x) => x.TABLE_CAT)).toContain(cat);
    await catalogs.close();
    await session.close();
    await client.close();

    // Every Thrift statement is in query history, named after the driver.
    const history = await call('/api/2.0/sql/history/queries?max_results=100');
    const texts = (history.res as { query_text: string; client_application?: string }[]).filter(
      (q) => q.query_text === 'SELECT id, name FROM t',
    );
    expect(texts[0]?.client_application).toMatch(/^NodejsDatabricksSqlConnector/);
  });

  it('reports a failing statement as the driver error, with the Databricks error class first', async () => {
    const client = await connect();
    const session = await client.openSession();
    await expect(
      (async () => {
        const op = await session.executeStatement('SELECT * FROM no_such_catalog.no_such.table_x');
        await op.fetchAll();
      })(),
    ).rejects.toThrow(/^\[[A-Z_]+\] Catalog 'no_such_catalog' was not found/);
    await session.close();
    await client.close();
  });
});

describe('@databricks/sql over TLS (MINILAKE_TLS=1)', () => {
  it('serves https with a self-signed certificate for localhost that the driver trusts through customCaCert', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'minilake-tls-'));
    const proc = spawn(process.execPath, [serverEntry, '--port', '0'], {
      env: { ...process.env, MINILAKE_DATA_DIR: dataDir, MINILAKE_TLS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        const onData = (d: Buffer) => {
          out += d.toString();
          const m = /listening on https:\/\/127\.0\.0\.1:(\d+) /.exec(out);
          if (m) resolve(Number(m[1]));
        };
        proc.stdout!.on('data', onData);
        proc.stderr!.on('data', onData);
        proc.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
      });
      const client = new DBSQLClient();
      await client.connect({
        host: 'localhost',
        port,
        path: '/sql/1.0/warehouses/dev',
        token: 'dapi-test',
        customCaCert: readFileSync(path.join(dataDir, 'tls', 'cert.pem')),
      });
      const session = await client.openSession();
      const op = await session.executeStatement("SELECT 'secure' AS s");
      expect(await op.fetchAll()).toEqual([{ s: 'secure' }]);
      await op.close();
      await session.close();
      await client.close();
    } finally {
      proc.kill('SIGTERM');
    }
  });
});
