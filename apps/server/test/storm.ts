/**
 * The concurrency storms of issue 30 (apps/server/test/storms-*.test.ts): N clients send create / get /
 * update / delete for the SAME object at once, for a bounded time, against the composed app in process.
 *
 * In process rather than against a real server: the storms are about the stores and the engines under
 * interleaving (every store call, DuckDB's ATTACH/DETACH, file writes), and `app.request()` interleaves them
 * exactly as the HTTP server does (one event loop, the same Hono app) while costing no sockets or process
 * start, so every store fits in a few seconds on a 2-core machine and runs in CI as a unit test.
 *
 * What a storm checks: no answer is a 5xx, every error is Databricks-shaped (`error_code` and `message`
 * strings), and afterwards the store agrees with itself (get and list say the same) and with what the
 * clients were told: the object exists iff the last acknowledged write says so. Concurrent writes may take
 * effect in either order, so "last" is any acknowledged write that no other acknowledged write started after
 * it ended (the candidates for the last in a linearization).
 */
import { expect } from 'vitest';
import type { Minilake } from '../src/index.js';

export type Json = Record<string, any>;

export interface Answer {
  op: string;
  status: number;
  body: Json;
  start: number;
  end: number;
}

/** Every answer of every storm, for the figures and the 5xx/shape assertions. */
export interface Tally {
  requests: number;
  byStatus: Record<number, number>;
  bad: string[];
}

export const newTally = (): Tally => ({ requests: 0, byStatus: {}, bad: [] });

/** One request through the composed app; records the answer in the tally and checks its shape. */
export async function call(
  ml: Minilake,
  tally: Tally,
  op: string,
  method: string,
  path: string,
  body?: unknown,
  raw?: { bytes: Uint8Array | string; type: string },
): Promise<Answer> {
  const start = performance.now();
  const headers: Record<string, string> = {};
  let payload: string | Uint8Array | undefined;
  if (raw) {
    headers['content-type'] = raw.type;
    payload = raw.bytes;
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await ml.app.request(path, {
    method,
    headers,
    ...(payload !== undefined ? { body: payload } : {}),
  });
  const text = method === 'HEAD' ? '' : await res.text();
  const end = performance.now();
  tally.requests++;
  tally.byStatus[res.status] = (tally.byStatus[res.status] ?? 0) + 1;
  let parsed: Json = {};
  const json = (res.headers.get('content-type') ?? '').includes('json');
  if (text && json) {
    try {
      parsed = JSON.parse(text) as Json;
    } catch {
      tally.bad.push(
        `${op} ${method} ${path}: ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`,
      );
    }
  }
  if (res.status >= 500) tally.bad.push(`${op} ${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  else if (res.status >= 400 && method !== 'HEAD') {
    if (typeof parsed.error_code !== 'string' || typeof parsed.message !== 'string')
      tally.bad.push(`${op} ${method} ${path}: ${res.status} not Databricks-shaped: ${text.slice(0, 300)}`);
  }
  return { op, status: res.status, body: parsed, start, end };
}

export const ok = (a: Answer) => a.status >= 200 && a.status < 300;

/** A seeded PRNG (mulberry32), so a storm that finds something can be replayed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const CLIENTS = 24;
export const STORM_MS = 1_500;

/**
 * Runs `clients` loops for `ms`; each loop calls `step(random)` until time is up. Returns every answer in
 * the order they ended.
 */
export async function storm(
  step: (random: () => number, client: number) => Promise<Answer | Answer[] | undefined>,
  opts: { clients?: number; ms?: number; seed?: number } = {},
): Promise<Answer[]> {
  const clients = opts.clients ?? CLIENTS;
  const until = performance.now() + (opts.ms ?? STORM_MS);
  const answers: Answer[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const random = rng((opts.seed ?? 30) * 1000 + i);
      while (performance.now() < until) {
        const a = await step(random, i);
        if (Array.isArray(a)) answers.push(...a);
        else if (a) answers.push(a);
      }
    }),
  );
  return answers.sort((x, y) => x.end - y.end);
}

export type Effect = 'exists' | 'gone';

/**
 * The states the object may be in after the storm: the effects of the acknowledged writes that could be the
 * last one applied. Undefined when no write was acknowledged (then the state before the storm holds).
 */
export function possibleFinal(writes: { a: Answer; effect: Effect }[]): Set<Effect> | undefined {
  const acked = writes.filter((w) => ok(w.a));
  if (acked.length === 0) return undefined;
  const lastStart = Math.max(...acked.map((w) => w.a.start));
  return new Set(acked.filter((w) => w.a.end >= lastStart).map((w) => w.effect));
}

export const pick = <T>(random: () => number, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

export function summary(name: string, tally: Tally, ms: number): string {
  const codes = Object.entries(tally.byStatus)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  return `${name}: ${tally.requests} requests in ${Math.round(ms)} ms (${codes})`;
}

export interface IdStorm {
  /** Creates one more under the storm's single name; the id when acknowledged. */
  create(t: Tally): Promise<{ a: Answer; id?: string }>;
  /** Reads and writes of one existing id; `deletes` when an acknowledged answer means it is gone. */
  ops: ((id: string, t: Tally, random: () => number) => Promise<{ a: Answer; deletes?: boolean }>)[];
  /** After the storm: is it there for get? */
  get(id: string, t: Tally): Promise<boolean>;
  /** After the storm: the ids the list shows. */
  list(t: Tally): Promise<Set<string>>;
}

/**
 * A storm on an id-keyed store: the first object is made before it; then each client step creates one more
 * under the same name (15 %) or runs one of `ops` on a random known id. Afterwards every id a client was
 * given exists iff no delete of it was acknowledged, and get and list agree on it.
 */
export async function runIdStorm(
  ml: Minilake,
  label: string,
  s: IdStorm,
  opts: { seed: number; figures: string[] },
): Promise<string[]> {
  const tally = newTally();
  const first = await s.create(tally);
  expect(first.id, `${label}: ${JSON.stringify(first.a.body)}`).toBeTruthy();
  const ids = [first.id!];
  const deleted = new Set<string>();
  const t0 = performance.now();
  await storm(
    async (random) => {
      if (random() < 0.15) {
        const c = await s.create(tally);
        if (c.id) ids.push(c.id);
        return c.a;
      }
      const id = pick(random, ids);
      const { a, deletes } = await pick(random, s.ops)(id, tally, random);
      if (deletes && ok(a)) deleted.add(id);
      return a;
    },
    { seed: opts.seed },
  );
  opts.figures.push(summary(label, tally, performance.now() - t0));
  expect(tally.bad, label).toEqual([]);
  const listed = await s.list(tally);
  const got = await Promise.all(ids.map((id) => s.get(id, tally)));
  ids.forEach((id, i) => {
    expect(got[i], `${label} ${id}: get and list agree`).toBe(listed.has(id));
    expect(got[i], `${label} ${id}: there iff no delete was acknowledged`).toBe(!deleted.has(id));
  });
  expect(tally.bad, label).toEqual([]);
  return ids;
}

export const idsOf = (xs: Json[], key: string) => new Set(xs.map((x) => String(x[key])));

/** Every page of a list (its `next_page_token`). */
export async function listAll(ml: Minilake, t: Tally, url: string, field: string): Promise<Json[]> {
  const out: Json[] = [];
  let page: string | undefined;
  do {
    const r = await call(
      ml,
      t,
      'list',
      'GET',
      `${url}${page ? `&page_token=${encodeURIComponent(page)}` : ''}`,
    );
    out.push(...((r.body[field] as Json[]) ?? []));
    page = r.body.next_page_token as string | undefined;
  } while (page);
  return out;
}
