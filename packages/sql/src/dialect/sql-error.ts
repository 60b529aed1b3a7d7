/**
 * A failed statement. `errorCode` is the Statement Execution wire code (status.error.error_code, BAD_REQUEST
 * for SQL errors as Databricks reports them); the Spark error class (TABLE_OR_VIEW_NOT_FOUND, ...) leads the
 * message in brackets, as Databricks renders it, and is kept in `errorClass`.
 */
export class SqlError extends Error {
  errorClass = 'BAD_REQUEST';
  constructor(
    message: string,
    readonly errorCode: string,
    readonly sqlState: string,
  ) {
    super(message);
    this.name = 'SqlError';
  }
}

/** `[ERROR_CLASS] message` with wire code BAD_REQUEST. */
export function sqlError(errorClass: string, sqlState: string, message: string): SqlError {
  const e = new SqlError(`[${errorClass}] ${message}`, 'BAD_REQUEST', sqlState);
  e.errorClass = errorClass;
  return e;
}

export const syntaxError = (message: string): SqlError => sqlError('PARSE_SYNTAX_ERROR', '42601', message);
export const unsupported = (what: string): SqlError =>
  sqlError('UNSUPPORTED_FEATURE', '0A000', `${what} is not supported by MiniLake's SQL engine.`);
