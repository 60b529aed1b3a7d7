/**
 * The host: composes the enabled services into one Hono app, in phases a reader can follow top to bottom:
 *
 * 1. data dir   (host/data-dir.ts)  the folder everything lives in, emptied when nothing persists;
 * 2. state      the journaled StateDb under it (or memory);
 * 3. services   (host/services.ts)  start order, lazy or eager creation, settings, peers, lifecycle hooks;
 * 4. routing    (host/routing.ts)   middleware, the lazy prefix router, the eager services' apps;
 *               (host/auth.ts)      MINILAKE_AUTH=tokens: the request's (and gRPC call's) principal from its token;
 *               (host/faults.ts)    injected faults, fired before any service sees the request;
 * 5. admin      (host/admin.ts)     /_minilake/*: health, ready, reset, snapshots, services;
 * 6. lifecycle  listening (hooks, warm-up), upgrade (Jupyter's websockets), close.
 *
 * The UI, JupyterLab, the built-in identity and the welcome routes are mounted between them; unknown paths are answered by core's
 * installErrorHandling (501 for /api, 404 otherwise).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Duplex } from 'node:stream';
import { Hono } from 'hono';
import {
  createLogger,
  installErrorHandling,
  runAsPrincipal,
  StateDb,
  systemClock,
  type Clock,
  type GrpcSpliceTarget,
  type Identity,
  type Logger,
} from '@minilake/core';
import type { IamApi } from '@minilake/iam';
import type { MinilakeConfig } from './config.js';
import { adminRoutes, readiness } from './host/admin.js';
import { bearerResolver, installAuth, type BearerResolver } from './host/auth.js';
import { Faults, installFaults } from './host/faults.js';
import {
  JUPYTER_FOLDER,
  openDataDir,
  ownedDataFolders,
  SNAPSHOT_FOLDER,
  STATE_FOLDER,
} from './host/data-dir.js';
import { installMiddleware, mountEagerServices, routeLazyServices } from './host/routing.js';
import { ServiceHost } from './host/services.js';
import { identityApp } from './identity.js';
import { Jupyter, sparkJars } from './jupyter.js';
import { registry } from './registry.js';
import { Snapshots, WriteGate } from './snapshots.js';
import { defaultUiDir, uiApp } from './ui.js';
import { welcomeApp } from './welcome.js';

export { ownedDataFolders } from './host/data-dir.js';

export interface Minilake {
  app: Hono;
  dataDir: string;
  logger: Logger;
  services: string[];
  reset(services?: string[]): Promise<void>;
  ready(): Promise<{ ok: boolean; checks: Record<string, string> }>;
  /** The HTTP server's `upgrade` listener (websockets to JupyterLab); false when the path is not one it serves. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** The host listens at `url`: services learn it (ServiceContext.selfUrl, onListening) and warm up. */
  listening(url: string): void;
  /**
   * Serves a gRPC call (an HTTP/2 stream) by the enabled service that declares its gRPC service
   * (ServiceDefinition.grpcServices), created on first use; undefined when no enabled service serves gRPC.
   */
  grpc?: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void;
  /**
   * Whether a gRPC connection may be spliced to one server, decided from its first call's headers
   * (ServiceInstance.grpcSplice); absent with MINILAKE_AUTH=tokens, where every call is authenticated.
   */
  grpcSplice?: (headers: IncomingHttpHeaders) => Promise<GrpcSpliceTarget | undefined>;
  close(): Promise<void>;
}

export interface CreateOptions {
  clock?: Clock;
  logger?: Logger;
}

export async function createMinilake(config: MinilakeConfig, opts: CreateOptions = {}): Promise<Minilake> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const clock = opts.clock ?? systemClock;

  // 1. Data dir.
  const data = await openDataDir(config);
  const dataDir = data.dir;

  // 2. State.
  const state = config.persist ? await StateDb.open(path.join(dataDir, STATE_FOLDER)) : StateDb.memory();

  // 3. Services (none created yet: routing decides when).
  const identity: Identity = {
    userName: config.userName,
    userId: '1000000000000001',
    displayName: config.userName.split('@')[0] ?? config.userName,
    workspaceId: config.workspaceId,
  };
  const app = new Hono();
  // The host's own token (ServiceContext.hostToken): its child processes' (Spark drivers') way back in.
  const hostToken = `dapi${randomBytes(16).toString('hex')}`;
  // Injected faults (/_minilake/faults): requests are failed by the middleware below, tasks and statements
  // by their services (ServiceContext.fault).
  const faults = new Faults();
  const services = new ServiceHost({
    hostToken,
    fault: (point, subject) => faults.takeAt(point, subject),
    enabled: config.services,
    persist: config.persist,
    dataDir,
    clock,
    logger,
    state,
    identity,
    settings: config.settings,
    hostApp: () => app,
  });

  // 4. Routing: middleware first, so every route below passes it.
  installErrorHandling(app, logger);
  const gate = new WriteGate();
  installMiddleware(app, { logger, gate, state });
  // One token check for REST and for gRPC (Spark Connect's `authorization` metadata, below).
  const authenticate: BearerResolver | undefined =
    config.auth.mode === 'tokens'
      ? bearerResolver({
          identity,
          adminToken: config.auth.adminToken,
          hostToken,
          authenticator: async () => {
            const api = (await services.create('iam')).api as IamApi;
            return (token) => api.authenticate(token);
          },
        })
      : undefined;
  if (authenticate) installAuth(app, authenticate);
  installFaults(app, faults, config.auth.mode === 'tokens', clock);

  // 5. Admin routes, before the services' (always on).
  const snapshots = new Snapshots({
    root: path.join(dataDir, SNAPSHOT_FOLDER),
    dataDir,
    folders: () => ownedDataFolders().filter((f) => f !== STATE_FOLDER && f !== SNAPSHOT_FOLDER),
    instances: services.instances,
    sharedResources: services.sharedResources,
    state,
    empty: () => services.emptyForRestore(),
    restored: () => services.restored(),
    gate,
    now: () => clock.now(),
  });
  adminRoutes(app, {
    services,
    snapshots,
    dataDir,
    clock,
    available: registry.values(),
    resetHost: () => faults.delete(),
  });

  // The web SQL workspace: static files only, it talks to the public API like any client.
  app.route('/', uiApp({ dir: defaultUiDir() }));
  // JupyterLab, started on the first request to /jupyter when the configured Python has it.
  const jupyter = new Jupyter({
    python: config.jupyterPython,
    rootDir: path.join(dataDir, JUPYTER_FOLDER),
    selfUrl: services.selfUrl,
    logger: logger.child('jupyter'),
    sparkJars: sparkJars(config.cacheDir),
  });
  app.route('/', jupyter.app());

  // The services: lazy prefixes first (see routeLazyServices), then the eager ones created and mounted.
  routeLazyServices(app, services);
  try {
    await mountEagerServices(app, services);
  } catch (e) {
    // Start-up failed (a state version it cannot read, an undeclared peer): release what already started.
    await services.close();
    await state.close();
    throw e;
  }
  // Built-in identity after the services, so an enabled iam service answers /Me from its store.
  app.route('/', identityApp(identity));
  // `/` opens the UI; `/mcp` with MCP off says how to turn it on.
  app.route('/', welcomeApp({ mcp: services.order.includes('mcp') }));

  // 6. Lifecycle.
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await jupyter.close();
    await services.close();
    await state.close();
    await data.cleanUp();
  };

  // gRPC services by name (`spark.connect.SparkConnectService`) -> the service that serves them.
  const grpcOwners = new Map<string, string>();
  for (const name of services.order)
    for (const g of registry.get(name)!.grpcServices ?? []) grpcOwners.set(g, name);
  const serveGrpc = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    const grpcService = String(headers[':path'] ?? '').split('/')[1] ?? '';
    const owner = grpcOwners.get(grpcService);
    if (!owner) return grpcStatus(stream, 12, `No gRPC service ${grpcService} here`);
    services.create(owner).then(
      (instance) =>
        instance.grpc
          ? instance.grpc(stream, headers)
          : grpcStatus(stream, 12, `${owner} does not serve gRPC`),
      (e: unknown) => grpcStatus(stream, 14, `${owner} could not start: ${(e as Error).message}`),
    );
  };
  // MINILAKE_AUTH=tokens: a call carries `authorization: Bearer <token>` metadata (Databricks Connect and
  // `sc://...;token=` clients send it) or is UNAUTHENTICATED before any service or Spark sees it; the rest
  // of the call runs as its principal (permission checks, activity), while Spark keeps the engine's identity.
  const grpc = grpcOwners.size
    ? authenticate
      ? (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
          const auth = headers.authorization;
          authenticate(Array.isArray(auth) ? auth[0] : auth).then(
            (r) =>
              'refusal' in r
                ? grpcStatus(stream, 16, r.refusal)
                : runAsPrincipal(r.principal, () => serveGrpc(stream, headers)),
            (e: unknown) => grpcStatus(stream, 14, `Could not authenticate: ${(e as Error).message}`),
          );
        }
      : serveGrpc
    : undefined;
  const grpcSplice =
    grpcOwners.size && !authenticate
      ? async (headers: IncomingHttpHeaders) => {
          const owner = grpcOwners.get(String(headers[':path'] ?? '').split('/')[1] ?? '');
          return owner ? (await services.create(owner)).grpcSplice?.(headers) : undefined;
        }
      : undefined;

  return {
    app,
    dataDir,
    logger,
    services: services.order,
    reset: (names) => services.reset(names),
    ready: () => readiness({ services, dataDir }),
    listening: (url) => services.listening(url),
    upgrade: (req, socket, head) => jupyter.handleUpgrade(req, socket, head),
    ...(grpc ? { grpc } : {}),
    ...(grpcSplice ? { grpcSplice } : {}),
    close,
  };
}

/** Ends a gRPC call with only a status (HTTP 200, `grpc-status` in the headers), as gRPC servers refuse one. */
function grpcStatus(stream: ServerHttp2Stream, code: number, message: string): void {
  if (stream.destroyed || stream.headersSent) return;
  try {
    stream.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': String(code),
        'grpc-message': encodeURIComponent(message),
      },
      { endStream: true },
    );
  } catch {
    // The client went away.
  }
}
