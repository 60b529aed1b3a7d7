/** `minilake mcp --stdio`, driven by the official MCP client's stdio transport: against a running server and alone. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serverEntry, startServer, uniqueName, type RunningServer } from '@minilake/testing';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ env: { MINILAKE_WAREHOUSE_START_DELAY: '0.1' } });
});
afterAll(async () => {
  await server?.stop();
});

async function stdioClient(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'stdio-e2e', version: '1' });
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[1] !== undefined && e[0] !== 'DATABRICKS_HOST',
    ),
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [serverEntry, 'mcp', '--stdio', ...args],
      env: { ...base, MINILAKE_WAREHOUSE_START_DELAY: '0.1', ...env },
      stderr: 'ignore',
    }),
  );
  return client;
}

describe('minilake mcp --stdio', () => {
  it('talks to a running MiniLake given by --url', async () => {
    const client = await stdioClient(['--url', server.url]);
    const cat = uniqueName('stdio');
    const fx = await client.callTool({ name: 'setup_fixture', arguments: { catalog: cat, schema: 's' } });
    expect(fx.isError).toBeFalsy();
    await client.close();
    // The catalog is in the running server, seen by a plain REST client.
    const res = await fetch(`${server.url}/api/2.1/unity-catalog/catalogs/${cat}`);
    expect(res.status).toBe(200);
  });

  it('starts MiniLake in process without a URL', async () => {
    const client = await stdioClient([]);
    expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(67);
    await client.callTool({ name: 'setup_fixture', arguments: { catalog: 'solo', schema: 's' } });
    const r = await client.callTool({ name: 'run_sql', arguments: { statement: 'SELECT 40 + 2 AS answer' } });
    expect((r.structuredContent as { rows: unknown[][] }).rows).toEqual([['42']]);
    await client.close();
  });
});
