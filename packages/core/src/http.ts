/**
 * HTTP pieces every host shares: the one error installation (renderer, 501 for unknown `/api` paths, 404 for
 * the rest, trailing slashes), and the middleware that makes a 2xx mean "persisted".
 */
import type { Context, ErrorHandler, Hono, MiddlewareHandler } from 'hono';
import { notImplemented, renderError } from './errors.js';
import type { Logger } from './logger.js';
import type { StateDb } from './state.js';

export function errorHandler(logger: Logger): ErrorHandler {
  return (err, c) => {
    const { status, body, unexpected } = renderError(err);
    if (unexpected)
      logger.error(`${c.req.method} ${c.req.path} failed`, { error: (err as Error)?.stack ?? String(err) });
    return c.json(body, status as 400);
  };
}

export function notImplementedHandler(c: Context) {
  const e = notImplemented(`${c.req.method} ${c.req.path}`);
  return c.json(e.toBody(), 501);
}

/** After a write request, waits until the state journal holds it, so a 2xx survives kill -9. */
export function persistAfterWrite(state: StateDb): MiddlewareHandler {
  return async (_c, next) => {
    await next();
    await state.flush();
  };
}

/**
 * The one error-handling installation, used by apps/server, the test helpers and embedders alike (it may be
 * called before or after the routes are added: it adds no route):
 * - anything thrown renders as a Databricks error (unknown errors: an opaque 500, logged with the stack);
 * - a path no route matches but that ends in `/` is tried again without the slash, so `POST
 *   /api/2.0/sql/statements/` reaches its route for every service (some clients send it; routes matched
 *   exactly, slash included, are never rerouted);
 * - any other unknown `/api/...` path is a Databricks endpoint MiniLake has not built: 501 NOT_IMPLEMENTED;
 * - anything else (not an API path at all) is 404 ENDPOINT_NOT_FOUND, as the real workspace answers.
 */
export function installErrorHandling(app: Hono, logger: Logger): void {
  app.onError(errorHandler(logger));
  app.notFound(async (c) => {
    const url = new URL(c.req.url);
    if (url.pathname.length > 1 && url.pathname.endsWith('/')) {
      url.pathname = url.pathname.replace(/\/+$/, '') || '/';
      const raw = c.req.raw;
      const hasBody = raw.method !== 'GET' && raw.method !== 'HEAD' && raw.body !== null;
      const retry = new Request(url, {
        method: raw.method,
        headers: raw.headers,
        signal: raw.signal,
        ...(hasBody ? { body: raw.body, duplex: 'half' } : {}),
      } as RequestInit);
      return app.fetch(retry, c.env);
    }
    if (c.req.path === '/api' || c.req.path.startsWith('/api/')) return notImplementedHandler(c);
    return c.json(
      { error_code: 'ENDPOINT_NOT_FOUND', message: `No API found for '${c.req.method} ${c.req.path}'` },
      404,
    );
  });
}
