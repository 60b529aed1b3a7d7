/**
 * Phase 4 of the host: routing. The middleware every request passes (debug timing, the snapshot gate, the
 * persistence barrier), the prefix router that creates a lazy service on its first request, and the eager
 * services mounted as ordinary sub-apps. Unknown paths are left to core's installErrorHandling (501 / 404).
 */
import type { Hono } from 'hono';
import { persistAfterWrite, type Logger, type StateDb } from '@minilake/core';
import type { WriteGate } from '../snapshots.js';
import type { ServiceHost } from './services.js';

/** Marks a lazily created service's "no route here" answer, so the request falls through to the next one. */
const UNMATCHED = 'x-minilake-unmatched';

/** Whether a path is the prefix or below it (`/api/2.0/jobs` covers `/api/2.0/jobs/list`, not `/api/2.0/jobsx`). */
const under = (path: string, prefix: string) =>
  path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === '/');

const reads = (method: string) => method === 'GET' || method === 'HEAD';

export function installMiddleware(app: Hono, o: { logger: Logger; gate: WriteGate; state: StateDb }): void {
  if (o.logger.level === 'debug') {
    app.use(async (c, next) => {
      const t0 = performance.now();
      await next();
      o.logger.debug(
        `${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - t0).toFixed(2)}ms`,
      );
    });
  }
  // Snapshots never see half a write: each mutating request holds the gate shared (admin routes and /mcp,
  // whose tools call the routes again, stay outside it).
  app.use(async (c, next) =>
    reads(c.req.method) || c.req.path.startsWith('/_minilake/') || c.req.path === '/mcp'
      ? next()
      : o.gate.shared(next),
  );
  // An acknowledged write is on disk before the client hears of it.
  if (o.state.persistent) {
    const persist = persistAfterWrite(o.state);
    app.use(async (c, next) => (reads(c.req.method) ? next() : persist(c, next)));
  }
}

/**
 * Routes the lazy services' prefixes. Once created, a lazy service's app is the only thing its prefixes
 * reach: routes it does not match fall through to the services after it and to the 501 catch-all, as a
 * mounted app's would. Installed before every mounted route: a lazy service's paths include the
 * permissions of its objects, which iam serves, and iam knows those object types only once their service
 * registered them (so the owning service must be created first).
 */
export function routeLazyServices(app: Hono, services: ServiceHost): void {
  const apps = new Map<string, Promise<Hono>>();
  const lazyApp = (name: string) => {
    let loaded = apps.get(name);
    if (!loaded) {
      loaded = services.create(name).then((instance) => {
        instance.app.notFound(() => new Response(null, { status: 404, headers: { [UNMATCHED]: '1' } }));
        // Errors go on to the host's handler, which renders them as Databricks errors.
        instance.app.onError((e) => {
          throw e;
        });
        return instance.app;
      });
      apps.set(name, loaded);
    }
    return loaded;
  };
  // In start order, as mounted routes would be.
  const prefixes = services.order
    .filter((n) => services.lazy.has(n))
    .flatMap((name) => services.def(name).paths!.map((p) => ({ p, name })));
  if (!prefixes.length) return;
  app.use(async (c, next) => {
    const path = c.req.path;
    // The raw request line too: the URL parser folds `/../`, and a service refuses those in its own paths
    // (workspace, files) only if the request reaches it.
    const raw = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url?.split('?')[0];
    for (const { p, name } of prefixes) {
      if (!under(path, p) && !(raw !== undefined && under(raw, p))) continue;
      const res = await (await lazyApp(name)).fetch(c.req.raw, c.env);
      // A service without the route passes it on.
      if (res.headers.get(UNMATCHED) === null) return res;
    }
    await next();
  });
}

/** Creates the eager services in start order and mounts each app at the root. */
export async function mountEagerServices(app: Hono, services: ServiceHost): Promise<void> {
  for (const name of services.eager()) app.route('/', (await services.create(name)).app);
}
