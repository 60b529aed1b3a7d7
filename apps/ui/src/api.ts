/**
 * The UI's only way to the server: the public Databricks REST API on the same origin (no private endpoints),
 * so every action here shows up in query history like any other client's.
 */

/** A Databricks error as the server reported it (HTTP error body or a failed statement's status). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly sqlState?: string,
  ) {
    super(message);
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: {} };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    if (!res.ok) throw new ApiError(res.status, `HTTP_${res.status}`, text.slice(0, 300));
  }
  if (!res.ok) {
    throw new ApiError(
      res.status,
      String(json.error_code ?? `HTTP_${res.status}`),
      String(json.message ?? res.statusText),
    );
  }
  return json as T;
}

export const qs = (params: Record<string, string | number | undefined>) =>
  Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');

// ---- statements --------------------------------------------------------------------------------------------

export interface Column {
  name: string;
  type_name: string;
  type_text?: string;
  position: number;
}
export type Cell = string | null;

interface StatementStatus {
  state: 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'CLOSED';
  error?: { error_code?: string; message?: string };
  sql_state?: string;
}
interface Chunk {
  chunk_index: number;
  row_count?: number;
  data_array?: Cell[][];
  next_chunk_index?: number;
}
interface StatementResponse {
  statement_id: string;
  status: StatementStatus;
  manifest?: {
    schema?: { columns?: Column[] };
    total_row_count?: number;
    total_chunk_count?: number;
    truncated?: boolean;
  };
  result?: Chunk;
}

export interface RunHandle {
  /** The statement id once the server accepted it. */
  id(): string | undefined;
  cancel(): Promise<void>;
  done: Promise<RunResult>;
}
export interface RunResult {
  statementId: string;
  state: 'SUCCEEDED' | 'CANCELED';
  columns: Column[];
  rows: Cell[][];
  totalRows: number;
  truncated: boolean;
  ms: number;
}
export interface RunOptions {
  warehouseId: string;
  catalog?: string;
  schema?: string;
  /** Named parameters (`:name`), bound by the server: values never go into the text. */
  parameters?: { name: string; value: string | null; type?: string }[];
  /**
   * How long the submit waits for the result (`0s`, or 5-50 s): dashboards wait, so a fast statement is one
   * round trip; the editor does not, so its cancel can name the statement at once.
   */
  waitTimeout?: string;
  /** Called once the server accepted the statement (its id is known, so it can be canceled). */
  onAccepted?: (statementId: string) => void;
  /** Called as chunks arrive, so the grid fills while the rest is still being fetched. */
  onRows?: (columns: Column[], rows: Cell[][], totalRows: number) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const terminal = new Set(['SUCCEEDED', 'FAILED', 'CANCELED', 'CLOSED']);

/**
 * Runs one statement through the Statement Execution API: submitted asynchronously (wait_timeout 0s, so the
 * id is known at once and cancel can name it), polled until it ends, then its INLINE JSON_ARRAY chunks read
 * one after the other.
 */
export function runStatement(statement: string, opts: RunOptions): RunHandle {
  let id: string | undefined;
  let cancelled = false;
  const t0 = performance.now();
  const done = (async (): Promise<RunResult> => {
    const body: Record<string, unknown> = {
      statement,
      warehouse_id: opts.warehouseId,
      wait_timeout: opts.waitTimeout ?? '0s',
      disposition: 'INLINE',
      format: 'JSON_ARRAY',
    };
    if (opts.catalog) body.catalog = opts.catalog;
    if (opts.schema) body.schema = opts.schema;
    if (opts.parameters?.length) body.parameters = opts.parameters;
    let r = await api<StatementResponse>('POST', '/api/2.0/sql/statements', body);
    id = r.statement_id;
    opts.onAccepted?.(id);
    if (cancelled) void cancelById(id);
    let delay = 25;
    while (!terminal.has(r.status.state)) {
      await sleep(delay);
      delay = Math.min(delay * 1.6, 400);
      r = await api<StatementResponse>('GET', `/api/2.0/sql/statements/${encodeURIComponent(id)}`);
    }
    const ms = performance.now() - t0;
    if (r.status.state === 'FAILED' || r.status.state === 'CLOSED') {
      const e = r.status.error ?? {};
      throw new ApiError(
        200,
        e.error_code ?? r.status.state,
        e.message ?? `statement ${r.status.state}`,
        r.status.sql_state,
      );
    }
    const columns = r.manifest?.schema?.columns ?? [];
    const totalRows = r.manifest?.total_row_count ?? 0;
    const truncated = r.manifest?.truncated ?? false;
    if (r.status.state === 'CANCELED') {
      return { statementId: id, state: 'CANCELED', columns, rows: [], totalRows: 0, truncated, ms };
    }
    let rows: Cell[][] = r.result?.data_array ?? [];
    opts.onRows?.(columns, rows, totalRows);
    let next = r.result?.next_chunk_index;
    while (next !== undefined && !cancelled) {
      const c = await api<Chunk>(
        'GET',
        `/api/2.0/sql/statements/${encodeURIComponent(id)}/result/chunks/${next}`,
      );
      // concat keeps the previous array intact: the grid may still be drawing it.
      rows = rows.concat(c.data_array ?? []);
      opts.onRows?.(columns, rows, totalRows);
      next = c.next_chunk_index;
    }
    return { statementId: id, state: 'SUCCEEDED', columns, rows, totalRows, truncated, ms };
  })();
  return {
    id: () => id,
    async cancel() {
      cancelled = true;
      if (id) await cancelById(id);
    },
    done,
  };
}

async function cancelById(id: string): Promise<void> {
  await api('POST', `/api/2.0/sql/statements/${encodeURIComponent(id)}/cancel`);
}

// ---- Unity Catalog (explorer and completion) ---------------------------------------------------------------

export interface UcCatalog {
  name: string;
  comment?: string;
}
export interface UcSchema {
  name: string;
  full_name: string;
  comment?: string;
}
export interface UcColumn {
  name: string;
  type_text?: string;
  type_name?: string;
  nullable?: boolean;
  comment?: string;
}
export interface UcTable {
  name: string;
  full_name: string;
  table_type?: string;
  data_source_format?: string;
  comment?: string;
  columns?: UcColumn[];
}
export interface UcVolume {
  name: string;
  full_name: string;
  volume_type?: string;
}

/** Follows next_page_token until the listing ends (UC paginates when max_results is set). */
async function listAll<T>(path: string, key: string, params: Record<string, string>): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await api<Record<string, unknown>>(
      'GET',
      `${path}?${qs({ ...params, max_results: 1000, page_token: token })}`,
    );
    out.push(...((page[key] as T[] | undefined) ?? []));
    token = page.next_page_token as string | undefined;
    if (!token) break;
  }
  return out;
}

const UC = '/api/2.1/unity-catalog';
export const uc = {
  catalogs: () => listAll<UcCatalog>(`${UC}/catalogs`, 'catalogs', {}),
  schemas: (catalog: string) => listAll<UcSchema>(`${UC}/schemas`, 'schemas', { catalog_name: catalog }),
  tables: (catalog: string, schema: string) =>
    listAll<UcTable>(`${UC}/tables`, 'tables', { catalog_name: catalog, schema_name: schema }),
  volumes: (catalog: string, schema: string) =>
    listAll<UcVolume>(`${UC}/volumes`, 'volumes', { catalog_name: catalog, schema_name: schema }),
  table: (fullName: string) => api<UcTable>('GET', `${UC}/tables/${encodeURIComponent(fullName)}`),
};

export interface Warehouse {
  id: string;
  name: string;
  state?: string;
}
export const warehouses = async () =>
  (await api<{ warehouses?: Warehouse[] }>('GET', '/api/2.0/sql/warehouses')).warehouses ?? [];

/** Backquotes a name for SQL text (Databricks quotes identifiers with backticks, doubling any inside). */
export const quoteIdent = (name: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replaceAll('`', '``')}\``;
