/**
 * HTTP pieces every host shares: the single error renderer, the 501 catch-all, and the middleware that
 * makes a 2xx mean "persisted".
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

/** Mounts a service app with the shared error handling on a host app (used by apps/server and embedders). */
export function installErrorHandling(app: Hono, logger: Logger): void {
  app.onError(errorHandler(logger));
  app.notFound(notImplementedHandler);
}
