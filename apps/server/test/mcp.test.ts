/**
 * MCP in process: MINILAKE_MCP opts in, tool groups follow the enabled services, and the Host/Origin checks
 * run before anything else. The MCP client talks to the composed app through app.request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { silentLogger } from '@minilake/core';
import { ConfigError, createMinilake, parseConfig, type Minilake } from '../src/index.js';

let ml: Minilake | undefined;
afterEach(async () => {
  await ml?.close();
  ml = undefined;
});

async function inProcess(env: Record<string, string>) {
  ml = await createMinilake(parseConfig({ MINILAKE_LOG_LEVEL: 'silent', ...env }), { logger: silentLogger });
  const app = ml.app;
  const client = new Client({ name: 'in-process', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url, init) => Promise.resolve(app.request(String(url), init)),
    }),
  );
  return { client, app };
}

describe('MINILAKE_MCP', () => {
  it('is off by default and on with MINILAKE_MCP=1', () => {
    expect(parseConfig({}).services).not.toContain('mcp');
    expect(parseConfig({ MINILAKE_MCP: '1' }).services).toContain('mcp');
    expect(parseConfig({ MINILAKE_MCP: '0' }).services).not.toContain('mcp');
    expect(parseConfig({ MINILAKE_SERVICES: 'secrets', MINILAKE_MCP: 'true' }).services).toEqual([
      'secrets',
      'mcp',
    ]);
    expect(() => parseConfig({ MINILAKE_MCP: 'maybe' })).toThrow(ConfigError);
  });

  it('answers 404 at /mcp when MCP is off', async () => {
    ml = await createMinilake(parseConfig({ MINILAKE_SERVICES: 'secrets' }), { logger: silentLogger });
    expect((await ml.app.request('http://localhost/mcp', { method: 'POST' })).status).toBe(404);
  });

  it('registers a tool group only when its service is enabled', async () => {
    const { client } = await inProcess({ MINILAKE_SERVICES: 'secrets', MINILAKE_MCP: '1' });
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(
      [
        'health',
        'list_services',
        'reset_state',
        'snapshot_state',
        'restore_state',
        'list_snapshots',
        'delete_snapshot',
        'create_secret_scope',
        'list_secret_scopes',
        'delete_secret_scope',
        'put_secret',
        'list_secrets',
        'delete_secret',
      ].sort(),
    );
    const r = await client.callTool({ name: 'create_secret_scope', arguments: { scope: 'in-proc' } });
    expect(r.structuredContent).toEqual({ scope: 'in-proc', created: true });
    const again = await client.callTool({ name: 'create_secret_scope', arguments: { scope: 'in-proc' } });
    expect(again.isError).toBe(true);
    expect((again.content as { text: string }[])[0]!.text).toMatch(/^RESOURCE_ALREADY_EXISTS: /);
    await client.close();
  });

  it('refuses a foreign Host or Origin before reading the body', async () => {
    const { app } = await inProcess({ MINILAKE_SERVICES: 'secrets', MINILAKE_MCP: '1' });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const foreign = await app.request('http://attacker.example/mcp', { method: 'POST', headers, body });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { message: string } }).error.message).toMatch(/Host/);
    const origin = await app.request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...headers, origin: 'https://attacker.example' },
      body,
    });
    expect(origin.status).toBe(403);
    const ok = await app.request('http://127.0.0.1:8000/mcp', { method: 'POST', headers, body });
    expect(ok.status).not.toBe(403);
  });
});
