/**
 * Statement Execution API (/api/2.0/sql/statements), SQL warehouses (/api/2.0/sql/warehouses),
 * data sources and query history. Fidelity notes:
 * - A statement always runs asynchronously; POST waits up to wait_timeout ('0s', or '5s'..'50s', default
 *   '10s'), then answers with the current state. A FAILED statement is HTTP 200 with status.error and
 *   status.sql_state, as on Databricks.
 * - JSON_ARRAY values are strings or null; ARROW_STREAM and CSV only with EXTERNAL_LINKS. External links
 *   are absolute URLs on this server under /_minilake/sql/results/, signed over statement, chunk and
 *   expiry, valid 15 minutes; they need no Authorization header (clients must not send it there).
 * - A zero-row result has total_chunk_count 0 and `"result": {}`.
 * - Warehouses all run on the one DuckDB engine; their state machine only gates statements: a statement
 *   sent to a STOPPED warehouse starts it and stays PENDING until it is RUNNING; auto_stop_mins of
 *   idleness stops a warehouse.
 * - GET /api/2.0/preview/sql/data_sources is a bare JSON array (the Terraform provider needs that).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Hono, type Context } from 'hono';
import {
  nestedQueryValue,
  nestedQueryValues,
  parseJsonBody,
  readJson,
  readQuery,
  sendStream,
  validate,
  v,
} from '@minilake/core';
import {
  badWaitTimeout,
  chunkNotFound,
  resultLinkExpired,
  statementNotFound,
  statementNotSucceeded,
} from './errors.js';
import type { QueryFilter, QueryHistoryStore } from './history.js';
import { chunkContent, contentType, type ChunkInfo, type ResultSet } from './results.js';
import * as s from './schemas.js';
import {
  STATEMENT_API_CLIENT,
  type SqlRequest,
  type Statement,
  type StatementManager,
} from './statements.js';
import type { Origin, WarehouseStore } from './warehouses.js';

const STATEMENTS = '/api/2.0/sql/statements';
const WAREHOUSES = '/api/2.0/sql/warehouses';
const RESULTS = '/_minilake/sql/results';
const JSON_HEADERS = { 'content-type': 'application/json' };
/** Spilled chunks are read this much at a time for an external-link download. */
const READ_CHUNK = 1024 * 1024;

function originOf(c: Context): { base: string; origin: Origin } {
  const u = new URL(c.req.url);
  const protocol = u.protocol.replace(':', '');
  const port = u.port ? Number(u.port) : protocol === 'https' ? 443 : 80;
  return { base: `${u.protocol}//${u.host}`, origin: { hostname: u.hostname, port, protocol } };
}

function parseWaitTimeout(value: string | undefined): number {
  if (value === undefined) return 10;
  const m = /^(\d{1,3})s$/.exec(value);
  if (!m) throw badWaitTimeout(value);
  const n = Number(m[1]);
  if (n !== 0 && (n < 5 || n > 50)) throw badWaitTimeout(value);
  return n;
}

/** A warehouse permission level (iam's object permissions), weakest first. */
export type WarehouseLevel = 'CAN_VIEW' | 'CAN_USE' | 'CAN_MONITOR' | 'CAN_MANAGE' | 'IS_OWNER';

/** The caller's rights on warehouses (MINILAKE_ENFORCE=1); everything passes without. */
export interface WarehouseAccess {
  check(id: string, level: WarehouseLevel): void;
  can(id: string, level: WarehouseLevel): boolean;
}

const OPEN: WarehouseAccess = { check: () => {}, can: () => true };

export function sqlApp(
  statements: StatementManager,
  warehouses: WarehouseStore,
  history: QueryHistoryStore,
  access: WarehouseAccess = OPEN,
): Hono {
  const app = new Hono();

  // ---- statements ----------------------------------------------------------------------------------------

  const chunkLink = (id: string, n: number) => `${STATEMENTS}/${id}/result/chunks/${n}`;

  // External links are signed (statement, chunk, expiry) with a per-server key: they work without the
  // Databricks auth header, cannot be extended or pointed at another chunk, and stop at their expiration.
  const linkKey = randomBytes(32);
  const sign = (stmt: Statement, n: number, expires: number) =>
    createHmac('sha256', linkKey).update(`${stmt.id}/${stmt.token}/${n}/${expires}`).digest('base64url');
  function verify(stmt: Statement, n: number, expires: number, sig: string): boolean {
    const want = Buffer.from(sign(stmt, n, expires));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  /** `base` (the server's origin, parsed from the request URL) is only needed for external links. */
  function chunkWire(stmt: Statement, chunk: ChunkInfo, base: () => string): Record<string, unknown> {
    const total = stmt.result!.chunks.length;
    const next: Record<string, unknown> = {};
    if (chunk.chunk_index + 1 < total) {
      next.next_chunk_index = chunk.chunk_index + 1;
      next.next_chunk_internal_link = chunkLink(stmt.id, chunk.chunk_index + 1);
    }
    if (stmt.disposition === 'EXTERNAL_LINKS') {
      const expires = statements.linkExpiration();
      const sig = sign(stmt, chunk.chunk_index, expires);
      return {
        external_links: [
          {
            chunk_index: chunk.chunk_index,
            row_offset: chunk.row_offset,
            row_count: chunk.row_count,
            byte_count: chunk.byte_count,
            external_link: `${base()}${RESULTS}/${stmt.id}/${chunk.chunk_index}?expires=${expires}&sig=${sig}`,
            expiration: new Date(expires).toISOString(),
            ...next,
          },
        ],
      };
    }
    return {
      chunk_index: chunk.chunk_index,
      row_offset: chunk.row_offset,
      row_count: chunk.row_count,
      ...next,
    };
  }

  /** The response body as text: inline data (already JSON) is spliced in, never re-parsed. */
  async function statementBody(stmt: Statement, base: () => string): Promise<string> {
    const status: Record<string, unknown> = { state: stmt.state };
    if (stmt.state === 'FAILED') {
      status.error = stmt.error;
      if (stmt.sqlState) status.sql_state = stmt.sqlState;
    }
    const out: Record<string, unknown> = { statement_id: stmt.id, status };
    const rs = stmt.result;
    if (stmt.state !== 'SUCCEEDED' || !rs) return JSON.stringify(out);
    if (rs.disposition === 'INLINE') return inlineBody(stmt, rs);
    const manifest: Record<string, unknown> = {
      format: rs.format,
      schema: { column_count: rs.columns.length, columns: rs.columns },
      total_chunk_count: rs.chunks.length,
      chunks: rs.chunks.map((c) =>
        rs.disposition === 'EXTERNAL_LINKS'
          ? {
              chunk_index: c.chunk_index,
              row_offset: c.row_offset,
              row_count: c.row_count,
              byte_count: c.byte_count,
            }
          : { chunk_index: c.chunk_index, row_offset: c.row_offset, row_count: c.row_count },
      ),
      total_row_count: rs.totalRows,
      truncated: rs.truncated,
    };
    if (rs.disposition === 'EXTERNAL_LINKS') manifest.total_byte_count = rs.totalBytes;
    out.manifest = manifest;
    const first = rs.chunks[0];
    if (!first) {
      out.result = {};
      return JSON.stringify(out);
    }
    out.result = chunkWire(stmt, first, base);
    const text = JSON.stringify(out);
    if (rs.disposition === 'EXTERNAL_LINKS') return text;
    return withDataArray(text, await chunkContent(first), 2);
  }

  const respond = async (c: Context, stmt: Statement) =>
    c.body(await statementBody(stmt, () => originOf(c).base), 200, JSON_HEADERS);

  function find(id: string): Statement {
    const stmt = statements.get(id);
    if (!stmt) throw statementNotFound(id);
    return stmt;
  }

  app.post(STATEMENTS, async (c) => {
    const body = await readStatementRequest(c);
    const wait = parseWaitTimeout(body.wait_timeout);
    const stmt = statements.execute(toSqlRequest(body));
    if (wait > 0) {
      const ended = await statements.wait(stmt, wait * 1000);
      if (!ended && body.on_wait_timeout === 'CANCEL') statements.cancel(stmt);
    }
    return respond(c, stmt);
  });

  app.get(`${STATEMENTS}/:id`, (c) => respond(c, find(c.req.param('id'))));

  app.post(`${STATEMENTS}/:id/cancel`, (c) => {
    statements.cancel(find(c.req.param('id')));
    return c.json({});
  });

  app.get(`${STATEMENTS}/:id/result/chunks/:n`, async (c) => {
    const stmt = find(c.req.param('id'));
    const n = validate(
      v.pipe(v.string(), v.regex(/^\d{1,9}$/, 'chunk_index must be a non-negative integer')),
      c.req.param('n'),
    );
    if (stmt.state !== 'SUCCEEDED' || !stmt.result) throw statementNotSucceeded(stmt.id, stmt.state);
    const chunk = stmt.result.chunks[Number(n)];
    if (!chunk) throw chunkNotFound(stmt.id, Number(n));
    const wire = chunkWire(stmt, chunk, () => originOf(c).base);
    if (stmt.disposition === 'EXTERNAL_LINKS') return c.json(wire);
    return c.body(withDataArray(JSON.stringify(wire), await chunkContent(chunk), 1), 200, {
      'content-type': 'application/json',
    });
  });

  // External links: no Databricks auth, a per-statement secret and an expiry instead.
  app.get(`${RESULTS}/:id/:n`, async (c) => {
    const id = c.req.param('id');
    const n = Number(c.req.param('n'));
    const expires = Number(c.req.query('expires'));
    const stmt = statements.get(id);
    if (!stmt || !Number.isInteger(n) || !verify(stmt, n, expires, c.req.query('sig') ?? ''))
      throw statementNotFound(id);
    if (!(expires >= statements.now())) throw resultLinkExpired();
    if (stmt.state !== 'SUCCEEDED' || !stmt.result) throw statementNotSucceeded(stmt.id, stmt.state);
    const chunk = stmt.result.chunks[n];
    if (!chunk) throw chunkNotFound(stmt.id, n);
    const headers = {
      'content-type': contentType(stmt.result.format),
      'content-length': String(chunk.byte_count),
    };
    if (chunk.file) {
      // Straight from the file into the socket (no web-stream adapters), 1 MiB per read: a 16 MB chunk is
      // 16 reads and 16 socket writes instead of 256 of each plus a web reader loop (bench/README.md, sql).
      return sendStream(c, 200, headers, createReadStream(chunk.file, { highWaterMark: READ_CHUNK }));
    }
    const data = chunk.mem ?? '';
    return new Response(typeof data === 'string' ? data : (data as Uint8Array<ArrayBuffer>), {
      status: 200,
      headers,
    });
  });

  // ---- warehouses ---------------------------------------------------------------------------------------

  app.post(WAREHOUSES, async (c) => {
    const w = warehouses.create(await readJson(c, s.CreateWarehouseRequest));
    return c.json({ id: w.id });
  });
  app.get(WAREHOUSES, (c) => {
    const q = readQuery(c, s.ListWarehousesRequest);
    const { origin } = originOf(c);
    const page = warehouses.list(q.page_size, q.page_token, (w) => access.can(w.id, 'CAN_VIEW'));
    const body: Record<string, unknown> = {
      warehouses: page.items.map((w) => warehouses.toWire(w, origin)),
    };
    if (page.nextPageToken) body.next_page_token = page.nextPageToken;
    return c.json(body);
  });
  // The warehouse, known to exist, on which the caller holds `level` (a deleted one answers as before).
  const allowed = (id: string, level: WarehouseLevel) => {
    const w = warehouses.get(id);
    if (w.state !== 'DELETED') access.check(id, level);
    return w;
  };
  app.get(`${WAREHOUSES}/:id`, (c) =>
    c.json(warehouses.toWire(allowed(c.req.param('id'), 'CAN_VIEW'), originOf(c).origin)),
  );
  app.post(`${WAREHOUSES}/:id/edit`, async (c) => {
    const body = await readJson(c, s.EditWarehouseRequest);
    warehouses.edit(allowed(c.req.param('id'), 'CAN_MANAGE').id, body);
    return c.json({});
  });
  app.post(`${WAREHOUSES}/:id/start`, (c) => {
    warehouses.start(allowed(c.req.param('id'), 'CAN_MONITOR').id);
    return c.json({});
  });
  app.post(`${WAREHOUSES}/:id/stop`, (c) => {
    warehouses.stop(allowed(c.req.param('id'), 'CAN_MONITOR').id);
    return c.json({});
  });
  app.delete(`${WAREHOUSES}/:id`, (c) => {
    warehouses.delete(allowed(c.req.param('id'), 'CAN_MANAGE').id);
    return c.json({});
  });

  app.get('/api/2.0/sql/config/warehouses', (c) => c.json(warehouses.workspaceConfig()));
  app.put('/api/2.0/sql/config/warehouses', async (c) => {
    warehouses.setWorkspaceConfig(await readJson(c, s.SetWorkspaceWarehouseConfigRequest));
    return c.json({});
  });

  // The legacy data sources list is a bare JSON array (the Terraform provider reads it that way).
  app.get('/api/2.0/preview/sql/data_sources', (c) =>
    c.json(
      warehouses.dataSources().map((w) => ({
        id: w.data_source_id,
        name: w.name,
        warehouse_id: w.id,
        type: 'databricks_internal',
        syntax: 'sql',
        paused: 0,
        pause_reason: '',
        supports_auto_limit: true,
        view_only: false,
      })),
    ),
  );

  // ---- query history ------------------------------------------------------------------------------------

  app.get('/api/2.0/sql/history/queries', async (c) => {
    const q = readQuery(c, s.ListQueryHistoryRequest);
    const filter = await historyFilter(c);
    return c.json(history.list(filter, q.max_results, q.page_token, q.include_metrics ?? false));
  });

  return app;
}

// Validated ExecuteStatement bodies by their text: clients send the same body again and again (a connection
// check, a dashboard's query, a poll loop), and parsing plus validating it was ~15 µs of a `SELECT 1`. The
// output is a function of the text alone; it is frozen, since every statement of that text shares it.
const requestCache = new Map<string, s.ExecuteStatementInput>();
const REQUEST_CACHE_MAX = 256;
const REQUEST_CACHE_TEXT_MAX = 8 * 1024;

/** readJson(c, s.ExecuteStatementRequest), with the same errors, through the cache above. */
async function readStatementRequest(c: Context): Promise<s.ExecuteStatementInput> {
  const text = await c.req.text();
  const hit = requestCache.get(text);
  if (hit) return hit;
  const body = deepFreeze(parseJsonBody(s.ExecuteStatementRequest, text));
  if (text.length <= REQUEST_CACHE_TEXT_MAX) {
    if (requestCache.size >= REQUEST_CACHE_MAX) requestCache.delete(requestCache.keys().next().value!);
    requestCache.set(text, body);
  }
  return body;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The REST request in the statement service's wire-neutral form. */
function toSqlRequest(body: s.ExecuteStatementInput): SqlRequest {
  const r: SqlRequest = {
    statement: body.statement,
    warehouseId: body.warehouse_id,
    client: STATEMENT_API_CLIENT,
  };
  if (body.catalog) r.catalog = body.catalog;
  if (body.schema) r.schema = body.schema;
  if (body.parameters) r.parameters = body.parameters;
  if (body.format) r.format = body.format;
  if (body.disposition) r.disposition = body.disposition;
  if (body.row_limit !== undefined) r.rowLimit = body.row_limit;
  if (body.byte_limit !== undefined) r.byteLimit = body.byte_limit;
  if (body.query_tags) r.queryTags = body.query_tags;
  return r;
}

/**
 * A SUCCEEDED INLINE statement's response, written as text: the same fields in the same order as the object
 * form in statementBody (which EXTERNAL_LINKS results take), with the manifest columns' JSON made once per
 * column list (ResultShape) and the first chunk's rows spliced in. Building the objects and serialising
 * them was most of the response's cost for a small result.
 */
async function inlineBody(stmt: Statement, rs: ResultSet): Promise<string> {
  const chunks = rs.chunks;
  let manifestChunks = '';
  for (const c of chunks)
    manifestChunks += `${manifestChunks ? ',' : ''}{"chunk_index":${c.chunk_index},"row_offset":${c.row_offset},"row_count":${c.row_count}}`;
  const head =
    `{"statement_id":${JSON.stringify(stmt.id)},"status":{"state":"SUCCEEDED"},"manifest":{"format":${JSON.stringify(rs.format)},` +
    `"schema":{"column_count":${rs.columns.length},"columns":${rs.columnsJson}},"total_chunk_count":${chunks.length},` +
    `"chunks":[${manifestChunks}],"total_row_count":${rs.totalRows},"truncated":${rs.truncated}},"result":`;
  const first = chunks[0];
  if (!first) return `${head}{}}`;
  let result = `{"chunk_index":${first.chunk_index},"row_offset":${first.row_offset},"row_count":${first.row_count}`;
  if (chunks.length > 1)
    result += `,"next_chunk_index":1,"next_chunk_internal_link":${JSON.stringify(`${STATEMENTS}/${stmt.id}/result/chunks/1`)}`;
  const data = await chunkContent(first);
  const text =
    typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString();
  return `${head}${result},"data_array":${text}}}`;
}

/**
 * Adds `"data_array": <chunk JSON>` as the last field of the object that closes `depth` braces before the
 * end of `json` (the chunk is JSON text already: it is spliced in, never parsed and re-serialised).
 */
function withDataArray(json: string, data: Uint8Array | string, depth: number): string {
  const text =
    typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString();
  return `${json.slice(0, -depth)},"data_array":${text}${'}'.repeat(depth)}`;
}

/** filter_by arrives flattened in the query string (`filter_by.statuses=...`) or, from older clients, in a JSON body. */
async function historyFilter(c: Context): Promise<QueryFilter> {
  const url = new URL(c.req.url);
  const f: QueryFilter = {};
  let body: { filter_by?: Record<string, unknown> } = {};
  const text = await c.req.text().catch(() => '');
  if (text.trim()) {
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = {};
    }
  }
  const b = body.filter_by ?? {};
  const list = (k: string): string[] => {
    const fromBody = Array.isArray(b[k]) ? (b[k] as unknown[]).map(String) : [];
    return [...nestedQueryValues(url, `filter_by.${k}`), ...fromBody].filter(Boolean);
  };
  const statuses = list('statuses');
  if (statuses.length) f.statuses = statuses;
  const wh = list('warehouse_ids');
  if (wh.length) f.warehouse_ids = wh;
  const ids = list('statement_ids');
  if (ids.length) f.statement_ids = ids;
  const users = list('user_ids').map(Number).filter(Number.isFinite);
  if (users.length) f.user_ids = users;
  const range = (b.query_start_time_range ?? {}) as Record<string, unknown>;
  const start =
    nestedQueryValue(url, 'filter_by.query_start_time_range.start_time_ms') ?? range.start_time_ms;
  const end = nestedQueryValue(url, 'filter_by.query_start_time_range.end_time_ms') ?? range.end_time_ms;
  if (start !== undefined && start !== null && start !== '') f.start_time_ms = Number(start);
  if (end !== undefined && end !== null && end !== '') f.end_time_ms = Number(end);
  return f;
}
