/**
 * valibot helpers for the three inputs a handler reads: JSON bodies, query strings and path params.
 * Every failure is a 400 naming the field, never a 422 and never a stack trace.
 * Query values are strings on the wire, so they are coerced explicitly: "false" is false.
 */
import type { Context } from 'hono';
import * as v from 'valibot';
import { invalidParameter, malformedRequest } from './errors.js';

type AnySchema = v.GenericSchema<unknown, unknown>;

function issueMessage(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (!issue) return 'Invalid request';
  const path = v.getDotPath(issue);
  return path ? `Invalid value for field '${path}': ${issue.message}` : issue.message;
}

/**
 * How deep a request body's objects and arrays may nest. The deepest real bodies (job settings with
 * tasks, clusters and libraries; Terraform's) stay under 20 levels. A deeper body is refused here, where
 * every JSON body passes, because the stores copy and walk bodies recursively: 5,000 levels of `[` overflowed
 * the stack in cluster and job creation (a 500 instead of a 400).
 */
export const MAX_BODY_DEPTH = 128;

/**
 * In Databricks' JSON an optional field sent as `null` is absent (proto3 semantics; the Terraform provider
 * sends `"custom_tags": null`). Returns a copy of a parsed body without null-valued object fields, at every
 * depth, so no schema has to allow null field by field. Nulls inside arrays are values and stay.
 * A body nesting deeper than MAX_BODY_DEPTH is a 400 MALFORMED_REQUEST.
 */
export function withoutNulls(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_BODY_DEPTH)
    throw malformedRequest(`Request body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((item) => withoutNulls(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v, depth + 1);
  return out;
}

/** Validates an already-parsed value; throws 400 INVALID_PARAMETER_VALUE naming the field. */
export function validate<S extends AnySchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (!result.success) throw invalidParameter(issueMessage(result.issues));
  return result.output;
}

/** Parses the request body as JSON (an empty body is `{}`), then validates it. */
export async function readJson<S extends AnySchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  return parseJsonBody(schema, await c.req.text());
}

/** readJson's work on a body already read: JSON (empty is `{}`), an object, `null`s dropped, validated. */
export function parseJsonBody<S extends AnySchema>(schema: S, text: string): v.InferOutput<S> {
  let parsed: unknown = {};
  if (text.trim() !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw malformedRequest('Request body is not valid JSON');
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw malformedRequest('Request body must be a JSON object');
  }
  return validate(schema, withoutNulls(parsed));
}

/** Validates the query string (single values; repeated keys keep the last). */
export function readQuery<S extends AnySchema>(c: Context, schema: S): v.InferOutput<S> {
  return validate(schema, c.req.query());
}

/**
 * Some GET endpoints are also called with their parameters in a JSON body (the Unity Catalog connector,
 * older CLIs). Query wins over body for the same key.
 */
export async function readQueryOrBody<S extends AnySchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  let body: Record<string, unknown> = {};
  const text = (await rawBodyOfGet(c)) ?? (await c.req.text().catch(() => ''));
  if (text.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        body = parsed as Record<string, unknown>;
    } catch {
      throw malformedRequest('Request body is not valid JSON');
    }
  }
  return validate(schema, { ...(withoutNulls(body) as Record<string, unknown>), ...c.req.query() });
}

/** The most bytes a GET/HEAD body may carry (the raw stream is read by hand, so it is bounded here). */
export const MAX_GET_BODY_BYTES = 1024 * 1024;

interface RawIncoming {
  headers: Record<string, string | string[] | undefined>;
  readableEnded?: boolean;
  destroyed?: boolean;
  on(event: 'data', cb: (chunk: Buffer | string) => void): unknown;
  on(event: 'end' | 'close', cb: () => void): unknown;
  on(event: 'error', cb: (e: Error) => void): unknown;
}
const rawBodies = new WeakMap<object, Promise<string>>();

/**
 * The Node HTTP adapter builds GET and HEAD Requests without a body, though real clients (the UC Spark
 * connector) send JSON with them. When the raw Node request announces a body, it is read from that stream
 * (once per request; at most MAX_GET_BODY_BYTES, beyond which the request is a 400). Undefined when there is
 * no raw request (in-process app.request()), the method has a body anyway, or none was announced.
 */
async function rawBodyOfGet(c: Context): Promise<string | undefined> {
  const method = c.req.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const incoming = (c.env as { incoming?: RawIncoming } | undefined)?.incoming;
  if (!incoming || typeof incoming !== 'object' || !incoming.headers) return undefined;
  const cached = rawBodies.get(incoming);
  if (cached) return cached;
  const len = Number(incoming.headers['content-length'] ?? 0);
  const chunked = incoming.headers['transfer-encoding'] !== undefined;
  if (!(len > 0 || chunked)) return undefined;
  if (len > MAX_GET_BODY_BYTES) throw invalidParameter(`Request body exceeds ${MAX_GET_BODY_BYTES} bytes`);
  if (incoming.readableEnded || incoming.destroyed) return undefined;
  // Events rather than async iteration: leaving an iterator early would destroy the socket, and the 400
  // must still be written. Past the limit the rest is drained and dropped.
  const read = new Promise<string>((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let over = false;
    incoming.on('data', (chunk) => {
      if (over) return;
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += b.length;
      if (size > MAX_GET_BODY_BYTES) {
        over = true;
        parts.length = 0;
        reject(invalidParameter(`Request body exceeds ${MAX_GET_BODY_BYTES} bytes`));
        return;
      }
      parts.push(b);
    });
    incoming.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    incoming.on('close', () => resolve(Buffer.concat(parts).toString('utf8')));
    incoming.on('error', () => reject(malformedRequest('Request body could not be read')));
  });
  rawBodies.set(incoming, read);
  return read;
}

export function readParams<S extends AnySchema>(c: Context, schema: S): v.InferOutput<S> {
  return validate(schema, c.req.param());
}

/** A query-string boolean: accepts true/false (any case) and the booleans a JSON body carries. */
export const qBool = () =>
  v.pipe(
    v.union([v.boolean(), v.string()]),
    v.transform((s) => (typeof s === 'boolean' ? s : s.toLowerCase())),
    v.check((s) => typeof s === 'boolean' || s === 'true' || s === 'false', 'must be true or false'),
    v.transform((s) => s === true || s === 'true'),
  );

/** A query-string integer (also accepts a JSON number). */
export const qInt = () =>
  v.pipe(
    v.union([v.number(), v.string()]),
    v.check(
      (s) => (typeof s === 'number' ? Number.isInteger(s) : /^-?\d{1,15}$/.test(s)),
      'must be an integer',
    ),
    v.transform((s) => (typeof s === 'number' ? s : Number.parseInt(s, 10))),
  );

/** A non-empty string (the usual shape of a required name). */
export const nonEmpty = (what = 'value') => v.pipe(v.string(), v.minLength(1, `${what} must not be empty`));

export { v };
