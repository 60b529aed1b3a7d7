/**
 * The Databricks SQL corpus (corpus/statements.jsonl): real-world statements with the results Databricks
 * returns (ANSI mode, as SQL warehouses run), executed in order on a real DuckDB through the dialect layer.
 * An entry passes when it returns exactly the expected rows (or fails with the expected error class).
 *
 * The corpus is a regression baseline: corpus/baseline.txt lists every entry that is right today. The test
 * fails, naming them, when a listed entry stops passing, when an entry passes that the baseline does not list
 * yet (add it, so it is protected from then on), on any WRONG answer (rows that differ from Databricks), and
 * when the figure published in DIALECT.md differs from the run's. Entries marked known_unsupported may fail
 * with an error, never answer wrongly. `MINILAKE_CORPUS_UPDATE=1` rewrites the baseline from the run (only
 * ever to add entries: a regression still fails).
 */
import { readFile, writeFile } from 'node:fs/promises';
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
  /** Where the expected answer comes from (see corpus/README.md). */
  source: Source;
}

const SOURCES = ['databricks-docs', 'spark-semantics', 'minilake'] as const;
type Source = (typeof SOURCES)[number];

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

/** `Latest run ... **N/M correct` in DIALECT.md: the one published figure, checked against the run. */
const PUBLISHED = /Latest run[^*\n]*\*\*(\d+)\/(\d+) correct/;

async function readBaseline(): Promise<Set<string>> {
  const text = await readFile(new URL('baseline.txt', corpusDir), 'utf8').catch(() => '');
  return new Set(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#')),
  );
}

function baselineText(ids: string[], total: number): string {
  return [
    '# Corpus entries (corpus/statements.jsonl ids) that MiniLake answers correctly: the regression baseline.',
    '# test/dialect-corpus.test.ts fails when one of them stops passing, and when a passing entry is missing here.',
    `# ${ids.length}/${total} correct. Regenerate (additions only): MINILAKE_CORPUS_UPDATE=1 pnpm vitest run --project unit packages/sql/test/dialect-corpus.test.ts`,
    ...ids,
    '',
  ].join('\n');
}

// Its own timeout: the statements run in order on one engine, about 15 s alone and more beside the whole
// unit tier on the shared 2 cores.
it('runs the Databricks SQL corpus: no regression from the baseline, no wrong answers', async () => {
  const text = await readFile(new URL('statements.jsonl', corpusDir), 'utf8');
  const entries = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Entry);
  expect(entries.length).toBeGreaterThanOrEqual(150);
  expect(new Set(entries.map((e) => e.id)).size, 'corpus ids are unique').toBe(entries.length);
  expect(
    entries.filter((e) => !SOURCES.includes(e.source)).map((e) => e.id),
    'every entry names the source of its expected answer',
  ).toEqual([]);
  const baseline = await readBaseline();
  const known = new Set(entries.map((e) => e.id));
  expect(
    [...baseline].filter((id) => !known.has(id)),
    'baseline ids that are not in the corpus',
  ).toEqual([]);
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
  const figure = `${pass}/${results.length} correct (${(ratio * 100).toFixed(1)}%)`;
  const lines = [
    `Databricks SQL corpus: ${figure}, ` +
      `${count('unsupported')} known-unsupported (clear error), ${count('fail')} failing with an error, ${count('wrong')} WRONG`,
    ...results
      .filter((r) => r.verdict !== 'pass')
      .map((r) => `  ${r.verdict.padEnd(11)} ${r.id}: ${r.detail.slice(0, 300)}`),
  ];
  console.log(lines.join('\n'));
  const passing = results.filter((r) => r.verdict === 'pass').map((r) => r.id);
  const regressed = results
    .filter((r) => r.verdict !== 'pass' && baseline.has(r.id))
    .map((r) => `${r.id} (${r.verdict}): ${r.detail.slice(0, 300)}`);
  expect(regressed, 'entries right in the baseline that are no longer right').toEqual([]);
  if (process.env.MINILAKE_CORPUS_UPDATE === '1')
    await writeFile(new URL('baseline.txt', corpusDir), baselineText(passing, results.length));
  else
    expect(
      passing.filter((id) => !baseline.has(id)),
      'entries now right but missing from corpus/baseline.txt (add them: MINILAKE_CORPUS_UPDATE=1)',
    ).toEqual([]);
  expect(results.filter((r) => r.verdict === 'wrong')).toEqual([]);
  const published = PUBLISHED.exec(await readFile(new URL('../DIALECT.md', import.meta.url), 'utf8'));
  expect(
    published ? `${published[1]}/${published[2]}` : 'no figure in DIALECT.md',
    `DIALECT.md's "Latest run" figure must be the run's: ${figure}`,
  ).toBe(`${pass}/${results.length}`);
}, 180_000);
