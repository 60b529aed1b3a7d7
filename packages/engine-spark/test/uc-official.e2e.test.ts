/**
 * The seeds' Spark example with the official Unity Catalog connector (`io.unitycatalog.spark.UCSingleCatalog`)
 * against a real server (`pnpm build` first), unchanged but for the paths: Spark writes a Delta folder, then
 * `INSERT INTO sales.store.events` and `spark.table(...).count()` resolve through the connector. No registry
 * reachable here serves that jar, so the test runs only when it is present: put the connector's jars
 * (`unitycatalog-spark_4.1_2.13-<v>.jar` and the `unitycatalog-client` jars it needs) in
 * `$MINILAKE_CACHE/uc-spark-connector/`, or name that folder in MINILAKE_UC_SPARK_JARS.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@minilake/testing';
import { createContext } from '@minilake/core';
import { createSparkEngine, sparkSettings, type SparkEngine } from '../src/index.js';
import { cacheDir, installed, skipReason, task, tmp, write } from './helpers.js';

const jarsDir = process.env.MINILAKE_UC_SPARK_JARS ?? path.join(cacheDir, 'uc-spark-connector');
const jars = existsSync(jarsDir)
  ? readdirSync(jarsDir)
      .filter((f) => f.endsWith('.jar'))
      .map((f) => path.join(jarsDir, f))
  : [];
const hasConnector = jars.some((j) => path.basename(j).startsWith('unitycatalog-spark'));
const why = !installed
  ? skipReason
  : hasConnector
    ? 'connector present'
    : `the official connector jar io.unitycatalog:unitycatalog-spark_4.1_2.13 is not in ${jarsDir}`;

describe.skipIf(!installed || !hasConnector)(`the seeds' Spark example on UCSingleCatalog (${why})`, () => {
  let server: RunningServer;
  let engine: SparkEngine;
  const dir = tmp('spark-ucsingle-');
  const data = tmp('spark-ucsingle-data-');
  const cat = `sales_${randomBytes(3).toString('hex')}`;
  const post = async (p: string, body: unknown) => {
    const r = await fetch(server.url + p, {
      method: 'POST',
      headers: { Authorization: 'Bearer dev', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(r.status, await r.clone().text()).toBe(200);
    return (await r.json()) as Record<string, any>;
  };

  beforeAll(async () => {
    server = await startServer();
    engine = createSparkEngine(
      createContext({
        dataDir: dir,
        settingsSchema: sparkSettings,
        config: { MINILAKE_CACHE: cacheDir },
        selfUrl: () => server.url,
      }),
    );
    await post('/api/2.1/unity-catalog/catalogs', { name: cat });
    await post('/api/2.1/unity-catalog/schemas', { name: 'store', catalog_name: cat });
    await post('/api/2.0/sql/statements', {
      warehouse_id: 'dev',
      wait_timeout: '50s',
      statement: `CREATE TABLE ${cat}.store.events (id BIGINT, name STRING) USING DELTA LOCATION '${data}/events'`,
    });
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
    await server?.stop();
  });

  it('INSERT INTO and spark.table resolve through the official connector', async () => {
    const file = write(
      dir,
      'seed.py',
      [
        'from pyspark.sql import SparkSession',
        `UC = "${server.url}"`,
        'spark = (',
        '    SparkSession.builder',
        '    .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")',
        '    .config("spark.sql.catalog.spark_catalog", "io.unitycatalog.spark.UCSingleCatalog")',
        '    .config("spark.sql.catalog.spark_catalog.uri", UC)',
        `    .config("spark.sql.catalog.${cat}", "io.unitycatalog.spark.UCSingleCatalog")`,
        `    .config("spark.sql.catalog.${cat}.uri", UC)`,
        '    .getOrCreate()',
        ')',
        'spark.createDataFrame([(1, "a"), (2, "b")], ["id", "name"]) \\',
        `    .write.format("delta").mode("overwrite").save("${data}/events")`,
        `spark.sql("INSERT INTO ${cat}.store.events VALUES (3, 'c')")`,
        `print("COUNT=%d" % spark.table("${cat}.store.events").count())`,
      ].join('\n'),
    );
    // The connector's jars join the driver's classpath (spark-submit's --jars, the Delta jars, would win over a
    // spark.jars conf); the task's catalog conf wins over the one the engine sets for MiniLake's plugin.
    const r = await engine.launch(
      task(dir, {
        file,
        sparkConf: {
          'spark.driver.extraClassPath': jars.join(':'),
          'spark.sql.shuffle.partitions': '1',
          'spark.databricks.delta.snapshotPartitions': '1',
          [`spark.sql.catalog.${cat}`]: 'io.unitycatalog.spark.UCSingleCatalog',
          [`spark.sql.catalog.${cat}.uri`]: server.url,
        },
      }),
    ).result;
    expect(r.outcome, r.error ?? r.logs).toBe('SUCCESS');
    expect(r.logs).toContain('COUNT=3');
  }, 900_000);
});
