/**
 * The per-connection prepared-statement cache (src/dialect/prepared-cache.ts): a repeated query reuses its
 * plan, yet every run sees what a fresh statement would (tables created, dropped, altered since, a changed
 * namespace or time zone, replaced temporary views, other parameter values and types), and its rows always
 * come from running it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedCount } from '../src/dialect/prepared-cache.js';
import { openDuck, runSql } from './dialect-helpers.js';

let duck: Awaited<ReturnType<typeof openDuck>>;
type Conn = typeof duck.conn;
let conn: Conn;

beforeAll(async () => {
  duck = await openDuck();
  conn = duck.conn;
});
afterAll(async () => {
  await duck.close();
});

const rows = async (input: Parameters<typeof runSql>[1]) => (await runSql(conn, input)).rows;
const fails = async (input: Parameters<typeof runSql>[1]) =>
  runSql(conn, input).then(
    () => undefined,
    (e: unknown) => (e as { errorClass?: string }).errorClass ?? String(e),
  );

describe('prepared statement cache', () => {
  it('reuses the plan of a repeated query, and runs it every time', async () => {
    await rows('CREATE TABLE pc_count (id INT)');
    const before = preparedCount(conn);
    expect(await rows('SELECT count(*) FROM pc_count')).toEqual([['0']]);
    expect(preparedCount(conn)).toBe(before + 1);
    await rows('INSERT INTO pc_count VALUES (1), (2)');
    expect(await rows('SELECT count(*) FROM pc_count')).toEqual([['2']]);
    expect(await rows('SELECT count(*) FROM pc_count')).toEqual([['2']]);
  });

  it('sees a table created, altered and dropped after the statement was cached', async () => {
    expect(await fails('SELECT * FROM pc_later')).toBe('TABLE_OR_VIEW_NOT_FOUND');
    await rows('CREATE TABLE pc_later AS SELECT 1 AS a');
    expect(await rows('SELECT * FROM pc_later')).toEqual([['1']]);
    await rows('ALTER TABLE pc_later ADD COLUMN b STRING');
    const altered = await runSql(conn, 'SELECT * FROM pc_later');
    expect(altered.columns).toEqual(['a', 'b']);
    expect(altered.rows).toEqual([['1', null]]);
    await rows('DROP TABLE pc_later');
    expect(await fails('SELECT * FROM pc_later')).toBe('TABLE_OR_VIEW_NOT_FOUND');
    await rows('CREATE TABLE pc_later AS SELECT 9 AS z');
    const recreated = await runSql(conn, 'SELECT * FROM pc_later');
    expect(recreated.columns).toEqual(['z']);
    expect(recreated.rows).toEqual([['9']]);
  });

  it('sees DDL made on another connection, without any notice to the engine', async () => {
    await rows('CREATE TABLE pc_other AS SELECT 1 AS a');
    expect(await rows('SELECT * FROM pc_other')).toEqual([['1']]);
    await duck.engine.run(
      `ALTER TABLE ${duck.engine.alias('main')}."default".pc_other ADD COLUMN c INT DEFAULT 5`,
    );
    expect(await rows('SELECT * FROM pc_other')).toEqual([['1', '5']]);
  });

  it('follows the namespace: the request catalog/schema and USE', async () => {
    await rows('CREATE SCHEMA IF NOT EXISTS pc_a');
    await rows('CREATE SCHEMA IF NOT EXISTS pc_b');
    await rows('CREATE TABLE pc_a.t AS SELECT 1 AS x');
    await rows('CREATE TABLE pc_b.t AS SELECT 2 AS x');
    expect(await rows({ statement: 'SELECT x FROM t', schema: 'pc_a' })).toEqual([['1']]);
    expect(await rows({ statement: 'SELECT x FROM t', schema: 'pc_b' })).toEqual([['2']]);
    expect(await rows({ statement: 'SELECT x FROM t', schema: 'pc_a' })).toEqual([['1']]);
    expect(await rows('USE pc_b; SELECT x FROM t')).toEqual([['2']]);
    expect(await rows('USE pc_a; SELECT x FROM t')).toEqual([['1']]);
  });

  it('follows the session time zone, given with the request or SET in the text', async () => {
    const q = "SELECT hour(TIMESTAMP'2024-06-01 12:00:00Z') AS h";
    expect(await rows(q)).toEqual([['12']]);
    expect(await rows({ statement: q, timeZone: 'Asia/Tokyo' })).toEqual([['21']]);
    expect(await rows(q)).toEqual([['12']]);
    expect(await rows({ statement: q, timeZone: 'Asia/Tokyo' })).toEqual([['21']]);
    expect(await rows(`SET TIME ZONE 'Asia/Seoul'; ${q}`)).toEqual([['21']]);
    expect(await rows(`SET TIME ZONE '+02:00'; ${q}`)).toEqual([['14']]);
    expect(await rows(q)).toEqual([['12']]);
  });

  it('binds each run its own parameter values, of any type', async () => {
    const q = 'SELECT :v AS v';
    const run = async (value: string | null, type?: string) => {
      const r = await runSql(conn, {
        statement: q,
        parameters: [{ name: 'v', value, ...(type ? { type } : {}) }],
      });
      return [r.types[0], r.rows[0]![0]];
    };
    expect(await run('1', 'INT')).toEqual(['INTEGER', '1']);
    expect(await run('42', 'INT')).toEqual(['INTEGER', '42']);
    expect(await run('abc', 'STRING')).toEqual(['VARCHAR', 'abc']);
    expect(await run('x')).toEqual(['VARCHAR', 'x']);
    expect(await run('2.5', 'DOUBLE')).toEqual(['DOUBLE', '2.5']);
    expect(await run(null, 'INT')).toEqual(['INTEGER', null]);
    expect(await run('7', 'INT')).toEqual(['INTEGER', '7']);
  });

  it('sees a temporary view replaced after the statement was cached', async () => {
    await rows('CREATE OR REPLACE TEMPORARY VIEW pc_tv AS SELECT 1 AS a');
    expect(await rows('SELECT * FROM pc_tv')).toEqual([['1']]);
    expect(await rows('SELECT * FROM pc_tv')).toEqual([['1']]);
    await rows('CREATE OR REPLACE TEMPORARY VIEW pc_tv AS SELECT 2 AS a, 3 AS b');
    expect(await rows('SELECT * FROM pc_tv')).toEqual([['2', '3']]);
  });

  it('keeps a bounded number of statements per connection', async () => {
    for (let i = 0; i < 100; i++) await rows(`SELECT ${i} AS n`);
    expect(preparedCount(conn)).toBeLessThanOrEqual(64);
    expect(await rows('SELECT 99 AS n')).toEqual([['99']]);
  });
});
