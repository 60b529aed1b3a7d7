/** Engine errors (DuckDB's text, Unity Catalog's REST errors) as Databricks error classes and SQLSTATEs. */
import { catalogAliasToName } from '@minilake/engine-duckdb';
import { SqlError, sqlError } from './sql-error.js';

export const MACRO_ERROR_STATES: Record<string, string> = {
  UNSUPPORTED_FEATURE: '0A000',
  DIVIDE_BY_ZERO: '22012',
  INVALID_ARRAY_INDEX: '22003',
  INVALID_ARRAY_INDEX_IN_ELEMENT_AT: '22003',
  INVALID_INDEX_OF_ZERO: '22003',
  'INVALID_PARAMETER_VALUE.START': '22023',
};

/** Error classes (and SQLSTATEs) for Databricks REST error codes thrown by Unity Catalog inside a statement. */
export const REST_CODES: Record<string, [string, string]> = {
  INVALID_PARAMETER_VALUE: ['INVALID_PARAMETER_VALUE', '22023'],
  CATALOG_DOES_NOT_EXIST: ['NO_SUCH_CATALOG_EXCEPTION', '42704'],
  SCHEMA_DOES_NOT_EXIST: ['SCHEMA_NOT_FOUND', '42704'],
  TABLE_DOES_NOT_EXIST: ['TABLE_OR_VIEW_NOT_FOUND', '42P01'],
  CATALOG_ALREADY_EXISTS: ['CATALOG_ALREADY_EXISTS', '42P04'],
  SCHEMA_ALREADY_EXISTS: ['SCHEMA_ALREADY_EXISTS', '42P06'],
  TABLE_ALREADY_EXISTS: ['TABLE_OR_VIEW_ALREADY_EXISTS', '42P07'],
  PERMISSION_DENIED: ['PERMISSION_DENIED', '42501'],
  RESOURCE_DOES_NOT_EXIST: ['RESOURCE_DOES_NOT_EXIST', '42704'],
  RESOURCE_ALREADY_EXISTS: ['RESOURCE_ALREADY_EXISTS', '42710'],
};

/** Engine aliases (`main__ml`) in an error text -> the catalog names users wrote. */
export function unaliasText(t: string): string {
  return t.replace(/\b[A-Za-z0-9_]+__ml\b/g, (a) => catalogAliasToName(a));
}

/** DuckDB error text (or a Databricks REST error from Unity Catalog) -> Databricks error class and SQLSTATE. */
export function mapError(e: unknown): Error {
  if (e instanceof SqlError) return e;
  // A Delta failure (@minilake/delta's DeltaError) already reads `[DELTA_...] message`, as Databricks shows it.
  if (
    e instanceof Error &&
    e.name === 'DeltaError' &&
    typeof (e as { errorCode?: unknown }).errorCode === 'string'
  ) {
    const cls = (e as unknown as { errorCode: string }).errorCode;
    const err = new SqlError(unaliasText(e.message), 'BAD_REQUEST', DELTA_SQLSTATE[cls] ?? 'KD000');
    err.errorClass = cls;
    return err;
  }
  if (
    e instanceof Error &&
    e.name === 'DatabricksError' &&
    typeof (e as { errorCode?: unknown }).errorCode === 'string'
  ) {
    const code = (e as unknown as { errorCode: string }).errorCode;
    const [cls, state] = REST_CODES[code] ?? [code, 'KD000'];
    return sqlError(cls, state, unaliasText(e.message));
  }
  return mapDuckError(unaliasText(e instanceof Error ? e.message : String(e)));
}

/** SQLSTATEs of the Delta error classes the reader raises (delta-spark's error classes). */
const DELTA_SQLSTATE: Record<string, string> = {
  DELTA_VERSION_NOT_FOUND: '22003',
  DELTA_TIMESTAMP_GREATER_THAN_COMMIT: '42816',
  DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION: '42816',
  DELTA_MISSING_DELTA_TABLE: '42P01',
  DELTA_TABLE_NOT_FOUND: '42P01',
  DELTA_UNSUPPORTED_FEATURES_FOR_READ: '56038',
  DELTA_CONCURRENT_APPEND: '2D521',
  DELTA_VERSIONS_NOT_CONTIGUOUS: 'KD00C',
};

export function mapDuckError(msg: string): Error {
  let first = msg.split('\n')[0] ?? msg;
  if (first.startsWith('Failed to extract statements: '))
    first = first.slice('Failed to extract statements: '.length);
  let m: RegExpMatchArray | null;
  if (/INTERRUPT/i.test(first)) return sqlError('OPERATION_CANCELED', '57014', 'The statement was canceled.');
  // Errors raised by the spark_* macros carry their Spark error class.
  if ((m = first.match(/\[([A-Z_]+(?:\.[A-Z_]+)?)\] (.*)$/)) && m[1]! in MACRO_ERROR_STATES)
    return sqlError(m[1]!, MACRO_ERROR_STATES[m[1]!]!, m[2]!);
  if (
    (m = first.match(/Table with name (\S+) does not exist/)) ||
    (m = first.match(/Table or view .*?"?([\w.]+)"? does not exist/))
  )
    return sqlError(
      'TABLE_OR_VIEW_NOT_FOUND',
      '42P01',
      `The table or view \`${m[1]}\` cannot be found. Verify the spelling and correctness of the schema and catalog. (${first})`,
    );
  if ((m = first.match(/Catalog (?:with name )?"?([^"\s!]+)"? does not exist/)))
    return sqlError('NO_SUCH_CATALOG_EXCEPTION', '42704', `Catalog '${m[1]}' was not found. (${first})`);
  if ((m = first.match(/Schema with name "?([^"\s]+)"? does not exist/)))
    return sqlError('SCHEMA_NOT_FOUND', '42704', `The schema \`${m[1]}\` cannot be found. (${first})`);
  if (
    (m = first.match(/Referenced column "?([^"\s]+)"? (?:was )?not found/)) ||
    (m = first.match(/column "?([^"\s]+)"? .*does not exist/i))
  )
    return sqlError(
      'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION',
      '42703',
      `A column, variable, or function parameter with name \`${m[1]}\` cannot be resolved. (${first})`,
    );
  if ((m = first.match(/(?:Scalar|Aggregate|Table) Function with name "?([^"\s!]+)"? does not exist/)))
    return sqlError(
      'UNRESOLVED_ROUTINE',
      '42883',
      `Cannot resolve routine \`${m[1]}\` on search path [\`system\`.\`builtin\`, \`system\`.\`session\`]. (${first})`,
    );
  if (first.startsWith('Parser Error'))
    return sqlError('PARSE_SYNTAX_ERROR', '42601', `Syntax error: ${first}`);
  if (first.includes('Unimplemented type for cast'))
    return sqlError(
      'DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION',
      '42K09',
      `Cannot resolve the cast: ${first}`,
    );
  // A sum wider than BIGINT (our cast of DuckDB's HUGEINT sum) is Spark's arithmetic overflow.
  if (
    /Overflow in (addition|subtraction|multiplication)/.test(first) ||
    /out of range .*source column sum\(/.test(first)
  )
    return sqlError(
      'ARITHMETIC_OVERFLOW',
      '22003',
      `${first}. Use 'try_add'/'try_multiply' to tolerate overflow and return NULL instead.`,
    );
  if (/Failed to cast .* to type|out of range for the destination type|Overflow in/.test(first))
    return sqlError(
      'CAST_OVERFLOW',
      '22003',
      `${first}. Use \`try_cast\` to tolerate overflow and return NULL instead.`,
    );
  if (first.startsWith('Conversion Error') || first.startsWith('Invalid Input Error: Could not convert'))
    return sqlError('CAST_INVALID_INPUT', '22018', first);
  if (first.includes('already exists')) return sqlError('TABLE_OR_VIEW_ALREADY_EXISTS', '42P07', first);
  if (first.includes('aggregate function calls cannot be nested'))
    return sqlError(
      'NESTED_AGGREGATE_FUNCTION',
      '42607',
      `It is not allowed to use an aggregate function in the argument of another aggregate function. (${first})`,
    );
  if (first.startsWith('Binder Error')) return sqlError('DATATYPE_MISMATCH', '42K09', first);
  if (first.startsWith('Constraint Error')) return sqlError('CONSTRAINT_VIOLATION', '23000', first);
  if (first.startsWith('Out of Range Error')) return sqlError('ARITHMETIC_OVERFLOW', '22003', first);
  // A catalog the engine attached READ_ONLY (samples): Databricks refuses such writes for want of MODIFY.
  if ((m = first.match(/on database "([^"]+)" which is attached in read-only mode/)))
    return sqlError(
      'INSUFFICIENT_PERMISSIONS',
      '42501',
      `Insufficient privileges: User does not have MODIFY on Catalog '${m[1]}': the catalog is read-only.`,
    );
  if (first.startsWith('Invalid Input Error')) return sqlError('INVALID_INPUT', '22023', first);
  if (first.startsWith('Not implemented Error')) return sqlError('UNSUPPORTED_FEATURE', '0A000', first);
  if (first.includes('Type with name')) return sqlError('UNSUPPORTED_DATATYPE', '0A000', first);
  if (first.startsWith('Catalog Error')) return sqlError('TABLE_OR_VIEW_NOT_FOUND', '42P01', first);
  return sqlError('INTERNAL_ERROR', 'XX000', first);
}
