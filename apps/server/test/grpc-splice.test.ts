/**
 * The spliced gRPC connection (grpc-splice.ts) with Node's own HTTP/2 client and servers: a connection whose
 * first call the decider accepts is piped to its target (a stand-in for a cluster's Spark Connect server)
 * with every later call shown to the target; any other is served by the local HTTP/2 server as before; a
 * later call bound elsewhere closes the connection. And the client's side read byte by byte: every header
 * block decoded, the greeting's ACK (and only it) taken out.
 */
import http2 from 'node:http2';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientSide, splicing, type SpliceTarget } from '../src/grpc-splice.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

/** An h2c server answering every call with who it is and the call's cluster header. */
async function h2cServer(name: string): Promise<{ server: http2.Http2Server; port: number }> {
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.respond({ ':status': 200, 'x-served-by': name });
    stream.end(String(headers['x-databricks-cluster-id'] ?? ''));
  });
  server.on('session', (s) => closers.push(() => s.destroy()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return { server, port: (server.address() as net.AddressInfo).port };
}

/** The local server with the splice in front, deciding with `decide`. */
async function door(decide: (h: http2.IncomingHttpHeaders) => SpliceTarget | undefined) {
  const local = await h2cServer('local');
  const live = new Set<Duplex>();
  const front = net.createServer(
    splicing(
      (h) => Promise.resolve(decide(h)),
      (socket: net.Socket) => local.server.emit('connection', socket),
      live,
    ),
  );
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  closers.push(() => {
    for (const s of live) s.destroy();
    front.close();
  });
  return `http://127.0.0.1:${(front.address() as net.AddressInfo).port}`;
}

function call(session: http2.ClientHttp2Session, cluster: string): Promise<{ by: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request({
      ':method': 'POST',
      ':path': '/spark.connect.SparkConnectService/Config',
      'x-databricks-cluster-id': cluster,
    });
    let by = '';
    let body = '';
    req.on('response', (h) => (by = String(h['x-served-by'])));
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => resolve({ by, body }));
    req.on('error', reject);
    req.end();
  });
}

describe('a gRPC connection spliced to one server', () => {
  it('sends every call of an accepted connection to the target, which sees each later call', async () => {
    const spark = await h2cServer('spark');
    const seen: string[] = [];
    const url = await door((h) =>
      h['x-databricks-cluster-id'] === 'c1'
        ? {
            port: spark.port,
            call: (later) => (
              seen.push(String(later['x-databricks-cluster-id'])),
              later['x-databricks-cluster-id'] === 'c1'
            ),
          }
        : undefined,
    );
    const session = http2.connect(url);
    closers.push(() => session.destroy());
    expect(await call(session, 'c1')).toEqual({ by: 'spark', body: 'c1' });
    expect(await Promise.all([call(session, 'c1'), call(session, 'c1')])).toEqual([
      { by: 'spark', body: 'c1' },
      { by: 'spark', body: 'c1' },
    ]);
    expect(seen).toEqual(['c1', 'c1']);
    // A call bound elsewhere ends the connection: the client connects again and is routed again.
    const refused = await call(session, 'c2').catch(() => ({ by: '', body: '' }));
    expect(refused.by).toBe('');
    const again = http2.connect(url);
    closers.push(() => again.destroy());
    expect(await call(again, 'c2')).toEqual({ by: 'local', body: 'c2' });
  });

  it('leaves a connection it does not accept to the local server, call by call', async () => {
    const url = await door(() => undefined);
    const session = http2.connect(url);
    closers.push(() => session.destroy());
    expect(await call(session, 'c1')).toEqual({ by: 'local', body: 'c1' });
    expect(await call(session, 'c9')).toEqual({ by: 'local', body: 'c9' });
  });

  it('serves a client that sends no call at first (it waits, then calls)', async () => {
    const spark = await h2cServer('spark');
    const url = await door(() => ({ port: spark.port, call: () => true }));
    const session = http2.connect(url);
    closers.push(() => session.destroy());
    await new Promise((r) => setTimeout(r, 300));
    expect((await call(session, 'c1')).by).toBe('local');
  });
});

describe('the client side of a connection', () => {
  it('decodes every header block and takes out only the first SETTINGS ACK, read byte by byte', async () => {
    // A real client's bytes: Node's HTTP/2 client against a server that greets it and records what it sends.
    const bytes: Buffer[] = [];
    const server = net.createServer((s) => {
      s.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]));
      s.on('data', (c: Buffer) => bytes.push(c));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const session = http2.connect(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
    closers.push(() => session.destroy());
    session.on('error', () => undefined);
    for (const c of ['a', 'b', 'a']) {
      const r = session.request({
        ':method': 'POST',
        ':path': '/x/Y',
        'x-databricks-cluster-id': c,
        'x-long': 'v'.repeat(300),
      });
      r.on('error', () => undefined);
      r.end('body');
    }
    await new Promise((r) => setTimeout(r, 300));
    const all = Buffer.concat(bytes);
    const side = new ClientSide();
    const calls: http2.IncomingHttpHeaders[] = [];
    const passed: Buffer[] = [];
    for (let i = 0; i < all.length; i++) {
      const fed = side.feed(all.subarray(i, i + 1));
      calls.push(...fed.calls);
      if (fed.pass) passed.push(fed.pass);
    }
    expect(calls.map((h) => h['x-databricks-cluster-id'])).toEqual(['a', 'b', 'a']);
    expect(calls[2]![':path']).toBe('/x/Y');
    expect(side.acked).toBe(true);
    // Exactly one 9-byte frame (the empty SETTINGS ACK) is missing from what passes on.
    const out = Buffer.concat(passed);
    expect(out.length).toBe(all.length - 9);
    const ack = Buffer.from([0, 0, 0, 4, 1, 0, 0, 0, 0]);
    const at = all.indexOf(ack);
    expect(Buffer.concat([all.subarray(0, at), all.subarray(at + 9)]).equals(out)).toBe(true);
    expect(() => new ClientSide().feed(Buffer.from('GET / HTTP/1.1\r\n'))).toThrow();
  });
});
