import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
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
      if (!ml.upgrade(req, socket, head)) socket.destroy();
    });
    server.once('error', reject);
  });
}
