/**
 * EXTERNAL Delta tables through the Statement API, in process: the real unity-catalog and sql services on one
 * DuckDB engine, tables written by real Spark + delta-spark (skipped without `bash packages/engine-spark/install.sh`).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SharedResource } from '@minilake/core';
import { locateInstall, settingsFrom } from '@minilake/engine-spark';
import { jsonInit, repoRoot, serviceApp } from '@minilake/testing';
import { unityCatalogService } from '@minilake/unity-catalog';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlService } from '../src/index.js';

const install = await locateInstall(settingsFrom({ MINILAKE_CACHE: process.env.MINILAKE_CACHE })).catch(
  () => undefined,
);
const sparkSql = (...statements: string[]) =>
  promisify(execFile)(
    install!.python,
    [
      path.join(repoRoot, 'packages/delta/test/fixtures/spark_sql.py'),
      install!.jars.join(','),
      ...statements,
    ],
    { timeout: 170_000, maxBuffer: 16 * 1024 * 1024 },
  );

describe.skipIf(!install)('EXTERNAL Delta tables (needs bash packages/engine-spark/install.sh)', () => {
  let ext: string;
  let dataDir: string;
  let ucApp: Hono;
  let sqlApp: Hono;
  let wh: string;
  const closers: (() => unknown)[] = [];

  const q = async (statement: string, catalog?: string) => {
    const res = await sqlApp.request(
      '/api/2.0/sql/statements',
      jsonInit('POST', { warehouse_id: wh, statement, wait_timeout: '30s', ...(catalog ? { catalog } : {}) }),
    );
    return (await res.json()) as {
      status: { state: string; error?: { message: string } };
      result?: { data_array?: unknown[][] };
    };
  };
  const rows = async (statement: string, catalog?: string) => {
    const r = await q(statement, catalog);
    if (r.status.state !== 'SUCCEEDED') throw new Error(`${statement}: ${JSON.stringify(r.status)}`);
    return r.result?.data_array ?? [];
  };

  beforeAll(async () => {
    ext = await mkdtemp(path.join(os.tmpdir(), 'ml-delta-ext-'));
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ml-delta-data-'));
    const t = (n: string) => `delta.\`${ext}/${n}\``;
    await sparkSql(
      `CREATE TABLE ${t('events')} (id BIGINT, kind STRING, day DATE) USING DELTA PARTITIONED BY (day)`,
      `INSERT INTO ${t('events')} VALUES (1, 'click', DATE'2024-01-01'), (2, 'view', DATE'2024-01-02'), (3, 'click', DATE'2024-01-02')`,
    );
    const shared = new Map<string, Promise<SharedResource>>();
    const uc = await serviceApp(unityCatalogService, { dataDir, sharedResources: shared });
    const sql = await serviceApp(sqlService, {
      dataDir,
      sharedResources: shared,
      peers: new Map([['unity-catalog', uc.instance.api]]),
      config: { MINILAKE_WAREHOUSE_START_DELAY: '0' },
    });
    closers.push(
      () => sql.instance.close?.(),
      () => uc.instance.close?.(),
    );
    ucApp = uc.app;
    sqlApp = sql.app;
    const res = await sqlApp.request(
      '/api/2.0/sql/warehouses',
      jsonInit('POST', { name: 'd', cluster_size: 'Small' }),
    );
    wh = ((await res.json()) as { id: string }).id;
    await ucApp.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: 'dc' }));
  }, 200_000);

  afterAll(async () => {
    for (const c of closers) await c();
    await rm(ext, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('registers with the schema of the Delta log and reads through SQL', async () => {
    const res = await ucApp.request(
      '/api/2.1/unity-catalog/tables',
      jsonInit('POST', {
        name: 'events',
        catalog_name: 'dc',
        schema_name: 'default',
        table_type: 'EXTERNAL',
        data_source_format: 'DELTA',
        storage_location: `${ext}/events`,
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      columns: { name: string; type_name: string; partition_index?: number }[];
    };
    expect(body.columns.map((c) => `${c.name}:${c.type_name}`)).toEqual([
      'id:LONG',
      'kind:STRING',
      'day:DATE',
    ]);
    expect(body.columns[2]!.partition_index).toBe(0);
    expect(await rows('SELECT id, kind, day FROM dc.default.events ORDER BY id')).toEqual([
      ['1', 'click', '2024-01-01'],
      ['2', 'view', '2024-01-02'],
      ['3', 'click', '2024-01-02'],
    ]);
  });

  it('joins with MANAGED tables, in CTEs and subqueries', async () => {
    await rows(`CREATE TABLE dc.default.kinds (kind STRING, label STRING)`);
    await rows(`INSERT INTO dc.default.kinds VALUES ('click', 'Click'), ('view', 'View')`);
    expect(
      await rows(
        `SELECT k.label, count(*) AS n FROM dc.default.events e JOIN dc.default.kinds k ON e.kind = k.kind GROUP BY k.label ORDER BY k.label`,
      ),
    ).toEqual([
      ['Click', '2'],
      ['View', '1'],
    ]);
    expect(
      await rows(
        `WITH c AS (SELECT * FROM events WHERE kind = 'click') SELECT count(*) FROM c WHERE id IN (SELECT id FROM default.events WHERE day = DATE'2024-01-02')`,
        'dc',
      ),
    ).toEqual([['1']]);
    // A CTE named like the table is the CTE, not the table.
    expect(await rows(`WITH events AS (SELECT 42 AS id) SELECT id FROM events`, 'dc')).toEqual([['42']]);
  });

  it('CREATE TABLE ... USING DELTA LOCATION writes the log and registers an EXTERNAL Delta table', async () => {
    const loc = `${ext}/made`;
    await rows(
      `CREATE TABLE dc.default.made (id BIGINT NOT NULL, name STRING COMMENT 'who', day DATE) USING DELTA PARTITIONED BY (day) LOCATION '${loc}'`,
    );
    expect(existsSync(`${loc}/_delta_log/00000000000000000000.json`)).toBe(true);
    const res = await ucApp.request('/api/2.1/unity-catalog/tables/dc.default.made');
    const t = (await res.json()) as {
      table_type: string;
      data_source_format: string;
      columns: { name: string; nullable: boolean }[];
    };
    expect(`${t.table_type}/${t.data_source_format}`).toBe('EXTERNAL/DELTA');
    expect(t.columns.map((c) => `${c.name}:${c.nullable}`)).toEqual(['id:false', 'name:true', 'day:true']);
    await rows(`INSERT INTO dc.default.made VALUES (1, 'a', DATE'2024-01-01'), (2, 'b', DATE'2024-01-02')`);
    const upd = await q(`UPDATE made SET name = 'x' WHERE id = 1`, 'dc');
    expect(upd.status.error?.message).toMatch(/UPDATE on an EXTERNAL Delta table/);
    expect(await rows('SELECT day, count(*) FROM dc.default.made GROUP BY day ORDER BY day')).toEqual([
      ['2024-01-01', '1'],
      ['2024-01-02', '1'],
    ]);
  });

  it('INSERT INTO appends a Delta commit that Spark reads; a commit by Spark is seen at once', async () => {
    expect(
      await rows(
        `INSERT INTO dc.default.events (id, kind, day) VALUES (10, 'buy', DATE'2024-01-03'), (11, 'buy', NULL)`,
      ),
    ).toEqual([['2', '2']]);
    expect(
      await rows(
        `INSERT INTO dc.default.events SELECT id + 100, kind, day FROM dc.default.events WHERE id < 3`,
      ),
    ).toEqual([['2', '2']]);
    expect(await rows('SELECT count(*), max(id) FROM dc.default.events')).toEqual([['7', '102']]);
    // Time travel: version 1 is Spark's first INSERT, before MiniLake's two appends.
    expect(await rows('SELECT count(*) FROM dc.default.events VERSION AS OF 1')).toEqual([['3']]);
    const { stdout } = await sparkSql(
      `SELECT count(*), count(day) FROM delta.\`${ext}/events\``,
      `INSERT INTO delta.\`${ext}/events\` VALUES (4, 'buy', DATE'2024-01-03')`,
    );
    expect(JSON.parse(stdout.trim().split('\n')[0]!)).toEqual([['7', '6']]);
    expect(await rows('SELECT count(*), max(id) FROM dc.default.events WHERE id < 100')).toEqual([
      ['6', '11'],
    ]);
  }, 200_000);
});
