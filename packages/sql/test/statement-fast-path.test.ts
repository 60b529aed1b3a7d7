/**
 * Statements that read no table (`SELECT 1`, VALUES, expressions) run through the cached prepared statement to
 * a materialized result (src/dialect/execute.ts `readsNoTable`): what a client receives is the same as on the
 * streaming path, every run computes its own rows, and limits still apply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementApp, type StatementApp, type StatementBody } from './statement-app.js';

let sql: StatementApp;

async function run(statement: string, extra: Record<string, unknown> = {}): Promise<StatementBody> {
  const { status, body } = await sql.post(statement, extra);
  expect(status).toBe(200);
  expect(body.status.state, JSON.stringify(body.status)).toBe('SUCCEEDED');
  return body;
}

beforeAll(async () => {
  sql = await statementApp('fast');
});
afterAll(() => sql.close());

describe('statements that read no table', () => {
  it('answer SELECT 1 the same way every time', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await run('SELECT 1');
      expect(r.manifest!.schema.columns).toMatchObject([{ name: '1', type_name: 'INT' }]);
      expect(r.manifest!.total_row_count).toBe(1);
      expect(r.result!.data_array).toEqual([['1']]);
    }
  });

  it('compute their rows on every run (no result cache)', async () => {
    const a = (await run('SELECT uuid() AS u')).result!.data_array![0]![0];
    const b = (await run('SELECT uuid() AS u')).result!.data_array![0]![0];
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).not.toBe(a);
    const x = await run('SELECT :x AS x', { parameters: [{ name: 'x', value: '7', type: 'INT' }] });
    const y = await run('SELECT :x AS x', { parameters: [{ name: 'x', value: '8', type: 'INT' }] });
    expect([x.result!.data_array, y.result!.data_array]).toEqual([[['7']], [['8']]]);
  });

  it('return every row of a result of several engine chunks, and respect row_limit', async () => {
    const all = await run('SELECT explode(sequence(1, 5000)) AS n');
    expect(all.manifest!.total_row_count).toBe(5000);
    const rows = all.result!.data_array!;
    expect(rows.length).toBe(5000);
    expect([rows[0], rows[2048], rows[4999]]).toEqual([['1'], ['2049'], ['5000']]);
    const limited = await run('SELECT explode(sequence(1, 5000)) AS n', { row_limit: 3 });
    expect(limited.manifest!.truncated).toBe(true);
    expect(limited.result!.data_array).toEqual([['1'], ['2'], ['3']]);
  });

  it('answer VALUES lists', async () => {
    const r = await run("VALUES (1, 'a'), (2, 'b')");
    expect(r.result!.data_array).toEqual([
      ['1', 'a'],
      ['2', 'b'],
    ]);
  });
});
