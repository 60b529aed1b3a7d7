/**
 * Unity Catalog served to Spark: a classic task on real Spark, with no catalog configuration in its code,
 * resolves `cat.sch.tbl` through MiniLake's Spark catalog plugin (install.sh compiles it) against a real
 * server (`pnpm build` first). Spark reads a table MiniLake's SQL wrote, creates and fills an EXTERNAL Delta
 * table that the SQL API then reads, lists and drops tables, and is refused a MANAGED (DuckDB) table with a
 * clear error. Skipped only when the install (with the plugin jar) is absent.
 */
import { existsSync, readdirSync } from 'node:fs';
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

  it('samples is read-only from Spark as from SQL: every write refused before anything is written, reads unchanged', async () => {
    const region = (await call('GET', '/api/2.1/unity-catalog/tables/samples.tpch.region')).json;
    const trips = (await call('GET', '/api/2.1/unity-catalog/tables/samples.nyctaxi.trips')).json;
    const ext = path.join(tables, 'not_in_samples');
    const dirOf = (t: Record<string, any>) => String(t.storage_location).replace(/^file:\/\//, '');
    const logOf = (t: Record<string, any>) => path.join(dirOf(t), '_delta_log');
    const regionDir = dirOf(region);
    const copyDir = path.join(tables, 'region_copy');
    const file = write(
      dir,
      'samples_ro.py',
      [
        'import json',
        'out = {}',
        'def attempt(key, fn):',
        '    try:',
        '        fn()',
        '        out[key] = "done"',
        '    except Exception as e:',
        '        out[key] = type(e).__name__ + ": " + str(e)',
        'count = lambda t: spark.sql("SELECT count(*) AS n FROM " + t).first().n',
        'out["trips_before"] = count("samples.nyctaxi.trips")',
        'attempt("insert", lambda: spark.sql("INSERT INTO samples.nyctaxi.trips SELECT * FROM samples.nyctaxi.trips LIMIT 3"))',
        'attempt("overwrite", lambda: spark.sql("INSERT OVERWRITE samples.tpch.region SELECT * FROM samples.tpch.region"))',
        'attempt("append", lambda: spark.table("samples.tpch.region").writeTo("samples.tpch.region").append())',
        'attempt("save_as", lambda: spark.table("samples.tpch.region").write.mode("append").saveAsTable("samples.tpch.region"))',
        'attempt("delete", lambda: spark.sql("DELETE FROM samples.tpch.region WHERE r_regionkey = 0"))',
        'attempt("update", lambda: spark.sql("UPDATE samples.tpch.region SET r_name = \'X\'"))',
        'attempt("merge", lambda: spark.sql("MERGE INTO samples.tpch.region t USING samples.tpch.region s ON t.r_regionkey = s.r_regionkey WHEN MATCHED THEN DELETE"))',
        'attempt("alter", lambda: spark.sql("ALTER TABLE samples.tpch.region SET TBLPROPERTIES (\'x\' = \'y\')"))',
        'attempt("create", lambda: spark.sql("CREATE TABLE samples.tpch.mine (a INT)"))',
        `attempt("create_at", lambda: spark.sql("CREATE TABLE samples.tpch.mine2 (a INT) USING DELTA LOCATION '${ext}'"))`,
        'attempt("create_x", lambda: spark.sql("CREATE TABLE samples.x.y (a INT)"))',
        'attempt("ctas", lambda: spark.sql("CREATE TABLE samples.tpch.mine3 AS SELECT 1 AS a"))',
        'attempt("schema", lambda: spark.sql("CREATE SCHEMA samples.mine"))',
        'attempt("drop", lambda: spark.sql("DROP TABLE samples.tpch.region"))',
        'attempt("drop_schema", lambda: spark.sql("DROP SCHEMA samples.tpch CASCADE"))',
        // Delta's own commands, which write the log themselves, and writes by the table's folder.
        'from delta.tables import DeltaTable',
        `rpath = ${JSON.stringify(regionDir)}`,
        'attempt("optimize", lambda: spark.sql("OPTIMIZE samples.tpch.region"))',
        'attempt("vacuum", lambda: spark.sql("VACUUM samples.tpch.region RETAIN 0 HOURS"))',
        'attempt("restore", lambda: spark.sql("RESTORE TABLE samples.tpch.region TO VERSION AS OF 0"))',
        'attempt("reorg", lambda: spark.sql("REORG TABLE samples.tpch.region APPLY (PURGE)"))',
        'attempt("path_api_optimize", lambda: DeltaTable.forPath(spark, rpath).optimize().executeCompaction())',
        'attempt("path_delete", lambda: spark.sql("DELETE FROM delta.`" + rpath + "` WHERE r_regionkey = 0"))',
        'attempt("path_optimize", lambda: spark.sql("OPTIMIZE delta.`" + rpath + "`"))',
        'attempt("path_api_delete", lambda: DeltaTable.forPath(spark, rpath).delete("r_regionkey = 0"))',
        'attempt("path_api_vacuum", lambda: DeltaTable.forPath(spark, rpath).vacuum(0))',
        'attempt("path_api_restore", lambda: DeltaTable.forPath(spark, rpath).restoreToVersion(0))',
        'attempt("path_append", lambda: spark.table("samples.tpch.region").write.format("delta").mode("append").save(rpath))',
        'attempt("path_overwrite", lambda: spark.table("samples.tpch.region").write.format("delta").mode("overwrite").save(rpath))',
        'attempt("path_parquet", lambda: spark.table("samples.tpch.region").write.mode("append").parquet(rpath))',
        // Reading by path stays allowed, and so does copying samples out.
        'out["path_read"] = spark.read.format("delta").load(rpath).count()',
        'out["path_sql_read"] = spark.sql("SELECT count(*) AS n FROM delta.`" + rpath + "`").first().n',
        `spark.table("samples.tpch.region").write.format("delta").mode("overwrite").save(${JSON.stringify(copyDir)})`,
        `out["copied"] = spark.read.format("delta").load(${JSON.stringify(copyDir)}).count()`,
        'out["trips_after"] = count("samples.nyctaxi.trips")',
        'out["regions"] = sorted(r.r_name for r in spark.table("samples.tpch.region").collect())',
        'print("OUT=" + json.dumps(out))',
      ].join('\n'),
    );
    // The sample tables' data is generated on first read: read them once, then keep their logs to compare.
    await sql(
      'SELECT (SELECT count(*) FROM samples.tpch.region) + (SELECT count(*) FROM samples.nyctaxi.trips)',
    );
    const logs = () =>
      [region, trips].flatMap((t) => [readdirSync(logOf(t)).sort(), readdirSync(dirOf(t)).sort()]);
    const logsBefore = logs();
    const r = await engine.launch(task(dir, { file, sparkConf: FAST })).result;
    expect(r.outcome, r.error ?? r.logs).toBe('SUCCESS');
    const line = r.logs.split('\n').find((l) => l.startsWith('OUT='));
    const out = JSON.parse(line!.slice(4)) as Record<string, any>;
    const denied = (what: string) =>
      `AnalysisException: [INSUFFICIENT_PERMISSIONS] Insufficient privileges:\nUser does not have MODIFY on ${what}: the samples catalog is read-only.`;
    const region_ = denied("Table 'samples.tpch.region'");
    const catalog_ = denied("Catalog 'samples'");
    const { trips_before, trips_after, regions, create_x, path_read, path_sql_read, copied, ...refused } =
      out;
    expect(refused).toEqual({
      insert: denied("Table 'samples.nyctaxi.trips'"),
      overwrite: region_,
      append: region_,
      save_as: region_,
      delete: region_,
      update: region_,
      merge: region_,
      alter: region_,
      create: catalog_,
      create_at: catalog_,
      ctas: catalog_,
      schema: catalog_,
      drop: region_,
      drop_schema: denied("Schema 'samples.tpch'"),
      optimize: region_,
      vacuum: region_,
      restore: region_,
      reorg: region_,
      path_api_optimize: region_,
      path_delete: region_,
      path_optimize: region_,
      path_api_delete: region_,
      path_api_vacuum: region_,
      path_api_restore: region_,
      path_append: region_,
      path_overwrite: region_,
      path_parquet: region_,
    });
    expect(path_read).toBe(5);
    expect(path_sql_read).toBe(5); // delta.`folder` in SQL while main is the current catalog
    expect(copied).toBe(5);
    // A schema samples does not have is not found, as the SQL warehouse says too.
    expect(create_x).toContain('SCHEMA_NOT_FOUND');
    // Nothing changed: the same rows, no new Delta commit, no table in Unity Catalog, no stray folder.
    expect(trips_after).toBe(trips_before);
    expect(regions).toEqual(['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST']);
    expect(logs()).toEqual(logsBefore);
    const names = (await call('GET', '/api/2.1/unity-catalog/tables?catalog_name=samples&schema_name=tpch'))
      .json;
    expect(names.tables.map((t: any) => t.name).sort()).toEqual([
      'customer',
      'lineitem',
      'nation',
      'orders',
      'part',
      'partsupp',
      'region',
      'supplier',
    ]);
    expect(existsSync(ext)).toBe(false);
    expect(await sql('SELECT count(*) FROM samples.tpch.region')).toEqual([['5']]);
  }, 900_000);

  it('serverless tasks (Spark Connect) resolve UC tables too, with no catalog config in the code', async () => {
    const file = write(
      dir,
      'uc_serverless.py',
      [
        `rows = sorted([r.id, r.name] for r in spark.table("${cat}.s1.from_sql").collect())`,
        `spark.sql("INSERT INTO ${cat}.s1.from_sql VALUES (3, 'three')")`,
        'print("ROWS=%s" % rows)',
        // The Spark Connect server's sessions go through the same plugin: samples stays read-only there too.
        'try:',
        `    spark.sql("INSERT INTO samples.tpch.region VALUES (9, 'X', 'y')").collect()`,
        'except Exception as e:',
        // The first two lines, joined by " / ": the class line, then Unity Catalog's sentence on its own line.
        '    print("DENIED=%s: %s" % (type(e).__name__, " / ".join(str(e).splitlines()[:2])))',
      ].join('\n'),
    );
    const r = await engine.launch(task(dir, { file, compute: 'serverless', sparkConf: FAST })).result;
    expect(r.outcome, r.error ?? r.logs).toBe('SUCCESS');
    expect(r.logs).toContain("ROWS=[[1, 'one'], [2, 'two']]");
    expect(r.logs).toContain(
      "DENIED=AnalysisException: [INSUFFICIENT_PERMISSIONS] Insufficient privileges: / User does not have MODIFY on Table 'samples.tpch.region': the samples catalog is read-only.",
    );
    expect(await sql(`SELECT count(*) FROM ${cat}.s1.from_sql`)).toEqual([['3']]);
  }, 900_000);
});
