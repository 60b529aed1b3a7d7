/** Engine errors (DuckDB's text, Unity Catalog's REST errors) as Databricks error classes and SQLSTATEs. */
import { catalogAliasToName } from '@minilake/engine-duckdb';
import { duckCaret } from './positions.js';
import { refusalOf, SqlError, sqlError } from './sql-error.js';

export const MACRO_ERROR_STATES: Record<string, string> = {
  UNSUPPORTED_FEATURE: '0A000',
  DIVIDE_BY_ZERO: '22012',
  CAST_INVALID_INPUT: '22018',
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

/**
 * DuckDB error text (or a Databricks REST error from Unity Catalog) -> Databricks error class and SQLSTATE.
 * `sql` is the text the engine ran, so its caret can be carried back to the user's text (positions.ts).
 */
export function mapError(e: unknown, sql?: string): Error {
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
    const refused = refusalOf(e);
    if (refused) return refused;
    const code = (e as unknown as { errorCode: string }).errorCode;
    // Unity Catalog refusing a change for every caller (the read-only samples catalog): the SQL error class.
    if (code === 'PERMISSION_DENIED')
      return sqlError(
        'INSUFFICIENT_PERMISSIONS',
        '42501',
        `Insufficient privileges:\n${unaliasText(e.message)}`,
      );
    const [cls, state] = REST_CODES[code] ?? [code, 'KD000'];
    return sqlError(cls, state, unaliasText(e.message));
  }
  const text = e instanceof Error ? e.message : String(e);
  const mapped = mapDuckError(unaliasText(text));
  if (mapped instanceof SqlError) {
    const offset = duckCaret(text, sql);
    if (offset !== undefined) mapped.engineAt = { sql: sql!, offset };
  }
  return mapped;
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

const WRITE_CONFLICT = /write-write conflict|Transaction conflict/i;

/** A statement that lost a write-write conflict to a concurrent one, and so changed nothing. */
export function isWriteConflictError(e: unknown): boolean {
  if (e instanceof SqlError) return e.errorClass === 'DELTA_METADATA_CHANGED';
  return WRITE_CONFLICT.test(e instanceof Error ? e.message : String(e));
}

export function mapDuckError(msg: string): Error {
  let first = msg.split('\n')[0] ?? msg;
  if (first.startsWith('Failed to extract statements: '))
    first = first.slice('Failed to extract statements: '.length);
  let m: RegExpMatchArray | null;
  if (/INTERRUPT/i.test(first)) return sqlError('OPERATION_CANCELED', '57014', 'The statement was canceled.');
  // spark_int_src: a string that is no number, cast to an integral type.
  if ((m = first.match(/\[CAST_INVALID_INPUT\] ([A-Z]+) (.*)$/)))
    return castInvalidInput(m[2]!, 'STRING', m[1]!);
  // Errors raised by the spark_* macros carry their Spark error class.
  if ((m = first.match(/\[([A-Z_]+(?:\.[A-Z_]+)?)\] (.*)$/)) && m[1]! in MACRO_ERROR_STATES)
    return sqlError(m[1]!, MACRO_ERROR_STATES[m[1]!]!, m[2]!);
  if (
    (m = first.match(/Table with name (\S+) does not exist/)) ||
    (m = first.match(/Table or view .*?"?([\w.]+)"? does not exist/))
  )
    return tableNotFound(m[1]!);
  if ((m = first.match(/Catalog (?:with name )?"?([^"\s!]+)"? does not exist/)))
    return about(
      sqlError('NO_SUCH_CATALOG_EXCEPTION', '42704', `Catalog '${m[1]}' was not found. (${first})`),
      m[1]!,
    );
  if ((m = first.match(/Schema with name "?([^"\s]+)"? does not exist/)))
    return about(
      sqlError('SCHEMA_NOT_FOUND', '42704', `The schema \`${m[1]}\` cannot be found. (${first})`),
      m[1]!,
    );
  if ((m = first.match(/Referenced column "([^"]+)" (?:was )?not found/)))
    return unresolvedColumn([m[1]!], candidates(msg));
  if ((m = first.match(/(?:Table|Values list) "([^"]+)" does not have a column named "([^"]+)"/)))
    return unresolvedColumn([m[1]!, m[2]!], candidates(msg));
  if ((m = first.match(/Referenced table "([^"]+)" not found/))) return unresolvedColumn([m[1]!], []);
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
    return about(
      sqlError(
        'UNRESOLVED_ROUTINE',
        '42883',
        `Cannot resolve routine \`${m[1]}\` on search path [\`system\`.\`builtin\`, \`system\`.\`session\`]. (${first})`,
      ),
      m[1]!,
    );
  if (first.startsWith('Parser Error')) {
    const near = /syntax error at or near "((?:[^"]|"")*)"/.exec(first);
    const err = sqlError(
      'PARSE_SYNTAX_ERROR',
      '42601',
      near
        ? `Syntax error at or near '${near[1]!.replace(/""/g, '"')}'.`
        : /at end of input/.test(first)
          ? 'Syntax error at or near end of input.'
          : `Syntax error: ${first.replace(/^Parser Error: /, '')}`,
    );
    if (near) err.subject = { text: near[1]!.replace(/""/g, '"') };
    return err;
  }
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
  if ((m = first.match(/Could not convert string '((?:[^']|'')*)' to (.+?)\s*$/)))
    return castInvalidInput(m[1]!.replace(/''/g, "'"), 'STRING', sparkTypeOf(m[2]!));
  if ((m = first.match(/invalid (date|timestamp) field format: "((?:[^"]|"")*)"/)))
    return castInvalidInput(m[2]!.replace(/""/g, '"'), 'STRING', m[1] === 'date' ? 'DATE' : 'TIMESTAMP');
  if (first.startsWith('Conversion Error') || first.startsWith('Invalid Input Error: Could not convert'))
    return sqlError('CAST_INVALID_INPUT', '22018', first);
  if (first.includes('already exists')) return sqlError('TABLE_OR_VIEW_ALREADY_EXISTS', '42P07', first);
  if (first.includes('aggregate function calls cannot be nested'))
    return sqlError(
      'NESTED_AGGREGATE_FUNCTION',
      '42607',
      `It is not allowed to use an aggregate function in the argument of another aggregate function. (${first})`,
    );
  if ((m = first.match(/Could not choose a best candidate function for the function call "(.+)\((.*)\)"/)))
    return typeMismatch(m[1]!, m[2]!);
  if (first.startsWith('Binder Error')) return sqlError('DATATYPE_MISMATCH', '42K09', first);
  if (first.startsWith('Constraint Error')) return sqlError('CONSTRAINT_VIOLATION', '23000', first);
  if (first.startsWith('Out of Range Error')) return sqlError('ARITHMETIC_OVERFLOW', '22003', first);
  // A catalog the engine attached READ_ONLY (samples): Databricks refuses such writes for want of MODIFY.
  if ((m = first.match(/on database "([^"]+)" which is attached in read-only mode/)))
    return sqlError(
      'INSUFFICIENT_PERMISSIONS',
      '42501',
      `Insufficient privileges:\nUser does not have MODIFY on Catalog '${m[1]}': the ${m[1] === 'samples' ? 'samples ' : ''}catalog is read-only.`,
    );
  if (first.startsWith('Invalid Input Error')) return sqlError('INVALID_INPUT', '22023', first);
  if (first.startsWith('Not implemented Error')) return sqlError('UNSUPPORTED_FEATURE', '0A000', first);
  if (first.includes('Type with name')) return sqlError('UNSUPPORTED_DATATYPE', '0A000', first);
  if (first.startsWith('Catalog Error')) return sqlError('TABLE_OR_VIEW_NOT_FOUND', '42P01', first);
  // Two statements changing one catalog entry at once (DuckDB's optimistic concurrency): the loser changed
  // nothing and may simply run again, which is what Databricks' concurrent-change error tells a client.
  if (WRITE_CONFLICT.test(first))
    return sqlError(
      'DELTA_METADATA_CHANGED',
      '2D521',
      'MetadataChangedException: The metadata of the table has been changed by a concurrent update. Please try the operation again.',
    );
  return sqlError('INTERNAL_ERROR', 'XX000', first);
}

/** Names what the error is about (positions.ts finds it in the statement when the engine gave no caret). */
function about(e: SqlError, text: string): SqlError {
  e.subject = { text: text.split('.').pop()! };
  return e;
}

/** `a.b` as Spark quotes a multi-part name: `` `a`.`b` ``. */
export const quoteParts = (parts: string[]): string =>
  parts.map((p) => `\`${p.replace(/`/g, '``')}\``).join('.');

export function tableNotFound(name: string): SqlError {
  const e = sqlError(
    'TABLE_OR_VIEW_NOT_FOUND',
    '42P01',
    `The table or view ${quoteParts(name.split('.'))} cannot be found. Verify the spelling and correctness of the schema and catalog.\n` +
      'If you did not qualify the name with a schema, verify the current_schema() output, or qualify the name with the correct schema and catalog.\n' +
      'To tolerate the error on drop use DROP VIEW IF EXISTS or DROP TABLE IF EXISTS.',
  );
  e.subject = { text: name.split('.').pop()! };
  e.parameters = { relationName: quoteParts(name.split('.')) };
  return e;
}

/**
 * Spark's UNRESOLVED_COLUMN: the names in scope closest to the one written (Levenshtein distance, nearest
 * first, at most five), WITH_SUGGESTION when there are any. The candidates are the ones DuckDB's binder
 * offers for the name (the columns of the FROM clause it finds closest).
 */
export function unresolvedColumn(name: string[], inScope: string[][]): SqlError {
  const wanted = name[name.length - 1]!.toLowerCase();
  const ranked = inScope
    .filter((c) => c.length > 0 && !c[c.length - 1]!.startsWith('__'))
    .map((c, i) => ({ c, i, d: levenshtein(c[c.length - 1]!.toLowerCase(), wanted) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, 5)
    .map((x) => quoteParts(x.c));
  const objectName = quoteParts(name);
  const head = `A column, variable, or function parameter with name ${objectName} cannot be resolved.`;
  const e =
    ranked.length > 0
      ? sqlError(
          'UNRESOLVED_COLUMN.WITH_SUGGESTION',
          '42703',
          `${head} Did you mean one of the following? [${ranked.join(', ')}].`,
        )
      : sqlError('UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703', head);
  e.subject = { text: name[0]! };
  e.parameters = { objectName, ...(ranked.length > 0 ? { proposal: ranked.join(', ') } : {}) };
  return e;
}

/** DuckDB's `Candidate bindings: "a", "t.b"` -> [['a'], ['t', 'b']]. */
function candidates(msg: string): string[][] {
  const line = /Candidate bindings:[: ]*(.*)/.exec(msg)?.[1];
  if (!line) return [];
  return [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replace(/""/g, '"').split('.'));
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** Spark's CAST_INVALID_INPUT, with the value as Spark prints it (a string quoted) and both types. */
export function castInvalidInput(value: string, from: string, to: string): SqlError {
  const shown = from === 'STRING' ? `'${value.replace(/'/g, "\\'")}'` : value;
  const e = sqlError(
    'CAST_INVALID_INPUT',
    '22018',
    `The value ${shown} of the type "${from}" cannot be cast to "${to}" because it is malformed. Correct the value as per the syntax, or change its target type. Use \`try_cast\` to tolerate malformed input and return NULL instead.`,
  );
  e.subject = { text: value };
  e.parameters = { expression: shown, sourceType: `"${from}"`, targetType: `"${to}"` };
  return e;
}

/** DuckDB's type names in conversion errors -> Databricks' (INT32 -> INT). */
export function sparkTypeOf(duck: string): string {
  const t = duck.trim().toUpperCase();
  const names: Record<string, string> = {
    INT8: 'TINYINT',
    TINYINT: 'TINYINT',
    INT16: 'SMALLINT',
    SMALLINT: 'SMALLINT',
    INT32: 'INT',
    INTEGER: 'INT',
    INT64: 'BIGINT',
    BIGINT: 'BIGINT',
    HUGEINT: 'DECIMAL(38,0)',
    FLOAT: 'FLOAT',
    DOUBLE: 'DOUBLE',
    BOOL: 'BOOLEAN',
    BOOLEAN: 'BOOLEAN',
    DATE: 'DATE',
    TIMESTAMP: 'TIMESTAMP_NTZ',
    'TIMESTAMP WITH TIME ZONE': 'TIMESTAMP',
    VARCHAR: 'STRING',
    BLOB: 'BINARY',
  };
  return names[t] ?? t.replace(/\s+/g, '');
}

const OPERATORS = new Set([
  '+',
  '-',
  '*',
  '/',
  '%',
  '//',
  '=',
  '<>',
  '!=',
  '<',
  '>',
  '<=',
  '>=',
  '||',
  '&',
  '|',
  '^',
]);

/** DuckDB found no function for the argument types -> Spark's DATATYPE_MISMATCH, naming the types. */
function typeMismatch(fn: string, args: string): SqlError {
  const types = args
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
    .map((a) => `"${sparkTypeOf(a.replace(/_LITERAL$/, '').replace(/^STRING$/, 'VARCHAR'))}"`);
  if (OPERATORS.has(fn) && types.length === 2) {
    const e = sqlError(
      'DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES',
      '42K09',
      `Cannot resolve the operator \`${fn}\` due to data type mismatch: the left and right operands of the binary operator have incompatible types (${types[0]} and ${types[1]}).`,
    );
    e.subject = { text: fn };
    return e;
  }
  const e = sqlError(
    'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE',
    '42K09',
    `Cannot resolve \`${fn}\` due to data type mismatch: it does not take arguments of the types (${types.join(', ')}).`,
  );
  e.subject = { text: fn };
  return e;
}
