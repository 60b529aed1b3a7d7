import type { AddressInfo, Server as NetServer } from 'node:net';
import type { IncomingMessage, Server } from 'node:http';
import type { Http2SecureServer, ServerHttp2Session } from 'node:http2';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import { createAdaptorServer } from '@hono/node-server';
import type { Minilake } from './server.js';
import type { TlsMaterial } from './tls.js';
import type { GrpcHandler, SparkConnectDoor } from './grpc-doors.js';
import type { SpliceDecider } from './grpc-splice.js';

export interface Listening {
  url: string;
  port: number;
  server: Server | Http2SecureServer;
  /** Where Spark Connect (h2c, and TLS) is served, when it is. */
  sparkConnectPort?: number;
  /** Stops accepting, lets in-flight requests finish, then closes the services and flushes state. */
  shutdown(): Promise<void>;
}

/** What besides REST the port (and a port of its own) serves. */
export interface Doors {
  /** Where gRPC calls go; without it there is no gRPC door and the port is as before. */
  grpc?: GrpcHandler;
  /** Whether a gRPC connection may be spliced straight to one Spark server (grpc-splice.ts). */
  grpcSplice?: SpliceDecider;
  /** The Spark Connect port, and whether it was asked for (a busy default port is skipped with a warning). */
  sparkConnect?: { port: number; explicit: boolean };
  /** The certificate a TLS connection gets on a plain-http port, read (or generated) on first use. */
  tlsOnDemand?: () => Promise<TlsMaterial>;
}

function listenOn(server: NetServer, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function listen(
  ml: Minilake,
  port: number,
  host: string,
  tls?: TlsMaterial,
  doors: Doors = {},
): Promise<Listening> {
  const grpc = doors.grpc;
  // node:http2, node:https and the sniffing front only when they serve something: start-up time otherwise.
  const g = grpc ? await import('./grpc-doors.js') : undefined;
  const tlsNow = (): Promise<TlsMaterial> =>
    tls ? Promise.resolve(tls) : (doors.tlsOnDemand?.() ?? Promise.reject(new Error('no TLS certificate')));
  const splice = g?.spliceOf(doors.grpcSplice);
  let connect: SparkConnectDoor | undefined;
  if (g && grpc && doors.sparkConnect) {
    try {
      connect = await g.openSparkConnectPort(doors.sparkConnect.port, host, grpc, tlsNow, splice);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (doors.sparkConnect.explicit || err.code !== 'EADDRINUSE')
        throw new Error(`MINILAKE_SPARK_CONNECT_PORT=${doors.sparkConnect.port}: ${err.message}`);
      ml.logger.warn(
        `Spark Connect port ${doors.sparkConnect.port} is in use: not serving it (set MINILAKE_SPARK_CONNECT_PORT to another port, or 0 for a free one)`,
      );
    }
  }
  let server: Server | Http2SecureServer;
  const secureSessions = new Set<ServerHttp2Session>();
  if (tls) {
    const serverOptions = { cert: tls.cert, key: tls.key };
    server = (
      g && grpc
        ? createAdaptorServer({
            fetch: ml.app.fetch,
            hostname: host,
            createServer: g.secureServerFactory(grpc, splice),
            serverOptions,
          })
        : createAdaptorServer({
            fetch: ml.app.fetch,
            hostname: host,
            createServer: (await import('node:https')).createServer,
            serverOptions,
          })
    ) as Server | Http2SecureServer;
    if (g) g.trackSessions(server as Http2SecureServer, secureSessions);
  } else {
    server = createAdaptorServer({ fetch: ml.app.fetch, hostname: host }) as Server;
    if (g && grpc) {
      // One port, two protocols: a TLS handshake goes to a TLS server (h2 for gRPC, http/1.1 for REST).
      const gg = g;
      let secure: Promise<Http2SecureServer> | undefined;
      gg.sniffTls(server, () => {
        secure ??= tlsNow().then((m) => {
          const s = createAdaptorServer({
            fetch: ml.app.fetch,
            hostname: host,
            createServer: gg.secureServerFactory(grpc, splice),
            serverOptions: { cert: m.cert, key: m.key },
          }) as unknown as Http2SecureServer;
          gg.trackSessions(s, secureSessions);
          return s;
        });
        return secure;
      });
    }
  }
  const info = await listenOn(server as unknown as NetServer, port, host);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `${tls ? 'https' : 'http'}://${shownHost}:${info.port}`;
  // A wildcard bind is reached back through loopback.
  ml.listening(url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//127.0.0.1'));
  if ('keepAliveTimeout' in server) (server as Server).keepAliveTimeout = 65_000;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Only websockets are upgraded; anything else (Java's HttpClient offers `Upgrade: h2c` on every
    // plain-http request) is answered as the HTTP/1.1 request it also is.
    if (String(req.headers.upgrade).toLowerCase() !== 'websocket')
      replayAsHttp1(server as Server, req, socket, head);
    else if (!ml.upgrade(req, socket, head)) socket.destroy();
  });
  let stopping: Promise<void> | undefined;
  return {
    url,
    port: info.port,
    server,
    ...(connect ? { sparkConnectPort: connect.port } : {}),
    shutdown() {
      stopping ??= Promise.all([
        new Promise<void>((done) => {
          server.close(() => done());
          (server as Server).closeIdleConnections?.();
          // HTTP/2 clients (gRPC) keep their connection open: ask them to go away.
          for (const s of secureSessions) s.close();
          for (const s of splice?.live ?? []) s.destroy();
        }),
        connect?.close(),
      ])
        .then(() => undefined)
        .then(() => ml.close());
      return stopping;
    },
  };
}

/** Headers that only offer the upgrade; dropped when the request is answered as plain HTTP/1.1. */
const UPGRADE_OFFER = new Set(['upgrade', 'http2-settings']);

/**
 * With an `upgrade` listener, Node hands every request carrying an Upgrade header to it, parser detached,
 * body unread. A request whose upgrade we decline goes back to the HTTP server as a fresh connection: its
 * head is rebuilt without the offer and put back in front of the bytes not read yet, so the server parses
 * the request (body included) as any other, and the connection stays usable for the next request.
 */
function replayAsHttp1(server: Server, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (UPGRADE_OFFER.has(lower)) continue;
    let value = req.rawHeaders[i + 1]!;
    if (lower === 'connection') {
      value = value
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t && !UPGRADE_OFFER.has(t.toLowerCase()))
        .join(', ');
      if (!value) continue;
    }
    lines.push(`${name}: ${value}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  server.emit(socket instanceof TLSSocket ? 'secureConnection' : 'connection', socket);
}
