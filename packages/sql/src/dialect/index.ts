/**
 * Databricks SQL on DuckDB: the one entry point statement execution calls. One statement text goes through
 * the pipeline once, in this order, and a reader can follow it top to bottom in this file:
 *
 *   0. session   (namespace.ts)  the request's catalog/schema on the pooled connection, Spark macros installed
 *   1. parse     (tokens.ts)     split into statements with polyglot's tokens (multi-statement text runs in
 *                                order; the last statement's result is returned, streaming)
 *   2. classify  (commands.ts)   handled by MiniLake itself (USE, SHOW, DESCRIBE, Unity Catalog DDL, Delta
 *                                commands, EXPLAIN, SET: commands/*.ts) or translated; Databricks clauses
 *                                DuckDB cannot run are refused here with a clear error
 *   3. rewrite   (rewrite.ts)    Databricks SQL -> DuckDB SQL (translate.ts, Spark semantics from macros.ts),
 *                                volume paths and parameter values bound; text that is not Databricks SQL
 *                                but runs on DuckDB as written passes unchanged
 *   4. execute   (execute.ts)    on the engine, with Databricks' DML answers; errors become Databricks error
 *                                classes (engine-errors.ts)
 *
 * A command that embeds a query (CREATE TABLE ... AS SELECT, INSERT OVERWRITE, EXPLAIN) sends it through
 * steps 3 and 4 (`stagesFor`), never back through this entry point.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Need } from '@minilake/unity-catalog';
import { forgetNamespaceIfChanged, openSession } from './namespace.js';
import { classify } from './commands.js';
import { isWriteConflictError, mapError } from './engine-errors.js';
import { DML, execute, executionOf, stagesFor } from './execute.js';
import { loadPolyglot } from './polyglot.js';
import { forgetPrepared } from './prepared-cache.js';
import { prepare } from './rewrite.js';
import type { Session, Visibility } from './session.js';
import { locate } from './positions.js';
import { SqlError, syntaxError } from './sql-error.js';
import { splitStatementsCached, type SplitStatement } from './tokens.js';
import { noteTempView, syncTempViews } from './temp-views.js';
import type { DialectEnv, DuckDBConnectionLike, DuckDBResultLike } from './types.js';

export { SqlError, sqlError } from './sql-error.js';
export { loadPolyglot, warmPolyglot } from './polyglot.js';
export { sparkType } from './commands.js';
export { mapError } from './engine-errors.js';

/**
 * An engine error raised while the last statement of `text` streamed its rows (a cast of a column's value,
 * a division by zero in row 1000): mapped to its error class and placed in the text, as errors raised
 * before the first row are.
 */
export function failureOf(e: unknown, text: string): Error {
  const err = mapError(e);
  if (!(err instanceof SqlError)) return err;
  try {
    const stmts = splitStatementsCached(text);
    const last = stmts[stmts.length - 1];
    if (last) locate(err, last, text);
  } catch {
    // A text that does not tokenize has no position to give.
  }
  return err;
}
export { databricksColumnTypes, resultShapeKey } from './execute.js';
export { visibilityOf, type Visibility } from './session.js';
export type {
  DatasetStatement,
  DatasetStatementRunner,
  DialectEnv,
  DuckDBConnectionLike,
  DuckDBResultLike,
  DuckDbEngineLike,
} from './types.js';

export interface StatementParameter {
  name: string;
  value?: string | null;
  type?: string;
}

export interface ExecuteInput {
  statement: string;
  catalog?: string;
  schema?: string;
  parameters?: StatementParameter[];
  /** A missing catalog/schema is not an error by itself (a Thrift session's namespace; see SqlRequest). */
  namespaceMayBeMissing?: boolean;
  /**
   * The client session the statement belongs to (a Thrift session id): its temporary views follow it from
   * one pooled connection to the next (temp-views.ts).
   */
  session?: string;
  /** The caller's user name (current_user()); the Statement API passes the request's identity. */
  user?: string;
  /**
   * Refuses (throws a SqlError) when the caller lacks a Unity Catalog privilege the statement needs (SELECT
   * on what it reads, MODIFY on what it writes, CREATE TABLE, ownership for DROP/ALTER): the Statement API
   * passes Unity Catalog's check when MINILAKE_ENFORCE=1.
   */
  authorize?: (need: Need) => Promise<void>;
  /**
   * What of Unity Catalog the caller may see: with it, SHOW CATALOGS/SCHEMAS/TABLES and information_schema
   * list only that (the Statement API passes Unity Catalog's rule when MINILAKE_ENFORCE=1).
   */
  visibility?: Visibility;
  /** The session time zone (spark.sql.session.timeZone; a Thrift session's). Default UTC. */
  timeZone?: string;
}

export async function executeDatabricksSql<R extends DuckDBResultLike>(
  conn: { stream(sql: string, values?: Record<string, unknown>): Promise<R> } & Omit<
    DuckDBConnectionLike,
    'stream'
  >,
  input: ExecuteInput,
  env: DialectEnv,
): Promise<R> {
  await loadPolyglot();
  const c = conn as unknown as DuckDBConnectionLike;
  // 0. session
  const s = await openSession(c, input, env);
  // 1. parse
  const stmts = splitStatementsCached(input.statement);
  if (stmts.length === 0) throw syntaxError('Syntax error: the statement text is empty.');
  forgetNamespaceIfChanged(c, stmts);
  // Text other than plain queries may change what a cached plan means on this connection (SET, USE, temporary
  // views, PRAGMA ...): its cached statements are dropped before it runs and after (prepared-cache.ts).
  const plain = stmts.every((st) => PLAIN_QUERY.has(st.tokens[0]?.text.toUpperCase() ?? ''));
  if (!plain) forgetPrepared(c);
  let last: DuckDBResultLike | undefined;
  try {
    await syncTempViews(c, input.session, (st) => runStatement(st, s, false));
    for (let i = 0; i < stmts.length; i++) {
      try {
        last = await runOne(stmts[i]!, s, i === stmts.length - 1);
      } catch (e) {
        // Where in the text it went wrong, as Databricks writes it into the message (positions.ts).
        if (e instanceof SqlError) locate(e, stmts[i]!, input.statement);
        throw e;
      }
      noteTempView(input.session, stmts[i]!, c);
    }
  } catch (e) {
    // A failure inside the text's own BEGIN ... leaves the pooled connection in an aborted transaction:
    // roll it back so the next request on this connection starts clean.
    if (s.inTransaction) {
      await c.run('ROLLBACK').catch(() => undefined);
      env.engine.notifyChange?.();
    }
    throw e;
  } finally {
    if (!plain) forgetPrepared(c);
  }
  return last as R;
}

/** First tokens of statements that only read (their plans may be cached per connection). */
const PLAIN_QUERY = new Set(['SELECT', 'WITH', 'VALUES', 'FROM', 'TABLE', '(']);

/**
 * Statements (by their first token) that may change the catalog, or publish or undo a transaction that did:
 * after one runs, the engine's listeners (Unity Catalog) are told. A false positive costs a metadata refresh.
 */
const CATALOG_CHANGING = new Set([
  'CREATE',
  'DROP',
  'ALTER',
  'ATTACH',
  'DETACH',
  'IMPORT',
  'COMMENT',
  'COMMIT',
  'ROLLBACK',
  'ABORT',
  'END',
]);

/** How often a self-contained DDL statement that lost a write-write conflict is run again. */
const CONFLICT_ATTEMPTS = 5;

/**
 * One statement of the text, announcing a possible catalog change to the engine's listeners.
 *
 * Two clients creating or dropping the same table at once meet in DuckDB's optimistic concurrency: the one
 * that commits second fails with a write-write conflict and has changed nothing. Outside the text's own
 * BEGIN (where the whole transaction is lost and the client must retry it), the statement is run again a few
 * ms later (an INSERT into a table dropped meanwhile too), as Databricks serialises concurrent DDL on one name: the retry then succeeds or answers what the
 * other client's change made true (TABLE_OR_VIEW_ALREADY_EXISTS, not found). One that keeps conflicting is
 * DELTA_METADATA_CHANGED (engine-errors.ts), which clients know to retry; never INTERNAL_ERROR.
 */
async function runOne(stmt: SplitStatement, s: Session, final: boolean): Promise<DuckDBResultLike> {
  const head = stmt.tokens[0]?.text.toUpperCase() ?? '';
  if (!CATALOG_CHANGING.has(head))
    return DML.has(head) ? retryingConflicts(stmt, s, final) : runStatement(stmt, s, final);
  try {
    return await retryingConflicts(stmt, s, final);
  } finally {
    s.engine.notifyChange?.();
  }
}

/** A DDL or DML statement, run again while it loses a write-write conflict outside the text's own BEGIN. */
async function retryingConflicts(
  stmt: SplitStatement,
  s: Session,
  final: boolean,
): Promise<DuckDBResultLike> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runStatement(stmt, s, final);
    } catch (e) {
      if (s.inTransaction || attempt >= CONFLICT_ATTEMPTS || !isWriteConflictError(e)) throw e;
      await sleep(attempt * 5);
    }
  }
}

/** Steps 2 to 4 for one statement of the text. */
async function runStatement(stmt: SplitStatement, s: Session, final: boolean): Promise<DuckDBResultLike> {
  trackTransaction(stmt, s);
  // 2. classify (a command may decline a form it leaves to translation)
  try {
    const command = classify(stmt);
    const r = command ? await command(s, stagesFor(s)) : undefined;
    if (r) return r;
  } catch (e) {
    throw mapError(e);
  }
  // 3. rewrite
  const p = await prepare(stmt.text, s);
  // 4. execute
  return execute(executionOf(stmt), stmt, p, s, final);
}

/** The text's own BEGIN ... COMMIT/ROLLBACK, so a failure can roll back what it left open. */
function trackTransaction(stmt: SplitStatement, s: Session): void {
  const first = stmt.tokens[0]?.text.toUpperCase() ?? '';
  if (first === 'BEGIN' || first === 'START') s.inTransaction = true;
  else if (first === 'COMMIT' || first === 'ROLLBACK' || first === 'END' || first === 'ABORT')
    s.inTransaction = false;
}
