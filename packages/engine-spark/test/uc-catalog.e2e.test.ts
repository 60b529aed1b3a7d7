/**
 * Unity Catalog served to Spark: a classic task on real Spark, with no catalog configuration in its code,
 * resolves `cat.sch.tbl` through MiniLake's Spark catalog plugin (install.sh compiles it) against a real
 * server (`pnpm build` first). Spark reads a table MiniLake's SQL wrote, creates and fills an EXTERNAL Delta
 * table that the SQL API then reads, lists and drops tables, and is refused a MANAGED (DuckDB) table with a
 * clear error. Skipped only when the install (with the plugin jar) is absent.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@minilake/testing';
import { createContext } from '@minilake/core';
import { createSparkEngine, defaultInstallDir, sparkSettings, type SparkEngine } from '../src/index.js';
import { ucCatalogJar } from '../src/uc.js';
import { cacheDir, installed, skipReason, task, tmp, write } from './helpers.js';

const ready = installed && existsSync(ucCatalogJar(defaultInstallDir(cacheDir)));

/** Small Delta snapshots and shuffles: the test machine has two cores. */
const FAST = { 'spark.sql.shuffle.partitions': '1', 'spark.databricks.delta.snapshotPartitions': '1' };

describe.skipIf(!ready)(`Unity Catalog tables from Spark (${ready ? 'installed' : skipReason})`, () => {
  let server: RunningServer;
  let engine: SparkEngine;
  const dir = tmp('spark-uc-');
  const tables = tmp('spark-uc-tables-');
  const cat = `lake_${randomBytes(3).toString('hex')}`;
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(server.url + p, {
      method,
      headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, any> };
  };
  const sql = async (statement: string) => {
    const r = await call('POST', '/api/2.0/sql/statements', {
      warehouse_id: 'dev',
      statement,
      wait_timeout: '50s',
    });
    expect(r.json.status?.state, JSON.stringify(r.json)).toBe('SUCCEEDED');
    return (r.json.result?.data_array ?? []) as string[][];
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
    expect((await call('POST', '/api/2.1/unity-catalog/catalogs', { name: cat })).status).toBe(200);
    await call('POST', '/api/2.1/unity-catalog/schemas', { name: 's1', catalog_name: cat });
    await sql(`CREATE TABLE ${cat}.s1.managed_t AS SELECT 1 AS id`);
    await sql(
      `CREATE TABLE ${cat}.s1.from_sql (id BIGINT, name STRING) USING DELTA LOCATION '${tables}/from_sql'`,
    );
    await sql(`INSERT INTO ${cat}.s1.from_sql VALUES (1, 'one'), (2, 'two')`);
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
    await server?.stop();
  });

  it('reads, creates, appends to, lists and drops UC tables with no catalog config in the code', async () => {
    const file = write(
      dir,
      'uc.py',
      [
        'import json',
        'out = {}',
        `out["namespaces"] = sorted(r[0] for r in spark.sql("SHOW NAMESPACES IN ${cat}").collect())`,
        `out["from_sql"] = sorted([r.id, r.name] for r in spark.table("${cat}.s1.from_sql").collect())`,
        `spark.sql("CREATE TABLE ${cat}.s1.events (id BIGINT, name STRING) USING DELTA LOCATION '${tables}/events'")`,
        `spark.sql("INSERT INTO ${cat}.s1.events VALUES (1, 'a'), (2, 'b')")`,
        `spark.createDataFrame([(3, "c")], "id BIGINT, name STRING").writeTo("${cat}.s1.events").append()`,
        `out["count"] = spark.sql("SELECT count(*) AS n FROM ${cat}.s1.events").first().n`,
        `spark.sql("CREATE TABLE ${cat}.s1.gone USING DELTA LOCATION '${tables}/gone' AS SELECT 7 AS x")`,
        `out["before_drop"] = sorted(r.tableName for r in spark.sql("SHOW TABLES IN ${cat}.s1").collect())`,
        `spark.sql("DROP TABLE ${cat}.s1.gone")`,
        `out["after_drop"] = sorted(r.tableName for r in spark.sql("SHOW TABLES IN ${cat}.s1").collect())`,
        'try:',
        `    spark.table("${cat}.s1.managed_t").collect()`,
        '    out["managed"] = "read"',
        'except Exception as e:',
        '    out["managed"] = str(e)',
        'print("OUT=" + json.dumps(out))',
      ].join('\n'),
    );
    const r = await engine.launch(task(dir, { file, sparkConf: FAST })).result;
    expect(r.outcome, r.error ?? r.logs).toBe('SUCCESS');
    const line = r.logs.split('\n').find((l) => l.startsWith('OUT='));
    const out = JSON.parse(line!.slice(4)) as Record<string, any>;
    expect(out.namespaces).toEqual(['default', 's1']);
    expect(out.from_sql).toEqual([
      [1, 'one'],
      [2, 'two'],
    ]);
    expect(out.count).toBe(3);
    expect(out.before_drop).toEqual(['events', 'from_sql', 'gone', 'managed_t']);
    expect(out.after_drop).toEqual(['events', 'from_sql', 'managed_t']);
    expect(out.managed).toContain('is a MANAGED MiniLake table');
    expect(out.managed).toContain('DuckDB');

    // What Spark created is an EXTERNAL Delta table in UC, with the columns of its log...
    const t = await call('GET', `/api/2.1/unity-catalog/tables/${cat}.s1.events`);
    expect(t.json.table_type).toBe('EXTERNAL');
    expect(t.json.data_source_format).toBe('DELTA');
    expect(t.json.columns.map((c: any) => `${c.name}:${c.type_text}`)).toEqual(['id:bigint', 'name:string']);
    // ...and MiniLake's SQL reads the rows Spark wrote.
    expect(await sql(`SELECT id, name FROM ${cat}.s1.events ORDER BY id`)).toEqual([
      ['1', 'a'],
      ['2', 'b'],
      ['3', 'c'],
    ]);
    // DROP TABLE unregisters an EXTERNAL table; its files stay, as on Databricks.
    expect((await call('GET', `/api/2.1/unity-catalog/tables/${cat}.s1.gone`)).status).toBe(404);
    expect(existsSync(path.join(tables, 'gone', '_delta_log'))).toBe(true);
  }, 900_000);

  it('serverless tasks (Spark Connect) resolve UC tables too, with no catalog config in the code', async () => {
    const file = write(
      dir,
      'uc_serverless.py',
      [
        `rows = sorted([r.id, r.name] for r in spark.table("${cat}.s1.from_sql").collect())`,
        `spark.sql("INSERT INTO ${cat}.s1.from_sql VALUES (3, 'three')")`,
        'print("ROWS=%s" % rows)',
      ].join('\n'),
    );
    const r = await engine.launch(task(dir, { file, compute: 'serverless', sparkConf: FAST })).result;
    expect(r.outcome, r.error ?? r.logs).toBe('SUCCESS');
    expect(r.logs).toContain("ROWS=[[1, 'one'], [2, 'two']]");
    expect(await sql(`SELECT count(*) FROM ${cat}.s1.from_sql`)).toEqual([['3']]);
  }, 900_000);
});
