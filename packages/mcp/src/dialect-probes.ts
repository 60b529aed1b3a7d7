/**
 * The generated part of minilake://sql-dialect: a list of Databricks constructs, each run on this server
 * through the Statement API, with what came back (the value, or the refusal's error code and message). It
 * is the dialect layer's own answer, so the resource stays true when the dialect changes. Probes change
 * nothing (they read the read-only samples catalog); the outcome is computed once per process.
 */
import { RestError } from './rest.js';
import type { ToolEnv } from './tools/define.js';
import { runStatement } from './tools/sql.js';

const PROBES: [construct: string, statement: string][] = [
  ['NULL in concat (Spark: NULL)', "SELECT concat('a', NULL) AS v"],
  ['0-based array subscript', 'SELECT array(10, 20, 30)[1] AS v'],
  ['integral cast truncates', 'SELECT CAST(3.7 AS INT) AS v'],
  ['date_add returns DATE', "SELECT date_add(DATE'2024-01-31', 1) AS v"],
  ['Java date_format pattern', "SELECT date_format(DATE'2024-01-04', 'EEEE, MMM d') AS v"],
  ['named_struct field', "SELECT named_struct('a', 1, 'b', 'x').b AS v"],
  ['lambda: transform', 'SELECT transform(array(1, 2), x -> x * 10) AS v'],
  ['range(n) column id', 'SELECT sum(id) AS v FROM range(5)'],
  [
    'LATERAL VIEW explode',
    'SELECT count(*) AS v FROM (SELECT 1 AS k) LATERAL VIEW explode(array(1, 2, 3)) t AS x',
  ],
  ['decimal avg type', 'SELECT avg(x) AS v FROM VALUES (CAST(1.5 AS DECIMAL(10,2))), (2.25) AS t(x)'],
  ['regexp_replace with $1', "SELECT regexp_replace('2024-01', '(\\\\d+)-(\\\\d+)', '$2/$1') AS v"],
  ['try_divide by zero', 'SELECT try_divide(1, 0) AS v'],
  ['division by zero (ANSI)', 'SELECT 1 / 0 AS v'],
  ['invalid cast (ANSI)', "SELECT CAST('x' AS INT) AS v"],
  ['current_catalog()', 'SELECT current_catalog() AS v'],
  ['Delta time travel', 'SELECT count(*) AS v FROM samples.tpch.region VERSION AS OF 1'],
  ['Delta time travel (@v)', 'SELECT count(*) AS v FROM samples.tpch.region@v0'],
  [': JSON path operator', 'SELECT \'{"a": 1}\':a AS v'],
  ['typeof()', 'SELECT typeof(1) AS v'],
  ['format_number()', 'SELECT format_number(1234.5, 2) AS v'],
  ['hash() (murmur3)', 'SELECT hash(1) AS v'],
  ['sample data', 'SELECT count(*) AS v FROM samples.nyctaxi.trips'],
  ['COPY INTO', "COPY INTO main.default.any_table FROM '/tmp/x' FILEFORMAT = CSV"],
  ['CREATE VOLUME in SQL', 'CREATE VOLUME main.default.any_volume'],
  ['SHOW CREATE TABLE', 'SHOW CREATE TABLE samples.tpch.region'],
  ['DESCRIBE HISTORY', 'SELECT count(*) AS v FROM (DESCRIBE HISTORY samples.tpch.region)'],
];

interface Outcome {
  construct: string;
  statement: string;
  result: string;
}

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

async function probe(env: ToolEnv): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const [construct, statement] of PROBES) {
    try {
      const r = await runStatement(env, { statement, max_rows: 3, timeout_seconds: 30 });
      const rows = (r.rows as unknown[][]) ?? [];
      out.push({ construct, statement, result: `runs: ${JSON.stringify(rows[0]?.[0] ?? null)}` });
    } catch (e) {
      if (!(e instanceof RestError)) throw e;
      out.push({ construct, statement, result: `error: ${e.errorCode}: ${e.message.slice(0, 160)}` });
    }
  }
  return out;
}

/** The probe table as markdown; empty when SQL is not enabled. */
export async function probedDialect(env: ToolEnv): Promise<string> {
  if (!env.services.has('sql')) return '';
  const rows = await env.fixtures.once('dialect-probes', () => probe(env));
  return (
    '## Checked on this server\n\n' +
    'Each statement was run through the Statement API of this MiniLake (its first value, or the error a client gets).\n\n' +
    '| Construct | Statement | Outcome |\n|---|---|---|\n' +
    rows.map((r) => `| ${cell(r.construct)} | \`${cell(r.statement)}\` | ${cell(r.result)} |`).join('\n') +
    '\n'
  );
}
