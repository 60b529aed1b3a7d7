/**
 * Composes the enabled services into one Hono app with the admin routes, identity and the 501 catch-all,
 * owns the data directory and the persistence, and shuts down cleanly.
 */
import { access, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import * as v from 'valibot';
import {
  contextFor,
  createLogger,
  installErrorHandling,
  invalidParameter,
  persistAfterWrite,
  readJson,
  startOrder,
  StateDb,
  systemClock,
  type Clock,
  type Identity,
  type Logger,
  type ServiceInstance,
  type SharedResource,
} from '@minilake/core';
import type { MinilakeConfig } from './config.js';
import { identityApp } from './identity.js';
import { registry } from './registry.js';
import { Snapshots, WriteGate } from './snapshots.js';
import { defaultUiDir, uiApp } from './ui.js';
import { Jupyter, sparkJars } from './jupyter.js';
import type { IncomingMessage } from 'node:http';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Duplex } from 'node:stream';

/** The host's own folder in a data dir: the persisted state (journal and snapshot). */
const STATE_FOLDER = 'state';
const snapshotBody = v.object({ name: v.optional(v.string()) });
/** Marks a lazily created service's "no route here" answer, so the request falls through to the next one. */
const UNMATCHED = 'x-minilake-unmatched';
/** How long after the server listens the services not started yet start in the background. */
const WARM_UP_DELAY_MS = 100;
/** Whether a path is the prefix or below it (`/api/2.0/jobs` covers `/api/2.0/jobs/list`, not `/api/2.0/jobsx`). */
const under = (path: string, prefix: string) =>
  path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === '/');

/** The host's named snapshots of the whole data dir (POST /_minilake/snapshots). */
const SNAPSHOT_FOLDER = 'snapshots';
/** Notebooks saved in /jupyter (real files, kept with the data like everything else). */
const JUPYTER_FOLDER = 'jupyter';

/**
 * Sub-folders MiniLake owns inside a data dir, derived from the registry: the state folder, each service's
 * own folder (`<name>`) and the folders it declares (ServiceDefinition.folders, engines' included). A
 * non-persistent start and close clear only these, so a data dir shared with other files keeps them.
 */
export function ownedDataFolders(): string[] {
  const folders = new Set([STATE_FOLDER, SNAPSHOT_FOLDER, JUPYTER_FOLDER]);
  for (const def of registry.values()) {
    folders.add(def.name);
    for (const f of def.folders ?? []) folders.add(f);
  }
  return [...folders];
}

export interface Minilake {
  app: Hono;
  dataDir: string;
  logger: Logger;
  services: string[];
  reset(services?: string[]): Promise<void>;
  ready(): Promise<{ ok: boolean; checks: Record<string, string> }>;
  /** The HTTP server's `upgrade` listener (websockets to JupyterLab); false when the path is not one it serves. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Tells the services where the host now listens (ServiceContext.selfUrl). */
  listening(url: string): void;
  /**
   * Serves a gRPC call (an HTTP/2 stream) by the enabled service that declares its gRPC service
   * (ServiceDefinition.grpcServices), created on first use; undefined when no enabled service serves gRPC.
   */
  grpc?: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void;
  close(): Promise<void>;
}

export interface CreateOptions {
  clock?: Clock;
  logger?: Logger;
}

async function prepareDataDir(config: MinilakeConfig): Promise<{ dir: string; temporary: boolean }> {
  if (!config.dataDir) {
    if (config.persist) {
      const dir = path.join(os.homedir(), '.minilake', 'data');
      await mkdir(dir, { recursive: true });
      return { dir, temporary: false };
    }
    return { dir: await mkdtemp(path.join(os.tmpdir(), 'minilake-')), temporary: true };
  }
  const dir = path.resolve(config.dataDir);
  await mkdir(dir, { recursive: true });
  if (!config.persist) {
    // Only the owned folders that exist: one listing instead of a recursive rm (lstat, rimraf) per folder,
    // which was ~10 ms of the start-up's CPU on a fresh data dir.
    const owned = new Set(ownedDataFolders());
    const present = (await readdir(dir)).filter((f) => owned.has(f));
    await Promise.all(present.map((f) => rm(path.join(dir, f), { recursive: true, force: true })));
  }
  return { dir, temporary: false };
}

export async function createMinilake(config: MinilakeConfig, opts: CreateOptions = {}): Promise<Minilake> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const { dir: dataDir, temporary } = await prepareDataDir(config);
  const state = config.persist ? await StateDb.open(path.join(dataDir, STATE_FOLDER)) : StateDb.memory();
  const identity: Identity = {
    userName: config.userName,
    userId: '1000000000000001',
    displayName: config.userName.split('@')[0] ?? config.userName,
    workspaceId: config.workspaceId,
  };
  const peers = new Map<string, unknown>();
  const sharedResources = new Map<string, Promise<SharedResource>>();
  const instances = new Map<string, ServiceInstance>();
  // Start order comes from the declared dependencies (uses / optionalUses), never from the registry's order.
  const order = startOrder(registry, config.services);
  let selfUrl: string | undefined;

  const app = new Hono();
  installErrorHandling(app, logger);
  if (logger.level === 'debug') {
    app.use(async (c, next) => {
      const t0 = performance.now();
      await next();
      logger.debug(`${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - t0).toFixed(2)}ms`);
    });
  }
  // Snapshots never see half a write: each mutating request holds the gate shared (admin routes and /mcp,
  // whose tools call the routes again, stay outside it).
  const gate = new WriteGate();
  app.use(async (c, next) =>
    c.req.method === 'GET' ||
    c.req.method === 'HEAD' ||
    c.req.path.startsWith('/_minilake/') ||
    c.req.path === '/mcp'
      ? next()
      : gate.shared(next),
  );
  if (state.persistent) {
    const persist = persistAfterWrite(state);
    app.use(async (c, next) =>
      c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : persist(c, next),
    );
  }

  const reset = async (names?: string[]) => {
    const selected = names ?? order;
    for (const name of selected) {
      if (!order.includes(name))
        throw invalidParameter(`Service '${name}' is not enabled. Enabled: ${order.join(', ')}`);
    }
    // Reset in reverse start order: a service is emptied before the ones it uses. One not created yet has
    // nothing to empty.
    for (const name of [...order].reverse().filter((n) => selected.includes(n))) {
      for (const module of instances.get(name)?.state ?? []) await module.reset();
    }
    if (!names) for (const r of sharedResources.values()) await (await r).reset?.();
    await state.flush();
  };

  const ready = async () => {
    const checks: Record<string, string> = {};
    try {
      await access(dataDir, constants.W_OK);
      checks.data_dir = 'ok';
    } catch (e) {
      checks.data_dir = `not writable: ${(e as Error).message}`;
    }
    for (const name of order) {
      try {
        // One not created yet is ready: its first request creates it.
        await instances.get(name)?.ready?.();
        checks[name] = 'ok';
      } catch (e) {
        checks[name] = (e as Error).message;
      }
    }
    return { ok: Object.values(checks).every((v) => v === 'ok'), checks };
  };

  // Admin routes first, always on.
  app.get('/_minilake/health', (c) => c.json({ status: 'ok' }));
  app.get('/_minilake/ready', async (c) => {
    const r = await ready();
    return c.json({ status: r.ok ? 'ready' : 'not_ready', checks: r.checks }, r.ok ? 200 : 503);
  });
  app.post('/_minilake/reset', async (c) => {
    const q = c.req.query('services');
    const names = q
      ? q
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined;
    await reset(names);
    return c.json({ reset: names ?? order });
  });
  const snapshots = new Snapshots({
    root: path.join(dataDir, SNAPSHOT_FOLDER),
    dataDir,
    folders: () => ownedDataFolders().filter((f) => f !== STATE_FOLDER && f !== SNAPSHOT_FOLDER),
    instances,
    sharedResources,
    state,
    reset: () => reset(),
    gate,
    now: () => (opts.clock ?? systemClock).now(),
  });
  app.get('/_minilake/snapshots', async (c) => c.json({ snapshots: await snapshots.list() }));
  app.post('/_minilake/snapshots', async (c) => {
    const body = await readJson(c, snapshotBody);
    const name =
      body.name ??
      `snapshot-${new Date((opts.clock ?? systemClock).now()).toISOString().replace(/[:.]/g, '-')}`;
    await createAll();
    return c.json(await snapshots.create(name));
  });
  app.get('/_minilake/snapshots/:name', async (c) => c.json(await snapshots.get(c.req.param('name'))));
  app.post('/_minilake/snapshots/:name/restore', async (c) => {
    await createAll();
    return c.json(await snapshots.restore(c.req.param('name')));
  });
  app.delete('/_minilake/snapshots/:name', async (c) => {
    await snapshots.delete(c.req.param('name'));
    return c.json({});
  });
  app.get('/_minilake/services', (c) =>
    c.json({
      enabled: order,
      available: [...registry.values()].map((d) => ({
        name: d.name,
        description: d.description,
        enabled: order.includes(d.name),
      })),
    }),
  );

  // The web SQL workspace: static files only, it talks to the public API like any client.
  app.route('/', uiApp({ dir: defaultUiDir() }));
  // JupyterLab, started on the first request to /jupyter when the configured Python has it.
  const jupyter = new Jupyter({
    python: config.jupyterPython,
    rootDir: path.join(dataDir, JUPYTER_FOLDER),
    selfUrl: () => selfUrl,
    logger: logger.child('jupyter'),
    sparkJars: sparkJars(config.cacheDir),
  });
  app.route('/', jupyter.app());

  const creating = new Map<string, Promise<ServiceInstance>>();
  const createService = (name: string): Promise<ServiceInstance> => {
    let started = creating.get(name);
    if (started) return started;
    const def = registry.get(name)!;
    started = (async () => {
      // Its peers first (the start order's rule), so ctx.peer finds them.
      for (const dep of [...(def.uses ?? []), ...(def.optionalUses ?? [])])
        if (order.includes(dep)) await createService(dep);
      const ctx = contextFor(def, {
        dataDir,
        clock: opts.clock ?? systemClock,
        logger: logger.child(def.name),
        state,
        identity,
        config: config.serviceConfig,
        peers,
        sharedResources,
        selfUrl: () => selfUrl,
        hostApp: () => app,
      });
      const instance = await def.create(ctx);
      instances.set(def.name, instance);
      if (instance.api !== undefined) peers.set(def.name, instance.api);
      return instance;
    })();
    creating.set(name, started);
    return started;
  };
  // A service that declares its paths starts on the first request to one of them (or to a service that uses
  // it) when there is nothing to recover: its code is not even loaded before. A persistent start creates
  // everything before ready, as recovery (timers, schedules, engines) needs. Its own peers are created first.
  const lazy = new Set(config.persist ? [] : order.filter((n) => registry.get(n)!.paths?.length));
  for (const name of [...order].reverse()) {
    if (lazy.has(name)) continue;
    for (const dep of [...(registry.get(name)!.uses ?? []), ...(registry.get(name)!.optionalUses ?? [])])
      lazy.delete(dep);
  }
  // Once created, a lazy service's app is the only thing its prefix routes reach: routes it does not match
  // fall through to the services registered after it and to the 501 catch-all, as a mounted app's would.
  const lazyApps = new Map<string, Promise<Hono>>();
  const lazyApp = (name: string) => {
    let loaded = lazyApps.get(name);
    if (!loaded) {
      loaded = createService(name).then((instance) => {
        instance.app.notFound(() => new Response(null, { status: 404, headers: { [UNMATCHED]: '1' } }));
        // Errors go on to the host's handler, which renders them as Databricks errors.
        instance.app.onError((e) => {
          throw e;
        });
        return instance.app;
      });
      lazyApps.set(name, loaded);
    }
    return loaded;
  };
  // Before every mounted route: a lazy service's paths include the permissions of its objects, which iam
  // serves, and iam knows those object types only once their service registered them.
  const lazyPrefixes = [...lazy].flatMap((name) => registry.get(name)!.paths!.map((p) => ({ p, name })));
  if (lazyPrefixes.length)
    app.use(async (c, next) => {
      const path = c.req.path;
      // The raw request line too: the URL parser folds `/../`, and a service refuses those in its own paths
      // (workspace, files) only if the request reaches it.
      const raw = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url?.split('?')[0];
      // In start order, as mounted routes would be; a service without the route passes it on.
      for (const { p, name } of lazyPrefixes) {
        if (!under(path, p) && !(raw !== undefined && under(raw, p))) continue;
        const res = await (await lazyApp(name)).fetch(c.req.raw, c.env);
        if (res.headers.get(UNMATCHED) === null) return res;
      }
      await next();
    });
  try {
    for (const name of order) if (!lazy.has(name)) app.route('/', (await createService(name)).app);
  } catch (e) {
    // Start-up failed (a state version it cannot read, an undeclared peer): release what already started.
    for (const started of [...instances.values()].reverse()) await started.close?.();
    for (const r of sharedResources.values()) await (await r).close?.();
    await state.close();
    throw e;
  }
  /** Every enabled service created: what snapshots need, which copy and restore every service's state. */
  const createAll = async () => {
    for (const name of order) await createService(name);
  };
  // Built-in identity after the services, so an enabled iam service answers /Me from its store.
  app.route('/', identityApp(identity));

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    clearTimeout(warming);
    await jupyter.close();
    await Promise.allSettled(creating.values());
    for (const name of [...order].reverse()) await instances.get(name)?.close?.();
    for (const r of sharedResources.values()) await (await r).close?.();
    await state.close();
    if (temporary) await rm(dataDir, { recursive: true, force: true });
    else if (!config.persist) {
      await Promise.all(
        ownedDataFolders().map((f) => rm(path.join(dataDir, f), { recursive: true, force: true })),
      );
    }
  };

  // Once the server listens, the services not started yet are started in the background, one at a time with
  // the event loop free in between, so a request is held up by one service's load at most and the first
  // request to a group rarely pays for its code. Delayed a little: the first requests after a start (ready
  // polls) go first.
  let warming: NodeJS.Timeout | undefined;
  const warmUp = async () => {
    for (const name of order) {
      if (closed) return;
      if (lazy.has(name)) await lazyApp(name).catch(() => undefined); // its requests report the error
      await new Promise((r) => setImmediate(r));
    }
  };
  const listening = (url: string) => {
    selfUrl = url;
    if (lazy.size && !warming) warming = setTimeout(() => void warmUp(), WARM_UP_DELAY_MS).unref();
  };

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    jupyter.handleUpgrade(req, socket, head);

  // gRPC services by name (`spark.connect.SparkConnectService`) -> the service that serves them.
  const grpcOwners = new Map<string, string>();
  for (const name of order) for (const g of registry.get(name)!.grpcServices ?? []) grpcOwners.set(g, name);
  const grpc = grpcOwners.size
    ? (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
        const grpcService = String(headers[':path'] ?? '').split('/')[1] ?? '';
        const owner = grpcOwners.get(grpcService);
        if (!owner) return grpcStatus(stream, 12, `No gRPC service ${grpcService} here`);
        createService(owner).then(
          (instance) =>
            instance.grpc
              ? instance.grpc(stream, headers)
              : grpcStatus(stream, 12, `${owner} does not serve gRPC`),
          (e: unknown) => grpcStatus(stream, 14, `${owner} could not start: ${(e as Error).message}`),
        );
      }
    : undefined;

  return {
    app,
    dataDir,
    logger,
    services: order,
    reset,
    ready,
    listening,
    upgrade,
    ...(grpc ? { grpc } : {}),
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
