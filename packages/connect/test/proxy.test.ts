/**
 * The byte-level gRPC proxy against a real HTTP/2 server standing in for Spark Connect (not a mock of
 * MiniLake: the upstream is any gRPC server; here one that echoes, streams, fails and waits): messages
 * pass both ways unchanged, trailers carry the status through, a trailers-only refusal stays one, an
 * upstream that is gone becomes UNAVAILABLE, and a client's cancel reaches the server.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frame, splitFrames } from '../src/grpc.js';
import { pipeCall, Upstreams } from '../src/proxy.js';

let upstream: http2.Http2Server;
let front: http2.Http2Server;
let upstreamPort = 0;
let frontPort = 0;
let target = () => upstreamPort;
const cancelled: string[] = [];
const upstreams = new Upstreams();

function onUpstream(stream: ServerHttp2Stream, headers: http2.IncomingHttpHeaders) {
  const path = String(headers[':path']);
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('close', () => {
    if (stream.rstCode === http2.constants.NGHTTP2_CANCEL) cancelled.push(path);
  });
  stream.on('end', () => {
    if (path.endsWith('/Echo')) {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () =>
        stream.sendTrailers({ 'grpc-status': '0', 'x-seen-auth': String(headers.authorization ?? 'none') }),
      );
      stream.end(Buffer.concat(chunks));
    } else if (path.endsWith('/Many')) {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      for (let i = 0; i < 200; i++) stream.write(frame(Buffer.alloc(64 * 1024, i % 256)));
      stream.end();
    } else if (path.endsWith('/Fail')) {
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '13',
          'grpc-message': 'boom%20here',
        },
        { endStream: true },
      );
    }
  });
  if (path.endsWith('/Hang')) stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
}

beforeAll(async () => {
  upstream = http2.createServer();
  upstream.on('stream', onUpstream);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamPort = (upstream.address() as AddressInfo).port;
  front = http2.createServer();
  front.on('stream', (stream, headers) =>
    pipeCall(stream, headers, upstreams.get(target()), { unavailable: 'Spark is not reachable' }),
  );
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontPort = (front.address() as AddressInfo).port;
});

afterAll(async () => {
  upstreams.close();
  await new Promise((r) => front.close(r));
  await new Promise((r) => upstream.close(r));
});

interface Answer {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

function call(method: string, body: Buffer, extra: http2.OutgoingHttpHeaders = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const c = http2.connect(`http://127.0.0.1:${frontPort}`);
    c.on('error', reject);
    const req = c.request({
      ':method': 'POST',
      ':path': `/test.Service/${method}`,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...extra,
    });
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => (headers = h));
    req.on('trailers', (t) => (trailers = t));
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      c.close();
      resolve({ headers, trailers, body: Buffer.concat(chunks) });
    });
    req.end(body);
  });
}

describe('pipeCall', () => {
  it('passes messages and the trailing status through, without MiniLake credentials', async () => {
    const msg = frame(Buffer.from('hello spark'));
    const a = await call('Echo', msg, { authorization: 'Bearer dapi-secret' });
    expect(a.body.equals(msg)).toBe(true);
    expect(a.trailers['grpc-status']).toBe('0');
    expect(a.trailers['x-seen-auth']).toBe('none');
  });

  it('streams a large answer whole', async () => {
    const a = await call('Many', Buffer.alloc(0));
    const frames = splitFrames(a.body)!;
    expect(frames).toHaveLength(200);
    expect(frames[199]![0]).toBe(199);
  });

  it('keeps a trailers-only refusal as one', async () => {
    const a = await call('Fail', Buffer.alloc(0));
    expect(a.headers['grpc-status']).toBe('13');
    expect(a.headers['grpc-message']).toBe('boom%20here');
  });

  it('answers UNAVAILABLE when Spark is not there', async () => {
    const closed = http2.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    target = () => port;
    try {
      const a = await call('Echo', frame(Buffer.from('x')));
      expect(a.headers['grpc-status']).toBe('14');
      expect(decodeURIComponent(String(a.headers['grpc-message']))).toContain('Spark is not reachable');
    } finally {
      target = () => upstreamPort;
    }
  });

  it("passes a client's cancel on to the server", async () => {
    const c = http2.connect(`http://127.0.0.1:${frontPort}`);
    const req = c.request({
      ':method': 'POST',
      ':path': '/test.Service/Hang',
      'content-type': 'application/grpc',
    });
    req.write(frame(Buffer.from('x')));
    await new Promise((r) => req.once('response', r));
    req.close(http2.constants.NGHTTP2_CANCEL);
    await expect.poll(() => cancelled.includes('/test.Service/Hang'), { timeout: 5000 }).toBe(true);
    c.close();
  });
});
