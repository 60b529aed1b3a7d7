// Delta writes without a JVM (issue 11): a one-row INSERT, a 10,000-row UPDATE and a MERGE of 10,000 rows
// into a 100,000-row EXTERNAL Delta table through the Statement API, against the same statements run as a
// generated spark-submit job each (the seeds' way: a JVM per statement, Spark 4.1.1 + delta-spark from
// `bash packages/engine-spark/install.sh`; that side is skipped with a message when it is not installed,
// or with BENCH_DELTA_SPARK=0). Then a 1M-row aggregate over an EXTERNAL Delta table through the API vs the
// same query with read_parquet over the same files in DuckDB in this process.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { jsonCaller, median, root, startServer } from '../lib.mjs';

export const targets = {
  insert_1_row_ms: '< 100',
  update_10k_rows_ms: '< 100',
  merge_10k_rows_ms: '< 100',
  spark_job_vs_api_ratio: '>= 100 (each statement)',
  select_1m_api_vs_read_parquet_ratio: '<= 1.5',
};

const ROUNDS = Number(process.env.BENCH_DELTA_ROUNDS ?? 5);
// Before each table's timed rounds, wait (up to 10 s) until the server is idle: in its first seconds it
// compiles the SQL dialect's WASM module's hot code in the background (V8 tier-up), ~3 s of CPU over both
// cores right after the first statements, which the first table's rounds would otherwise share. The wait
// and the CPU the server burned in it are reported (settle_*). BENCH_DELTA_SETTLE=0 times at once.
const SETTLE = process.env.BENCH_DELTA_SETTLE !== '0';

/** CPU time (ms) the process has used so far, from /proc (Linux, 100 clock ticks a second; undefined elsewhere). */
function cpuMs(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Waits until the server uses under 10 % of a core over 200 ms; returns the wait and the CPU it used. */
async function settle(pid) {
  const t0 = performance.now();
  const c0 = cpuMs(pid);
  if (!SETTLE || c0 === undefined) return { waited_ms: 0, server_cpu_ms: 0 };
  for (;;) {
    const a = cpuMs(pid);
    await new Promise((r) => setTimeout(r, 200));
    if (cpuMs(pid) - a < 20 || performance.now() - t0 > 10_000) break;
  }
  return { waited_ms: Math.round(performance.now() - t0), server_cpu_ms: cpuMs(pid) - c0 };
}
const STATEMENTS = {
  insert_1_row: (t) => `INSERT INTO ${t} VALUES (-1, 'one', 0)`,
  update_10k_rows: (t) => `UPDATE ${t} SET name = 'u' WHERE id < 10000`,
  merge_10k_rows: (t) =>
    `MERGE INTO ${t} AS t USING (SELECT id, 'm' AS name, 1 AS grp FROM range(95000, 105000)) AS s ON t.id = s.id ` +
    `WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT *`,
};

function sparkInstall() {
  const dir = path.join(
    process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake'),
    'spark-4.1.1-delta-4.4.0',
  );
  if (!existsSync(path.join(dir, '.complete'))) return undefined;
  const lib = path.join(dir, 'venv/lib');
  const py = readdirSync(lib).find((d) => d.startsWith('python'));
  const submit = py && path.join(lib, py, 'site-packages/pyspark/bin/spark-submit');
  if (!submit || !existsSync(submit)) return undefined;
  const jars = readdirSync(path.join(dir, 'jars')).map((j) => path.join(dir, 'jars', j));
  return { submit, python: path.join(dir, 'venv/bin/python'), jars };
}

export async function run() {
  const server = await startServer({ MINILAKE_WAREHOUSE_START_DELAY: '0' });
  const ext = mkdtempSync(path.join(os.tmpdir(), 'ml-bench-delta-'));
  const { json } = jsonCaller(server.url);
  try {
    const wh = (await json('POST', '/api/2.0/sql/warehouses', { name: 'bench', cluster_size: 'Small' })).id;
    await json('POST', '/api/2.1/unity-catalog/catalogs', { name: 'bench' });
    const sql = async (statement) => {
      const r = await json('POST', '/api/2.0/sql/statements', {
        warehouse_id: wh,
        statement,
        wait_timeout: '50s',
      });
      if (r.status.state !== 'SUCCEEDED') throw new Error(`${statement}: ${JSON.stringify(r.status)}`);
      return r;
    };
    const timed = async (statement) => {
      const t0 = performance.now();
      await sql(statement);
      return performance.now() - t0;
    };
    await sql(
      `CREATE TABLE bench.default.t (id BIGINT, name STRING, grp INT) USING DELTA LOCATION '${ext}/t'`,
    );
    await sql(`INSERT INTO bench.default.t SELECT id, 'n' || id, CAST(id % 10 AS INT) FROM range(100000)`);
    // A copy of the 100,000-row table for Spark, taken before MiniLake changes it.
    cpSync(path.join(ext, 't'), path.join(ext, 'spark'), { recursive: true });
    const figures = {};
    figures.settle_cow = await settle(server.proc.pid);
    for (const [name, stmt] of Object.entries(STATEMENTS)) {
      const ms = [];
      for (let i = 0; i < ROUNDS; i++) ms.push(await timed(stmt('bench.default.t')));
      figures[`${name}_ms`] = Number(median(ms).toFixed(1));
      figures[`${name}_ms_all`] = ms.map((x) => Number(x.toFixed(1)));
    }
    figures.rows_after = Number((await sql('SELECT count(*) FROM bench.default.t')).result.data_array[0][0]);
    // The same statements on a table with deletion vectors on: rows are marked, files are not rewritten.
    await sql(
      `CREATE TABLE bench.default.dv (id BIGINT, name STRING, grp INT) USING DELTA LOCATION '${ext}/dv' ` +
        `TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')`,
    );
    await sql(`INSERT INTO bench.default.dv SELECT id, 'n' || id, CAST(id % 10 AS INT) FROM range(100000)`);
    figures.settle_dv = await settle(server.proc.pid);
    for (const [name, stmt] of Object.entries(STATEMENTS)) {
      const ms = [];
      for (let i = 0; i < ROUNDS; i++) ms.push(await timed(stmt('bench.default.dv')));
      figures[`dv_${name}_ms`] = Number(median(ms).toFixed(1));
      figures[`dv_${name}_ms_all`] = ms.map((x) => Number(x.toFixed(1)));
    }

    // 1M rows: API vs read_parquet over the same files, in-process.
    await sql(
      `CREATE TABLE bench.default.m USING DELTA LOCATION '${ext}/m' AS SELECT id, CAST(id % 100 AS INT) AS grp, id * 2 AS v FROM range(1000000)`,
    );
    const q = 'SELECT grp, count(*), sum(v) FROM bench.default.m GROUP BY grp ORDER BY grp';
    const api = [];
    for (let i = 0; i < ROUNDS; i++) api.push(await timed(q));
    const duck = createRequire(path.join(root, 'packages/engine-duckdb/package.json'))('@duckdb/node-api');
    const inst = await duck.DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const files = readdirSync(path.join(ext, 'm')).filter((f) => f.endsWith('.parquet'));
    const list = files.map((f) => `'${path.join(ext, 'm', f)}'`).join(', ');
    const direct = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      await conn.runAndReadAll(
        `SELECT grp, count(*), sum(v) FROM read_parquet([${list}]) GROUP BY grp ORDER BY grp`,
      );
      direct.push(performance.now() - t0);
    }
    conn.closeSync?.();
    figures.select_1m_api_ms = Number(median(api).toFixed(1));
    figures.select_1m_read_parquet_ms = Number(median(direct).toFixed(1));
    figures.select_1m_api_vs_read_parquet_ratio = Number((median(api) / median(direct)).toFixed(2));

    const spark = process.env.BENCH_DELTA_SPARK === '0' ? undefined : sparkInstall();
    if (!spark) {
      figures.spark =
        'skipped: Spark not installed (bash packages/engine-spark/install.sh) or BENCH_DELTA_SPARK=0';
    } else {
      // One generated job per statement, as the seeds' Spark peer runs an INSERT: spark-submit, a session
      // with delta-spark, the statement, exit. Wall time includes the JVM start, as the user waits for it.
      const script = path.join(root, 'packages/delta/test/fixtures/spark_sql.py');
      const table = `delta.\`${path.join(ext, 'spark')}\``;
      for (const [name, stmt] of Object.entries(STATEMENTS)) {
        const t0 = performance.now();
        const jars = spark.jars.join(',');
        try {
          await promisify(execFile)(
            spark.submit,
            ['--master', 'local[1]', '--jars', jars, script, jars, stmt(table)],
            {
              env: { ...process.env, PYSPARK_PYTHON: spark.python },
              timeout: 600_000,
              maxBuffer: 64 * 1024 * 1024,
            },
          );
        } catch (e) {
          figures[`spark_${name}_error`] = String(e.stdout ?? e.message).slice(-500);
          continue;
        }
        const ms = performance.now() - t0;
        figures[`spark_${name}_ms`] = Math.round(ms);
        figures[`spark_vs_api_${name}_ratio`] = Math.round(ms / figures[`${name}_ms`]);
      }
    }
    figures.server_rss_peak_mb = Number(server.rssPeakMb().toFixed(1));
    figures.load_average = os.loadavg().map((x) => Number(x.toFixed(1)));
    return figures;
  } finally {
    await server.stop();
    rmSync(ext, { recursive: true, force: true });
  }
}
