/**
 * Errors that say where and what: Databricks' error classes, the position of the fragment in the user's text
 * (in Spark's three forms), the closest names for an unresolved column, a cast's real types.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolyglot, SqlError } from '../src/dialect/index.js';
import { engineToken, duckCaret } from '../src/dialect/positions.js';
import { openDuck, runSql } from './dialect-helpers.js';

let duck: Awaited<ReturnType<typeof openDuck>>;
beforeAll(async () => {
  await loadPolyglot();
  duck = await openDuck();
  await runSql(
    duck.conn,
    'CREATE TABLE trips AS SELECT 1 AS tpep_pickup_datetime, 2 AS tpep_dropoff_datetime, 3.5 AS fare_amount, 10001 AS pickup_zip',
  );
});
afterAll(async () => {
  await duck.close();
});

async function failure(sql: string): Promise<SqlError> {
  try {
    await runSql(duck.conn, sql);
  } catch (e) {
    expect(e).toBeInstanceOf(SqlError);
    return e as SqlError;
  }
  throw new Error(`${sql} did not fail`);
}

describe('error positions and messages', () => {
  it('an unresolved column: the closest names, nearest first, and `; line L pos P`', async () => {
    const e = await failure('SELECT tpep_pickup_datetme FROM trips');
    expect(e.errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
    expect(e.sqlState).toBe('42703');
    expect(e.message).toMatch(
      /^\[UNRESOLVED_COLUMN\.WITH_SUGGESTION\] A column, variable, or function parameter with name `tpep_pickup_datetme` cannot be resolved\. Did you mean one of the following\? \[`tpep_pickup_datetime`, `tpep_dropoff_datetime`/,
    );
    expect(e.message).toMatch(/SQLSTATE: 42703; line 1 pos 7$/);
    expect(e.position).toMatchObject({ line: 1, pos: 7, start: 7, fragment: 'tpep_pickup_datetme' });
  });

  it('counts lines and positions over the whole text, after earlier statements and newlines', async () => {
    const e = await failure('SELECT 1;\nSELECT *\nFROM trips\nWHERE  fare_amont > 1');
    expect(e.message).toMatch(/line 4 pos 7$/);
    expect(e.message).toContain('[`fare_amount`');
  });

  it('the occurrence the engine pointed at, not the first one with that name', async () => {
    const e = await failure("SELECT 'fare_amont' AS s, fare_amont FROM trips");
    expect(e.position?.pos).toBe(26);
  });

  it('a qualified column: the whole name is the fragment', async () => {
    const e = await failure('SELECT t.zip FROM trips t');
    expect(e.message).toContain('`t`.`zip`');
    expect(e.position).toMatchObject({ pos: 7, fragment: 't.zip' });
  });

  it('a parse error: `(line L, pos P)` and the line with carets under it', async () => {
    const e = await failure('SELEC 1');
    expect(e.errorClass).toBe('PARSE_SYNTAX_ERROR');
    expect(e.message).toBe(
      "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. SQLSTATE: 42601 (line 1, pos 0)\n\n== SQL ==\nSELEC 1\n^^^\n",
    );
    const e2 = await failure('SELECT *\n  FROM trips WHERE fare_amount = = 1');
    expect(e2.message).toMatch(/Syntax error at or near '='\. SQLSTATE: 42601 \(line 2, pos 33\)/);
  });

  it('a table that does not exist: TABLE_OR_VIEW_NOT_FOUND at the name', async () => {
    const e = await failure('SELECT * FROM nosuch_table');
    expect(e.errorClass).toBe('TABLE_OR_VIEW_NOT_FOUND');
    expect(e.message).toMatch(
      /^\[TABLE_OR_VIEW_NOT_FOUND\] The table or view `nosuch_table` cannot be found\./,
    );
    expect(e.message).toMatch(/SQLSTATE: 42P01; line 1 pos 14$/);
  });

  it("a failed cast names both types (CAST('x' AS INT) is no DECIMAL) and marks the cast", async () => {
    const e = await failure("SELECT CAST('x' AS INT)");
    expect(e.errorClass).toBe('CAST_INVALID_INPUT');
    expect(e.message).toContain(
      `The value 'x' of the type "STRING" cannot be cast to "INT" because it is malformed.`,
    );
    expect(e.message).not.toContain('DECIMAL');
    expect(e.message).toContain(
      "SQLSTATE: 22018\n== SQL (line 1, position 8) ==\nSELECT CAST('x' AS INT)\n       ^^^^^^^^^^^^^^^^\n",
    );
    const big = await failure("SELECT CAST('12a' AS BIGINT)");
    expect(big.message).toContain('cannot be cast to "BIGINT"');
    const date = await failure("SELECT CAST('nope' AS DATE)");
    expect(date.message).toContain(`The value 'nope' of the type "STRING" cannot be cast to "DATE"`);
    // Valid strings still cast as Spark casts them (truncating a decimal part).
    expect((await runSql(duck.conn, "SELECT CAST(' 12 ' AS INT), CAST('1.7' AS BIGINT)")).rows).toEqual([
      ['12', '1'],
    ]);
  });

  it('wrong argument types: DATATYPE_MISMATCH naming the types', async () => {
    const e = await failure("SELECT 1 + 'a'");
    expect(e.errorClass).toBe('DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES');
    expect(e.message).toContain('("INT" and "STRING")');
    expect(e.message).toMatch(/line 1 pos \d+$/);
  });
});

describe('GROUP BY ALL ORDER BY ALL', () => {
  it('orders by every projection, NULLs first as Spark sorts ascending', async () => {
    const r = await runSql(
      duck.conn,
      'SELECT a, count(*) AS n FROM VALUES (2), (1), (1), (NULL) t(a) GROUP BY ALL ORDER BY ALL',
    );
    expect(r.rows).toEqual([
      [null, '1'],
      ['1', '2'],
      ['2', '1'],
    ]);
    const d = await runSql(duck.conn, 'SELECT a FROM VALUES (2), (1), (3) t(a) ORDER BY ALL DESC');
    expect(d.rows).toEqual([['3'], ['2'], ['1']]);
  });
});

describe('position helpers', () => {
  it('reads DuckDB carets, cut lines included', () => {
    const sql = 'SELECT x FROM t';
    expect(duckCaret('Binder Error: no\n\nLINE 1: SELECT x FROM t\n               ^', sql)).toBe(7);
    const long = `SELECT ${'a, '.repeat(60)}zz FROM t`;
    const at = long.indexOf('zz');
    const shown = long.slice(at - 20, at + 10);
    expect(duckCaret(`Binder Error: no\n\nLINE 1: ...${shown}...\n${' '.repeat(8 + 3 + 20)}^`, long)).toBe(
      at,
    );
  });
  it('finds the word at an offset and its occurrence', () => {
    expect(engineToken('SELECT "a", a FROM t', 12)).toEqual({ word: 'a', occurrence: 1 });
    expect(engineToken("SELECT 'it''s' -- a\n, a", 21)).toEqual({ word: 'a', occurrence: 0 });
  });
});
