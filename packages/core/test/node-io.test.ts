import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Readable } from 'node:stream';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestBodyStream, sendStream } from '../src/node-io.js';

async function drain(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of r) parts.push(Buffer.from(p as Uint8Array));
  return Buffer.concat(parts);
}

function app(): Hono {
  const a = new Hono();
  a.put('/echo', async (c) => {
    const body = await drain(requestBodyStream(c));
    return sendStream(
      c,
      201,
      { 'content-length': String(body.length), 'x-seen': 'yes' },
      Readable.from([body]),
    );
  });
  return a;
}

describe('node-io seam', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app().fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        url = `http://127.0.0.1:${info.port}`;
        resolve();
      }) as Server;
    });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('streams a body in and out through the Node request and response', async () => {
    const payload = Buffer.alloc(3 * 1024 * 1024 + 7, 'ab');
    const r = await fetch(`${url}/echo`, { method: 'PUT', body: payload });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-seen')).toBe('yes');
    expect(r.headers.get('content-length')).toBe(String(payload.length));
    expect(Buffer.from(await r.arrayBuffer()).equals(payload)).toBe(true);
  });

  it('falls back to the web Request and Response under app.request()', async () => {
    const r = await app().request('/echo', { method: 'PUT', body: 'hello' });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-seen')).toBe('yes');
    expect(await r.text()).toBe('hello');
  });
});
