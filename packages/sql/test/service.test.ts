/**
 * The starter warehouse (the seeds' `warehouse_id: "dev"` example on a fresh server), its strict mode, and the
 * statement service other front ends use (`api.statements`), in process on the real engine.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceInstance } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import type { Hono } from 'hono';
import { sqlService, STARTER_WAREHOUSE_NAME, type SqlApi } from '../src/index.js';

let instance: ServiceInstance<SqlApi> | undefined;
afterEach(async () => {
  await instance?.close?.();
  instance = undefined;
});

async function setup(config: Record<string, string> = {}): Promise<{ app: Hono; api: SqlApi }> {
  const made = await serviceApp(sqlService, {
    config: { MINILAKE_WAREHOUSE_START_DELAY: '0', ...config },
  });
  instance = made.instance;
  return { app: made.app, api: made.instance.api! };
}

const json = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T;

interface Statement {
  statement_id: string;
  status: { state: string };
  result?: { data_array?: (string | null)[][] };
}

describe('the starter warehouse', () => {
  it("is listed on a fresh server, runs the seeds' curl example, then lists as started", async () => {
    const { app } = await setup();
    const before = await json<{ warehouses?: Record<string, unknown>[] }>(
      app.request('/api/2.0/sql/warehouses', jsonInit('GET')),
    );
    expect(before.warehouses).toEqual([
      expect.objectContaining({ id: 'dev', name: STARTER_WAREHOUSE_NAME, state: 'STOPPED' }),
    ]);
    const preview = await json<Record<string, unknown>>(
      app.request('/api/2.0/sql/warehouses/dev', jsonInit('GET')),
    );
    expect(preview).toMatchObject({ id: 'dev', name: STARTER_WAREHOUSE_NAME, state: 'STOPPED' });

    // Verbatim: no wait_timeout (the default 10s), no catalog.
    const r = await json<Statement>(
      app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: 'dev', statement: 'SELECT 42 AS answer' }),
      ),
    );
    expect(r.status.state).toBe('SUCCEEDED');
    expect(r.result?.data_array).toEqual([['42']]);

    const list = await json<{ warehouses: Record<string, unknown>[] }>(
      app.request('/api/2.0/sql/warehouses', jsonInit('GET')),
    );
    expect(list.warehouses).toHaveLength(1);
    expect(list.warehouses[0]).toMatchObject({
      id: 'dev',
      name: 'Serverless Starter Warehouse',
      cluster_size: 'Small',
      auto_stop_mins: 10,
      enable_serverless_compute: true,
      warehouse_type: 'PRO',
      state: 'RUNNING',
      odbc_params: { path: '/sql/1.0/warehouses/dev' },
    });
    const hist = await json<{ res: { query_id: string; warehouse_id: string }[] }>(
      app.request('/api/2.0/sql/history/queries', jsonInit('GET')),
    );
    expect(hist.res.map((q) => [q.query_id, q.warehouse_id])).toEqual([[r.statement_id, 'dev']]);
  });

  it('other unknown ids stay 404, and a deleted starter warehouse is gone', async () => {
    const { app } = await setup();
    await expectDatabricksError(
      await app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: 'nope', statement: 'SELECT 1' }),
      ),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    expect((await app.request('/api/2.0/sql/warehouses/dev', jsonInit('DELETE'))).status).toBe(200);
    const list = await json<{ warehouses?: unknown[] }>(
      app.request('/api/2.0/sql/warehouses', jsonInit('GET')),
    );
    expect(list.warehouses ?? []).toHaveLength(0);
    await expectDatabricksError(
      await app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: 'dev', statement: 'SELECT 1' }),
      ),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });

  it('MINILAKE_SQL_STRICT_WAREHOUSES=1: `dev` is an unknown id, as on Databricks', async () => {
    const { app } = await setup({ MINILAKE_SQL_STRICT_WAREHOUSES: '1' });
    await expectDatabricksError(
      await app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: 'dev', statement: 'SELECT 42 AS answer' }),
      ),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await app.request('/api/2.0/sql/warehouses/dev', jsonInit('GET')),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    const list = await json<{ warehouses?: unknown[] }>(
      app.request('/api/2.0/sql/warehouses', jsonInit('GET')),
    );
    expect(list.warehouses ?? []).toHaveLength(0);
  });
});

describe('the statement service (api.statements)', () => {
  it('runs Databricks SQL in the request namespace with typed columns, and records it in query history', async () => {
    const { app, api } = await setup();
    // The namespace is the request's: a schema that does not exist fails the statement, as on Databricks.
    const made = await api.statements.run({ statement: 'SELECT 1', warehouseId: 'dev', schema: 'nope' });
    expect(made.state).toBe('FAILED');
    expect(made.error?.message).toContain('SCHEMA_NOT_FOUND');
    const out = await api.statements.run({
      statement: 'SELECT :n + 1 AS n, nvl(NULL, current_schema()) AS s, CAST(2.5 AS DECIMAL(10,2)) AS d',
      warehouseId: 'dev',
      parameters: [{ name: 'n', value: '41', type: 'INT' }],
      client: 'MiniLake test front end',
    });
    expect(out.error).toBeUndefined();
    expect(out.state).toBe('SUCCEEDED');
    expect(out.rows).toEqual([['42', 'default', '2.50']]);
    expect(out.columns?.map((c) => [c.name, c.type_name])).toEqual([
      ['n', 'INT'],
      ['s', 'STRING'],
      ['d', 'DECIMAL'],
    ]);
    const failed = await api.statements.run({ statement: 'SELECT * FROM no_such_t', warehouseId: 'dev' });
    expect(failed.state).toBe('FAILED');
    expect(failed.error?.message).toContain('TABLE_OR_VIEW_NOT_FOUND');
    const hist = await json<{ res: { query_id: string; client_application: string; status: string }[] }>(
      app.request('/api/2.0/sql/history/queries', jsonInit('GET')),
    );
    expect(hist.res.map((q) => [q.query_id, q.client_application, q.status])).toEqual([
      [failed.statementId, 'Databricks SQL Statement Execution API', 'FAILED'],
      [out.statementId, 'MiniLake test front end', 'FINISHED'],
      [made.statementId, 'Databricks SQL Statement Execution API', 'FAILED'],
    ]);
  });

  it('cancels a running statement through the service', async () => {
    const { api } = await setup();
    const stmt = api.statements.execute({
      statement: 'SELECT count(*) FROM range(3000000000) a, range(10) b',
      warehouseId: 'dev',
    });
    expect(await api.statements.wait(stmt, 200)).toBe(false);
    api.statements.cancel(stmt);
    expect(stmt.state).toBe('CANCELED');
    expect(api.statements.get(stmt.id)?.state).toBe('CANCELED');
  });
});
