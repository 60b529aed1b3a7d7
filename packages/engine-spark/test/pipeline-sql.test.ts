/**
 * The pipeline runner's SQL head parser (runtime/minilake_runtime/pipeline_sql.py) with the system Python, no
 * Spark: Databricks' pipeline statements become the definitions the runner registers.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const runtimeDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'runtime');
const py = (code: string) =>
  JSON.parse(execFileSync('python3', ['-c', code], { cwd: runtimeDir, encoding: 'utf8' })) as unknown;
const parse = (sql: string, conf: Record<string, string> = {}) =>
  py(
    `import json; from minilake_runtime.pipeline_sql import parse; print(json.dumps([{k: v for k, v in i.items() if k != "text"} for i in parse(${JSON.stringify(sql)}, ${JSON.stringify(conf)})]))`,
  ) as Record<string, unknown>[];

describe('pipeline SQL', () => {
  it('reads datasets, constraints, clauses and lines, without LIVE.', () => {
    const out = parse(
      [
        '-- comment',
        'CREATE OR REFRESH MATERIALIZED VIEW doubled (',
        '  CONSTRAINT pos EXPECT (x > 0) ON VIOLATION DROP ROW,',
        '  CONSTRAINT small EXPECT (x < ${limit})',
        ") COMMENT 'twice' TBLPROPERTIES ('a'='b') AS SELECT n * 2 AS x FROM LIVE.numbers;",
        'CREATE OR REFRESH STREAMING TABLE tgt;',
        'CREATE TEMPORARY LIVE VIEW v AS SELECT 1;',
        'SET x.y = 3;',
      ].join('\n'),
      { limit: '100' },
    );
    expect(out[0]).toMatchObject({
      kind: 'dataset',
      dataset_kind: 'MATERIALIZED_VIEW',
      name: 'doubled',
      line: 2,
      comment: 'twice',
      properties: { a: 'b' },
      query: 'SELECT n * 2 AS x FROM numbers',
      expectations: [
        { name: 'pos', condition: 'x > 0', action: 'drop' },
        { name: 'small', condition: 'x < 100', action: 'warn' },
      ],
    });
    expect(out[1]).toMatchObject({
      kind: 'dataset',
      dataset_kind: 'STREAMING_TABLE',
      name: 'tgt',
      query: null,
      line: 6,
    });
    expect(out[2]).toMatchObject({ dataset_kind: 'TEMPORARY_VIEW', name: 'v' });
    expect(out[3]).toMatchObject({ kind: 'set', key: 'x.y', value: '3' });
  });

  it('reads APPLY CHANGES / AUTO CDC with every clause', () => {
    const [cdc] = parse(
      "APPLY CHANGES INTO LIVE.t FROM STREAM(LIVE.src) KEYS (id, k2) IGNORE NULL UPDATES APPLY AS DELETE WHEN op = 'D' " +
        'SEQUENCE BY ts COLUMNS * EXCEPT (op, ts) STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (name)',
    );
    expect(cdc).toMatchObject({
      kind: 'cdc',
      target: 't',
      source: 'src',
      keys: ['id', 'k2'],
      ignore_null_updates: true,
      apply_as_deletes: "op = 'D'",
      sequence_by: 'ts',
      except_column_list: ['op', 'ts'],
      stored_as_scd_type: 2,
      track_history_except_column_list: ['name'],
    });
    const [flow] = parse('CREATE FLOW f AS AUTO CDC INTO t FROM src KEYS (id) SEQUENCE BY ts');
    expect(flow).toMatchObject({ kind: 'cdc', flow: 'f', target: 't', stored_as_scd_type: 1 });
  });

  it('turns read_files and cloud_files into views over Spark file sources', () => {
    const out = py(
      `import json; from minilake_runtime.pipeline_sql import extract_file_reads as x
n = [0]
def mk():
    n[0] += 1
    return "v%d" % n[0]
print(json.dumps([x("SELECT * FROM STREAM read_files('/Volumes/a/b/c', format => 'csv', header => true) WHERE 1=1", mk),
                  x("SELECT * FROM STREAM(cloud_files('/x', 'json', map('a', 'b')))", mk),
                  x("SELECT * FROM read_files('/y/z.parquet') t", mk)]))`,
    );
    expect(out).toEqual([
      [
        'SELECT * FROM STREAM(v1) WHERE 1=1',
        [{ name: 'v1', path: '/Volumes/a/b/c', format: 'csv', options: { header: 'true' }, streaming: true }],
      ],
      [
        'SELECT * FROM STREAM(v2)',
        [{ name: 'v2', path: '/x', format: 'json', options: { a: 'b' }, streaming: true }],
      ],
      [
        'SELECT * FROM v3 t',
        [{ name: 'v3', path: '/y/z.parquet', format: null, options: {}, streaming: false }],
      ],
    ]);
  });

  it('refuses what is not a pipeline statement, with its line', () => {
    expect(() => parse('SELECT 1;\n\nDELETE FROM x')).toThrow(/Not a pipeline statement/);
  });
});
