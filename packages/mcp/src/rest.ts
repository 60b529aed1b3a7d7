/**
 * How tools reach MiniLake: a request through the host's whole app (ServiceContext.request) or, for the stdio
 * bridge, through fetch to a running server. Either way a tool sees exactly what a REST client sees.
 */

/** A Databricks-shaped failure from a route, carried to the tool result as `isError` with its error_code. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export type Send = (path: string, init?: RequestInit) => Promise<Response>;
export type Query = Record<string, string | number | boolean | undefined | null | string[]>;

export interface CallOptions {
  query?: Query;
  body?: unknown;
}

function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) qs.append(k, item);
    else qs.append(k, String(v));
  }
  const s = qs.toString();
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
}

/** Encodes each segment of an absolute path for a `{path}`-style route (`/Volumes/c/s/v/a b.csv`). */
export const encodePath = (p: string): string =>
  (p.startsWith('/') ? p : `/${p}`)
    .split('/')
    .map((seg) => encodeURIComponent(seg))
    .join('/');

export async function errorFrom(res: Response): Promise<RestError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { error_code?: unknown; message?: unknown };
    if (typeof body.error_code === 'string')
      return new RestError(res.status, body.error_code, typeof body.message === 'string' ? body.message : '');
  } catch {
    // not JSON: fall through
  }
  return new RestError(res.status, `HTTP_${res.status}`, text.slice(0, 500));
}

export class Rest {
  constructor(private readonly send: Send) {}

  /** The raw response (file bodies, HEAD); a non-2xx status becomes a RestError. */
  async raw(method: string, path: string, init: RequestInit & { query?: Query } = {}): Promise<Response> {
    const { query, ...rest } = init;
    const headers = new Headers(rest.headers);
    headers.set('authorization', 'Bearer minilake-mcp');
    const res = await this.send(withQuery(path, query), { ...rest, method, headers });
    if (res.status >= 400) throw await errorFrom(res);
    return res;
  }

  /** A JSON call; an empty body answers `{}`. */
  async call<T = Record<string, unknown>>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    const init: RequestInit & { query?: Query } = { query: opts.query };
    if (opts.body !== undefined) {
      init.body = JSON.stringify(opts.body);
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await this.raw(method, path, init);
    const text = await res.text();
    if (text === '') return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      return { text } as T;
    }
  }

  get<T = Record<string, unknown>>(path: string, query?: Query): Promise<T> {
    return this.call<T>('GET', path, { query });
  }
  post<T = Record<string, unknown>>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.call<T>('POST', path, { body: body ?? {}, query });
  }
  delete<T = Record<string, unknown>>(path: string, query?: Query): Promise<T> {
    return this.call<T>('DELETE', path, { query });
  }
}

/** Drops undefined and null fields, so an optional tool argument left out is absent on the wire. */
export function compact<T extends Record<string, unknown>>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = v;
  return out as Partial<T>;
}
