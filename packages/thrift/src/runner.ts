/**
 * The one seam between the Thrift endpoint and statement execution: "run this Databricks SQL on this
 * warehouse in this namespace, give me typed (Arrow) results, cancel". Everything Thrift-specific stays out
 * of here, so the endpoint does not care which statement service runs the SQL.
 *
 * It runs on the sql service's statement service (`ctx.peer(sqlService).statements`), the one the REST
 * Statement Execution API uses, with ARROW_STREAM + EXTERNAL_LINKS (no 25 MiB inline limit, typed Arrow
 * columns): same engine, same dialect, same warehouse state machine, and every statement in query history.
 */
import { readFile } from 'node:fs/promises';
import type { StatementService } from '@minilake/sql';

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
  /** The front end as query history shows it (client_application). */
  client?: string;
  /** The Thrift session: its temporary views follow it across statements. */
  session?: string;
  /** The session's spark.sql.session.timeZone, when set. */
  timeZone?: string;
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
  error?: { code: string; message: string; sqlState?: string; details?: Record<string, unknown> };
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

type Stmt = ReturnType<StatementService['execute']>;

class ServiceExecution implements Execution {
  readonly done: Promise<void>;

  constructor(
    private readonly service: StatementService,
    private readonly stmt: Stmt,
  ) {
    this.done = stmt.done;
  }

  get id(): string {
    return this.stmt.id;
  }

  status(): RunStatus {
    const s = this.stmt;
    const out: RunStatus = { state: s.state };
    if (s.error)
      out.error = {
        code: s.error.error_code,
        message: s.error.message,
        ...(s.sqlState ? { sqlState: s.sqlState } : {}),
        ...(s.errorDetails ? { details: { ...s.errorDetails } } : {}),
      };
    if (s.state === 'SUCCEEDED' && s.result) {
      out.columns = s.result.columns;
      out.totalRows = s.result.totalRows;
      out.chunkCount = s.result.chunks.length;
    }
    return out;
  }

  async chunk(i: number): Promise<Uint8Array> {
    const c = this.stmt.result?.chunks[i];
    if (!c) throw new Error(`The result of statement ${this.id} has no chunk ${i}`);
    if (c.mem !== undefined) return typeof c.mem === 'string' ? Buffer.from(c.mem) : c.mem;
    if (c.file) return readFile(c.file);
    return new Uint8Array();
  }

  cancel(): Promise<void> {
    this.service.cancel(this.stmt);
    return Promise.resolve();
  }
}

export function serviceRunner(service: StatementService): Runner {
  return {
    start(req) {
      // Throws the service's DatabricksError (a missing warehouse is 404 RESOURCE_DOES_NOT_EXIST).
      const stmt = service.execute({
        statement: req.statement,
        warehouseId: req.warehouseId,
        format: 'ARROW_STREAM',
        disposition: 'EXTERNAL_LINKS',
        ...(req.catalog ? { catalog: req.catalog } : {}),
        ...(req.schema ? { schema: req.schema } : {}),
        namespaceMayBeMissing: true,
        ...(req.session ? { session: req.session } : {}),
        ...(req.timeZone ? { timeZone: req.timeZone } : {}),
        ...(req.parameters?.length ? { parameters: req.parameters } : {}),
        ...(req.client ? { client: req.client } : {}),
      });
      return Promise.resolve(new ServiceExecution(service, stmt));
    },
  };
}
