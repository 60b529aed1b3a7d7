/**
 * Databricks type fidelity on the Statement API: ANSI interval literals, their result types (year-month vs
 * day-time, with the field range) and the string form Databricks renders them in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intervalString } from '../src/render.js';
import { parseAnsiInterval } from '../src/dialect/translate/intervals.js';
import { statementApp, type StatementApp, type StatementBody } from './statement-app.js';

let sql: StatementApp;

async function run(statement: string, extra: Record<string, unknown> = {}): Promise<StatementBody> {
  const { status, body } = await sql.post(statement, extra);
  expect(status).toBe(200);
  return body;
}

beforeAll(async () => {
  sql = await statementApp('types');
});
afterAll(() => sql.close());

describe('intervals', () => {
  it('parses ANSI literals and types the columns as Databricks does', async () => {
    const r = await run(
      "SELECT INTERVAL '1-2' YEAR TO MONTH AS ym, INTERVAL '1 02:03:04' DAY TO SECOND AS dt, " +
        "INTERVAL 3 DAYS AS d, INTERVAL '10' MINUTE AS m, INTERVAL '-0-3' YEAR TO MONTH AS neg, " +
        "INTERVAL '2:30' HOUR TO MINUTE AS hm, INTERVAL 1 YEAR 2 MONTHS AS ym2, INTERVAL '1.5' SECOND AS s",
    );
    expect(r.status.state, JSON.stringify(r.status)).toBe('SUCCEEDED');
    expect(r.manifest!.schema.columns.map((c) => c.type_text)).toEqual([
      'INTERVAL YEAR TO MONTH',
      'INTERVAL DAY TO SECOND',
      'INTERVAL DAY',
      'INTERVAL MINUTE',
      'INTERVAL YEAR TO MONTH',
      'INTERVAL HOUR TO MINUTE',
      'INTERVAL YEAR TO MONTH',
      'INTERVAL SECOND',
    ]);
    expect(new Set(r.manifest!.schema.columns.map((c) => c.type_name))).toEqual(new Set(['INTERVAL']));
    expect(r.result!.data_array).toEqual([
      [
        '1-2',
        '1 02:03:04.000000000',
        '3 00:00:00.000000000',
        '0 00:10:00.000000000',
        '-0-3',
        '0 02:30:00.000000000',
        '1-2',
        '0 00:00:01.500000000',
      ],
    ]);
  });

  it('does date and timestamp arithmetic', async () => {
    const r = await run(
      "SELECT DATE'2024-01-31' + INTERVAL 1 DAY AS d1, DATE'2024-01-31' + INTERVAL '0-1' YEAR TO MONTH AS d2, " +
        "TIMESTAMP'2024-01-02 00:00:00Z' - TIMESTAMP'2024-01-01 01:00:00.5Z' AS diff, " +
        "TIMESTAMP'2024-01-01 00:00:00Z' + INTERVAL '1 01:00:00' DAY TO SECOND AS ts",
    );
    expect(r.status.state, JSON.stringify(r.status)).toBe('SUCCEEDED');
    expect(r.manifest!.schema.columns.map((c) => c.type_text)).toEqual([
      'DATE',
      'DATE',
      'INTERVAL DAY TO SECOND',
      'TIMESTAMP',
    ]);
    expect(r.result!.data_array).toEqual([
      ['2024-02-01', '2024-02-29', '0 22:59:59.500000000', '2024-01-02T01:00:00.000Z'],
    ]);
  });

  it('refuses a literal that does not match its field range', async () => {
    const r = await run("SELECT INTERVAL '1-13' YEAR TO MONTH");
    expect(r.status.state).toBe('FAILED');
    expect(r.status.error?.message).toContain('INVALID_INTERVAL_FORMAT');
  });

  it('reads and renders the Spark forms', () => {
    const dt = { yearMonth: false, start: 'DAY', end: 'SECOND' };
    expect(parseAnsiInterval('-1 02:03:04.000005', dt)).toEqual({ micros: -93784000005n });
    expect(parseAnsiInterval('7', { yearMonth: true, start: 'MONTH', end: 'MONTH' })).toEqual({
      months: 7n,
    });
    expect(() => parseAnsiInterval('1 25:00:00', dt)).toThrow(/INVALID_INTERVAL_FORMAT|interval/);
    expect(intervalString({ months: -14, days: 0, micros: 0n }, 'INTERVAL YEAR TO MONTH')).toBe('-1-2');
    expect(intervalString({ months: 0, days: -1, micros: -1n }, 'INTERVAL DAY TO SECOND')).toBe(
      '-1 00:00:00.000001000',
    );
  });
});

describe('session time zone', () => {
  it('reads TIMESTAMP literals and shows date-time fields in the zone SET TIME ZONE names', async () => {
    const r = await run(
      "SET TIME ZONE 'Asia/Tokyo'; SELECT TIMESTAMP'2024-06-01 12:00:00' AS lit, " +
        "hour(TIMESTAMP'2024-06-01 12:00:00Z') AS h, CAST('2024-06-01 12:00:00' AS TIMESTAMP_NTZ) AS ntz, " +
        "from_utc_timestamp(TIMESTAMP'2024-06-01 12:00:00Z', 'Asia/Seoul') AS f, " +
        "to_utc_timestamp(TIMESTAMP'2024-06-01 12:00:00Z', 'Asia/Seoul') AS t",
    );
    expect(r.status.state, JSON.stringify(r.status)).toBe('SUCCEEDED');
    expect(r.result!.data_array).toEqual([
      [
        '2024-06-01T03:00:00.000Z',
        '21',
        '2024-06-01T12:00:00.000',
        '2024-06-01T21:00:00.000Z',
        '2024-06-01T03:00:00.000Z',
      ],
    ]);
    // The next statement (another request) is back in UTC.
    const u = await run(
      "SELECT TIMESTAMP'2024-06-01 12:00:00' AS lit, hour(TIMESTAMP'2024-06-01 12:00:00Z') AS h",
    );
    expect(u.result!.data_array).toEqual([['2024-06-01T12:00:00.000Z', '12']]);
  });

  it('accepts spark.sql.session.timeZone, offsets, and refuses an unknown zone', async () => {
    const r = await run(
      "SET spark.sql.session.timeZone = +08:00; SELECT TIMESTAMP'2024-06-01 12:00:00' AS lit",
    );
    expect(r.result!.data_array).toEqual([['2024-06-01T04:00:00.000Z']]);
    const bad = await run("SET TIME ZONE 'Mars/Olympus'");
    expect(bad.status.state).toBe('FAILED');
    expect(bad.status.error?.message).toContain('INVALID_CONF_VALUE.TIME_ZONE');
  });
});
