/**
 * Databricks SQL through the real server and the official TypeScript SDK: the dialect layer behind the
 * Statement Execution API, checked on the wire (JSON_ARRAY strings, manifest types, error codes and SQLSTATEs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, uniqueName, workspaceClient, type RunningServer } from '@minilake/testing';

let server: RunningServer;
let wh: string;
let w: ReturnType<typeof workspaceClient>;

beforeAll(async () => {
  server = await startServer({ env: { MINILAKE_WAREHOUSE_START_DELAY: '0.2' } });
  w = workspaceClient(server.url);
  wh = (await (await w.warehouses.create({ name: uniqueName('wh'), cluster_size: 'Small' })).wait()).id!;
});
afterAll(async () => {
  await server?.stop();
});

async function run(statement: string, extra: Record<string, unknown> = {}) {
  return w.statementExecution.executeStatement({
    warehouse_id: wh,
    statement,
    wait_timeout: '30s',
    ...extra,
  });
}

describe('Databricks SQL on DuckDB over the Statement Execution API', () => {
  it('answers the acceptance query with Spark semantics', async () => {
    const r = await run(
      "SELECT nvl(NULL, 7) AS a, date_add('2024-01-01', 3) AS b, element_at(array(10,20,30), 1) AS c, concat('x', NULL) AS d, `one` FROM (SELECT 1 AS one)",
    );
    expect(r.status?.state).toBe('SUCCEEDED');
    expect(r.result?.data_array).toEqual([['7', '2024-01-04', '10', null, '1']]);
    const types = r.manifest?.schema?.columns?.map((c) => c.type_name);
    expect(types).toEqual(['INT', 'DATE', 'INT', 'STRING', 'INT']);
  });

  it('creates a catalog, schema and Delta table in SQL that the UC API sees, with :params bound', async () => {
    const cat = uniqueName('cat').replaceAll('-', '_');
    const create = await run(
      `CREATE CATALOG ${cat}; CREATE SCHEMA ${cat}.shop; USE ${cat}.shop;
       CREATE TABLE orders (id INT, customer STRING, total DECIMAL(10,2)) USING DELTA COMMENT 'orders';
       INSERT INTO orders VALUES (1, 'Ana', 459.90), (2, 'Bo', 12.00)`,
    );
    expect(create.status?.state).toBe('SUCCEEDED');
    expect(create.result?.data_array).toEqual([['2', '2']]);
    expect((await w.tables.get({ full_name: `${cat}.shop.orders` })).comment).toBe('orders');

    const r = await run('SELECT customer, total FROM orders WHERE id = :id', {
      catalog: cat,
      schema: 'shop',
      parameters: [{ name: 'id', value: '1', type: 'INT' }],
    });
    expect(r.result?.data_array).toEqual([['Ana', '459.90']]);

    const show = await run(`SHOW TABLES IN ${cat}.shop`);
    expect(show.manifest?.schema?.columns?.map((c) => c.name)).toEqual([
      'database',
      'tableName',
      'isTemporary',
    ]);
    expect(show.result?.data_array).toEqual([['shop', 'orders', 'false']]);

    const avg = await run(`SELECT avg(total) AS a FROM ${cat}.shop.orders`);
    expect(avg.result?.data_array).toEqual([['235.950000']]);
  });

  it('fails like Databricks: table not found, division by zero, unsupported Delta time travel', async () => {
    const nf = await run('SELECT * FROM no_such_table_here');
    expect(nf.status?.state).toBe('FAILED');
    expect(nf.status?.error?.message).toContain('[TABLE_OR_VIEW_NOT_FOUND]');
    expect((nf.status as { sql_state?: string }).sql_state).toBe('42P01');

    const dz = await run('SELECT 1 / 0');
    expect(dz.status?.state).toBe('FAILED');
    expect(dz.status?.error?.message).toContain('[DIVIDE_BY_ZERO]');

    const tt = await run('SELECT * FROM range(3) VERSION AS OF 0');
    expect(tt.status?.state).toBe('FAILED');
  });
});
