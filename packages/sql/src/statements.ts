/**
 * Statement execution, the service every SQL front end in the server shares (the REST Statement API in app.ts,
 * the Thrift endpoint, jobs' sql_task files, sql-objects' queries and alerts; MCP tools and the UI are clients
 * of the REST API): run this Databricks SQL on this warehouse in this
 * namespace (catalog, schema), get typed results, cancel. Every statement runs asynchronously on a pooled
 * DuckDB connection through the dialect layer; its result is cut into chunks in the requested format as the
 * engine streams it (columns carry Databricks types); a front end only waits for the outcome and adapts the
 * wire shape. Cancel interrupts DuckDB. Statements are in-memory handles (results are files); query history
 * keeps the durable record of every statement, whichever front end sent it (`client` names it there).
 */
import { randomFillSync, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Clock, Identity, InjectedFault, Logger, Principal } from '@minilake/core';
import { identityPrincipal } from '@minilake/core';
import type { DuckDbEngine } from '@minilake/engine-duckdb';
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import {
  databricksColumnTypes,
  executeDatabricksSql,
  visibilityOf,
  failureOf,
  resultShapeKey,
  SqlError,
} from './dialect/index.js';
import type { QueryHistoryStore, QueryRecord, QueryStatus } from './history.js';
import {
  chunkContent,
  freeResult,
  InlineLimitExceeded,
  loadArrow,
  ResultBuilder,
  resultShape,
  type ColumnSource,
  type Disposition,
  type Format,
  type ResultLimits,
  type ResultSet,
  type ResultShape,
} from './results.js';
import { T, withDatabricksType, type ColumnInfo, type TypeLike, type VectorLike } from './render.js';
import type { DatasetStatementRunner, StatementParameter } from './dialect/index.js';
import { formatNeedsExternalLinks } from './errors.js';
import {
  errorDetails,
  authorizerOf,
  isEngineError,
  toSqlFailure,
  type ErrorDetails,
} from './statement-errors.js';

export { errorDetails, toSqlFailure, type ErrorDetails };
import type { QueryTag } from './history.js';
import type { WarehouseStore } from './warehouses.js';

/** What a front end asks for: the wire-neutral form of the Statement API's ExecuteStatementRequest. */
export interface SqlRequest {
  statement: string;
  /** A warehouse id (the state machine gates the statement: a stopped warehouse starts on demand). */
  warehouseId: string;
  /** The default namespace; missing = main.default (an explicit one must exist). */
  catalog?: string;
  schema?: string;
  /**
   * The namespace is a session's (Thrift): like Databricks, a schema that does not exist yet (dbt creates its
   * schema in that session) is no error until a statement needs it.
   */
  namespaceMayBeMissing?: boolean;
  /** The client session (Thrift): its temporary views are seen by its later statements. */
  session?: string;
  /** The session time zone (spark.sql.session.timeZone): how TIMESTAMP literals are read. Default UTC. */
  timeZone?: string;
  /** `:name` parameters, bound by the engine (never spliced into the text). */
  parameters?: StatementParameter[];
  /** JSON_ARRAY (strings or null, as Databricks renders them), ARROW_STREAM or CSV. Default JSON_ARRAY. */
  format?: Format;
  /** INLINE (chunks of about 4 MiB, 25 MiB at most) or EXTERNAL_LINKS (larger chunks, no limit). */
  disposition?: Disposition;
  rowLimit?: number;
  byteLimit?: number;
  queryTags?: QueryTag[];
  /** The front end, as query history's client_application shows it. */
  client?: string;
}

/** client_application of statements sent through the REST Statement Execution API. */
export const STATEMENT_API_CLIENT = 'Databricks SQL Statement Execution API';

export type StatementState = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'CLOSED';

export interface Statement {
  id: string;
  warehouseId: string;
  state: StatementState;
  error?: { error_code: string; message: string };
  sqlState?: string;
  /**
   * The failure as Spark describes a SparkThrowable in JSON (errorClass, sqlState, messageParameters,
   * queryContext with the fragment's offsets): what the Thrift endpoint sends as errorDetailsJson.
   */
  errorDetails?: ErrorDetails;
  result?: ResultSet;
  format: Format;
  disposition: Disposition;
  /** Secret in the result links. */
  token: string;
  canceled: boolean;
  interrupt?: () => void;
  done: Promise<void>;
  finish: () => void;
  history: QueryRecord;
  /** Who runs it: the request's principal when it was submitted. */
  caller: Principal;
  startedAt: number;
  /** When the result links stop working (ms). */
  expiresAt?: number;
  cancelExpiry?: () => void;
  /** Cancels the statement's pending expiry and retention timers (when it is dropped early). */
  timers?: (() => void)[];
}

/** What the statement service runs on (an options object: see CONVENTIONS.md). */
export interface StatementManagerOptions {
  engine: DuckDbEngine;
  /** The unity-catalog peer's API, when that service is enabled (SQL DDL shows up in Unity Catalog). */
  uc?: UnityCatalogApi | undefined;
  /** CREATE MATERIALIZED VIEW / STREAMING TABLE and friends: the pipelines peer's runner, when it is on. */
  datasets?: DatasetStatementRunner | undefined;
  warehouses: WarehouseStore;
  history: QueryHistoryStore;
  clock: Clock;
  identity: Identity;
  /** Who the statement runs as (ServiceContext.principal: the request's caller); `identity` without it. */
  caller?: () => Principal;
  /**
   * Refuses a caller who may not run statements on the warehouse (CAN_USE, iam's object permissions with
   * MINILAKE_ENFORCE=1): REST and Thrift statements alike, before anything is recorded.
   */
  mayUse?: (warehouseId: string) => void;
  /** A fault injected for a statement about to run, by its text (ServiceContext.fault). */
  fault?: (statement: string) => InjectedFault | undefined;
  /** Where result chunks larger than limits.memBytes are written. */
  resultsDir: string;
  logger: Logger;
  options?: StatementOptions;
}

/** A statement's end as `run` reports it. */
export interface StatementOutcome {
  statementId: string;
  state: StatementState;
  /** FAILED: the Databricks error class (`TABLE_OR_VIEW_NOT_FOUND`, ...), message and SQLSTATE. */
  error?: { error_code: string; message: string; sqlState?: string };
  /** SUCCEEDED: the columns with their Databricks types (the Statement API's manifest columns). */
  columns?: ColumnInfo[];
  rows?: (string | null)[][];
  truncated?: boolean;
}

/**
 * The statement service as other packages see it (`ctx.peer(sqlService).statements`): the REST
 * Statement API is one front end; Thrift, jobs' sql_task and sql-objects adapt only the wire shape.
 */
export interface StatementService {
  /** Starts a statement (404 DatabricksError for a missing warehouse); it is in query history from now on. */
  execute(input: SqlRequest): Statement;
  get(id: string): Statement | undefined;
  /** Waits for the end, at most `ms` on the injected clock: true when it ended. */
  wait(stmt: Statement, ms: number): Promise<boolean>;
  /** Interrupts the engine; a finished statement is left alone. */
  cancel(stmt: Statement): void;
  /** A SUCCEEDED JSON_ARRAY result's rows, chunk by chunk. */
  rows(stmt: Statement): AsyncIterable<(string | null)[][]>;
  /** execute + wait + rows in one call. */
  run(input: SqlRequest, timeoutMs?: number): Promise<StatementOutcome>;
}

export interface StatementOptions {
  /** How long a result stays fetchable after success (Databricks: 1 hour). */
  resultTtlMs: number;
  /** How long a closed, failed or canceled handle is kept before GET answers 404. */
  retainMs: number;
  /** External link lifetime (Databricks: at most 15 minutes). */
  linkTtlMs: number;
  limits: Omit<ResultLimits, 'rowLimit' | 'byteLimit'>;
  /** Target size of an INLINE chunk (EXTERNAL_LINKS chunks use limits.chunkBytes). */
  inlineChunkBytes: number;
  /**
   * At most this many statement handles are kept (MINILAKE_SQL_MAX_STATEMENTS): above it the oldest finished
   * ones are closed and forgotten early (404, as after retention), so memory does not grow with the number
   * of statements run within the hour Databricks keeps them. Running statements are never dropped.
   */
  maxStatements: number;
}

export const defaultStatementOptions: StatementOptions = {
  resultTtlMs: 60 * 60 * 1000,
  retainMs: 60 * 60 * 1000,
  linkTtlMs: 15 * 60 * 1000,
  limits: { chunkBytes: 16 * 1024 * 1024, memBytes: 1024 * 1024, inlineLimit: 25 * 1024 * 1024 },
  inlineChunkBytes: 4 * 1024 * 1024,
  maxStatements: 1000,
};

const EXTERNAL_DEFAULT_BYTE_LIMIT = 100 * 1024 ** 3;

// DuckDB result return types and statement types (C API enums).
const RETURN_CHANGED_ROWS = 1;
const RETURN_NOTHING = 2;
const ST_INSERT = 2;
const ST_CREATE = 7;

const HISTORY_STATUS: Record<StatementState, QueryStatus> = {
  PENDING: 'QUEUED',
  RUNNING: 'RUNNING',
  SUCCEEDED: 'FINISHED',
  FAILED: 'FAILED',
  CANCELED: 'CANCELED',
  CLOSED: 'FINISHED',
};

interface ChunkLike {
  rowCount: number;
  columnCount: number;
  getColumnVector(i: number): VectorLike;
}
interface StreamResult {
  columnCount: number;
  returnType?: number;
  statementType?: number;
  columnName(i: number): string;
  columnType(i: number): TypeLike;
  fetchChunk(): Promise<ChunkLike | null>;
  /** A materialized result (the dialect runs statements that read no table that way): chunks by index. */
  chunkCount?: number;
  getChunk?(i: number): ChunkLike;
}

/** The result's chunks in order, then null: read synchronously from a materialized result. */
function chunkReader(result: StreamResult): () => Promise<ChunkLike | null> {
  const count = result.chunkCount;
  const get = result.getChunk;
  if (typeof count !== 'number' || typeof get !== 'function') return () => result.fetchChunk();
  let next = 0;
  return () => Promise.resolve(next < count ? get.call(result, next++) : null);
}

export class StatementManager implements StatementService {
  private readonly statements = new Map<string, Statement>();
  private readonly timers = new Set<() => void>();
  /** Result columns per cached prepared statement (dropped with it: weak keys). */
  private readonly shapes = new WeakMap<object, ResultShape>();
  private readonly engine: DuckDbEngine;
  private readonly uc: UnityCatalogApi | undefined;
  private readonly datasets: DatasetStatementRunner | undefined;
  private readonly warehouses: WarehouseStore;
  private readonly history: QueryHistoryStore;
  private readonly clock: Clock;
  private readonly identity: Identity;
  private readonly caller: () => Principal;
  private readonly mayUse: (warehouseId: string) => void;
  private readonly fault: StatementManagerOptions['fault'];
  private readonly resultsDir: string;
  private readonly logger: Logger;
  private readonly opts: StatementOptions;

  constructor(o: StatementManagerOptions) {
    this.engine = o.engine;
    this.uc = o.uc;
    this.datasets = o.datasets;
    this.warehouses = o.warehouses;
    this.history = o.history;
    this.clock = o.clock;
    this.identity = o.identity;
    this.caller = o.caller ?? (() => identityPrincipal(o.identity));
    this.mayUse = o.mayUse ?? (() => {});
    this.fault = o.fault;
    this.resultsDir = o.resultsDir;
    this.logger = o.logger;
    this.opts = o.options ?? defaultStatementOptions;
  }

  get(id: string): Statement | undefined {
    return this.statements.get(id);
  }

  get size(): number {
    return this.statements.size;
  }

  /**
   * Registers and starts a statement, and records it in query history. A warehouse that does not exist (or
   * is deleted) is a 404 DatabricksError thrown here, before anything is recorded.
   */
  execute(input: SqlRequest): Statement {
    const format = input.format ?? 'JSON_ARRAY';
    if (format !== 'JSON_ARRAY' && (input.disposition ?? 'INLINE') === 'INLINE')
      throw formatNeedsExternalLinks(format);
    this.warehouses.usable(input.warehouseId);
    this.mayUse(input.warehouseId);
    return this.start(input);
  }

  private start(input: SqlRequest): Statement {
    const id = randomUUID();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const now = this.clock.now();
    const who = this.caller();
    const userId = Number(who.id) || Number(this.identity.userId);
    const stmt: Statement = {
      id,
      warehouseId: input.warehouseId,
      state: 'PENDING',
      format: input.format ?? 'JSON_ARRAY',
      disposition: input.disposition ?? 'INLINE',
      token: linkToken(),
      canceled: false,
      done,
      finish,
      startedAt: now,
      caller: who,
      history: {
        query_id: id,
        status: 'QUEUED',
        query_text: input.statement,
        query_start_time_ms: now,
        warehouse_id: input.warehouseId,
        endpoint_id: input.warehouseId,
        user_id: userId,
        user_name: who.userName,
        executed_as_user_id: userId,
        executed_as_user_name: who.userName,
        is_final: false,
        client_application: input.client ?? STATEMENT_API_CLIENT,
        channel_used: { name: 'CHANNEL_NAME_CURRENT' },
        plans_state: 'EXISTS',
        statement_type: statementType(input.statement),
      },
    };
    if (input.queryTags?.length) stmt.history.query_tags = input.queryTags;
    this.statements.set(id, stmt);
    this.dropOldest();
    this.history.put(stmt.history);
    void this.runOnWarehouse(stmt, input).catch((e: unknown) => {
      this.logger.error('statement runner failed', { error: (e as Error)?.stack ?? String(e) });
      this.fail(stmt, 'INTERNAL_ERROR', 'Internal error', 'XX000');
    });
    return stmt;
  }

  private setState(stmt: Statement, state: StatementState): void {
    stmt.state = state;
    const h = stmt.history;
    h.status = HISTORY_STATUS[state];
    if (state !== 'PENDING' && state !== 'RUNNING') {
      const end = this.clock.now();
      h.is_final = true;
      h.query_end_time_ms = end;
      h.execution_end_time_ms = end;
      h.duration = end - h.query_start_time_ms;
      h.metrics = {
        total_time_ms: h.duration,
        execution_time_ms: h.duration,
        compilation_time_ms: 0,
        rows_produced_count: stmt.result?.totalRows ?? 0,
        result_from_cache: false,
      };
      if (stmt.result) h.rows_produced = stmt.result.totalRows;
      if (stmt.error) h.error_message = stmt.error.message;
    }
    this.history.put(h);
  }

  private fail(stmt: Statement, code: string, message: string, sqlState?: string): void {
    if (isTerminal(stmt.state)) return;
    stmt.error = { error_code: code, message };
    if (sqlState) stmt.sqlState = sqlState;
    this.setState(stmt, 'FAILED');
    this.retire(stmt, this.opts.retainMs);
    stmt.finish();
  }

  private async runOnWarehouse(stmt: Statement, input: SqlRequest): Promise<void> {
    try {
      await this.warehouses.ensureRunning(stmt.warehouseId);
    } catch (e) {
      this.fail(stmt, 'NOT_FOUND', (e as Error).message);
      return;
    }
    if (stmt.canceled) return;
    // /_minilake/faults: failed as the engine would fail it, before the engine sees it.
    const injected = this.fault?.(input.statement);
    if (injected) {
      this.fail(stmt, injected.error_code, injected.message);
      return;
    }
    this.warehouses.statementStarted(stmt.warehouseId);
    try {
      await this.runOnEngine(stmt, input);
    } finally {
      this.warehouses.statementEnded(stmt.warehouseId);
    }
  }

  private async runOnEngine(stmt: Statement, input: SqlRequest): Promise<void> {
    const { conn, release } = await this.engine.acquire();
    if (stmt.canceled) {
      release();
      return;
    }
    this.setState(stmt, 'RUNNING');
    stmt.interrupt = () => conn.interrupt();
    const limits: ResultLimits = { ...this.opts.limits };
    if (stmt.disposition === 'INLINE')
      limits.chunkBytes = Math.min(limits.chunkBytes, this.opts.inlineChunkBytes);
    if (input.rowLimit !== undefined) limits.rowLimit = input.rowLimit;
    if (input.byteLimit !== undefined) limits.byteLimit = input.byteLimit;
    else if (stmt.disposition === 'EXTERNAL_LINKS') limits.byteLimit = EXTERNAL_DEFAULT_BYTE_LIMIT;
    let builder: ResultBuilder | undefined;
    try {
      if (stmt.format === 'ARROW_STREAM') await loadArrow();
      const execInput: Parameters<typeof executeDatabricksSql>[1] = { statement: input.statement };
      if (input.catalog) execInput.catalog = input.catalog;
      if (input.schema) execInput.schema = input.schema;
      if (input.namespaceMayBeMissing) execInput.namespaceMayBeMissing = true;
      if (input.session !== undefined) execInput.session = input.session;
      if (input.timeZone !== undefined) execInput.timeZone = input.timeZone;
      if (input.parameters) execInput.parameters = input.parameters;
      execInput.user = stmt.caller.userName;
      const uc = this.uc;
      // MINILAKE_ENFORCE=1: what the text runs on the engine itself (reads, DML, CREATE/DROP/ALTER TABLE and
      // VIEW) is checked here; what it changes through Unity Catalog (catalogs, schemas, grants) the store checks.
      if (uc?.enforcing) {
        execInput.authorize = authorizerOf(uc, stmt.caller);
        // SHOW and information_schema list what the caller may see, by the rule REST lists filter by.
        execInput.visibility = visibilityOf(uc, stmt.caller);
      }
      const result = (await executeDatabricksSql(conn as never, execInput, {
        engine: this.engine,
        uc: this.uc,
        datasets: this.datasets,
      })) as unknown as StreamResult;
      const dir = path.join(this.resultsDir, stmt.id);
      if (result.returnType === RETURN_CHANGED_ROWS || result.returnType === RETURN_NOTHING) {
        builder = await this.changedRows(result, stmt, limits, dir);
      } else {
        const shape = this.shapeOf(result);
        const sources = shape.sources;
        builder = new ResultBuilder({
          format: stmt.format,
          disposition: stmt.disposition,
          columns: shape,
          limits,
          dir,
        });
        const vectors: VectorLike[] = Array.from<VectorLike>({ length: sources.length });
        // One chunk ahead: DuckDB produces the next chunk on its threads while this one is converted.
        const fetchChunk = chunkReader(result);
        let ahead: Promise<ChunkLike | null> | undefined = stmt.canceled ? undefined : fetchChunk();
        try {
          for (;;) {
            if (stmt.canceled) break;
            const chunk = await ahead;
            ahead = undefined;
            if (!chunk || chunk.rowCount === 0) break;
            ahead = fetchChunk();
            for (let c = 0; c < sources.length; c++) vectors[c] = chunk.getColumnVector(c);
            if (!(await builder.add(vectors, chunk.rowCount))) break;
            // row_limit reached exactly at a chunk boundary: truncated only if the engine has more rows.
            if (limits.rowLimit !== undefined && builder.rowsSoFar >= limits.rowLimit) {
              const next = await ahead;
              ahead = undefined;
              if (next && next.rowCount > 0) builder.markTruncated();
              break;
            }
          }
        } finally {
          // Never leave a fetch running on a connection that goes back to the pool.
          if (ahead) await ahead.catch(() => null);
        }
      }
      stmt.interrupt = undefined;
      release();
      if (stmt.canceled) {
        await builder.discard();
        return;
      }
      const rs = await builder.finish();
      if (stmt.canceled) {
        await freeResult(rs);
        return;
      }
      stmt.result = rs;
      this.setState(stmt, 'SUCCEEDED');
      this.scheduleClose(stmt);
      stmt.finish();
    } catch (e) {
      stmt.interrupt = undefined;
      release();
      await builder?.discard().catch(() => undefined);
      // Interrupts only come from cancel, which already set the final state.
      if (stmt.canceled) return;
      if (e instanceof InlineLimitExceeded) {
        this.fail(
          stmt,
          'BAD_REQUEST',
          'The result of this statement is larger than the 25 MiB limit of the INLINE disposition: use disposition EXTERNAL_LINKS to fetch it.',
          '54000',
        );
        return;
      }
      const failure = isEngineError(e) ? failureOf(e, input.statement) : e;
      const { code, message, sqlState } = toSqlFailure(failure);
      if (failure instanceof SqlError) stmt.errorDetails = errorDetails(failure);
      this.fail(stmt, code, message, sqlState);
    }
  }

  /**
   * The result's columns converted for the wire. A statement whose columns cannot change between runs (see
   * `resultShapeKey`) converts them once: reading the engine's column types (a native call and a type object
   * per column) and turning them into Databricks types was a good part of a `SELECT 1`.
   */
  private shapeOf(result: StreamResult): ResultShape {
    const key = resultShapeKey(result);
    const known = key && this.shapes.get(key);
    if (known) return known;
    const sources: ColumnSource[] = [];
    const typed = databricksColumnTypes(result);
    for (let i = 0; i < result.columnCount; i++)
      sources.push({
        name: result.columnName(i),
        type: withDatabricksType(result.columnType(i), typed?.get(i)),
      });
    const shape = resultShape(sources);
    if (key) this.shapes.set(key, shape);
    return shape;
  }

  /** DML and DDL: Databricks answers with num_affected_rows (and num_inserted_rows for inserts). */
  private async changedRows(
    result: StreamResult,
    stmt: Statement,
    limits: ResultLimits,
    dir: string,
  ): Promise<ResultBuilder> {
    let count: bigint | undefined;
    if (result.returnType === RETURN_CHANGED_ROWS && result.columnCount > 0) {
      const chunk = await result.fetchChunk();
      const v = chunk && chunk.rowCount > 0 ? chunk.getColumnVector(0).getItem(0) : null;
      if (v !== null && v !== undefined) count = BigInt(v as number);
    }
    const st = result.statementType;
    if (count === undefined || (st === ST_CREATE && count === 0n)) {
      return new ResultBuilder({
        format: stmt.format,
        disposition: stmt.disposition,
        columns: [],
        limits,
        dir,
      });
    }
    const bigintType: TypeLike = { typeId: T.BIGINT, toString: () => 'BIGINT' };
    const names =
      st === ST_INSERT || st === ST_CREATE
        ? ['num_affected_rows', 'num_inserted_rows']
        : ['num_affected_rows'];
    const builder = new ResultBuilder({
      format: stmt.format,
      disposition: stmt.disposition,
      columns: names.map((name) => ({ name, type: bigintType })),
      limits,
      dir,
    });
    const vec: VectorLike = { getItem: () => count };
    await builder.add(
      names.map(() => vec),
      1,
    );
    return builder;
  }

  /** Cancels a statement; a finished one is left alone (cancel may lose the race, as on Databricks). */
  cancel(stmt: Statement): void {
    if (isTerminal(stmt.state)) return;
    stmt.canceled = true;
    interruptUntilReleased(stmt);
    this.setState(stmt, 'CANCELED');
    this.retire(stmt, this.opts.retainMs);
    stmt.finish();
  }

  /** Waits for the statement to end, at most `ms` (on the injected clock). */
  wait(stmt: Statement, ms: number): Promise<boolean> {
    if (isTerminal(stmt.state)) return Promise.resolve(true);
    // One promise settled by whichever comes first (no race of two promises, no async frame).
    return new Promise<boolean>((resolve) => {
      const cancelTimer = this.clock.setTimeout(() => resolve(false), ms);
      void stmt.done.then(() => {
        cancelTimer();
        resolve(true);
      });
    });
  }

  /**
   * The rows of a SUCCEEDED JSON_ARRAY statement, chunk by chunk (each value a string or null, as the
   * Statement API renders it). The columns and their Databricks types are in `stmt.result.columns`.
   */
  async *rows(stmt: Statement): AsyncGenerator<(string | null)[][]> {
    const rs = stmt.result;
    if (stmt.state !== 'SUCCEEDED' || !rs) return;
    if (rs.format !== 'JSON_ARRAY') throw new Error(`rows() reads JSON_ARRAY results, not ${rs.format}`);
    for (const chunk of rs.chunks) {
      const data = await chunkContent(chunk);
      const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
      yield JSON.parse(text) as (string | null)[][];
    }
  }

  /**
   * Runs a statement to its end (or `timeoutMs`, then cancels it) and reads its rows: the one call for a
   * front end that wants the whole answer (sql-objects' queries and alerts). JSON_ARRAY, INLINE by default.
   */
  async run(input: SqlRequest, timeoutMs = 10 * 60 * 1000): Promise<StatementOutcome> {
    const stmt = this.execute(input);
    if (!(await this.wait(stmt, timeoutMs))) this.cancel(stmt);
    const out: StatementOutcome = { statementId: stmt.id, state: stmt.state };
    if (stmt.error) out.error = { ...stmt.error, ...(stmt.sqlState ? { sqlState: stmt.sqlState } : {}) };
    if (stmt.state === 'SUCCEEDED' && stmt.result) {
      out.columns = stmt.result.columns;
      out.truncated = stmt.result.truncated;
      const rows: (string | null)[][] = [];
      if (stmt.result.format === 'JSON_ARRAY') for await (const chunk of this.rows(stmt)) rows.push(...chunk);
      out.rows = rows;
    }
    return out;
  }

  now(): number {
    return this.clock.now();
  }

  linkExpiration(): number {
    return this.clock.now() + this.opts.linkTtlMs;
  }

  /** Keeps at most opts.maxStatements handles: the oldest finished ones go first (insertion order). */
  private dropOldest(): void {
    if (this.statements.size <= this.opts.maxStatements) return;
    for (const old of this.statements.values()) {
      if (this.statements.size <= this.opts.maxStatements) break;
      if (!isTerminal(old.state)) continue;
      this.statements.delete(old.id);
      for (const cancel of old.timers ?? []) {
        cancel();
        this.timers.delete(cancel);
      }
      old.timers = undefined;
      const rs = old.result;
      old.result = undefined;
      if (rs) void freeResult(rs).catch(() => undefined);
    }
  }

  private scheduleClose(stmt: Statement): void {
    stmt.expiresAt = this.clock.now() + this.opts.resultTtlMs;
    const cancel = this.clock.setTimeout(() => {
      this.timers.delete(cancel);
      if (stmt.state !== 'SUCCEEDED') return;
      this.setState(stmt, 'CLOSED');
      const rs = stmt.result;
      stmt.result = undefined;
      if (rs) void freeResult(rs).catch(() => undefined);
      this.retire(stmt, this.opts.retainMs);
    }, this.opts.resultTtlMs);
    this.timers.add(cancel);
    (stmt.timers ??= []).push(cancel);
  }

  private retire(stmt: Statement, ms: number): void {
    const cancel = this.clock.setTimeout(() => {
      this.timers.delete(cancel);
      if (this.statements.get(stmt.id) === stmt) this.statements.delete(stmt.id);
    }, ms);
    this.timers.add(cancel);
    (stmt.timers ??= []).push(cancel);
  }

  /** Cancels everything running and frees every result (reset and shutdown). */
  async clear(): Promise<void> {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    const all = [...this.statements.values()];
    this.statements.clear();
    for (const s of all) {
      if (!isTerminal(s.state)) {
        s.canceled = true;
        interruptUntilReleased(s);
        s.state = 'CANCELED';
        s.finish();
      }
      if (s.result) await freeResult(s.result).catch(() => undefined);
      s.result = undefined;
    }
    // Anything left over (a result being written when the reset came) goes with the folder.
    await rm(this.resultsDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Interrupts DuckDB for a canceled statement. An interrupt that lands between two engine calls of the
 * dialect layer is lost (the next call starts afresh), so it is repeated until the runner lets go of the
 * connection. Engine mechanics, hence wall-clock time rather than the injected clock.
 */
function interruptUntilReleased(stmt: Statement): void {
  if (!stmt.interrupt) return;
  stmt.interrupt();
  const timer = setInterval(() => {
    if (stmt.interrupt) stmt.interrupt();
    else clearInterval(timer);
  }, 25);
  timer.unref?.();
}

// The result links' per-statement secret, cut from a pool of random bytes refilled 256 tokens at a time: one
// randomBytes() call per statement cost ~12 µs, a tenth of a whole UC GET (bench/README.md, "Issue 16, stmt").
const TOKEN_BYTES = 16;
const tokenPool = Buffer.alloc(TOKEN_BYTES * 256);
let tokenOffset = tokenPool.length;

function linkToken(): string {
  if (tokenOffset === tokenPool.length) {
    randomFillSync(tokenPool);
    tokenOffset = 0;
  }
  const t = tokenPool.toString('hex', tokenOffset, tokenOffset + TOKEN_BYTES);
  tokenOffset += TOKEN_BYTES;
  return t;
}

export const isTerminal = (s: StatementState) =>
  s === 'SUCCEEDED' || s === 'FAILED' || s === 'CANCELED' || s === 'CLOSED';

const STATEMENT_TYPES = new Set(
  (
    'SELECT INSERT UPDATE DELETE MERGE CREATE DROP ALTER USE SHOW DESCRIBE GRANT REVOKE TRUNCATE COPY ' +
    'ANALYZE OPTIMIZE SET REFRESH REPLACE EXPLAIN'
  ).split(' '),
);
const LEADING_KEYWORD = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/;

/** The first keyword, as QueryInfo.statement_type spells it. */
function statementType(sql: string): string {
  const k = (LEADING_KEYWORD.exec(sql)?.[1] ?? 'OTHER').toUpperCase();
  if (k === 'WITH' || k === 'VALUES' || k === 'FROM' || k === 'TABLE') return 'SELECT';
  return STATEMENT_TYPES.has(k) ? k : 'OTHER';
}

export { freeResult };
