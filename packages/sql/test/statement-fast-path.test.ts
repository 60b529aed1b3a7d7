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

  it('keep their columns per text, and type bound values afresh', async () => {
    // The columns of a statement that reads no table are converted once per cached plan (statements.ts
    // `shapeOf`): another text, or the same text with values of another type, has its own.
    for (let i = 0; i < 2; i++) {
      const a = await run("SELECT 1 AS a, 'x' AS b, 2.5 AS c");
      expect(a.manifest!.schema).toEqual({
        column_count: 3,
        columns: [
          { name: 'a', position: 0, type_name: 'INT', type_text: 'INT' },
          { name: 'b', position: 1, type_name: 'STRING', type_text: 'STRING' },
          {
            name: 'c',
            position: 2,
            type_name: 'DECIMAL',
            type_text: 'DECIMAL(2,1)',
            type_precision: 2,
            type_scale: 1,
          },
        ],
      });
      expect(a.result!.data_array).toEqual([['1', 'x', '2.5']]);
    }
    const n = await run('SELECT :x AS x', { parameters: [{ name: 'x', value: '7', type: 'INT' }] });
    const t = await run('SELECT :x AS x', { parameters: [{ name: 'x', value: 'seven', type: 'STRING' }] });
    expect(n.manifest!.schema.columns[0]).toMatchObject({ type_name: 'INT' });
    expect(t.manifest!.schema.columns[0]).toMatchObject({ type_name: 'STRING' });
    expect(t.result!.data_array).toEqual([['seven']]);
  });

  it('answer the same request body the same way, and still refuse a bad one', async () => {
    const body = { statement: 'SELECT 2 AS two', query_tags: [{ key: 'k', value: 'v' }] };
    const a = await run(body.statement, { query_tags: body.query_tags });
    const b = await run(body.statement, { query_tags: body.query_tags });
    expect(b.statement_id).not.toBe(a.statement_id);
    expect([a.manifest, b.manifest]).toEqual([a.manifest, a.manifest]);
    expect(b.result).toEqual({ chunk_index: 0, row_offset: 0, row_count: 1, data_array: [['2']] });
    for (let i = 0; i < 2; i++) {
      const bad = await sql.post('SELECT 1', { wait_timeout: '3s' });
      expect(bad.status).toBe(400);
    }
  });

  it('answer VALUES lists', async () => {
    const r = await run("VALUES (1, 'a'), (2, 'b')");
    expect(r.result!.data_array).toEqual([
      ['1', 'a'],
      ['2', 'b'],
    ]);
  });
});
