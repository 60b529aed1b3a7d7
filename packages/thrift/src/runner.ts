/**
 * The one seam between the Thrift endpoint and statement execution: "run this Databricks SQL on this
 * warehouse in this namespace, give me typed (Arrow) results, cancel". Everything Thrift-specific stays out
 * of here, so the endpoint does not care which statement service runs the SQL.
 *
 * This implementation goes through the sql service's REST Statement Execution API in process
 * (`ctx.request`), with ARROW_STREAM + EXTERNAL_LINKS (no 25 MiB inline limit, typed Arrow columns): the
 * statement lands in query history like any other, on the same engine and dialect.
 */
import type { ServiceContext } from '@minilake/core';

export interface RunParameter {
  name: string;
  value?: string;
  type?: string;
}

export interface RunRequest {
  statement: string;
  warehouseId: string;
  catalog?: string;
  schema?: string;
  parameters?: RunParameter[];
}

export type RunState = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'CLOSED';

/** A result column as the Statement API's manifest describes it (Databricks type names). */
export interface RunColumn {
  name: string;
  type_name: string;
  type_text: string;
  type_precision?: number;
  type_scale?: number;
}

export interface RunStatus {
  state: RunState;
  error?: { code: string; message: string; sqlState?: string };
  columns?: RunColumn[];
  totalRows?: number;
  chunkCount?: number;
}

export interface Execution {
  readonly id: string;
  status(): RunStatus;
  /** Resolves when the statement reached a terminal state. */
  readonly done: Promise<void>;
  /** Chunk i of a SUCCEEDED result, as an Arrow IPC stream. */
  chunk(i: number): Promise<Uint8Array>;
  cancel(): Promise<void>;
}

export interface Runner {
  /** Starts a statement; rejects with the Databricks error when the warehouse does not exist. */
  start(req: RunRequest): Promise<Execution>;
}

export class RunnerError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const TERMINAL = new Set<RunState>(['SUCCEEDED', 'FAILED', 'CANCELED', 'CLOSED']);

interface StatementResponse {
  statement_id: string;
  status: { state: RunState; error?: { error_code: string; message: string }; sql_state?: string };
  manifest?: {
    schema?: { columns?: RunColumn[] };
    total_row_count?: number;
    total_chunk_count?: number;
  };
  result?: { external_links?: { chunk_index: number; external_link: string }[] };
}

type Request = ServiceContext['request'];

async function json<T>(res: Response): Promise<T> {
  const body = (await res.json()) as T & { error_code?: string; message?: string };
  if (!res.ok) throw new RunnerError(body.error_code ?? 'INTERNAL_ERROR', body.message ?? '', res.status);
  return body;
}

class RestExecution implements Execution {
  private last: StatementResponse;
  private canceling = false;
  readonly done: Promise<void>;

  constructor(
    private readonly request: Request,
    first: StatementResponse,
  ) {
    this.last = first;
    this.done = this.poll();
  }

  get id(): string {
    return this.last.statement_id;
  }

  private async poll(): Promise<void> {
    // The REST API has no long poll on GET: back off from 1 ms to 50 ms (engine time, not the clock).
    let delay = 1;
    while (!TERMINAL.has(this.last.status.state)) {
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(50, delay * 2);
      this.last = await json<StatementResponse>(await this.request(`/api/2.0/sql/statements/${this.id}`));
    }
  }

  status(): RunStatus {
    const s = this.last;
    const out: RunStatus = { state: s.status.state };
    if (s.status.error)
      out.error = {
        code: s.status.error.error_code,
        message: s.status.error.message,
        ...(s.status.sql_state ? { sqlState: s.status.sql_state } : {}),
      };
    if (s.manifest) {
      out.columns = s.manifest.schema?.columns ?? [];
      out.totalRows = s.manifest.total_row_count ?? 0;
      out.chunkCount = s.manifest.total_chunk_count ?? 0;
    }
    return out;
  }

  async chunk(i: number): Promise<Uint8Array> {
    const r = await json<{ external_links?: { external_link: string }[] }>(
      await this.request(`/api/2.0/sql/statements/${this.id}/result/chunks/${i}`),
    );
    const link = r.external_links?.[0]?.external_link;
    if (!link) throw new RunnerError('INTERNAL_ERROR', `chunk ${i} has no link`, 500);
    const u = new URL(link);
    const res = await this.request(u.pathname + u.search);
    if (!res.ok) throw new RunnerError('INTERNAL_ERROR', `chunk ${i}: HTTP ${res.status}`, 500);
    return new Uint8Array(await res.arrayBuffer());
  }

  async cancel(): Promise<void> {
    if (this.canceling || TERMINAL.has(this.last.status.state)) return;
    this.canceling = true;
    await this.request(`/api/2.0/sql/statements/${this.id}/cancel`, { method: 'POST' });
  }
}

export function restRunner(request: Request): Runner {
  return {
    async start(req) {
      const body: Record<string, unknown> = {
        statement: req.statement,
        warehouse_id: req.warehouseId,
        format: 'ARROW_STREAM',
        disposition: 'EXTERNAL_LINKS',
        wait_timeout: '0s',
      };
      if (req.catalog) body.catalog = req.catalog;
      if (req.schema) body.schema = req.schema;
      if (req.parameters?.length) body.parameters = req.parameters;
      const first = await json<StatementResponse>(
        await request('/api/2.0/sql/statements', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      return new RestExecution(request, first);
    },
  };
}
