import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, uniqueName, workspaceClient, type RunningServer } from '@minilake/testing';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A raw node:http request, so a GET can carry a body the way the UC Spark connector's Java client sends it. */
function send(
  method: string,
  p: string,
  body: string | undefined,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any }> {
  const u = new URL(p, server.url);
  return new Promise((resolve, reject) => {
    const r = http.request(
      u,
      {
        method,
        headers: {
          authorization: 'Bearer dapi-minilake-test',
          'content-type': 'application/json',
          ...(body !== undefined && !headers['transfer-encoding']
            ? { 'content-length': String(Buffer.byteLength(body)) }
            : {}),
          ...headers,
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : {} });
        });
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

describe('GET requests with a JSON body over a real socket', () => {
  it('lists schemas from a GET body, like the UC Spark connector', async () => {
    const w = workspaceClient(server.url);
    const cat = uniqueName('getbody');
    await w.catalogs.create({ name: cat });
    await w.schemas.create({ name: 's1', catalog_name: cat });
    const body = JSON.stringify({ catalog_name: cat });
    const r = await send('GET', '/api/2.1/unity-catalog/schemas', body);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.schemas.map((s: { name: string }) => s.name).sort()).toEqual(['default', 's1']);
    const chunked = await send('GET', '/api/2.1/unity-catalog/schemas', body, {
      'transfer-encoding': 'chunked',
    });
    expect(chunked.status).toBe(200);
    expect(chunked.json.schemas).toHaveLength(2);
    // Without body nor query the required field is missing: a Databricks-shaped 400.
    const none = await send('GET', '/api/2.1/unity-catalog/schemas', undefined);
    expect(none.status).toBe(400);
    expect(none.json.error_code).toBe('INVALID_PARAMETER_VALUE');
    // An oversized GET body is refused with a 400, and the server keeps serving.
    const big = JSON.stringify({ catalog_name: cat, pad: 'x'.repeat(1024 * 1024 + 10) });
    const over = await send('GET', '/api/2.1/unity-catalog/schemas', big);
    expect(over.status).toBe(400);
    expect((await send('GET', '/api/2.1/unity-catalog/schemas', body)).status).toBe(200);
  });
});

describe("Java HttpClient's h2c upgrade headers", () => {
  // java.net.http.HttpClient (the UC Spark connector's and unitycatalog-client's transport) asks to upgrade
  // every first request on http:// to HTTP/2; the server answers in HTTP/1.1 and must keep the body.
  const h2c = {
    connection: 'Upgrade, HTTP2-Settings',
    upgrade: 'h2c',
    'http2-settings': 'AAEAAEAAAAIAAAABAAMAAABkAAQBAAAAAAUAAEAA',
  };
  it('keeps the body of a POST and of a GET that carry them', async () => {
    const cat = uniqueName('h2c');
    const created = await send('POST', '/api/2.1/unity-catalog/catalogs', JSON.stringify({ name: cat }), h2c);
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json.name).toBe(cat);
    const listed = await send(
      'GET',
      '/api/2.1/unity-catalog/schemas',
      JSON.stringify({ catalog_name: cat }),
      h2c,
    );
    expect(listed.status, JSON.stringify(listed.json)).toBe(200);
    expect(listed.json.schemas.map((s: { name: string }) => s.name)).toEqual(['default']);
  });
});
