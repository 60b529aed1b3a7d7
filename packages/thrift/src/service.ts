/**
 * TCLIService as Databricks SQL answers it: sessions (UUID handles, initial namespace, configuration,
 * idle expiry on the injected clock), operations (statements through the runner, metadata from Unity
 * Catalog), direct results (a small statement is one POST), paging, cancel and close. The generated
 * processor from @databricks/sql calls these methods; they return plain objects the generated structs accept.
 */
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import { randomUUID } from 'node:crypto';
import { DatabricksError, isAdmin, type Clock, type Logger, type Principal } from '@minilake/core';
import { visibilityOf } from '@minilake/sql';
import * as meta from './metadata.js';
import { ResultCursor, rowsSource, tableSchema, type BatchSource, type Caps } from './results.js';
import type { Execution, RunParameter, Runner } from './runner.js';
import { sessionCommand } from './session-commands.js';
import { tableFromIPC, type RecordBatch } from 'apache-arrow';

type Req = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const StatusCode = { SUCCESS: 0, STILL_EXECUTING: 2, ERROR: 3, INVALID_HANDLE: 4 } as const;
const OpState = { INITIALIZED: 0, RUNNING: 1, FINISHED: 2, CANCELED: 3, CLOSED: 4, ERROR: 5, PENDING: 7 };
const OpType = {
  EXECUTE_STATEMENT: 0,
  GET_TYPE_INFO: 1,
  GET_CATALOGS: 2,
  GET_SCHEMAS: 3,
  GET_TABLES: 4,
  GET_TABLE_TYPES: 5,
  GET_COLUMNS: 6,
  GET_FUNCTIONS: 7,
  UNKNOWN: 8,
};
/** SPARK_CLI_SERVICE_PROTOCOL_V8: parameters, Arrow native types, direct results, LZ4. */
export const SERVER_PROTOCOL = 42248;
const ROW_SET = { ARROW: 0, COLUMNS: 1 };

const ok = () => ({ statusCode: StatusCode.SUCCESS });
const invalidHandle = (what: string) => ({
  statusCode: StatusCode.INVALID_HANDLE,
  errorMessage: `Invalid ${what}`,
  displayMessage: `Invalid ${what}`,
});

interface Session {
  key: string;
  handle: { guid: Buffer; secret: Buffer };
  warehouseId: string;
  catalog: string;
  schema: string;
  /** The client named a namespace (OpenSession or USE): statements run there, else in the service default. */
  explicitNamespace: boolean;
  conf: Record<string, string>;
  lastUsed: number;
  operations: Set<string>;
  /**
   * MINILAKE_ENFORCE=1: who opened the session (the principal of the OpenSession request's token). Only that
   * caller may use the handle, and the metadata calls answer what it may see; absent, nothing is enforced.
   */
  caller?: Principal;
}

interface Operation {
  key: string;
  handle: { guid: Buffer; secret: Buffer };
  type: number;
  session: Session;
  exec?: Execution;
  /** Metadata and SET/USE answers computed here. */
  staticResult?: meta.MetaResult;
  error?: { message: string; sqlState?: string };
  canceled: boolean;
  closed: boolean;
  caps: Caps;
  cursor?: ResultCursor;
  started: number;
  /** Applied to the session when the statement succeeds (USE, SET). */
  onSuccess?: () => void;
  modifiedRows?: number;
}

export interface ServiceOptions {
  runner: Runner;
  /** Unity Catalog, which the metadata calls read (a peer's Api). */
  uc: UnityCatalogApi;
  /** The principal of the request being served (ServiceContext.principal); the configured user without it. */
  principal?: () => Principal;
  clock: Clock;
  logger: Logger;
  idleMs: number;
}

function uuidBytes(): Buffer {
  return Buffer.from(randomUUID().replaceAll('-', ''), 'hex');
}

const keyOf = (h: { guid?: Buffer } | undefined | null) =>
  h?.guid ? Buffer.from(h.guid).toString('hex') : '';

function i64(x: unknown): number | undefined {
  if (x === null || x === undefined) return undefined;
  if (typeof x === 'number') return x;
  const o = x as { toNumber?: () => number };
  return o.toNumber ? o.toNumber() : Number(x);
}

/** Thrift parameters (TSparkParameter) as Statement API parameters. */
function parameters(list: Req[] | undefined | null): RunParameter[] | undefined {
  if (!list?.length) return undefined;
  let position = 0;
  return list.map((p) => {
    // Positional markers (`?`) bind by position: the connectors send those parameters in order without a
    // name (their `ordinal` is a flag, 1 on every one), and the dialect binds the n-th `?` to the name `n`.
    const out: RunParameter = { name: p.name ?? String(++position) };
    const v = p.value;
    if (v && v.stringValue !== null && v.stringValue !== undefined) out.value = String(v.stringValue);
    else if (v && v.doubleValue !== null && v.doubleValue !== undefined) out.value = String(v.doubleValue);
    else if (v && v.booleanValue !== null && v.booleanValue !== undefined) out.value = String(v.booleanValue);
    if (p.type && p.type !== 'VOID') out.type = String(p.type);
    return out;
  });
}

export class ThriftService {
  private readonly sessions = new Map<string, Session>();
  private readonly operations = new Map<string, Operation>();

  constructor(private readonly o: ServiceOptions) {}

  /** The handler object for the generated processor, for one endpoint (a warehouse). */
  handler(warehouseId: string, client?: string): Record<string, (req: Req) => Promise<unknown>> {
    const wrap =
      (f: (req: Req) => Promise<unknown> | unknown) =>
      async (req: Req): Promise<unknown> => {
        this.expire();
        try {
          return await f(req);
        } catch (e) {
          this.o.logger.error('thrift call failed', { error: (e as Error)?.stack ?? String(e) });
          return { status: { statusCode: StatusCode.ERROR, errorMessage: (e as Error).message } };
        }
      };
    return {
      OpenSession: wrap((r) => this.openSession(warehouseId, r)),
      CloseSession: wrap((r) => this.closeSession(r)),
      GetInfo: wrap((r) => this.getInfo(r)),
      ExecuteStatement: wrap((r) => this.executeStatement(r, client)),
      GetTypeInfo: wrap((r) => this.metadata(r, OpType.GET_TYPE_INFO, () => meta.getTypeInfo())),
      GetCatalogs: wrap((r) => this.metadata(r, OpType.GET_CATALOGS, (uc) => meta.getCatalogs(uc))),
      GetSchemas: wrap((r) =>
        this.metadata(r, OpType.GET_SCHEMAS, (uc) => meta.getSchemas(uc, r.catalogName, r.schemaName)),
      ),
      GetTables: wrap((r) =>
        this.metadata(r, OpType.GET_TABLES, (uc) =>
          meta.getTables(uc, r.catalogName, r.schemaName, r.tableName, r.tableTypes),
        ),
      ),
      GetTableTypes: wrap((r) => this.metadata(r, OpType.GET_TABLE_TYPES, () => meta.getTableTypes())),
      GetColumns: wrap((r) =>
        this.metadata(r, OpType.GET_COLUMNS, (uc) =>
          meta.getColumns(uc, r.catalogName, r.schemaName, r.tableName, r.columnName),
        ),
      ),
      GetFunctions: wrap((r) =>
        this.metadata(r, OpType.GET_FUNCTIONS, (uc) =>
          meta.getFunctions(uc, r.catalogName, r.schemaName, r.functionName),
        ),
      ),
      GetPrimaryKeys: wrap((r) =>
        this.metadata(r, OpType.UNKNOWN, (uc) =>
          meta.getPrimaryKeys(uc, r.catalogName, r.schemaName, r.tableName),
        ),
      ),
      GetCrossReference: wrap((r) =>
        this.metadata(r, OpType.UNKNOWN, (uc) =>
          meta.getCrossReference(
            uc,
            { catalog: r.parentCatalogName, schema: r.parentSchemaName, table: r.parentTableName },
            { catalog: r.foreignCatalogName, schema: r.foreignSchemaName, table: r.foreignTableName },
          ),
        ),
      ),
      GetOperationStatus: wrap((r) => this.getOperationStatus(r)),
      CancelOperation: wrap((r) => this.cancelOperation(r)),
      CloseOperation: wrap((r) => this.closeOperation(r)),
      GetResultSetMetadata: wrap((r) => this.getResultSetMetadata(r)),
      FetchResults: wrap((r) => this.fetchResults(r)),
      GetDelegationToken: wrap(() => ({ status: notSupported('GetDelegationToken') })),
      CancelDelegationToken: wrap(() => ({ status: notSupported('CancelDelegationToken') })),
      RenewDelegationToken: wrap(() => ({ status: notSupported('RenewDelegationToken') })),
    };
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Idle sessions are closed lazily, on the next call (clock time, so tests can step it). */
  private expire(): void {
    const now = this.o.clock.now();
    for (const s of this.sessions.values()) if (now - s.lastUsed > this.o.idleMs) void this.dropSession(s);
  }

  private async dropSession(s: Session): Promise<void> {
    this.sessions.delete(s.key);
    for (const k of s.operations) {
      const op = this.operations.get(k);
      if (op) await this.dropOperation(op);
    }
  }

  private async dropOperation(op: Operation): Promise<void> {
    op.closed = true;
    this.operations.delete(op.key);
    op.session.operations.delete(op.key);
    if (op.exec && !op.exec.status().state.match(/SUCCEEDED|FAILED|CANCELED|CLOSED/))
      await op.exec.cancel().catch(() => undefined);
  }

  private session(handle: Req | undefined): Session | undefined {
    const s = this.sessions.get(keyOf(handle?.sessionId));
    // Another caller's session is no session of this one (statements run as the request's caller, so a
    // borrowed handle would mix two identities in one session).
    if (!s || (s.caller && s.caller.userName !== this.o.principal?.().userName)) return undefined;
    s.lastUsed = this.o.clock.now();
    return s;
  }

  private operation(handle: Req | undefined): Operation | undefined {
    const op = this.operations.get(keyOf(handle?.operationId));
    if (op) op.session.lastUsed = this.o.clock.now();
    return op;
  }

  clear(): Promise<void[]> {
    const all = [...this.sessions.values()];
    return Promise.all(all.map((s) => this.dropSession(s)));
  }

  private openSession(warehouseId: string, r: Req): unknown {
    const guid = uuidBytes();
    const conf: Record<string, string> = { ...r.configuration };
    const ns = r.initialNamespace ?? {};
    const s: Session = {
      key: guid.toString('hex'),
      handle: { guid, secret: uuidBytes() },
      warehouseId,
      catalog: ns.catalogName || conf['spark.databricks.sql.initial.catalog.name'] || 'main',
      schema: ns.schemaName || conf['spark.databricks.sql.initial.catalog.namespace'] || 'default',
      explicitNamespace: !!(ns.catalogName || ns.schemaName),
      conf,
      lastUsed: this.o.clock.now(),
      operations: new Set(),
    };
    const who = this.o.uc.enforcing ? this.o.principal?.() : undefined;
    if (who) s.caller = who;
    this.sessions.set(s.key, s);
    return {
      status: ok(),
      serverProtocolVersion: SERVER_PROTOCOL,
      sessionHandle: { sessionId: s.handle },
      configuration: conf,
      initialNamespace: { catalogName: s.catalog, schemaName: s.schema },
      canUseMultipleCatalogs: true,
    };
  }

  private async closeSession(r: Req): Promise<unknown> {
    const s = this.session(r.sessionHandle);
    if (!s) return { status: invalidHandle('SessionHandle') };
    await this.dropSession(s);
    return { status: ok() };
  }

  private getInfo(r: Req): unknown {
    if (!this.session(r.sessionHandle)) return { status: invalidHandle('SessionHandle'), infoValue: {} };
    const values: Record<number, string> = { 13: 'Spark SQL', 17: 'Spark SQL', 18: '3.5.0' };
    return { status: ok(), infoValue: { stringValue: values[r.infoType as number] ?? '' } };
  }

  private newOperation(s: Session, type: number, r: Req): Operation {
    const guid = uuidBytes();
    const arrowTypes = r.useArrowNativeTypes ?? {};
    const op: Operation = {
      key: guid.toString('hex'),
      handle: { guid, secret: uuidBytes() },
      type,
      session: s,
      canceled: false,
      closed: false,
      started: this.o.clock.now(),
      caps: {
        // Metadata requests say nothing of what the client reads: column-based sets, which every client reads
        // (the Python connector installed without pyarrow cannot read Arrow).
        arrow: type === OpType.EXECUTE_STATEMENT && r.canReadArrowResult === true,
        lz4: type === OpType.EXECUTE_STATEMENT && r.canDecompressLZ4Result === true,
        decimalAsArrow: arrowTypes.decimalAsArrow === true,
        complexAsArrow: arrowTypes.complexTypesAsArrow === true,
        timeZone: s.conf['spark.sql.session.timeZone'] || 'Etc/UTC',
      },
    };
    // Column-based sets carry decimals and nested values as text, whatever the Arrow flags say.
    if (!op.caps.arrow) op.caps.decimalAsArrow = op.caps.complexAsArrow = false;
    this.operations.set(op.key, op);
    s.operations.add(op.key);
    return op;
  }

  private handleOf(op: Operation): unknown {
    return { operationId: op.handle, operationType: op.type, hasResultSet: true };
  }

  private async executeStatement(r: Req, client: string | undefined): Promise<unknown> {
    const s = this.session(r.sessionHandle);
    if (!s) return { status: invalidHandle('SessionHandle') };
    const op = this.newOperation(s, OpType.EXECUTE_STATEMENT, r);
    const statement = String(r.statement ?? '');
    const cmd = sessionCommand(statement);
    try {
      op.exec = await this.o.runner.start({
        statement,
        warehouseId: s.warehouseId,
        session: s.key,
        ...(s.conf['spark.sql.session.timeZone'] ? { timeZone: s.conf['spark.sql.session.timeZone'] } : {}),
        ...(s.explicitNamespace ? { catalog: s.catalog, schema: s.schema } : {}),
        ...(parameters(r.parameters) ? { parameters: parameters(r.parameters)! } : {}),
        ...(client ? { client } : {}),
      });
    } catch (e) {
      this.operations.delete(op.key);
      s.operations.delete(op.key);
      if (!(e instanceof DatabricksError)) throw e;
      const message = `${e.errorCode}: ${e.message}`;
      return { status: { statusCode: StatusCode.ERROR, errorMessage: message, displayMessage: message } };
    }
    if (cmd?.kind === 'use')
      op.onSuccess = () => {
        if (cmd.catalog) s.catalog = cmd.catalog;
        if (cmd.schema) s.schema = cmd.schema;
        s.explicitNamespace = true;
      };
    else if (cmd?.kind === 'set')
      op.onSuccess = () => {
        // Spark reads its conf keys case-insensitively; the session's time zone has one spelling here.
        const tz = cmd.key.toLowerCase() === 'spark.sql.session.timezone';
        s.conf[tz ? 'spark.sql.session.timeZone' : cmd.key] = cmd.value;
      };
    // runAsync=false: answer when it is done. runAsync=true with direct results: wait briefly, as Databricks
    // does (a quick statement comes back FINISHED with its rows in the same response).
    if (!r.runAsync) await op.exec.done;
    else if (r.getDirectResults) await settledWithin(op.exec.done, DIRECT_RESULTS_WAIT_MS);
    return this.withDirectResults(op, r);
  }

  private async metadata(
    r: Req,
    type: number,
    compute: (uc: meta.Uc) => Promise<meta.MetaResult> | meta.MetaResult,
  ): Promise<unknown> {
    const s = this.session(r.sessionHandle);
    if (!s) return { status: invalidHandle('SessionHandle') };
    const op = this.newOperation(s, type, r);
    // MINILAKE_ENFORCE=1: the session's caller sees what Unity Catalog's REST lists and SQL's SHOW show it.
    const uc = this.o.uc;
    const caller = s.caller;
    op.staticResult = await compute(
      caller && !isAdmin(caller)
        ? { store: uc.store, getTable: (n) => uc.getTable(n), visibility: visibilityOf(uc, caller) }
        : uc,
    );
    return this.withDirectResults(op, r);
  }

  private async withDirectResults(op: Operation, r: Req): Promise<unknown> {
    const resp: Record<string, unknown> = { status: ok(), operationHandle: this.handleOf(op) };
    const dr = r.getDirectResults;
    if (!dr) return resp;
    const status = this.status(op);
    const direct: Record<string, unknown> = { operationStatus: status };
    if (status.operationState === OpState.FINISHED) {
      direct.resultSetMetadata = await this.metadataResp(op);
      const page = await this.fetchPage(op, i64(dr.maxRows) ?? 100000);
      direct.resultSet = { status: ok(), hasMoreRows: page.hasMore, results: page.rowSet };
      if (!page.hasMore) {
        await this.dropOperation(op);
        direct.closeOperation = { status: ok() };
      }
    } else if (status.operationState === OpState.ERROR || status.operationState === OpState.CANCELED) {
      await this.dropOperation(op);
      direct.closeOperation = { status: ok() };
    }
    resp.directResults = direct;
    return resp;
  }

  private status(op: Operation): Record<string, unknown> & { operationState: number } {
    const base = { status: ok(), operationStarted: op.started, hasResultSet: true };
    if (op.closed && !op.exec) return { ...base, operationState: OpState.CLOSED };
    if (op.staticResult) return { ...base, operationState: OpState.FINISHED, operationCompleted: op.started };
    const st = op.exec!.status();
    switch (st.state) {
      case 'PENDING':
        return { ...base, operationState: OpState.PENDING };
      case 'RUNNING':
        return { ...base, operationState: OpState.RUNNING };
      case 'SUCCEEDED':
        if (op.onSuccess) {
          op.onSuccess();
          op.onSuccess = undefined;
        }
        return { ...base, operationState: OpState.FINISHED, operationCompleted: this.o.clock.now() };
      case 'CANCELED':
        return { ...base, operationState: OpState.CANCELED };
      case 'CLOSED':
        return { ...base, operationState: OpState.CLOSED };
      default: {
        const e = st.error;
        const message = e ? `[${e.code}] ${e.message}` : 'The statement failed';
        return {
          ...base,
          operationState: OpState.ERROR,
          errorMessage: message,
          displayMessage: e?.message ?? message,
          ...(e?.sqlState ? { sqlState: e.sqlState } : {}),
          // Spark's JSON form of the error (errorClass, sqlState, messageParameters, queryContext with the
          // fragment's offsets), as a Databricks warehouse sends it; the message carries the position too.
          errorDetailsJson: JSON.stringify(e?.details ?? { errorClass: e?.code, sqlState: e?.sqlState }),
        };
      }
    }
  }

  private getOperationStatus(r: Req): unknown {
    const op = this.operation(r.operationHandle);
    if (!op) return { status: invalidHandle('OperationHandle') };
    return this.status(op);
  }

  private async cancelOperation(r: Req): Promise<unknown> {
    const op = this.operation(r.operationHandle);
    if (!op) return { status: invalidHandle('OperationHandle') };
    op.canceled = true;
    await op.exec?.cancel();
    return { status: ok() };
  }

  private async closeOperation(r: Req): Promise<unknown> {
    const op = this.operation(r.operationHandle);
    if (!op) return { status: invalidHandle('OperationHandle') };
    await this.dropOperation(op);
    return { status: ok() };
  }

  private async cursor(op: Operation): Promise<ResultCursor> {
    if (op.cursor) return op.cursor;
    if (op.staticResult) {
      const m = op.staticResult;
      op.cursor = new ResultCursor(m.columns, rowsSource(m.columns, m.rows, op.caps), op.caps);
      return op.cursor;
    }
    const exec = op.exec!;
    const st = exec.status();
    const columns = (st.columns ?? []).map((c) => ({ name: c.name, typeText: c.type_text || c.type_name }));
    let chunk = 0;
    let pending: RecordBatch[] = [];
    const source: BatchSource = {
      async next() {
        while (pending.length === 0) {
          if (chunk >= (st.chunkCount ?? 0)) return null;
          pending = [...tableFromIPC(await exec.chunk(chunk++)).batches];
        }
        return pending.shift()!;
      },
    };
    op.cursor = new ResultCursor(columns, source, op.caps);
    return op.cursor;
  }

  private async metadataResp(op: Operation): Promise<Record<string, unknown>> {
    const c = await this.cursor(op);
    const resp: Record<string, unknown> = {
      status: ok(),
      schema: tableSchema(c.columns),
      resultFormat: c.caps.arrow ? ROW_SET.ARROW : ROW_SET.COLUMNS,
      lz4Compressed: c.caps.lz4,
      isStagingOperation: false,
    };
    if (c.caps.arrow) resp.arrowSchema = Buffer.from(c.schemaBytes());
    return resp;
  }

  private async getResultSetMetadata(r: Req): Promise<unknown> {
    const op = this.operation(r.operationHandle);
    if (!op) return { status: invalidHandle('OperationHandle') };
    const st = this.status(op);
    if (st.operationState !== OpState.FINISHED) return { status: notFinished(st) };
    return this.metadataResp(op);
  }

  private async fetchPage(op: Operation, maxRows: number) {
    const c = await this.cursor(op);
    return c.fetch(maxRows);
  }

  private async fetchResults(r: Req): Promise<unknown> {
    const op = this.operation(r.operationHandle);
    if (!op) return { status: invalidHandle('OperationHandle') };
    const st = this.status(op);
    if (st.operationState !== OpState.FINISHED) return { status: notFinished(st) };
    const page = await this.fetchPage(op, i64(r.maxRows) ?? 100000);
    const resp: Record<string, unknown> = { status: ok(), hasMoreRows: page.hasMore, results: page.rowSet };
    if (r.includeResultSetMetadata) resp.resultSetMetadata = await this.metadataResp(op);
    return resp;
  }
}

/** How long an async ExecuteStatement with direct results waits before answering RUNNING (engine time). */
const DIRECT_RESULTS_WAIT_MS = 1000;

async function settledWithin(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((res) => (timer = setTimeout(res, ms)))]);
  clearTimeout(timer);
}

/** The error status of a result request on an operation that has no result (yet, or ever). */
function notFinished(st: Record<string, unknown>) {
  const message =
    st.operationState === OpState.CANCELED
      ? 'The statement was canceled.'
      : st.operationState === OpState.ERROR
        ? String(st.errorMessage)
        : st.operationState === OpState.CLOSED
          ? 'The operation is closed.'
          : 'The statement is still running: poll GetOperationStatus until it is FINISHED.';
  return {
    statusCode: StatusCode.ERROR,
    errorMessage: message,
    displayMessage: message,
    ...(st.sqlState ? { sqlState: st.sqlState as string } : {}),
  };
}

function notSupported(what: string) {
  return { statusCode: StatusCode.ERROR, errorMessage: `${what} is not supported by this server` };
}
