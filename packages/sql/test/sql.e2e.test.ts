import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import { ApiError } from '@databricks/sdk-experimental';
import { startServer, uniqueName, workspaceClient, type RunningServer } from '@minilake/testing';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ env: { MINILAKE_WAREHOUSE_START_DELAY: '0.2' } });
});
afterAll(async () => {
  await server?.stop();
});

const terminal = new Set(['SUCCEEDED', 'FAILED', 'CANCELED', 'CLOSED']);

describe('SQL through the TypeScript SDK', () => {
  it('creates a warehouse and waits for RUNNING, stops and starts it, lists it and its data source', async () => {
    const w = workspaceClient(server.url);
    const name = uniqueName('wh');
    const waiter = await w.warehouses.create({ name, cluster_size: 'Small' });
    const running = await waiter.wait();
    expect(running).toMatchObject({
      name,
      state: 'RUNNING',
      auto_stop_mins: 120,
      enable_photon: true,
      max_num_clusters: 1,
      spot_instance_policy: 'COST_OPTIMIZED',
      channel: { name: 'CHANNEL_NAME_CURRENT' },
      num_clusters: 1,
    });
    expect(running.jdbc_url).toContain(running.id!);
    const id = running.id!;

    expect((await (await w.warehouses.stop({ id })).wait()).state).toBe('STOPPED');
    expect((await (await w.warehouses.start({ id })).wait()).state).toBe('RUNNING');

    const listed: string[] = [];
    for await (const wh of w.warehouses.list({})) listed.push(wh.id!);
    expect(listed).toContain(id);
    // The wire answer is a bare array; this SDK version copies it into an object keyed "0", "1", ...
    // (Object.assign({}, body)), so read its values.
    const raw = await (await fetch(`${server.url}/api/2.0/preview/sql/data_sources`)).json();
    expect(Array.isArray(raw)).toBe(true);
    const sources = Object.values(await w.dataSources.list());
    expect(sources.map((d) => d.warehouse_id)).toContain(id);

    await w.warehouses.delete({ id });
    expect((await w.warehouses.get({ id })).state).toBe('DELETED');
  });

  it('executes statements synchronously and asynchronously, reads every format, cancels', async () => {
    const w = workspaceClient(server.url);
    const wh = (await (await w.warehouses.create({ name: uniqueName('wh'), cluster_size: 'Small' })).wait())
      .id!;

    const r = await w.statementExecution.executeStatement({
      warehouse_id: wh,
      statement: "SELECT 1 AS one, 'a' AS s, CAST(2.50 AS DECIMAL(10,2)) AS d",
      wait_timeout: '30s',
    });
    expect(r.status?.state).toBe('SUCCEEDED');
    expect(r.result?.data_array).toEqual([['1', 'a', '2.50']]);
    expect(r.manifest?.schema?.columns?.map((c) => c.type_name)).toEqual(['INT', 'STRING', 'DECIMAL']);

    const failed = await w.statementExecution.executeStatement({
      warehouse_id: wh,
      statement: 'SELECT * FROM nope_tbl',
    });
    expect(failed.status?.state).toBe('FAILED');
    expect(failed.status?.error?.message).toBeTruthy();

    const a = await w.statementExecution.executeStatement({
      warehouse_id: wh,
      statement: 'SELECT count(*) AS c FROM range(20000000)',
      wait_timeout: '0s',
    });
    expect(['PENDING', 'RUNNING']).toContain(a.status?.state);
    let got = a;
    for (let i = 0; i < 600 && !terminal.has(got.status!.state!); i++) {
      await new Promise((res) => setTimeout(res, 50));
      got = await w.statementExecution.getStatement({ statement_id: a.statement_id! });
    }
    expect(got.status?.state).toBe('SUCCEEDED');
    expect(got.result?.data_array).toEqual([['20000000']]);

    const arrow = await w.statementExecution.executeStatement({
      warehouse_id: wh,
      statement: "SELECT id, 'v' || id AS s FROM range(3000)",
      disposition: 'EXTERNAL_LINKS',
      format: 'ARROW_STREAM',
    });
    const link = arrow.result!.external_links![0]!;
    const bytes = new Uint8Array(await (await fetch(link.external_link!)).arrayBuffer());
    const table = tableFromIPC(bytes);
    expect(table.numRows).toBe(3000);
    expect(table.getChild('s')!.get(2999)).toBe('v2999');
    const chunk = await w.statementExecution.getStatementResultChunkN({
      statement_id: arrow.statement_id!,
      chunk_index: 0,
    });
    expect(chunk.external_links?.[0]?.row_count).toBe(3000);

    const long = await w.statementExecution.executeStatement({
      warehouse_id: wh,
      statement: 'SELECT count(*) FROM range(3000000000) a CROSS JOIN range(10) b',
      wait_timeout: '0s',
    });
    await w.statementExecution.cancelExecution({ statement_id: long.statement_id! });
    expect(
      (await w.statementExecution.getStatement({ statement_id: long.statement_id! })).status?.state,
    ).toBe('CANCELED');

    const history = await w.queryHistory.list({ filter_by: { warehouse_ids: [wh], statuses: ['CANCELED'] } });
    expect(history.res?.map((q) => q.query_id)).toEqual([long.statement_id]);

    await expect(
      w.statementExecution.getStatement({ statement_id: 'no-such-statement' }),
    ).rejects.toBeInstanceOf(ApiError);
  });
});

describe('persistence across kill -9', () => {
  it('keeps warehouses (resuming a start under way) and query history', async () => {
    const env = { MINILAKE_PERSIST: '1', MINILAKE_WAREHOUSE_START_DELAY: '1' };
    const first = await startServer({ env });
    let second: RunningServer | undefined;
    try {
      const w1 = workspaceClient(first.url);
      const a = (await (await w1.warehouses.create({ name: 'durable', cluster_size: 'Small' })).wait()).id!;
      const st = await w1.statementExecution.executeStatement({
        warehouse_id: a,
        statement: "SELECT 'persisted' AS p",
      });
      expect(st.result?.data_array).toEqual([['persisted']]);
      const b = (await w1.warehouses.create({ name: 'starting', cluster_size: 'Small' })).id!;
      await first.kill9();

      second = await startServer({ env, dataDir: first.dataDir });
      const w2 = workspaceClient(second.url);
      expect((await w2.warehouses.get({ id: a })).state).toBe('RUNNING');
      const resumed = await w2.warehouses.get({ id: b });
      expect(['STARTING', 'RUNNING']).toContain(resumed.state);
      let state = resumed.state;
      for (let i = 0; i < 100 && state !== 'RUNNING'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        state = (await w2.warehouses.get({ id: b })).state;
      }
      expect(state).toBe('RUNNING');
      const history = await w2.queryHistory.list({ filter_by: { warehouse_ids: [a] } });
      expect(history.res?.map((q) => [q.query_id, q.status])).toEqual([[st.statement_id, 'FINISHED']]);
    } finally {
      await second?.stop();
      await first.stop();
      await rm(first.dataDir, { recursive: true, force: true });
    }
  });
});
