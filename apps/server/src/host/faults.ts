/**
 * Injected faults (/_minilake/faults): a test makes chosen requests fail as Databricks fails, to prove a
 * client's retries. A fault matches a request by method (absent or `*`: any) and path: exact, or a prefix
 * when the path ends in `*` (`/api/2.1/unity-catalog/*`). It fires `count` times (absent: until deleted),
 * each matching request with `probability` (default 1), answering `status` (default 503) with Databricks'
 * body `{error_code, message}` (and `Retry-After` when `retry_after_seconds` is given) after `latency_ms`
 * (the host's clock); a fault with `latency_ms` and no `status` only delays the request, which then goes on.
 * `used` counts the times it fired. The oldest matching fault fires first.
 * Faults are the host's, in memory: a restart, DELETE /_minilake/faults or a full POST /_minilake/reset
 * clears them.
 */
import type { Hono } from 'hono';
import * as v from 'valibot';
import {
  isAdmin,
  notFound,
  permissionDenied,
  readJson,
  requestPrincipal,
  systemClock,
  type Clock,
} from '@minilake/core';

export const FaultRequest = v.object({
  method: v.optional(
    v.pipe(v.string(), v.toUpperCase(), v.regex(/^(\*|[A-Z]+)$/, 'must be an HTTP method or *')),
  ),
  path: v.pipe(v.string(), v.startsWith('/', 'must start with /'), v.maxLength(2048)),
  status: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(400, 'must be 400 to 599'),
      v.maxValue(599, 'must be 400 to 599'),
    ),
  ),
  latency_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(600_000))),
  probability: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  error_code: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200)), 'TEMPORARILY_UNAVAILABLE'),
  message: v.optional(v.pipe(v.string(), v.maxLength(10000)), 'Injected by /_minilake/faults'),
  count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1, 'must be at least 1'))),
  retry_after_seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});

export interface Fault {
  id: string;
  method: string;
  path: string;
  /** Absent: a latency-only fault (the request goes on after `latency_ms`). */
  status?: number;
  latency_ms?: number;
  probability?: number;
  error_code: string;
  message: string;
  count?: number;
  retry_after_seconds?: number;
  used: number;
}

export class Faults {
  private readonly list: Fault[] = [];
  private seq = 0;

  /** `random` decides a fault with a probability (a test gives its own). */
  constructor(private readonly random: () => number = Math.random) {}

  add(input: v.InferOutput<typeof FaultRequest>): Fault {
    const f: Fault = {
      id: String(++this.seq),
      method: input.method ?? '*',
      path: input.path,
      ...(input.status !== undefined || input.latency_ms === undefined
        ? { status: input.status ?? 503 }
        : {}),
      ...(input.latency_ms !== undefined ? { latency_ms: input.latency_ms } : {}),
      ...(input.probability !== undefined ? { probability: input.probability } : {}),
      error_code: input.error_code,
      message: input.message,
      ...(input.count !== undefined ? { count: input.count } : {}),
      ...(input.retry_after_seconds !== undefined ? { retry_after_seconds: input.retry_after_seconds } : {}),
      used: 0,
    };
    this.list.push(f);
    return f;
  }

  all(): Fault[] {
    return this.list.map((f) => ({ ...f }));
  }

  delete(id?: string): void {
    if (id === undefined) {
      this.list.length = 0;
      return;
    }
    const i = this.list.findIndex((f) => f.id === id);
    if (i < 0) throw notFound(`Fault ${id} does not exist.`);
    this.list.splice(i, 1);
  }

  /** The fault to fire for this request, counted as used; undefined when none matches (or all are spent). */
  take(method: string, path: string): Fault | undefined {
    const f = this.list.find(
      (f) =>
        (f.method === '*' || f.method === method) &&
        (f.count === undefined || f.used < f.count) &&
        (f.path.endsWith('*') ? path.startsWith(f.path.slice(0, -1)) : f.path === path) &&
        (f.probability === undefined || this.random() < f.probability),
    );
    if (f) f.used++;
    return f;
  }
}

/**
 * GET/POST/DELETE /_minilake/faults (DELETE /_minilake/faults/<id> removes one), and the middleware that
 * fires them on every other path. With `auth` on, managing faults takes an admin's token.
 */
export function installFaults(app: Hono, faults: Faults, auth: boolean, clock: Clock = systemClock): void {
  const admin = () => {
    const p = requestPrincipal();
    if (auth && (!p || !isAdmin(p)))
      throw permissionDenied('Only workspace admins may manage injected faults.');
  };
  app.get('/_minilake/faults', (c) => {
    admin();
    return c.json({ faults: faults.all() });
  });
  app.post('/_minilake/faults', async (c) => {
    admin();
    return c.json(faults.add(await readJson(c, FaultRequest)));
  });
  app.delete('/_minilake/faults', (c) => {
    admin();
    faults.delete();
    return c.json({});
  });
  app.delete('/_minilake/faults/:id', (c) => {
    admin();
    faults.delete(c.req.param('id'));
    return c.json({});
  });
  app.use(async (c, next) => {
    if (c.req.path.startsWith('/_minilake/')) return next();
    const f = faults.take(c.req.method, c.req.path);
    if (!f) return next();
    if (f.latency_ms) await new Promise<void>((resolve) => clock.setTimeout(resolve, f.latency_ms!));
    if (f.status === undefined) return next();
    if (f.retry_after_seconds !== undefined) c.header('Retry-After', String(f.retry_after_seconds));
    return c.json({ error_code: f.error_code, message: f.message }, f.status as 400);
  });
}
