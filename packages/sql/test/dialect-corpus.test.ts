/**
 * The Databricks SQL corpus (corpus/statements.jsonl): real-world statements with the results Databricks
 * returns (ANSI mode, as SQL warehouses run), executed in order on a real DuckDB through the dialect layer.
 * An entry passes when it returns exactly the expected rows (or fails with the expected error class). The test
 * fails on any WRONG answer (rows that differ from Databricks), and when the pass ratio drops below 90%.
 * Entries marked known_unsupported may fail with an error, never answer wrongly.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqlError } from '../src/dialect/index.js';
import { openDuck, runSql, type Rendered } from './dialect-helpers.js';

interface Entry {
  id: string;
  sql: string;
  setup?: string[];
  params?: { name: string; value: string | null; type?: string }[];
  /** The caller's user name (the Statement API passes the request identity). */
  user?: string;
  rows?: (string | null)[][];
  columns?: string[];
  types?: string[];
  error?: string;
  unordered?: boolean;
  known_unsupported?: boolean;
  note?: string;
}

type Verdict = 'pass' | 'fail' | 'wrong' | 'unsupported';

const corpusDir = new URL('../corpus/', import.meta.url);
let duck: Awaited<ReturnType<typeof openDuck>>;

beforeAll(async () => {
  duck = await openDuck();
  await runSql(duck.conn, await readFile(new URL('setup.sql', corpusDir), 'utf8'));
});
afterAll(async () => {
  await duck.close();
});

function sameRows(a: (string | null)[][], b: (string | null)[][], unordered: boolean): boolean {
  const key = (r: (string | null)[]): string => JSON.stringify(r);
  const x = a.map(key);
  const y = b.map(key);
  if (unordered) {
    x.sort();
    y.sort();
  }
  return JSON.stringify(x) === JSON.stringify(y);
}

function judge(e: Entry, got: Rendered | undefined, err: unknown): { verdict: Verdict; detail: string } {
  if (err !== undefined) {
    const cls = err instanceof SqlError ? err.errorClass : 'NOT_A_SQL_ERROR';
    const msg = err instanceof Error ? err.message : String(err);
    if (!(err instanceof SqlError)) return { verdict: 'wrong', detail: `non-SqlError thrown: ${msg}` };
    if (e.error)
      return cls === e.error
        ? { verdict: 'pass', detail: '' }
        : { verdict: 'fail', detail: `${cls}: ${msg}` };
    return { verdict: e.known_unsupported ? 'unsupported' : 'fail', detail: msg };
  }
  if (e.error)
    return { verdict: 'wrong', detail: `expected ${e.error}, got rows ${JSON.stringify(got!.rows)}` };
  const g = got!;
  if (e.columns && JSON.stringify(e.columns) !== JSON.stringify(g.columns))
    return { verdict: 'wrong', detail: `columns ${JSON.stringify(g.columns)}` };
  if (e.types && JSON.stringify(e.types) !== JSON.stringify(g.types))
    return { verdict: 'wrong', detail: `types ${JSON.stringify(g.types)}` };
  if (e.rows && !sameRows(e.rows, g.rows, !!e.unordered))
    return { verdict: 'wrong', detail: `rows ${JSON.stringify(g.rows)} expected ${JSON.stringify(e.rows)}` };
  return { verdict: 'pass', detail: '' };
}

it('runs the Databricks SQL corpus with no wrong answers and >= 90% passing', async () => {
  const text = await readFile(new URL('statements.jsonl', corpusDir), 'utf8');
  const entries = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Entry);
  expect(entries.length).toBeGreaterThanOrEqual(150);
  const results: { id: string; verdict: Verdict; detail: string }[] = [];
  for (const e of entries) {
    for (const s of e.setup ?? []) await runSql(duck.conn, s);
    let got: Rendered | undefined;
    let err: unknown;
    try {
      got = await runSql(duck.conn, {
        statement: e.sql,
        ...(e.params ? { parameters: e.params } : {}),
        ...(e.user ? { user: e.user } : {}),
      });
    } catch (x) {
      err = x;
    }
    results.push({ id: e.id, ...judge(e, got, err) });
  }
  const count = (v: Verdict): number => results.filter((r) => r.verdict === v).length;
  const pass = count('pass');
  const ratio = pass / results.length;
  const lines = [
    `Databricks SQL corpus: ${pass}/${results.length} correct (${(ratio * 100).toFixed(1)}%), ` +
      `${count('unsupported')} known-unsupported (clear error), ${count('fail')} failing with an error, ${count('wrong')} WRONG`,
    ...results
      .filter((r) => r.verdict !== 'pass')
      .map((r) => `  ${r.verdict.padEnd(11)} ${r.id}: ${r.detail.slice(0, 300)}`),
  ];
  console.log(lines.join('\n'));
  expect(results.filter((r) => r.verdict === 'wrong')).toEqual([]);
  expect(ratio).toBeGreaterThanOrEqual(0.9);
});
