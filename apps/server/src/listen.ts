import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
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

export function listen(ml: Minilake, port: number, host: string, tls?: TlsMaterial): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const https = tls
      ? { createServer: createHttpsServer, serverOptions: { cert: tls.cert, key: tls.key } }
      : {};
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
