/**
 * Injected faults (/_minilake/faults): a test makes chosen requests, job tasks or SQL statements fail as
 * Databricks fails, to prove a client's retries.
 * - `target: "http"` (the default) matches a request by method (absent or `*`: any) and path: exact, or a
 *   prefix when the path ends in `*` (`/api/2.1/unity-catalog/*`). It answers `status` (default 503) with
 *   Databricks' body `{error_code, message}` (and `Retry-After` when `retry_after_seconds` is given) after
 *   `latency_ms` (the host's clock); with `latency_ms` and no `status` it only delays the request, which then
 *   goes on; with `drop: true` it closes the connection without an answer (after the latency).
 * - `target: "task"` fails a job task about to run whose task key matches `task_key` (exact, a `*`-ended
 *   prefix, or `*`) with `message` as its error; the job's own retries (`max_retries`) then apply.
 * - `target: "statement"` fails a SQL statement (Statement API, Thrift, a job's sql_task) whose text contains
 *   `statement` (case-insensitive; `*`: any) with `error_code` and `message`, before it reaches the engine.
 * A fault fires `count` times (absent: until deleted), each match with `probability` (default 1). `used` counts
 * the times it fired; the oldest matching fault fires first.
 * Faults are the host's, in memory: a restart, DELETE /_minilake/faults or a full POST /_minilake/reset
 * clears them.
 */
import type { IncomingMessage } from 'node:http';
import type { Hono } from 'hono';
import * as v from 'valibot';
import {
  invalidParameter,
  isAdmin,
  notFound,
  permissionDenied,
  readJson,
  requestPrincipal,
  systemClock,
  type Clock,
  type FaultPoint,
  type InjectedFault,
} from '@minilake/core';

export const FaultRequest = v.object({
  target: v.optional(v.picklist(['http', 'task', 'statement'], 'must be http, task or statement'), 'http'),
  method: v.optional(
    v.pipe(v.string(), v.toUpperCase(), v.regex(/^(\*|[A-Z]+)$/, 'must be an HTTP method or *')),
  ),
  path: v.optional(v.pipe(v.string(), v.startsWith('/', 'must start with /'), v.maxLength(2048))),
  task_key: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(1000))),
  statement: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(10000))),
  drop: v.optional(v.boolean()),
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

/** The fields that belong to one target (a fault of another target refusing them), the needed one first. */
const OWN_FIELDS = {
  http: ['path', 'method', 'drop', 'status', 'latency_ms', 'retry_after_seconds'],
  task: ['task_key'],
  statement: ['statement'],
} as const;
const ALL_TARGET_FIELDS = Object.values(OWN_FIELDS).flat();

export interface Fault {
  id: string;
  target: 'http' | FaultPoint;
  /** http: the method and path pattern. */
  method?: string;
  path?: string;
  /** task: the task key pattern; statement: the text to look for. */
  task_key?: string;
  statement?: string;
  /** http: close the connection without an answer. */
  drop?: boolean;
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
    const { target } = input;
    // The first field a target takes is the one it needs.
    const own: readonly (keyof typeof input)[] = OWN_FIELDS[target];
    if (input[own[0]!] === undefined)
      throw invalidParameter(`A fault with target ${target} needs ${own[0]}.`);
    const foreign = ALL_TARGET_FIELDS.find((k) => input[k] !== undefined && !own.includes(k));
    if (foreign) throw invalidParameter(`A fault with target ${target} takes no ${foreign}.`);
    const http = target === 'http';
    const f: Fault = {
      id: String(++this.seq),
      target,
      ...(http ? { method: input.method ?? '*', path: input.path! } : {}),
      ...(input.task_key !== undefined ? { task_key: input.task_key } : {}),
      ...(input.statement !== undefined ? { statement: input.statement } : {}),
      ...(input.drop ? { drop: true } : {}),
      ...(http && !input.drop && (input.status !== undefined || input.latency_ms === undefined)
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
    return this.fire(
      (f) => f.target === 'http' && (f.method === '*' || f.method === method) && matches(f.path!, path),
    );
  }

  /** The error for a job task (by task key) or a statement (by text) about to run; see ServiceContext.fault. */
  takeAt(point: FaultPoint, subject: string): InjectedFault | undefined {
    const text = subject.toLowerCase();
    const f = this.fire((f) =>
      point === 'task'
        ? f.target === 'task' && matches(f.task_key!, subject)
        : f.target === 'statement' && (f.statement === '*' || text.includes(f.statement!.toLowerCase())),
    );
    return f && { error_code: f.error_code, message: f.message };
  }

  private fire(match: (f: Fault) => boolean): Fault | undefined {
    const f = this.list.find(
      (f) =>
        (f.count === undefined || f.used < f.count) &&
        match(f) &&
        (f.probability === undefined || this.random() < f.probability),
    );
    if (f) f.used++;
    return f;
  }
}

/** A pattern: `*` (anything), a prefix ending in `*`, or the exact value. */
function matches(pattern: string, value: string): boolean {
  return pattern.endsWith('*') ? value.startsWith(pattern.slice(0, -1)) : pattern === value;
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
    if (f.drop) {
      // Over a socket (node:http, or an HTTP/2 stream's session): closed with no answer. In process (no
      // socket to close) the nearest thing is an answer no client mistakes for a success.
      const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
      if (incoming?.socket) {
        incoming.socket.destroy();
        return new Response(null, { status: 503 });
      }
      return c.json({ error_code: f.error_code, message: f.message }, 503);
    }
    if (f.status === undefined) return next();
    if (f.retry_after_seconds !== undefined) c.header('Retry-After', String(f.retry_after_seconds));
    return c.json({ error_code: f.error_code, message: f.message }, f.status as 400);
  });
}
