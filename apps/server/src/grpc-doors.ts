/**
 * The doors gRPC comes in by (Databricks Connect speaks Spark Connect, which is gRPC over HTTP/2):
 * - MiniLake's own port over TLS, as Databricks Connect always dials the workspace host with TLS and ALPN
 *   `h2`. With MINILAKE_TLS=1 the port is a TLS server offering `h2` and `http/1.1`; on a plain-http port,
 *   a connection whose first byte is a TLS handshake record (0x16, never the first byte of an HTTP/1.1
 *   request) is handed to the same TLS server, so REST stays plain http while gRPC gets TLS on one port.
 * - The Spark Connect port (MINILAKE_SPARK_CONNECT_PORT, default 15002): HTTP/2 without TLS (h2c) for
 *   `sc://localhost:15002`, and TLS on the same port for clients that insist on it (a token in the
 *   connection string).
 * A call whose content-type is `application/grpc` goes to the host's gRPC router; any other HTTP/2 request
 * on the TLS door is a REST request for Hono, through Node's compatibility request and response.
 */
import http2, {
  type Http2SecureServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import net from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { splicing, type SpliceDecider } from './grpc-splice.js';
import type { TlsMaterial } from './tls.js';

export type GrpcHandler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void;
type RequestListener = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
) => void;

const TLS_HANDSHAKE = 0x16;
/** Big enough for a large AddArtifacts upload not to wait on window updates. */
const WINDOW = 16 * 1024 * 1024;

export function isGrpc(headers: IncomingHttpHeaders): boolean {
  const ct = headers['content-type'];
  return typeof ct === 'string' && ct.startsWith('application/grpc');
}

/**
 * Connections spliced straight to a Spark server (grpc-splice.ts): who decides, from a gRPC connection's first
 * call, and the spliced sockets, closed with the host.
 */
export interface Splice {
  decide: SpliceDecider;
  live: Set<Duplex>;
}

export function spliceOf(decide: SpliceDecider | undefined): Splice | undefined {
  return decide
    ? { decide: (h) => (isGrpc(h) ? decide(h) : Promise.resolve(undefined)), live: new Set() }
    : undefined;
}

/**
 * Puts the splice in front of a server's own listeners for `event` (a TCP connection on an h2c server, a
 * TLS connection that negotiated h2 on a TLS server); what is not spliced reaches them as before.
 */
function spliceConnections(
  server: net.Server,
  event: 'connection' | 'secureConnection',
  splice: Splice,
): void {
  const own = server.listeners(event) as ConnectionListener[];
  server.removeAllListeners(event);
  const serve = (socket: net.Socket) => {
    for (const l of own) l.call(server, socket);
  };
  const spliced = splicing(splice.decide, serve, splice.live);
  server.on(event, (socket: net.Socket) =>
    event === 'secureConnection' && (socket as TLSSocket).alpnProtocol !== 'h2'
      ? serve(socket)
      : spliced(socket),
  );
}

/** A stream that is not gRPC on a gRPC-only port. */
function notGrpc(stream: ServerHttp2Stream): void {
  try {
    stream.respond({ ':status': 415, 'content-type': 'text/plain' });
    stream.end('This port serves Spark Connect (gRPC) only.\n');
  } catch {
    // gone
  }
}

/** HTTP/2 sessions a server holds, closed (GOAWAY) when it shuts down so close() does not wait on idle clients. */
export function trackSessions(
  server: Http2Server | Http2SecureServer,
  sessions = new Set<ServerHttp2Session>(),
): Set<ServerHttp2Session> {
  server.on('session', (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
    s.on('error', () => undefined);
  });
  return sessions;
}

/**
 * A TLS server for h2 and http/1.1 (Hono's `createServer` option): gRPC streams go to `grpc` untouched (no
 * compatibility objects listen on them, which would send their own trailers), everything else to Hono.
 */
export function secureServerFactory(grpc: GrpcHandler, splice?: Splice): typeof http2.createSecureServer {
  const factory = (options: http2.SecureServerOptions, listener: RequestListener): Http2SecureServer => {
    const server = http2.createSecureServer(
      { ...options, allowHTTP1: true, settings: { initialWindowSize: WINDOW } },
      listener as (req: Http2ServerRequest, res: Http2ServerResponse) => void,
    );
    // The request listener installed Node's compatibility layer as the 'stream' listener: replaced by one
    // that builds the same request and response, but only for what is not gRPC.
    server.removeAllListeners('stream');
    server.on(
      'stream',
      (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _f: number, rawHeaders: unknown) => {
        if (isGrpc(headers)) return grpc(stream, headers);
        const req = new http2.Http2ServerRequest(stream, headers, {}, rawHeaders as unknown as string[]);
        const res = new http2.Http2ServerResponse(stream);
        listener(req, res);
      },
    );
    server.on('session', (s: ServerHttp2Session) => s.on('connect', () => s.setLocalWindowSize(WINDOW)));
    if (splice) spliceConnections(server, 'secureConnection', splice);
    return server;
  };
  return factory as unknown as typeof http2.createSecureServer;
}

type ConnectionListener = (socket: net.Socket) => void;

/**
 * Makes a listening server look at each connection's first byte before its own connection listener does:
 * a TLS handshake goes to the server `secure()` resolves (created on the first TLS connection), anything
 * else to the server's own listener, with the byte put back (`plainReadsBuffered`: the server's listener
 * reads buffered bytes itself, as an HTTP/2 session does). The server keeps owning the port and its
 * connections (close() waits for them as before).
 */
export function sniffTls(
  server: net.Server,
  secure: () => Promise<{ emit(event: 'connection', socket: net.Socket): boolean }>,
  plainReadsBuffered = false,
): void {
  const own = server.listeners('connection') as ConnectionListener[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: net.Socket) => {
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      // TLS and HTTP/2 sessions read what is buffered themselves; resuming would drop it on the floor.
      // The HTTP/1.1 server listens for 'data', which a paused socket does not emit until resumed.
      if (chunk[0] !== TLS_HANDSHAKE) {
        for (const l of own) l.call(server, socket);
        if (!plainReadsBuffered) socket.resume();
        return;
      }
      secure().then(
        (s) => s.emit('connection', socket),
        () => socket.destroy(),
      );
    });
  });
}

export interface SparkConnectDoor {
  port: number;
  close(): Promise<void>;
}

/**
 * The Spark Connect port: h2c, and TLS (h2 only) for a connection that opens with a handshake, both handing
 * every stream to `grpc`. Rejects when the port cannot be bound.
 */
export async function openSparkConnectPort(
  port: number,
  host: string,
  grpc: GrpcHandler,
  tls: () => Promise<TlsMaterial>,
  splice?: Splice,
): Promise<SparkConnectDoor> {
  const onStream = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) =>
    isGrpc(headers) ? grpc(stream, headers) : notGrpc(stream);
  const settings = { initialWindowSize: WINDOW };
  const h2c = http2.createServer({ settings });
  h2c.on('stream', onStream);
  const sessions = trackSessions(h2c);
  if (splice) spliceConnections(h2c, 'connection', splice);
  let secure: Promise<Http2SecureServer> | undefined;
  sniffTls(
    h2c,
    () => {
      secure ??= tls().then((m) => {
        const s = http2.createSecureServer({ cert: m.cert, key: m.key, settings });
        s.on('stream', onStream);
        trackSessions(s, sessions);
        if (splice) spliceConnections(s, 'secureConnection', splice);
        return s;
      });
      return secure;
    },
    true,
  );
  await new Promise<void>((resolve, reject) => {
    h2c.once('error', reject);
    h2c.listen(port, host, () => {
      h2c.off('error', reject);
      resolve();
    });
  });
  const addr = h2c.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        h2c.close(() => resolve());
        for (const s of sessions) s.close();
      }),
  };
}
