/**
 * The doors gRPC comes in by, against the built server with no Spark behind them (the answers here need
 * none): the Spark Connect port (h2c, and TLS on the same port), and MiniLake's own plain-http port taking a
 * TLS connection (REST over https and gRPC over h2 on one port, as Databricks Connect dials the workspace
 * host). An unknown cluster is gRPC NOT_FOUND in a trailers-only answer, never JSON.
 */
import { existsSync, readFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@minilake/testing';

let server: RunningServer;
let scPort = 0;
let ca = '';

beforeAll(async () => {
  server = await startServer();
  // The address lines follow the listening line, which is all startServer waits for.
  const line = /Spark Connect: sc:\/\/[^:]+:(\d+)/;
  const until = Date.now() + 20_000;
  while (!line.test(server.output()) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  scPort = Number(line.exec(server.output())![1]);
  // The local certificate is written in the background once the server listens.
  const cert = path.join(server.dataDir, 'tls', 'cert.pem');
  const deadline = Date.now() + 20_000;
  while (!existsSync(cert) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  ca = readFileSync(cert, 'utf8');
});

afterAll(async () => {
  await server?.stop();
});

/** One unary gRPC call; the answer's headers (a trailers-only refusal carries the status there) and trailers. */
function grpcCall(
  url: string,
  method: string,
  headers: http2.OutgoingHttpHeaders = {},
  options: http2.SecureClientSessionOptions = {},
): Promise<{ headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const c = http2.connect(url, options);
    c.on('error', reject);
    const req = c.request({
      ':method': 'POST',
      ':path': method,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let h: http2.IncomingHttpHeaders = {};
    let t: http2.IncomingHttpHeaders = {};
    req.on('response', (x) => (h = x));
    req.on('trailers', (x) => (t = x));
    req.on('data', () => undefined);
    req.on('end', () => {
      c.close();
      resolve({ headers: h, trailers: t });
    });
    req.on('error', reject);
    req.end(Buffer.from([0, 0, 0, 0, 0]));
  });
}

const ANALYZE = '/spark.connect.SparkConnectService/AnalyzePlan';
const unknownCluster = { 'x-databricks-cluster-id': '0000-000000-nosuchcl' };

describe('the Spark Connect port', () => {
  it('answers an unknown cluster with gRPC NOT_FOUND over h2c', async () => {
    const r = await grpcCall(`http://127.0.0.1:${scPort}`, ANALYZE, unknownCluster);
    expect(r.headers[':status']).toBe(200);
    expect(r.headers['grpc-status']).toBe('5');
    expect(decodeURIComponent(String(r.headers['grpc-message']))).toContain('does not exist');
  });

  it('takes TLS on the same port (clients with a token in the connection string)', async () => {
    const r = await grpcCall(`https://127.0.0.1:${scPort}`, ANALYZE, unknownCluster, { ca });
    expect(r.headers['grpc-status']).toBe('5');
  });

  it('says UNIMPLEMENTED for another gRPC service', async () => {
    const r = await grpcCall(`http://127.0.0.1:${scPort}`, '/other.Service/Call');
    expect(r.headers['grpc-status']).toBe('12');
  });

  it('refuses what is not gRPC', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const c = http2.connect(`http://127.0.0.1:${scPort}`);
      c.on('error', reject);
      const req = c.request({ ':path': '/api/2.1/clusters/list' });
      req.on('response', (h) => {
        resolve(Number(h[':status']));
        c.close();
      });
      req.end();
    });
    expect(status).toBe(415);
  });
});

describe("MiniLake's own port", () => {
  it('serves REST over plain http and over TLS on one port', async () => {
    const plain = await fetch(`${server.url}/api/2.1/clusters/list`);
    expect(plain.status).toBe(200);
    const tls = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      https
        .get(`https://127.0.0.1:${server.port}/api/2.1/clusters/list`, { ca }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        })
        .on('error', reject);
    });
    expect(tls.status).toBe(200);
    expect(JSON.parse(tls.body)).toEqual(await plain.json());
  });

  it('serves gRPC over TLS with ALPN h2, as Databricks Connect dials the workspace host', async () => {
    const r = await grpcCall(`https://127.0.0.1:${server.port}`, ANALYZE, unknownCluster, { ca });
    expect(r.headers['grpc-status']).toBe('5');
  });
});

describe('the Spark Connect port setting', () => {
  it('off serves none; a busy explicit port stops the start, saying which', async () => {
    const off = await startServer({ env: { MINILAKE_SPARK_CONNECT_PORT: 'off' } });
    try {
      expect(off.output()).not.toContain('spark connect:');
    } finally {
      await off.stop();
    }
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      await expect(startServer({ env: { MINILAKE_SPARK_CONNECT_PORT: String(port) } })).rejects.toThrow(
        new RegExp(`MINILAKE_SPARK_CONNECT_PORT=${port}`),
      );
    } finally {
      busy.close();
    }
  });
});
