/** Positional `?` markers: bound on the parsed statement by position (parameters named `1..n`), never spliced. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolyglot, SqlError } from '../src/dialect/index.js';
import { openDuck, runSql } from './dialect-helpers.js';

let duck: Awaited<ReturnType<typeof openDuck>>;
beforeAll(async () => {
  await loadPolyglot();
  duck = await openDuck();
});
afterAll(async () => {
  await duck.close();
});

const p = (...values: [string | null, string?][]) =>
  values.map(([value, type], i) => ({ name: String(i + 1), value, ...(type ? { type } : {}) }));

describe('positional parameters', () => {
  it('binds ? markers in text order with their types', async () => {
    const r = await runSql(duck.conn, {
      statement: 'SELECT ? + 1 AS x, ? AS s, ? AS d',
      parameters: p(['41', 'INT'], ["it's'; DROP TABLE x; --"], ['2024-02-29', 'DATE']),
    });
    expect(r.rows).toEqual([['42', "it's'; DROP TABLE x; --", '2024-02-29']]);
    expect(r.types).toEqual(['INTEGER', 'VARCHAR', 'DATE']);
  });

  it('numbers markers as written, WITH clause first', async () => {
    const r = await runSql(duck.conn, {
      statement: 'WITH t AS (SELECT ? AS a) SELECT a, ? AS b FROM t WHERE a = ? ORDER BY b LIMIT 5',
      parameters: p(['1', 'INT'], ['two'], ['1', 'INT']),
    });
    expect(r.rows).toEqual([['1', 'two']]);
  });

  it('binds in INSERT ... VALUES and UPDATE', async () => {
    await runSql(duck.conn, 'CREATE TABLE pos_t (id INT, name STRING)');
    await runSql(duck.conn, {
      statement: 'INSERT INTO pos_t VALUES (?, ?), (?, ?)',
      parameters: p(['1', 'INT'], ['a'], ['2', 'INT'], ['b']),
    });
    await runSql(duck.conn, {
      statement: 'UPDATE pos_t SET name = ? WHERE id = ?',
      parameters: p(['z'], ['2', 'INT']),
    });
    const r = await runSql(duck.conn, 'SELECT id, name FROM pos_t ORDER BY id');
    expect(r.rows).toEqual([
      ['1', 'a'],
      ['2', 'z'],
    ]);
  });

  it('a marker without a value is UNBOUND_SQL_PARAMETER; mixing ? and :name is refused', async () => {
    const e = await runSql(duck.conn, { statement: 'SELECT ?, ?', parameters: p(['1']) }).catch(
      (x: unknown) => x,
    );
    expect((e as SqlError).errorClass).toBe('UNBOUND_SQL_PARAMETER');
    const m = await runSql(duck.conn, {
      statement: 'SELECT ?, :x',
      parameters: [...p(['1']), { name: 'x', value: '2' }],
    }).catch((x: unknown) => x);
    expect(m).toBeInstanceOf(SqlError);
    expect((m as SqlError).errorClass).toBe('INVALID_QUERY_MIXED_QUERY_PARAMETERS');
  });
});
