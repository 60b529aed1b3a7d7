// Lakeflow Declarative Pipelines: one update of the CLI's default-python template pipeline (a table over
// `samples.nyctaxi.trips` and one aggregating it, from workspace files) through /api/2.0/pipelines, start to
// COMPLETED, against the baseline measured in the same run on the same warm Spark Connect server: Spark's own
// `spark-pipelines` runner (pyspark/pipelines/cli.py, what `spark-pipelines run` executes) on the same sources
// made OSS-ready (`@dp.materialized_view` for the batch `@dp.table`, `spark = SparkSession.active()`), writing
// Delta tables in Spark's session catalog. What MiniLake adds: the workspace copy, the runner's reports,
// Unity Catalog tables, the events. Needs the Spark install (records `{ skipped }` otherwise); without the
// samples catalog the pipeline reads a stand-in `main.bench.trips` (an EXTERNAL Delta table of 20,000 rows
// written through the SQL warehouse). Knob: BENCH_PIPELINES_ROUNDS (default 3).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, postJson, root, startServer } from '../lib.mjs';

export const targets = {
  overhead_pct:
    '< 10 (an update through MiniLake vs spark-pipelines of the same sources, same Spark Connect server)',
};

const ROUNDS = Number(process.env.BENCH_PIPELINES_ROUNDS ?? 3);
const trips = (source) => `from pyspark import pipelines as dp

@dp.table
def sample_trips_bench():
    return spark.read.table("${source}")
`;
const ZONES = `from pyspark import pipelines as dp
from pyspark.sql.functions import col, sum

@dp.table
def sample_zones_bench():
    return (
        spark.read.table("sample_trips_bench")
        .groupBy(col("pickup_zip"))
        .agg(sum("fare_amount").alias("total_fare"))
    )
`;
// The baseline's copy: what Spark 4.1 needs to run the same thing.
const oss = (src) =>
  'from pyspark.sql import SparkSession\nspark = SparkSession.active()\n' +
  src.replaceAll('@dp.table', '@dp.materialized_view');

function python() {
  const v = JSON.parse(readFileSync(path.join(root, 'packages/engine-spark/versions.json'), 'utf8'));
  const cache = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache', 'minilake');
  const dir = path.join(cache, `spark-${v.pyspark}-delta-${v.deltaSpark}`);
  return existsSync(path.join(dir, '.complete')) ? path.join(dir, 'venv', 'bin', 'python') : undefined;
}

const get = async (url) => (await fetch(url, { headers: { authorization: 'Bearer x' } })).json();

async function update(url, pid) {
  const t0 = performance.now();
  const { update_id } = await postJson(`${url}/api/2.0/pipelines/${pid}/updates`, {});
  for (;;) {
    const { update } = await get(`${url}/api/2.0/pipelines/${pid}/updates/${update_id}`);
    if (['COMPLETED', 'FAILED', 'CANCELED'].includes(update.state)) {
      if (update.state !== 'COMPLETED') throw new Error(`update ${update_id} ended ${update.state}`);
      return performance.now() - t0;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function baseline(py, dir, remote, selfUrl, catalog, round) {
  const spec = path.join(dir, `spark-pipeline-${round}.yml`);
  const conf = {
    [`spark.sql.catalog.${catalog}`]: 'dev.minilake.spark.MiniLakeCatalog',
    [`spark.sql.catalog.${catalog}.uri`]: selfUrl,
    [`spark.sql.catalog.${catalog}.token`]: 'x',
    'spark.sql.sources.default': 'delta',
  };
  writeFileSync(
    spec,
    [
      'name: bench',
      `storage: file://${path.join(dir, `storage-${round}`)}`,
      'catalog: spark_catalog',
      'database: default',
      'configuration:',
      ...Object.entries(conf).map(([k, v]) => `  ${k}: "${v}"`),
      'libraries:',
      '  - glob:',
      '      include: transformations/**',
      '',
    ].join('\n'),
  );
  const cli = (
    await promisify(execFile)(py, ['-c', 'import os, pyspark; print(os.path.dirname(pyspark.__file__))'])
  ).stdout.trim();
  const t0 = performance.now();
  await promisify(execFile)(py, [path.join(cli, 'pipelines', 'cli.py'), 'run', '--spec', spec], {
    cwd: dir,
    env: { ...process.env, SPARK_REMOTE: remote },
    maxBuffer: 64 * 2 ** 20,
  });
  return performance.now() - t0;
}

export async function run() {
  const py = python();
  if (!py) return { skipped: 'Spark is not installed: bash packages/engine-spark/install.sh' };
  const s = await startServer();
  const work = mkdtempSync(path.join(os.tmpdir(), 'ml-bench-pl-'));
  try {
    await postJson(`${s.url}/api/2.1/unity-catalog/catalogs`, { name: 'main' }).catch(() => undefined);
    await postJson(`${s.url}/api/2.1/unity-catalog/schemas`, { catalog_name: 'main', name: 'bench' });
    let source = 'samples.nyctaxi.trips';
    if (!(await fetch(`${s.url}/api/2.1/unity-catalog/tables/${source}`)).ok) {
      source = 'main.bench.trips';
      for (const statement of [
        `CREATE TABLE main.bench.trips (pickup_zip INT, fare_amount DOUBLE) USING DELTA LOCATION '${path.join(work, 'trips')}'`,
        'INSERT INTO main.bench.trips SELECT 10000 + (i % 300), (i % 97) * 1.5 FROM range(20000) r(i)',
      ]) {
        const r = await postJson(`${s.url}/api/2.0/sql/statements`, {
          warehouse_id: 'dev',
          statement,
          wait_timeout: '50s',
        });
        if (r.status?.state !== 'SUCCEEDED') throw new Error(`${statement}: ${JSON.stringify(r.status)}`);
      }
    }
    const catalog = source.split('.')[0];
    const home = '/Workspace/Users/bench/bench';
    await postJson(`${s.url}/api/2.0/workspace/mkdirs`, { path: `${home}/transformations` });
    for (const [name, text] of [
      ['sample_trips_bench.py', trips(source)],
      ['sample_zones_bench.py', ZONES],
    ])
      await postJson(`${s.url}/api/2.0/workspace/import`, {
        path: `${home}/transformations/${name}`,
        format: 'AUTO',
        content: Buffer.from(text).toString('base64'),
        overwrite: true,
      });
    const { pipeline_id } = await postJson(`${s.url}/api/2.0/pipelines`, {
      name: 'bench',
      catalog: 'main',
      schema: 'bench',
      serverless: true,
      libraries: [{ glob: { include: `${home}/transformations/**` } }],
    });
    const firstMs = await update(s.url, pipeline_id); // starts the Spark Connect server
    const log = readFileSync(path.join(s.dataDir, 'spark', 'connect', 'server.log'), 'utf8');
    const port = /Spark Connect server started at: 127\.0\.0\.1:(\d+)/.exec(log)?.[1];
    const remote = `sc://127.0.0.1:${port}`;
    mkdirSync(path.join(work, 'transformations'));
    writeFileSync(path.join(work, 'transformations', 'sample_trips_bench.py'), oss(trips(source)));
    writeFileSync(path.join(work, 'transformations', 'sample_zones_bench.py'), oss(ZONES));
    // Alternating, so both see the same neighbours.
    const ours = [];
    const base = [];
    for (let i = 0; i < ROUNDS; i++) {
      base.push(await baseline(py, work, remote, s.url, catalog, i));
      ours.push(await update(s.url, pipeline_id));
    }
    const r = (x) => Math.round(x);
    return {
      source,
      first_update_ms: r(firstMs),
      update_ms: { median: r(median(ours)), all: ours.map(r) },
      spark_pipelines_ms: { median: r(median(base)), all: base.map(r) },
      overhead_pct: +((median(ours) / median(base) - 1) * 100).toFixed(1),
      load_average: os.loadavg().map((x) => +x.toFixed(1)),
    };
  } finally {
    await s.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
