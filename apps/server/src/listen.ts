import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import { serve } from '@hono/node-server';
import type { Minilake } from './server.js';
import type { TlsMaterial } from './tls.js';

export interface Listening {
  url: string;
  port: number;
  server: Server;
  /** Stops accepting, lets in-flight requests finish, then closes the services and flushes state. */
  shutdown(): Promise<void>;
}

export async function listen(
  ml: Minilake,
  port: number,
  host: string,
  tls?: TlsMaterial,
): Promise<Listening> {
  // node:https (and its TLS stack) only when serving TLS: it is start-up time otherwise.
  const https = tls
    ? {
        createServer: (await import('node:https')).createServer,
        serverOptions: { cert: tls.cert, key: tls.key },
      }
    : {};
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: ml.app.fetch, port, hostname: host, ...https }, (info: AddressInfo) => {
      const shownHost = host.includes(':') ? `[${host}]` : host;
      const url = `${tls ? 'https' : 'http'}://${shownHost}:${info.port}`;
      // A wildcard bind is reached back through loopback.
      ml.listening(url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//127.0.0.1'));
      let stopping: Promise<void> | undefined;
      resolve({
        url,
        port: info.port,
        server: server as Server,
        shutdown() {
          stopping ??= new Promise<void>((done) => {
            (server as Server).close(() => done());
            (server as Server).closeIdleConnections?.();
          }).then(() => ml.close());
          return stopping;
        },
      });
    }) as Server;
    server.keepAliveTimeout = 65_000;
    server.on('upgrade', (req, socket, head) => {
      // Only websockets are upgraded; anything else (Java's HttpClient offers `Upgrade: h2c` on every
      // plain-http request) is answered as the HTTP/1.1 request it also is.
      if (String(req.headers.upgrade).toLowerCase() !== 'websocket') replayAsHttp1(server, req, socket, head);
      else if (!ml.upgrade(req, socket, head)) socket.destroy();
    });
    server.once('error', reject);
  });
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
