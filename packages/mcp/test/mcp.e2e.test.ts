/**
 * The MCP server through the official TypeScript MCP client over Streamable HTTP, against the real built
 * server (pnpm build first) started with MINILAKE_MCP=1.
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, uniqueName, type RunningServer } from '@minilake/testing';

type Result = {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
};

let server: RunningServer;
let client: Client;
const called = new Set<string>();
const results: string[] = [];

let protocolVersion: string | undefined;

async function connect(url: string): Promise<Client> {
  const c = new Client({ name: 'minilake-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`));
  await c.connect(transport);
  protocolVersion = transport.protocolVersion;
  return c;
}

async function raw(name: string, args: Record<string, unknown> = {}): Promise<Result> {
  called.add(name);
  const r = (await client.callTool({ name, arguments: args })) as Result;
  results.push(JSON.stringify(r));
  return r;
}

/** Calls a tool that must succeed; returns its structured result. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await raw(name, args);
  expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy();
  expect(r.structuredContent).toBeTypeOf('object');
  return r.structuredContent as Record<string, any>;
}

/** A tool failure must carry a Databricks error_code, never a stack trace. */
async function fails(name: string, args: Record<string, unknown>, code: RegExp): Promise<Result> {
  const r = await raw(name, args);
  expect(r.isError, JSON.stringify(r)).toBe(true);
  const text0 = r.content?.[0]?.text ?? '';
  expect(text0.split(':')[0]).toMatch(code);
  expect(r._meta?.['minilake/error_code']).toBe(text0.split(':')[0]);
  const text = JSON.stringify(r.content);
  expect(text).not.toMatch(/\n\s+at /);
  return r;
}

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A raw HTTP request with headers fetch would not let us set (Host). */
function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

beforeAll(async () => {
  server = await startServer({
    env: {
      MINILAKE_MCP: '1',
      MINILAKE_WAREHOUSE_START_DELAY: '0.1',
      MINILAKE_CLUSTER_START_DELAY: '0.1',
      MINILAKE_CLUSTER_TERMINATE_DELAY: '0.1',
    },
  });
  client = await connect(server.url);
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

describe('MCP over Streamable HTTP', () => {
  it('negotiates protocol 2025-11-25 and lists tools, resources, templates and prompts', async () => {
    expect(client.getServerVersion()?.name).toBe('minilake');
    expect(protocolVersion).toBe('2025-11-25');
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(67);
    for (const t of tools) {
      expect(t.description, t.name).toBeTruthy();
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      for (const [k, d] of Object.entries((t.inputSchema.properties ?? {}) as Record<string, any>))
        expect(d.description, `${t.name}.${k}`).toBeTruthy();
      expect(typeof t.annotations?.readOnlyHint).toBe('boolean');
      expect(typeof t.annotations?.destructiveHint).toBe('boolean');
      expect(typeof t.annotations?.idempotentHint).toBe('boolean');
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('list_catalogs')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('delete_table')?.annotations?.destructiveHint).toBe(true);
    expect(byName.get('setup_fixture')?.annotations?.idempotentHint).toBe(true);

    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    for (const u of ['capabilities', 'sql-dialect', 'pyspark-guide', 'catalogs'])
      expect(uris).toContain(`minilake://${u}`);
    expect(resources.length).toBeGreaterThanOrEqual(8);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(
      [
        'minilake://catalog/{catalog}',
        'minilake://run/{run_id}/output',
        'minilake://table/{full_name}',
        'minilake://workspace/{+path}',
      ].sort(),
    );
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(
      ['diagnose_error', 'explore_data', 'run_spark_job', 'seed_test_fixture'].sort(),
    );
    for (const p of prompts) {
      expect(p.description).toBeTruthy();
      const args = Object.fromEntries(
        (p.arguments ?? []).filter((a) => a.required).map((a) => [a.name, 'x']),
      );
      const got = await client.getPrompt({ name: p.name, arguments: args });
      expect(got.messages[0]?.content.type).toBe('text');
    }
  });

  it("runs the seeds' three-call flow and returns 35.75", async () => {
    const fx = await call('setup_fixture', { catalog: 'sales', schema: 'store' });
    expect(fx.full_name).toBe('sales.store');
    const again = await call('setup_fixture', { catalog: 'sales', schema: 'store' });
    expect(again.warehouse_id).toBe(fx.warehouse_id);
    expect(again.created).toEqual({ catalog: false, schema: false, warehouse: false });
    const seeded = await call('seed_table', {
      full_name: 'sales.store.orders',
      columns: [
        { name: 'id', type_text: 'BIGINT' },
        { name: 'amount', type_text: 'DECIMAL(10,2)' },
      ],
      rows: [
        [1, '10.50'],
        [2, '20.25'],
        [3, '5.00'],
      ],
    });
    expect(seeded.rows_inserted).toBe(3);
    const r = await call('run_sql', { statement: 'SELECT SUM(amount) FROM sales.store.orders' });
    expect(r.rows).toEqual([['35.75']]);
    expect(r.columns[0].type_text).toMatch(/DECIMAL/);
  });

  it('two concurrent setup_fixture calls make one catalog and one warehouse', async () => {
    const before = ((await call('list_warehouses')).warehouses as unknown[]).length;
    const other = await connect(server.url);
    const cat = uniqueName('fx');
    const [a, b] = await Promise.all([
      client.callTool({ name: 'setup_fixture', arguments: { catalog: cat, schema: 's1' } }),
      other.callTool({ name: 'setup_fixture', arguments: { catalog: cat, schema: 's1' } }),
    ]);
    await other.close();
    expect(a.isError).toBeFalsy();
    expect(b.isError).toBeFalsy();
    const sa = a.structuredContent as any;
    const sb = b.structuredContent as any;
    expect(sa.warehouse_id).toBe(sb.warehouse_id);
    expect([sa.created.catalog, sb.created.catalog].sort()).toEqual([false, true]);
    // The warehouse the first setup_fixture found or made is reused: none was added.
    expect(((await call('list_warehouses')).warehouses as unknown[]).length).toBe(before);
  });

  it('returns Databricks errors as isError with the error code', async () => {
    await fails('get_catalog', { name: 'no_such_catalog' }, /CATALOG_DOES_NOT_EXIST/);
    const bad = await fails(
      'run_sql',
      { statement: 'SELECT * FROM sales.store.no_such_table' },
      /TABLE_OR_VIEW_NOT_FOUND|BAD_REQUEST/,
    );
    expect(JSON.stringify(bad.content)).toContain('no_such_table');
    await fails('create_catalog', { name: 'sales' }, /ALREADY_EXISTS/);
    // Schema validation happens before any route is called.
    const invalid = (await client.callTool({ name: 'get_catalog', arguments: {} })) as Result;
    expect(invalid.isError).toBe(true);
  });

  it('refuses a foreign Host or Origin (DNS rebinding) and accepts loopback', async () => {
    expect(await post(server.url, { host: 'evil.example.com' }, initialize)).toBe(403);
    expect(await post(server.url, { host: `evil.example.com:${server.port}` }, initialize)).toBe(403);
    expect(await post(server.url, { origin: 'http://evil.example.com' }, initialize)).toBe(403);
    expect(await post(server.url, { host: `localhost:${server.port}` }, initialize)).toBe(200);
    expect(await post(server.url, { origin: `http://127.0.0.1:${server.port}` }, initialize)).toBe(200);
    const get = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    // A body over the limit is refused before it is parsed.
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { x: 'y'.repeat(17 * 1024 * 1024) },
    });
    expect(await post(server.url, {}, big)).toBe(413);
  });

  it('reads the resources', async () => {
    const caps = JSON.parse(
      ((await client.readResource({ uri: 'minilake://capabilities' })).contents[0] as any).text,
    );
    const sql = caps.services.find((s: any) => s.name === 'sql');
    expect(sql.enabled).toBe(true);
    expect(sql.mcp_tools).toContain('run_sql');
    const dialect = ((await client.readResource({ uri: 'minilake://sql-dialect' })).contents[0] as any).text;
    expect(dialect).toMatch(/UNSUPPORTED_FEATURE/);
    // The generated part: constructs run on this server, with their value or refusal.
    expect(dialect).toContain(
      '| 0-based array subscript | `SELECT array(10, 20, 30)[1] AS v` | runs: "20" |',
    );
    // Time travel works on Delta tables (the samples catalog's), and the resource says so.
    expect(dialect).toMatch(/\| Delta time travel \| .* \| runs: "5" \|/);
    expect(dialect).not.toMatch(/Refused[^#]*Delta time travel \(/);
    for (const uri of ['minilake://pyspark-guide', 'minilake://error-codes', 'minilake://agent-guide'])
      expect(((await client.readResource({ uri })).contents[0] as any).text.length).toBeGreaterThan(100);
    const cats = JSON.parse(
      ((await client.readResource({ uri: 'minilake://catalogs' })).contents[0] as any).text,
    );
    expect(cats.catalogs.find((c: any) => c.name === 'sales').schemas).toContain('store');
    const wh = JSON.parse(
      ((await client.readResource({ uri: 'minilake://warehouses' })).contents[0] as any).text,
    );
    expect(wh.warehouses.length).toBeGreaterThanOrEqual(1);
    const qh = JSON.parse(
      ((await client.readResource({ uri: 'minilake://query-history' })).contents[0] as any).text,
    );
    // The dialect probes just ran: they are the latest statements.
    expect(qh.queries.some((q: any) => /samples\.tpch\.region VERSION AS OF 1/.test(q.query_text))).toBe(
      true,
    );
    const tree = JSON.parse(
      ((await client.readResource({ uri: 'minilake://catalog/sales' })).contents[0] as any).text,
    );
    expect(tree.schemas.find((s: any) => s.name === 'store').tables[0].name).toBe('orders');
    const table = JSON.parse(
      ((await client.readResource({ uri: 'minilake://table/sales.store.orders' })).contents[0] as any).text,
    );
    expect(table.columns.map((c: any) => c.name)).toEqual(['id', 'amount']);
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    expect(listed).toContain('minilake://catalog/sales');
    await expect(client.readResource({ uri: 'minilake://catalog/nope' })).rejects.toThrow(
      /CATALOG_DOES_NOT_EXIST/,
    );
  });

  it('calls every tool, and no result or log carries a secret value', async () => {
    const { tools } = await client.listTools();
    const names = new Set(tools.map((t) => t.name));
    const secret = `s3cret-${uniqueName('v')}`;

    // admin
    expect((await call('health')).status).toBe('ok');
    expect((await call('list_services')).enabled).toContain('mcp');

    // unity catalog
    const cat = uniqueName('uc');
    await call('create_catalog', { name: cat, comment: 'mcp test' });
    expect((await call('list_catalogs')).catalogs.map((c: any) => c.name)).toContain(cat);
    expect((await call('get_catalog', { name: cat })).catalog.comment).toBe('mcp test');
    await call('create_schema', { name: 'raw', catalog_name: cat });
    expect((await call('list_schemas', { catalog_name: cat })).schemas.map((s: any) => s.name)).toContain(
      'raw',
    );
    expect((await call('get_schema', { full_name: `${cat}.raw` })).schema.name).toBe('raw');
    await call('create_table', {
      name: 'events',
      catalog_name: cat,
      schema_name: 'raw',
      table_type: 'MANAGED',
      columns: [
        { name: 'id', type_text: 'INT' },
        { name: 'kind', type_text: 'STRING' },
      ],
      comment: 'events',
    });
    expect((await call('list_tables', { catalog_name: cat, schema_name: 'raw' })).tables[0].name).toBe(
      'events',
    );
    expect((await call('describe_table', { full_name: `${cat}.raw.events` })).table.columns).toHaveLength(2);
    expect((await call('table_exists', { full_name: `${cat}.raw.events` })).table_exists).toBe(true);
    await call('seed_table', {
      full_name: `${cat}.raw.events`,
      columns: [
        { name: 'id', type_text: 'INT' },
        { name: 'kind', type_text: 'STRING' },
      ],
      rows: [
        { id: 1, kind: "it's" },
        { id: 2, kind: null },
      ],
      recreate: false,
    });
    expect((await call('preview_table', { full_name: `${cat}.raw.events` })).rows).toEqual([
      ['1', "it's"],
      ['2', null],
    ]);
    const tree = await call('describe_catalog_tree', { catalog: cat, include_columns: true });
    expect(tree.schemas.find((s: any) => s.name === 'raw').tables[0].columns[1]).toMatchObject({
      name: 'kind',
    });
    await call('create_volume', { name: 'landing', catalog_name: cat, schema_name: 'raw' });
    expect((await call('list_volumes', { catalog_name: cat, schema_name: 'raw' })).volumes[0].name).toBe(
      'landing',
    );
    expect((await call('get_volume', { full_name: `${cat}.raw.landing` })).volume.name).toBe('landing');

    // files in the volume, read back by SQL
    const vol = `/Volumes/${cat}/raw/landing`;
    await call('create_directory', { path: `${vol}/in` });
    await call('upload_file', { path: `${vol}/in/a.csv`, content: 'x,y\n1,2\n3,4\n' });
    expect((await call('list_directory', { path: `${vol}/in` })).contents[0].name).toBe('a.csv');
    expect((await call('download_file', { path: `${vol}/in/a.csv` })).content).toBe('x,y\n1,2\n3,4\n');
    expect((await call('get_file_metadata', { path: `${vol}/in/a.csv` })).size).toBe(12);
    const summed = await call('run_sql', {
      statement: `SELECT sum(y) AS s FROM read_csv('${vol}/in/a.csv')`,
    });
    expect(summed.rows).toEqual([['6']]);
    await call('delete_file', { path: `${vol}/in/a.csv` });

    // sql
    const started = await call('run_sql', {
      statement: 'SELECT :n AS n, id FROM range(3)',
      parameters: [{ name: 'n', value: '7', type: 'INT' }],
      max_rows: 2,
    });
    expect(started.truncated).toBe(true);
    expect((await call('get_statement', { statement_id: started.statement_id })).state).toBe('SUCCEEDED');
    expect((await call('cancel_statement', { statement_id: started.statement_id })).state).toBe('SUCCEEDED');
    expect((await call('explain_sql', { statement: 'SELECT 1' })).accepted).toBe(true);
    const refused = await call('explain_sql', {
      statement: `SELECT * FROM ${cat}.raw.events VERSION AS OF 1`,
    });
    expect(refused).toMatchObject({ accepted: false, error_code: expect.any(String) });
    expect((await call('query_history', { max_results: 5 })).queries.length).toBeGreaterThan(0);

    // warehouses
    const wh = await call('create_warehouse', { name: uniqueName('wh'), auto_stop_mins: 0 });
    expect(wh.id).toBeTruthy();
    await until(
      () => call('get_warehouse', { id: wh.id }),
      (w) => w.warehouse.state === 'RUNNING',
    );
    await call('stop_warehouse', { id: wh.id });
    await until(
      () => call('get_warehouse', { id: wh.id }),
      (w) => w.warehouse.state === 'STOPPED',
    );
    await call('start_warehouse', { id: wh.id });
    await call('delete_warehouse', { id: wh.id });

    // workspace
    const home = `/Users/${uniqueName('u')}`;
    await call('make_workspace_dirs', { path: `${home}/etl` });
    await call('put_workspace_file', { path: `${home}/etl/job.py`, content: 'print("hi")\n' });
    expect((await call('get_workspace_file', { path: `${home}/etl/job.py` })).content).toBe('print("hi")\n');
    expect((await call('list_workspace', { path: `${home}/etl` })).objects).toHaveLength(1);
    expect((await call('get_workspace_status', { path: `${home}/etl/job.py` })).object.object_type).toBe(
      'FILE',
    );
    const ws = (await client.readResource({ uri: `minilake://workspace${home}/etl/job.py` }))
      .contents[0] as any;
    expect(ws.text).toBe('print("hi")\n');
    await call('delete_workspace_object', { path: home, recursive: true });

    // dbfs
    const d = `/tmp/${uniqueName('d')}`;
    await call('dbfs_mkdirs', { path: d });
    await call('dbfs_put', { path: `${d}/a.txt`, content: 'hello dbfs' });
    expect((await call('dbfs_read', { path: `${d}/a.txt` })).content).toBe('hello dbfs');
    expect((await call('dbfs_read', { path: `${d}/a.txt`, offset: 6, length: 2 })).content).toBe('db');
    await call('dbfs_put', {
      path: `${d}/b.bin`,
      content: Buffer.from([0, 255, 1]).toString('base64'),
      encoding: 'base64',
    });
    expect((await call('dbfs_read', { path: `${d}/b.bin` })).encoding).toBe('base64');
    expect((await call('dbfs_list', { path: d })).files).toHaveLength(2);
    await call('dbfs_move', { source_path: `${d}/a.txt`, destination_path: `${d}/c.txt` });
    expect((await call('dbfs_get_status', { path: `${d}/c.txt` })).file.file_size).toBe(10);
    await call('dbfs_delete', { path: d, recursive: true });

    // secrets: the value goes in and never comes out
    const scope = uniqueName('scope');
    await call('create_secret_scope', { scope });
    expect((await call('list_secret_scopes')).scopes.map((s: any) => s.name)).toContain(scope);
    const put = await call('put_secret', { scope, key: 'db-password', string_value: secret });
    expect(JSON.stringify(put)).not.toContain(secret);
    expect((await call('list_secrets', { scope })).secrets[0].key).toBe('db-password');
    await call('delete_secret', { scope, key: 'db-password' });
    await call('delete_secret_scope', { scope });

    // clusters
    const cl = await call('create_cluster', { cluster_name: uniqueName('c'), autotermination_minutes: 0 });
    expect((await call('list_clusters')).clusters.map((c: any) => c.cluster_id)).toContain(cl.cluster_id);
    expect((await call('list_spark_versions')).versions.length).toBeGreaterThan(0);
    await until(
      () => call('get_cluster', { cluster_id: cl.cluster_id }),
      (c) => c.cluster.state === 'RUNNING',
    );
    await call('restart_cluster', { cluster_id: cl.cluster_id });
    await until(
      () => call('get_cluster', { cluster_id: cl.cluster_id }),
      (c) => c.cluster.state === 'RUNNING',
    );
    await call('terminate_cluster', { cluster_id: cl.cluster_id });
    await until(
      () => call('get_cluster', { cluster_id: cl.cluster_id }),
      (c) => c.cluster.state === 'TERMINATED',
    );
    await call('start_cluster', { cluster_id: cl.cluster_id });

    // jobs (registered only when the jobs service is enabled)
    if (names.has('create_job')) {
      const job = await call('create_job', {
        name: uniqueName('job'),
        tasks: [{ task_key: 't', spark_python_task: { python_file: '/Workspace/none.py' } }],
      });
      expect((await call('get_job', { job_id: job.job_id })).job.job_id).toBe(job.job_id);
      expect((await call('list_jobs')).jobs.length).toBeGreaterThan(0);
      const run = await raw('run_job', { job_id: job.job_id });
      const runId = (run.structuredContent as any)?.run_id;
      if (runId !== undefined) {
        await raw('get_run', { run_id: runId });
        await raw('get_run_output', { run_id: runId });
        await raw('cancel_run', { run_id: runId });
      }
      await call('list_runs', { job_id: job.job_id });
      const script = await raw('run_python_script', { script: 'print(1 + 1)', timeout_seconds: 120 });
      if (!script.isError) expect((script.structuredContent as any).life_cycle_state).toBeTruthy();
      await call('delete_job', { job_id: job.job_id });
    }

    // Delta history and time travel on an EXTERNAL Delta table
    const loc = await mkdtemp(path.join(os.tmpdir(), 'mcp-delta-'));
    try {
      await call('run_sql', {
        statement: `CREATE TABLE ${cat}.raw.dt (id BIGINT) USING DELTA LOCATION '${path.join(loc, 't')}'`,
      });
      await call('run_sql', { statement: `INSERT INTO ${cat}.raw.dt VALUES (1), (2)` });
      await call('run_sql', { statement: `INSERT INTO ${cat}.raw.dt VALUES (3)` });
      const hist = await call('table_history', { full_name: `${cat}.raw.dt`, limit: 2 });
      const versionCol = hist.columns.findIndex((c: any) => c.name === 'version');
      expect(hist.rows.map((r: any) => r[versionCol])).toEqual(['2', '1']);
      expect((await call('read_table_as_of', { full_name: `${cat}.raw.dt`, version: 1 })).row_count).toBe(2);
      await fails(
        'read_table_as_of',
        { full_name: `${cat}.raw.dt`, timestamp: "x' OR 1=1 --" },
        /INVALID_PARAMETER_VALUE/,
      );
      const later = new Date(Date.now() + 1000).toISOString();
      // Statement errors come as the Statement API reports them: BAD_REQUEST with the error class in the text.
      const future = await fails(
        'read_table_as_of',
        { full_name: `${cat}.raw.dt`, timestamp: later },
        /BAD_REQUEST/,
      );
      expect(future.content?.[0]?.text).toContain('DELTA_TIMESTAMP_GREATER_THAN_COMMIT');
      await call('delete_table', { full_name: `${cat}.raw.dt` });
    } finally {
      await rm(loc, { recursive: true, force: true });
    }

    // snapshots: an experiment undone
    const snap = uniqueName('snap');
    expect((await call('snapshot_state', { name: snap })).name).toBe(snap);
    await call('create_schema', { catalog_name: cat, name: 'scratch' });
    expect((await call('list_snapshots')).snapshots.map((x: any) => x.name)).toContain(snap);
    await call('restore_state', { name: snap });
    expect((await call('list_schemas', { catalog_name: cat })).schemas.map((x: any) => x.name)).not.toContain(
      'scratch',
    );
    expect((await call('delete_snapshot', { name: snap })).deleted).toBe(snap);
    await fails('restore_state', { name: snap }, /RESOURCE_DOES_NOT_EXIST/);

    // cleanup tools
    await call('delete_volume', { full_name: `${cat}.raw.landing` });
    await call('delete_table', { full_name: `${cat}.raw.events` });
    expect((await call('table_exists', { full_name: `${cat}.raw.events` })).table_exists).toBe(false);
    await call('delete_schema', { full_name: `${cat}.raw` });
    await call('delete_catalog', { name: cat, force: true });
    expect((await call('reset_state')).reset).toContain('unity-catalog');
    expect((await call('list_catalogs')).catalogs.map((c: any) => c.name)).not.toContain('sales');
    // After a reset the MCP warehouse is found or made again.
    expect((await call('run_sql', { statement: 'SELECT 1 AS one' })).rows).toEqual([['1']]);

    expect([...names].filter((n) => !called.has(n))).toEqual([]);
    expect(results.join('\n')).not.toContain(secret);
    expect(server.output()).not.toContain(secret);
  });
});

describe('MCP with MINILAKE_PERSIST=1', () => {
  it('keeps what a tool acknowledged across kill -9', async () => {
    const env = { MINILAKE_MCP: '1', MINILAKE_PERSIST: '1', MINILAKE_WAREHOUSE_START_DELAY: '0.1' };
    const first = await startServer({ env });
    const c1 = await connect(first.url);
    await c1.callTool({ name: 'setup_fixture', arguments: { catalog: 'kept', schema: 's' } });
    const seeded = await c1.callTool({
      name: 'seed_table',
      arguments: {
        full_name: 'kept.s.t',
        columns: [{ name: 'amount', type_text: 'DECIMAL(10,2)' }],
        rows: [['1.25'], ['2.50']],
      },
    });
    expect(seeded.isError).toBeFalsy();
    await c1.close();
    await first.kill9();
    const second = await startServer({ env, dataDir: first.dataDir });
    try {
      const c2 = await connect(second.url);
      const r = await c2.callTool({
        name: 'run_sql',
        arguments: { statement: 'SELECT SUM(amount) FROM kept.s.t' },
      });
      expect((r.structuredContent as { rows: unknown[][] }).rows).toEqual([['3.75']]);
      const again = await c2.callTool({ name: 'setup_fixture', arguments: { catalog: 'kept', schema: 's' } });
      expect((again.structuredContent as { created: unknown }).created).toEqual({
        catalog: false,
        schema: false,
        warehouse: false,
      });
      await c2.close();
    } finally {
      await second.stop();
    }
  });
});
