/**
 * A fresh server as the TypeScript SDK and a browser meet it: the start-up lines name the addresses, `/`
 * opens the UI, `/mcp` with MCP off says how to turn it on, and the workspace has its built-in catalogs and
 * the starter warehouse. MINILAKE_EMPTY=1 starts without the catalogs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, workspaceClient, type RunningServer } from '@minilake/testing';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('a fresh server', () => {
  it('names its addresses when it starts', async () => {
    // The lines follow the "listening on" one the helper waits for.
    await expect.poll(() => server.output()).toContain(`Web UI:        ${server.url}/ui/`);
    const out = server.output();
    expect(out).toMatch(/MCP: +off \(MINILAKE_MCP=1/);
    expect(out).toMatch(/JupyterLab: +(http:\/\/\S+\/jupyter\/lab|not installed)/);
  });

  it('sends / to the UI and explains /mcp when MCP is off', async () => {
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([302, '/ui/']);
    const mcp = await fetch(`${server.url}/mcp`, { method: 'POST', body: '{}' });
    expect(mcp.status).toBe(404);
    expect(((await mcp.json()) as { message: string }).message).toContain('MINILAKE_MCP=1');
  });

  it("sends a job run's run_page_url to the UI's page for that run", async () => {
    const w = workspaceClient(server.url);
    const job = await w.jobs.create({
      name: 'fh',
      tasks: [{ task_key: 'c', condition_task: { op: 'EQUAL_TO', left: '1', right: '1' } }],
    });
    const { run_id } = await w.jobs.runNow({ job_id: job.job_id! });
    const run = await w.jobs.getRun({ run_id: run_id! });
    expect(run.run_page_url).toBe(`${server.url}/jobs/${job.job_id}/runs/${run_id}?o=1000000000000000`);
    const page = await fetch(run.run_page_url!, { redirect: 'manual' });
    expect([page.status, page.headers.get('location')]).toEqual([
      302,
      `/ui/jobs/${job.job_id}/runs/${run_id}`,
    ]);
    const table = await fetch(`${server.url}/explore/data/samples/tpch/orders`, { redirect: 'manual' });
    expect(table.headers.get('location')).toBe('/ui/catalog/samples/tpch/orders');
    for (const p of ['/sql/warehouses/dev', '/compute/sql-warehouses/dev/connection-details']) {
      const wh = await fetch(`${server.url}${p}?o=1000000000000000`, { redirect: 'manual' });
      expect([p, wh.headers.get('location')]).toEqual([p, '/ui/warehouses/dev']);
    }
  });

  it('has main.default, hive_metastore, samples and the starter warehouse', async () => {
    const w = workspaceClient(server.url);
    const catalogs: string[] = [];
    for await (const c of w.catalogs.list({})) catalogs.push(c.name!);
    expect(catalogs).toEqual(['hive_metastore', 'main', 'samples']);
    expect((await w.schemas.get({ full_name: 'main.default' })).name).toBe('default');
    const tables: string[] = [];
    for await (const t of w.tables.list({ catalog_name: 'samples', schema_name: 'tpch' }))
      tables.push(t.name!);
    expect(tables).toHaveLength(8);
    const warehouses = [];
    for await (const x of w.warehouses.list({})) warehouses.push([x.id, x.state]);
    expect(warehouses).toEqual([['dev', 'STOPPED']]);
    const r = await w.statementExecution.executeStatement({
      warehouse_id: 'dev',
      statement: 'SELECT count(*) FROM samples.tpch.customer',
      wait_timeout: '50s',
    });
    expect(r.result?.data_array).toEqual([['1500']]);
  });

  it('starts bare with MINILAKE_EMPTY=1', async () => {
    const bare = await startServer({ env: { MINILAKE_EMPTY: '1' } });
    try {
      const catalogs: string[] = [];
      for await (const c of workspaceClient(bare.url).catalogs.list({})) catalogs.push(c.name!);
      expect(catalogs).toEqual([]);
    } finally {
      await bare.stop();
    }
  });
});
