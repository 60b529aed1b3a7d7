/**
 * How a failed statement is reported: an engine error as Databricks' error code, message and SQLSTATE, the
 * Spark-style details (error class, parameters, query context) the Thrift endpoint sends, and
 * MINILAKE_ENFORCE's refusal of a read.
 */
import { isDatabricksError } from '@minilake/core';
import { refusalText, type Missing, type UnityCatalogApi } from '@minilake/unity-catalog';
import { SqlError } from './dialect/index.js';
import { insufficientPermissionsError, refusalOf } from './dialect/sql-error.js';

/** A raw engine error (DuckDB's `Binder Error: ...`), not yet given its Databricks error class. */
export function isEngineError(e: unknown): boolean {
  return e instanceof Error && !(e instanceof SqlError) && /^[A-Za-z ]+ Error: /.test(e.message);
}

export interface ErrorDetails {
  errorClass: string;
  sqlState: string;
  messageParameters?: Record<string, string>;
  queryContext?: {
    objectType: string;
    objectName: string;
    startIndex: number;
    stopIndex: number;
    fragment: string;
  }[];
}

export function errorDetails(e: SqlError): ErrorDetails {
  const d: ErrorDetails = { errorClass: e.errorClass, sqlState: e.sqlState };
  if (e.parameters) d.messageParameters = e.parameters;
  if (e.position)
    d.queryContext = [
      {
        objectType: '',
        objectName: '',
        startIndex: e.position.start,
        stopIndex: e.position.stop,
        fragment: e.position.fragment,
      },
    ];
  return d;
}

/** Engine failures as Databricks reports them: a ServiceError code, the message, and a SQLSTATE. */
export function toSqlFailure(e: unknown): { code: string; message: string; sqlState: string } {
  if (e instanceof SqlError) return { code: e.errorCode, message: e.message, sqlState: e.sqlState };
  const refused = refusalOf(e);
  if (refused) return { code: refused.errorCode, message: refused.message, sqlState: refused.sqlState };
  // Unity Catalog refusing a change (the read-only samples catalog) reads as Databricks' SQL error.
  if (isDatabricksError(e) && e.errorCode === 'PERMISSION_DENIED')
    return {
      code: 'BAD_REQUEST',
      message: `[INSUFFICIENT_PERMISSIONS] Insufficient privileges:\n${e.message}`,
      sqlState: '42501',
    };
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

/**
 * MINILAKE_ENFORCE=1: a read refused for a missing Unity Catalog privilege, as Databricks SQL words it
 * (error class INSUFFICIENT_PERMISSIONS, SQLSTATE 42501, wire code PERMISSION_DENIED).
 */
export function insufficientPermissions(m: Missing): SqlError {
  return insufficientPermissionsError(refusalText(m), m.privilege, `${m.securableType} '${m.fullName}'`);
}

/** A statement's caller as MINILAKE_ENFORCE=1 checks it: the privilege each thing the text runs needs. */
export function authorizerOf(
  uc: UnityCatalogApi,
  who: Parameters<UnityCatalogApi['privilegeMissing']>[0],
): (need: Parameters<UnityCatalogApi['privilegeMissing']>[1]) => Promise<void> {
  return async (need) => {
    // A dotted call that is no Unity Catalog function (a built-in, a temporary one) is not checked.
    if (need.on === 'function' && !uc.functionExists(need.fullName)) return;
    const m =
      need.on === 'table' && (need.privilege === 'SELECT' || need.privilege === 'MODIFY')
        ? await uc.missingPrivilege(who, need.privilege, need.fullName)
        : uc.privilegeMissing(who, need);
    if (m) throw insufficientPermissions(m);
  };
}
