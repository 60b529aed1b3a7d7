/**
 * A failed statement. `errorCode` is the Statement Execution wire code (status.error.error_code, BAD_REQUEST
 * for SQL errors as Databricks reports them); the Spark error class (TABLE_OR_VIEW_NOT_FOUND, ...) leads the
 * message in brackets, as Databricks renders it, and is kept in `errorClass`.
 */
export class SqlError extends Error {
  errorClass = 'BAD_REQUEST';
  /**
   * Where the engine said the error is: an offset in the SQL it ran (DuckDB's `LINE n:` caret), which may be
   * the translation of the user's text. positions.ts maps it back onto the user's text.
   */
  engineAt: { sql: string; offset: number } | undefined;
  /**
   * What the error is about, when the engine gave no caret or to check the caret's token: a name or a
   * literal as the user wrote it (`tpep_pickup_datetme`, `nosuch`, `'x'`), or a token offset in the
   * statement already known (MiniLake's own parser).
   */
  subject: { text?: string; statementOffset?: number } | undefined;
  /** Where the error is in the statement text the user sent (set once, by positions.ts). */
  position: SqlPosition | undefined;
  /** Spark's messageParameters, for the Thrift endpoint's errorDetailsJson. */
  parameters: Record<string, string> | undefined;
  constructor(
    message: string,
    readonly errorCode: string,
    readonly sqlState: string,
  ) {
    super(message);
    this.name = 'SqlError';
  }
}

/**
 * A position as Spark reports it: `line` from 1, `pos` from 0 in that line; `start`/`stop` are offsets of
 * the fragment in the whole text (stop inclusive, Spark's queryContext startIndex/stopIndex).
 */
export interface SqlPosition {
  line: number;
  pos: number;
  start: number;
  stop: number;
  fragment: string;
}

/** `[ERROR_CLASS] message` with wire code BAD_REQUEST. */
export function sqlError(errorClass: string, sqlState: string, message: string): SqlError {
  const e = new SqlError(`[${errorClass}] ${message}`, 'BAD_REQUEST', sqlState);
  e.errorClass = errorClass;
  return e;
}

/**
 * MINILAKE_ENFORCE=1: a missing Unity Catalog privilege as Databricks SQL reports it (error class
 * INSUFFICIENT_PERMISSIONS, SQLSTATE 42501, wire code PERMISSION_DENIED). `text` is Unity Catalog's own
 * sentence ("User does not have MODIFY on Table 'c.s.t'."), on its own line after "Insufficient
 * privileges:" as Databricks prints it (quoted in databricks/dbt-databricks#838, mosaicml/llm-foundry#1522).
 */
export function insufficientPermissionsError(text: string, privilege: string, securable: string): SqlError {
  const e = new SqlError(
    `[INSUFFICIENT_PERMISSIONS] Insufficient privileges:\n${text} SQLSTATE: 42501`,
    'PERMISSION_DENIED',
    '42501',
  );
  e.errorClass = 'INSUFFICIENT_PERMISSIONS';
  e.parameters = { privilege, securable };
  return e;
}

/**
 * Unity Catalog's REST refusal (403 PERMISSION_DENIED with its ErrorInfo, from a change SQL made through the
 * store: CREATE SCHEMA, GRANT, DROP CATALOG) as the SQL error; undefined for any other error.
 */
export function refusalOf(e: unknown): SqlError | undefined {
  const d = e as { name?: string; errorCode?: string; message?: string; details?: { metadata?: unknown }[] };
  if (d?.name !== 'DatabricksError' || d.errorCode !== 'PERMISSION_DENIED') return undefined;
  const meta = d.details?.[0]?.metadata as Record<string, string> | undefined;
  if (!meta?.resourceType) return undefined;
  return insufficientPermissionsError(
    d.message ?? '',
    meta.msg ?? '',
    `${meta.resourceType} '${meta.resourceName ?? ''}'`,
  );
}

export const syntaxError = (message: string, statementOffset?: number): SqlError => {
  const e = sqlError('PARSE_SYNTAX_ERROR', '42601', message);
  if (statementOffset !== undefined) e.subject = { statementOffset };
  return e;
};
export const unsupported = (what: string): SqlError =>
  sqlError('UNSUPPORTED_FEATURE', '0A000', `${what} is not supported by MiniLake's SQL engine.`);
