/**
 * Delta tables' history and time travel, as Databricks SQL runs them (DESCRIBE HISTORY, VERSION/TIMESTAMP AS
 * OF), for EXTERNAL Delta tables. Names and values reach the statement text quoted, never as written.
 */
import * as z from 'zod';
import { RestError } from '../rest.js';
import { READ, tool } from './define.js';
import { quoteName, splitFullName } from './composites.js';
import { runStatement, statementOutput } from './sql.js';

const tableName = (full: string) => splitFullName(full).map(quoteName).join('.');

/** An ISO date or timestamp, as TIMESTAMP AS OF accepts; anything else is refused before it reaches SQL. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export const deltaTools = [
  tool({
    name: 'table_history',
    title: 'Delta table history',
    description:
      'The commits of an EXTERNAL Delta table, newest first (DESCRIBE HISTORY): version, timestamp, operation (WRITE, UPDATE, DELETE, MERGE, ...), its parameters and metrics. Use a version with read_table_as_of.',
    needs: ['sql', 'unity-catalog'],
    input: {
      full_name: z.string().describe('catalog.schema.table of a Delta table'),
      limit: z.number().int().min(1).max(10000).optional().describe('newest commits to return (default all)'),
    },
    output: statementOutput,
    hints: READ,
    run: ({ full_name, limit }, env) =>
      runStatement(env, {
        statement: `DESCRIBE HISTORY ${tableName(full_name)}${limit ? ` LIMIT ${limit}` : ''}`,
        max_rows: 10000,
      }),
  }),
  tool({
    name: 'read_table_as_of',
    title: 'Read a Delta table as of a version',
    description:
      'Rows of an EXTERNAL Delta table as they were at a version or a time (SELECT * ... VERSION AS OF / TIMESTAMP AS OF). Give exactly one of version and timestamp.',
    needs: ['sql', 'unity-catalog'],
    input: {
      full_name: z.string().describe('catalog.schema.table of a Delta table'),
      version: z.number().int().min(0).optional().describe('table version (see table_history)'),
      timestamp: z
        .string()
        .optional()
        .describe("a time such as '2026-01-31' or '2026-01-31T12:00:00Z'; the version current then is read"),
      max_rows: z.number().int().min(1).max(100000).optional().describe('row limit (default 1000)'),
    },
    output: statementOutput,
    hints: READ,
    run({ full_name, version, timestamp, max_rows }, env) {
      if ((version === undefined) === (timestamp === undefined))
        throw new RestError(400, 'INVALID_PARAMETER_VALUE', 'Give exactly one of version and timestamp.');
      if (timestamp !== undefined && !TIMESTAMP.test(timestamp))
        throw new RestError(
          400,
          'INVALID_PARAMETER_VALUE',
          `'${timestamp}' is not a date or timestamp such as 2026-01-31 or 2026-01-31T12:00:00Z.`,
        );
      const asOf = version !== undefined ? `VERSION AS OF ${version}` : `TIMESTAMP AS OF '${timestamp}'`;
      return runStatement(env, { statement: `SELECT * FROM ${tableName(full_name)} ${asOf}`, max_rows });
    },
  }),
];
