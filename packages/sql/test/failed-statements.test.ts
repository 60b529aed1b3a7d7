/**
 * A statement that reports FAILED changes nothing, whatever kind it is and wherever it fails, on DuckDB tables
 * and on Delta tables; and the engine and Unity Catalog never disagree about what exists. Each statement here
 * fails midway: after the engine did part of its work (a row that fails a cast after others were written, a
 * catalog record refused after the engine made the table).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jsonInit } from '@minilake/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSqlApps, type CatalogSqlApps } from './statement-app.js';

/** Fails on the third row only (id 2): Spark's CAST_INVALID_INPUT, after two rows went through. */
const BAD_ROW = "CAST(CASE WHEN id = 2 THEN 'x' ELSE CAST(id AS STRING) END AS INT)";

function harness(format: 'duckdb' | 'delta') {
  let dataDir: string;
  let apps: CatalogSqlApps;
  const h = {
    get apps() {
      return apps;
    },
    async q(statement: string) {
      const res = await apps.sqlApp.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', {
          warehouse_id: apps.wh,
          statement,
          wait_timeout: '30s',
          catalog: 'fc',
          schema: 's',
        }),
      );
      return (await res.json()) as {
        status: { state: string; error?: { message: string } };
        result?: { data_array?: (string | null)[][] };
      };
    },
    async rows(statement: string) {
      const r = await h.q(statement);
      if (r.status.state !== 'SUCCEEDED') throw new Error(`${statement}: ${JSON.stringify(r.status)}`);
      return r.result?.data_array ?? [];
    },
    async fails(statement: string) {
      const r = await h.q(statement);
      expect(r.status.state, statement).toBe('FAILED');
      return r.status.error!.message;
    },
    /** Tables as Unity Catalog lists them and as SHOW TABLES (the engine's view) lists them: the same. */
    async tables(): Promise<string[]> {
      const res = await apps.ucApp.request('/api/2.1/unity-catalog/tables?catalog_name=fc&schema_name=s');
      const uc = (((await res.json()) as { tables?: { name: string }[] }).tables ?? [])
        .map((t) => t.name)
        .sort();
      const shown = (await h.rows('SHOW TABLES IN fc.s')).map((r) => String(r[1])).sort();
      expect(shown).toEqual(uc);
      return uc;
    },
    dataDir: () => dataDir,
  };
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), `ml-failed-${format}-`));
    apps = await catalogSqlApps(dataDir, format === 'delta' ? { MINILAKE_MANAGED_FORMAT: 'delta' } : {});
    await apps.ucApp.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: 'fc' }));
    await apps.ucApp.request(
      '/api/2.1/unity-catalog/schemas',
      jsonInit('POST', { name: 's', catalog_name: 'fc' }),
    );
    await h.rows('CREATE TABLE t (id INT, v STRING)');
    await h.rows("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  }, 120_000);
  afterAll(async () => {
    await apps.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return h;
}

const state = async (h: ReturnType<typeof harness>) => h.rows('SELECT id, v FROM t ORDER BY id');

describe('a failed statement leaves nothing behind: DuckDB tables', () => {
  const h = harness('duckdb');

  it('CREATE TABLE whose catalog record Unity Catalog refuses: no table in the engine either', async () => {
    // A catalog the engine has and Unity Catalog does not (the first-hour report: FAILED, yet the table was made).
    const engine = h.apps.uc.engine;
    await engine.attachCatalog('ghost');
    const lease = await engine.acquire();
    try {
      await lease.conn.run(`CREATE SCHEMA IF NOT EXISTS ${engine.alias('ghost')}.s`);
    } finally {
      lease.release();
    }
    await h.fails('CREATE TABLE ghost.s.made_anyway (x INT)');
    const lease2 = await engine.acquire();
    try {
      const r = await lease2.conn.runAndReadAll(
        `SELECT count(*) FROM duckdb_tables() WHERE database_name = '${engine.alias('ghost')}'`,
      );
      expect(Number(r.getRows()[0]![0])).toBe(0);
    } finally {
      lease2.release();
    }
  });

  it('CREATE TABLE AS SELECT that fails on its third row: no table', async () => {
    await h.fails(`CREATE TABLE ctas_bad AS SELECT id, ${BAD_ROW} AS n FROM range(5) r(id)`);
    expect(await h.tables()).toEqual(['t']);
  });

  it('INSERT, UPDATE, MERGE, INSERT OVERWRITE that fail midway: the rows are as they were', async () => {
    const before = await state(h);
    await h.fails(`INSERT INTO t SELECT id + 10, CAST(${BAD_ROW} AS STRING) FROM range(5) r(id)`);
    await h.fails(`UPDATE t SET v = CAST(CAST(CASE WHEN id = 2 THEN 'x' ELSE '1' END AS INT) AS STRING)`);
    await h.fails(
      `MERGE INTO t USING (SELECT id, ${BAD_ROW} AS n FROM range(4) r(id)) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = CAST(s.n AS STRING) WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, CAST(s.n AS STRING))`,
    );
    await h.fails(`INSERT OVERWRITE t SELECT id, CAST(${BAD_ROW} AS STRING) FROM range(5) r(id)`);
    expect(await state(h)).toEqual(before);
    expect(await h.tables()).toEqual(['t']);
  }, 180_000);

  it('CREATE SCHEMA and CREATE TABLE in a catalog that is read-only: nothing made', async () => {
    await h.fails('CREATE TABLE samples.tpch.mine (x INT)');
    await h.fails('CREATE SCHEMA samples.mine');
    const res = await h.apps.ucApp.request('/api/2.1/unity-catalog/schemas/samples.mine');
    expect(res.status).toBe(404);
  });
});

describe('a failed statement leaves nothing behind: Delta tables', () => {
  const h = harness('delta');
  const version = async () => (await h.rows('DESCRIBE HISTORY t')).length;

  it('INSERT, UPDATE, DELETE, MERGE, INSERT OVERWRITE that fail midway: no new version, the rows as they were', async () => {
    const before = await state(h);
    const v0 = await version();
    await h.fails(`INSERT INTO t SELECT id + 10, CAST(${BAD_ROW} AS STRING) FROM range(5) r(id)`);
    await h.fails(`UPDATE t SET v = CAST(CAST(CASE WHEN id = 2 THEN 'x' ELSE '1' END AS INT) AS STRING)`);
    await h.fails(`DELETE FROM t WHERE CAST(CASE WHEN id = 2 THEN 'x' ELSE '1' END AS INT) = 1`);
    await h.fails(
      `MERGE INTO t USING (SELECT id, ${BAD_ROW} AS n FROM range(4) r(id)) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = CAST(s.n AS STRING) WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, CAST(s.n AS STRING))`,
    );
    await h.fails(`INSERT OVERWRITE t SELECT id, CAST(${BAD_ROW} AS STRING) FROM range(5) r(id)`);
    expect(await state(h)).toEqual(before);
    expect(await version()).toBe(v0);
  }, 180_000);

  it('CREATE TABLE AS SELECT that fails on its third row: no table, no folder', async () => {
    const tablesDir = path.join(h.dataDir(), 'unity-catalog', '__unitystorage');
    const count = async () =>
      (await readdir(tablesDir, { recursive: true }).catch(() => [])).filter((f) =>
        String(f).endsWith('_delta_log'),
      ).length;
    const folders = await count();
    await h.fails(`CREATE TABLE ctas_bad AS SELECT id, ${BAD_ROW} AS n FROM range(5) r(id)`);
    expect(await h.tables()).toEqual(['t']);
    expect(await count()).toBe(folders);
  });
});
