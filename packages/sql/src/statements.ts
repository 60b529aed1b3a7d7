/**
 * Statement execution: every statement runs asynchronously on a pooled DuckDB connection through the
 * Databricks SQL dialect, its result is cut into chunks in the requested format as the engine streams it,
 * and the HTTP layer only waits (up to wait_timeout) for the outcome. Cancel interrupts DuckDB.
 * Statements are in-memory handles (results are files); query history keeps the durable record.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Clock, Identity, Logger } from '@minilake/core';
import type { DuckDbEngine } from '@minilake/engine-duckdb';
import { executeDatabricksSql, SqlError } from './dialect/index.js';
import type { QueryHistoryStore, QueryRecord, QueryStatus } from './history.js';
import {
  freeResult,
  InlineLimitExceeded,
  loadArrow,
  ResultBuilder,
  type ColumnSource,
  type Disposition,
  type Format,
  type ResultLimits,
  type ResultSet,
} from './results.js';
import { T, type TypeLike, type VectorLike } from './render.js';
import type { ExecuteStatementInput } from './schemas.js';
import type { WarehouseStore } from './warehouses.js';

export type StatementState = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'CLOSED';

export interface Statement {
  id: string;
  warehouseId: string;
  state: StatementState;
  error?: { error_code: string; message: string };
  sqlState?: string;
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
  startedAt: number;
  /** When the result links stop working (ms). */
  expiresAt?: number;
  cancelExpiry?: () => void;
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
}

export const defaultStatementOptions: StatementOptions = {
  resultTtlMs: 60 * 60 * 1000,
  retainMs: 60 * 60 * 1000,
  linkTtlMs: 15 * 60 * 1000,
  limits: { chunkBytes: 16 * 1024 * 1024, memBytes: 1024 * 1024, inlineLimit: 25 * 1024 * 1024 },
  inlineChunkBytes: 4 * 1024 * 1024,
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
}

export class StatementManager {
  private readonly statements = new Map<string, Statement>();
  private readonly timers = new Set<() => void>();

  constructor(
    private readonly engine: DuckDbEngine,
    private readonly uc: unknown,
    private readonly warehouses: WarehouseStore,
    private readonly history: QueryHistoryStore,
    private readonly clock: Clock,
    private readonly identity: Identity,
    private readonly resultsDir: string,
    private readonly logger: Logger,
    private readonly opts: StatementOptions = defaultStatementOptions,
  ) {}

  get(id: string): Statement | undefined {
    return this.statements.get(id);
  }

  get size(): number {
    return this.statements.size;
  }

  /** Registers and starts a statement; the warehouse must exist (checked by the caller). */
  start(input: ExecuteStatementInput): Statement {
    const id = randomUUID();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const now = this.clock.now();
    const userId = Number(this.identity.userId);
    const stmt: Statement = {
      id,
      warehouseId: input.warehouse_id,
      state: 'PENDING',
      format: input.format ?? 'JSON_ARRAY',
      disposition: input.disposition ?? 'INLINE',
      token: randomBytes(16).toString('hex'),
      canceled: false,
      done,
      finish,
      startedAt: now,
      history: {
        query_id: id,
        status: 'QUEUED',
        query_text: input.statement,
        query_start_time_ms: now,
        warehouse_id: input.warehouse_id,
        endpoint_id: input.warehouse_id,
        user_id: userId,
        user_name: this.identity.userName,
        executed_as_user_id: userId,
        executed_as_user_name: this.identity.userName,
        is_final: false,
        client_application: 'Databricks SQL Statement Execution API',
        channel_used: { name: 'CHANNEL_NAME_CURRENT' },
        plans_state: 'EXISTS',
        statement_type: statementType(input.statement),
      },
    };
    if (input.query_tags?.length) stmt.history.query_tags = input.query_tags;
    this.statements.set(id, stmt);
    this.history.put(stmt.history);
    void this.run(stmt, input).catch((e: unknown) => {
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

  private async run(stmt: Statement, input: ExecuteStatementInput): Promise<void> {
    try {
      await this.warehouses.ensureRunning(stmt.warehouseId);
    } catch (e) {
      this.fail(stmt, 'NOT_FOUND', (e as Error).message);
      return;
    }
    if (stmt.canceled) return;
    this.warehouses.statementStarted(stmt.warehouseId);
    try {
      await this.execute(stmt, input);
    } finally {
      this.warehouses.statementEnded(stmt.warehouseId);
    }
  }

  private async execute(stmt: Statement, input: ExecuteStatementInput): Promise<void> {
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
    if (input.row_limit !== undefined) limits.rowLimit = input.row_limit;
    if (input.byte_limit !== undefined) limits.byteLimit = input.byte_limit;
    else if (stmt.disposition === 'EXTERNAL_LINKS') limits.byteLimit = EXTERNAL_DEFAULT_BYTE_LIMIT;
    let builder: ResultBuilder | undefined;
    try {
      if (stmt.format === 'ARROW_STREAM') await loadArrow();
      const execInput: Parameters<typeof executeDatabricksSql>[1] = { statement: input.statement };
      if (input.catalog) execInput.catalog = input.catalog;
      if (input.schema) execInput.schema = input.schema;
      if (input.parameters) execInput.parameters = input.parameters;
      execInput.user = this.identity.userName;
      const result = (await executeDatabricksSql(conn as never, execInput, {
        engine: this.engine,
        ...(this.uc ? { uc: this.uc as Record<string, unknown> } : {}),
      })) as unknown as StreamResult;
      const dir = path.join(this.resultsDir, stmt.id);
      if (result.returnType === RETURN_CHANGED_ROWS || result.returnType === RETURN_NOTHING) {
        builder = await this.changedRows(result, stmt, limits, dir);
      } else {
        const sources: ColumnSource[] = [];
        for (let i = 0; i < result.columnCount; i++)
          sources.push({ name: result.columnName(i), type: result.columnType(i) });
        builder = new ResultBuilder(stmt.format, stmt.disposition, sources, limits, dir);
        const vectors: VectorLike[] = Array.from<VectorLike>({ length: sources.length });
        // One chunk ahead: DuckDB produces the next chunk on its threads while this one is converted.
        let ahead: Promise<ChunkLike | null> | undefined = stmt.canceled ? undefined : result.fetchChunk();
        try {
          for (;;) {
            if (stmt.canceled) break;
            const chunk = await ahead;
            ahead = undefined;
            if (!chunk || chunk.rowCount === 0) break;
            ahead = result.fetchChunk();
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
      const { code, message, sqlState } = toSqlFailure(e);
      this.fail(stmt, code, message, sqlState);
    }
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
      return new ResultBuilder(stmt.format, stmt.disposition, [], limits, dir);
    }
    const bigintType: TypeLike = { typeId: T.BIGINT, toString: () => 'BIGINT' };
    const names =
      st === ST_INSERT || st === ST_CREATE
        ? ['num_affected_rows', 'num_inserted_rows']
        : ['num_affected_rows'];
    const builder = new ResultBuilder(
      stmt.format,
      stmt.disposition,
      names.map((name) => ({ name, type: bigintType })),
      limits,
      dir,
    );
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
  async wait(stmt: Statement, ms: number): Promise<boolean> {
    if (isTerminal(stmt.state)) return true;
    let cancelTimer: (() => void) | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      cancelTimer = this.clock.setTimeout(() => resolve(false), ms);
    });
    const ended = await Promise.race([stmt.done.then(() => true), timedOut]);
    cancelTimer?.();
    return ended;
  }

  now(): number {
    return this.clock.now();
  }

  linkExpiration(): number {
    return this.clock.now() + this.opts.linkTtlMs;
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
  }

  private retire(stmt: Statement, ms: number): void {
    const cancel = this.clock.setTimeout(() => {
      this.timers.delete(cancel);
      if (this.statements.get(stmt.id) === stmt) this.statements.delete(stmt.id);
    }, ms);
    this.timers.add(cancel);
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

/** Engine failures as Databricks reports them: a ServiceError code, the message, and a SQLSTATE. */
export function toSqlFailure(e: unknown): { code: string; message: string; sqlState: string } {
  if (e instanceof SqlError) return { code: e.errorCode, message: e.message, sqlState: e.sqlState };
  // A result file that could not be written (disk full, permissions): the statement fails with IO_ERROR.
  const sys = (e as { code?: unknown; syscall?: unknown } | null) ?? {};
  if (typeof sys.code === 'string' && typeof sys.syscall === 'string')
    return { code: 'IO_ERROR', message: `Writing the result failed: ${sys.code}`, sqlState: '58030' };
  const message = e instanceof Error ? e.message : String(e);
  const kind = /^([A-Za-z ]+) Error:/.exec(message)?.[1] ?? '';
  const sqlState =
    kind === 'Parser'
      ? '42601'
      : kind === 'Catalog'
        ? /does not exist/.test(message) && /Table|View/i.test(message)
          ? '42P01'
          : '42000'
        : kind === 'Binder'
          ? '42703'
          : kind === 'Conversion' || kind === 'Invalid Input'
            ? '22018'
            : kind === 'Constraint'
              ? '23000'
              : kind === 'Out of Range'
                ? '22003'
                : '42000';
  return { code: 'BAD_REQUEST', message, sqlState };
}

export { freeResult };
