/**
 * EXTERNAL Delta tables through the Statement API, in process: the real unity-catalog and sql services on one
 * DuckDB engine, over tables MiniLake wrote itself (no Spark needed) and tables written by real Spark +
 * delta-spark (that part skipped without `bash packages/engine-spark/install.sh`).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { locateInstall, settingsFrom } from '@minilake/engine-spark';
import { jsonInit, repoRoot } from '@minilake/testing';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSqlApps } from './statement-app.js';

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
    { timeout: 420_000, maxBuffer: 16 * 1024 * 1024 },
  );

/**
 * Runs statements on a throw-away in-process server (catalog `fx`): the Delta folders they write under `ext`
 * stay, registered nowhere else.
 */
async function writeFixtures(statements: string[]): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ml-delta-fx-'));
  const apps = await catalogSqlApps(dir);
  try {
    await apps.ucApp.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: 'fx' }));
    for (const statement of statements) {
      const res = await apps.sqlApp.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: apps.wh, statement, wait_timeout: '30s' }),
      );
      const body = (await res.json()) as { status: { state: string } };
      if (body.status.state !== 'SUCCEEDED') throw new Error(`${statement}: ${JSON.stringify(body.status)}`);
    }
  } finally {
    await apps.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('EXTERNAL Delta tables MiniLake wrote, through SQL (no Spark needed)', () => {
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
    // The tables are written by MiniLake itself (SQL on another in-process server, whose catalog is then
    // gone): this server finds plain Delta folders, as it would find Spark's.
    await writeFixtures([
      `CREATE TABLE fx.default.events (id BIGINT, kind STRING, day DATE) USING DELTA PARTITIONED BY (day) LOCATION '${ext}/events'`,
      `INSERT INTO fx.default.events VALUES (1, 'click', DATE'2024-01-01'), (2, 'view', DATE'2024-01-02'), (3, 'click', DATE'2024-01-02')`,
      // tt: three versions whose commit times the test sets (file times: the table has no in-commit timestamps)
      `CREATE TABLE fx.default.tt (id BIGINT) USING DELTA LOCATION '${ext}/tt'`,
      'INSERT INTO fx.default.tt VALUES (1)',
      'INSERT INTO fx.default.tt VALUES (2), (3)',
    ]);
    // Commit times of tt: version 0 at 2024-01-01, 1 at 2024-01-02, 2 at 2024-01-03 (midnight UTC).
    for (const v of [0, 1, 2]) {
      const when = new Date(Date.UTC(2024, 0, 1 + v));
      await utimes(`${ext}/tt/_delta_log/${String(v).padStart(20, '0')}.json`, when, when);
    }
    const apps = await catalogSqlApps(dataDir);
    closers.push(() => apps.close());
    ({ ucApp, sqlApp, wh } = apps);
    await ucApp.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: 'dc' }));
  }, 120_000);

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
    expect(await rows(`UPDATE made SET name = 'x' WHERE id = 1`, 'dc')).toEqual([['1']]);
    expect(await rows('SELECT day, count(*) FROM dc.default.made GROUP BY day ORDER BY day')).toEqual([
      ['2024-01-01', '1'],
      ['2024-01-02', '1'],
    ]);
  });

  it('INSERT INTO appends a Delta commit; VERSION AS OF reads before it', async () => {
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
    // Time travel: version 1 is the first INSERT, before the two appends.
    expect(await rows('SELECT count(*) FROM dc.default.events VERSION AS OF 1')).toEqual([['3']]);
  });

  const register = async (name: string, location = `${ext}/${name}`) => {
    const res = await ucApp.request(
      '/api/2.1/unity-catalog/tables',
      jsonInit('POST', {
        name,
        catalog_name: 'dc',
        schema_name: 'default',
        table_type: 'EXTERNAL',
        data_source_format: 'DELTA',
        storage_location: location,
      }),
    );
    expect(res.status).toBe(200);
  };

  it('time travels by VERSION AS OF, TIMESTAMP AS OF, @v and @yyyyMMddHHmmssSSS, with Delta errors', async () => {
    await register('tt');
    const count = async (ref: string) => (await rows(`SELECT count(*) FROM ${ref}`, 'dc'))[0]![0];
    expect(await count('tt VERSION AS OF 1')).toBe('1');
    expect(await count("tt TIMESTAMP AS OF '2024-01-01 12:00:00'")).toBe('0');
    expect(await count("tt TIMESTAMP AS OF '2024-01-02'")).toBe('1');
    expect(await count("default.tt TIMESTAMP AS OF TIMESTAMP'2024-01-02 23:59:59.999'")).toBe('1');
    expect(await count("dc.default.tt FOR TIMESTAMP AS OF '2024-01-03T00:00:00Z'")).toBe('3');
    expect(await count('tt@v1')).toBe('1');
    expect(await count('dc.default.tt@v2')).toBe('3');
    expect(await count('tt@20240102120000000')).toBe('1');
    // Both sides of a self-join at different versions.
    expect(
      await rows(
        'SELECT count(*) FROM tt@v2 a LEFT JOIN tt VERSION AS OF 1 b ON a.id = b.id WHERE b.id IS NULL',
        'dc',
      ),
    ).toEqual([['2']]);
    const late = await q("SELECT * FROM tt TIMESTAMP AS OF '2030-01-01 00:00:00'", 'dc');
    expect(late.status.error?.message).toMatch(
      /^\[DELTA_TIMESTAMP_GREATER_THAN_COMMIT\] .*2024-01-03 00:00:00/,
    );
    const early = await q("SELECT * FROM tt TIMESTAMP AS OF '2023-01-01'", 'dc');
    expect(early.status.error?.message).toMatch(/^\[DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION\]/);
    const far = await q('SELECT * FROM tt VERSION AS OF 7', 'dc');
    expect(far.status.error?.message).toMatch(
      /^\[DELTA_VERSION_NOT_FOUND\] Cannot time travel Delta table to version 7. Available versions: \[0, 2\]/,
    );
    const bad = await q("SELECT * FROM tt TIMESTAMP AS OF 'yesterday'", 'dc');
    expect(bad.status.error?.message).toMatch(/INVALID_TIME_TRAVEL_TIMESTAMP_EXPR/);
    const both = await q('SELECT * FROM tt@v1 VERSION AS OF 1', 'dc');
    expect(both.status.error?.message).toMatch(/DELTA_UNSUPPORTED_TIME_TRAVEL_MULTIPLE_FORMATS/);
    await rows('CREATE TABLE dc.default.plain (id INT)');
    const managed = await q('SELECT * FROM dc.default.plain VERSION AS OF 0');
    expect(managed.status.error?.message).toMatch(/which is not a Delta table/);
  });

  it('DESCRIBE HISTORY and DESCRIBE DETAIL answer from the Delta log', async () => {
    const r = await q('DESCRIBE HISTORY dc.default.tt');
    expect(r.status.state).toBe('SUCCEEDED');
    const manifest = (
      r as unknown as { manifest: { schema: { columns: { name: string; type_name: string }[] } } }
    ).manifest;
    expect(manifest.schema.columns.map((c) => c.name)).toEqual([
      'version',
      'timestamp',
      'userId',
      'userName',
      'operation',
      'operationParameters',
      'job',
      'notebook',
      'clusterId',
      'readVersion',
      'isolationLevel',
      'isBlindAppend',
      'operationMetrics',
      'userMetadata',
      'engineInfo',
    ]);
    const data = r.result!.data_array!;
    expect(data.map((x) => x[0])).toEqual(['2', '1', '0']);
    expect(data.map((x) => x[4])).toEqual(['WRITE', 'WRITE', 'CREATE TABLE']);
    expect(String(data[2]![1])).toMatch(/^2024-01-01T00:00:00(\.000)?Z$/);
    expect(data[0]![9]).toBe('1');
    expect(JSON.parse(String(data[0]![12]))).toMatchObject({ numOutputRows: '2' });
    expect(String(data[0]![14])).toMatch(/MiniLake/);
    expect(await rows('DESCRIBE HISTORY tt LIMIT 1', 'dc')).toHaveLength(1);

    const d = await q('DESCRIBE DETAIL dc.default.events');
    const cols = (d as unknown as { manifest: { schema: { columns: { name: string }[] } } }).manifest.schema
      .columns;
    const row = Object.fromEntries(cols.map((c, i) => [c.name, d.result!.data_array![0]![i]]));
    expect(row).toMatchObject({ format: 'delta', name: 'dc.default.events', minReaderVersion: '1' });
    expect(JSON.parse(String(row.partitionColumns))).toEqual(['day']);
    expect(Object.keys(row)).toEqual([
      'format',
      'id',
      'name',
      'description',
      'location',
      'createdAt',
      'lastModified',
      'partitionColumns',
      'clusteringColumns',
      'numFiles',
      'sizeInBytes',
      'properties',
      'minReaderVersion',
      'minWriterVersion',
      'tableFeatures',
      'statistics',
    ]);
    const none = await q('DESCRIBE HISTORY dc.default.nope');
    expect(none.status.error?.message).toMatch(/TABLE_OR_VIEW_NOT_FOUND/);
    expect(await rows(`DESCRIBE HISTORY delta.\`${ext}/tt\` LIMIT 2`)).toHaveLength(2);
  });

  it('reads delta.`/path` (time travel too), volume paths, and refuses paths inside the data directory', async () => {
    expect(await rows(`SELECT count(*) FROM delta.\`${ext}/tt\``)).toEqual([['3']]);
    expect(await rows(`SELECT count(*) FROM delta.\`${ext}/tt\` VERSION AS OF 1`)).toEqual([['1']]);
    expect(await rows(`SELECT count(*) FROM delta.\`file://${ext}/events\` VERSION AS OF 1`)).toEqual([
      ['3'],
    ]);
    const notDelta = await q(`SELECT * FROM delta.\`${ext}\``);
    expect(notDelta.status.error?.message).toMatch(/^\[DELTA_MISSING_DELTA_TABLE\]/);
    const inside = await q(`SELECT * FROM delta.\`${dataDir}/unity-catalog\``);
    expect(inside.status.error?.message).toMatch(/managed storage/);
    const climb = await q(`SELECT * FROM delta.\`${ext}/../etc\``);
    expect(climb.status.error?.message).toMatch(/'\.\.'/);
    const vol = await ucApp.request(
      '/api/2.1/unity-catalog/volumes',
      jsonInit('POST', { name: 'v', catalog_name: 'dc', schema_name: 'default', volume_type: 'MANAGED' }),
    );
    expect(vol.status).toBe(200);
    const volDir = ((await vol.json()) as { storage_location: string }).storage_location.replace(
      /^file:\/\//,
      '',
    );
    await cp(`${ext}/tt`, `${volDir}/tables/tt`, { recursive: true });
    expect(
      await rows('SELECT count(*) FROM delta.`/Volumes/dc/default/v/tables/tt` VERSION AS OF 1'),
    ).toEqual([['1']]);
    const escape = await q('SELECT * FROM delta.`/Volumes/dc/default/v/../../x`');
    expect(escape.status.error?.message).toMatch(/leaves the volume/);
  });
});

describe.skipIf(!install)(
  'EXTERNAL Delta tables Spark wrote (needs bash packages/engine-spark/install.sh)',
  () => {
    let ext: string;
    let dataDir: string;
    let ucApp: Hono;
    let sqlApp: Hono;
    let wh: string;
    const closers: (() => unknown)[] = [];

    const q = async (statement: string, catalog?: string) => {
      const res = await sqlApp.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', {
          warehouse_id: wh,
          statement,
          wait_timeout: '30s',
          ...(catalog ? { catalog } : {}),
        }),
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
      // DELTA_TEST_SQL_TABLES=<dir> copies tables these statements wrote before (same names), to skip Spark.
      const prebuilt = process.env.DELTA_TEST_SQL_TABLES;
      if (prebuilt) await cp(prebuilt, ext, { recursive: true });
      else
        await sparkSql(
          // ict: in-commit timestamps, so time travel reads commitInfo.inCommitTimestamp
          `CREATE TABLE ${t('ict')} (id BIGINT) USING DELTA TBLPROPERTIES ('delta.enableInCommitTimestamps' = 'true')`,
          `INSERT INTO ${t('ict')} VALUES (1)`,
          // dvt: deletion vectors
          `CREATE TABLE ${t('dvt')} (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')`,
          `INSERT INTO ${t('dvt')} SELECT id, IF(id % 2 = 0, 'even', 'odd') FROM range(20)`,
          `DELETE FROM ${t('dvt')} WHERE id IN (3, 4, 5)`,
        );
      // events: written by MiniLake, read and appended to by Spark.
      await writeFixtures([
        `CREATE TABLE fx.default.events (id BIGINT, kind STRING, day DATE) USING DELTA PARTITIONED BY (day) LOCATION '${ext}/events'`,
        `INSERT INTO fx.default.events VALUES (1, 'click', DATE'2024-01-01'), (2, 'view', DATE'2024-01-02'), (3, 'click', DATE'2024-01-02')`,
      ]);
      const apps = await catalogSqlApps(dataDir);
      closers.push(() => apps.close());
      ({ ucApp, sqlApp, wh } = apps);
      await ucApp.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: 'dc' }));
    }, 480_000);

    afterAll(async () => {
      for (const c of closers) await c();
      await rm(ext, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    });

    const register = async (name: string, location = `${ext}/${name}`) => {
      const res = await ucApp.request(
        '/api/2.1/unity-catalog/tables',
        jsonInit('POST', {
          name,
          catalog_name: 'dc',
          schema_name: 'default',
          table_type: 'EXTERNAL',
          data_source_format: 'DELTA',
          storage_location: location,
        }),
      );
      expect(res.status).toBe(200);
    };

    it('Spark reads the commits MiniLake appends; a commit by Spark is seen at once', async () => {
      await register('events');
      expect(
        await rows(
          `INSERT INTO dc.default.events (id, kind, day) VALUES (10, 'buy', DATE'2024-01-03'), (11, 'buy', NULL)`,
        ),
      ).toEqual([['2', '2']]);
      const { stdout } = await sparkSql(
        `SELECT count(*), count(day) FROM delta.\`${ext}/events\``,
        `INSERT INTO delta.\`${ext}/events\` VALUES (4, 'buy', DATE'2024-01-03')`,
      );
      expect(JSON.parse(stdout.trim().split('\n')[0]!)).toEqual([['5', '4']]);
      expect(await rows('SELECT count(*), max(id) FROM dc.default.events WHERE id < 100')).toEqual([
        ['6', '11'],
      ]);
    }, 450_000);

    it('reads deletion vectors written by Spark through SQL', async () => {
      await register('dvt');
      expect(await rows('SELECT p, count(*), sum(id) FROM dc.default.dvt GROUP BY p ORDER BY p')).toEqual([
        ['even', '9', String([0, 2, 6, 8, 10, 12, 14, 16, 18].reduce((a, b) => a + b))],
        ['odd', '8', String([1, 7, 9, 11, 13, 15, 17, 19].reduce((a, b) => a + b))],
      ]);
      expect(await rows('SELECT count(*) FROM dc.default.dvt VERSION AS OF 1')).toEqual([['20']]);
    });

    it('time travels by in-commit timestamps when the table has them', async () => {
      await register('ict');
      const log = await readFile(`${ext}/ict/_delta_log/00000000000000000001.json`, 'utf8');
      const ict = (JSON.parse(log.split('\n')[0]!) as { commitInfo: { inCommitTimestamp: number } })
        .commitInfo.inCommitTimestamp;
      expect(typeof ict).toBe('number');
      // The file time is later than the in-commit timestamp: time travel must not use it.
      const later = new Date(ict + 3_600_000);
      await utimes(`${ext}/ict/_delta_log/00000000000000000001.json`, later, later);
      const at = new Date(ict).toISOString().replace('T', ' ').replace('Z', '');
      expect(await rows(`SELECT count(*) FROM dc.default.ict TIMESTAMP AS OF '${at}'`)).toEqual([['1']]);
    });

    it('DESCRIBE HISTORY and DETAIL show what Spark wrote (engine, deletion vectors)', async () => {
      // dvt was registered by the deletion vector test above.
      const h = await q('DESCRIBE HISTORY dc.default.dvt LIMIT 1');
      expect(String(h.result!.data_array![0]![14])).toMatch(/Apache-Spark\/4\.1\.1 Delta-Lake\/4\.4\.0/);
      const d = await q('DESCRIBE DETAIL dc.default.dvt');
      const cols = (d as unknown as { manifest: { schema: { columns: { name: string }[] } } }).manifest.schema
        .columns;
      const row = Object.fromEntries(cols.map((c, i) => [c.name, d.result!.data_array![0]![i]]));
      expect(row).toMatchObject({
        format: 'delta',
        name: 'dc.default.dvt',
        numFiles: '2',
        minReaderVersion: '3',
        minWriterVersion: '7',
      });
      expect(JSON.parse(String(row.partitionColumns))).toEqual(['p']);
      expect(JSON.parse(String(row.tableFeatures))).toContain('deletionVectors');
      expect(JSON.parse(String(row.properties))).toMatchObject({ 'delta.enableDeletionVectors': 'true' });
      expect(JSON.parse(String(row.statistics))).toMatchObject({ numRowsDeletedByDeletionVectors: 3 });
      expect(await rows(`SELECT count(*) FROM delta.\`file://${ext}/dvt\``)).toEqual([['17']]);
    });
  },
);

describe('DML on EXTERNAL Delta tables through the Statement API', () => {
  let ext: string;
  let dataDir: string;
  let sqlApp: Hono;
  let wh: string;
  const closers: (() => unknown)[] = [];

  const q = async (statement: string) => {
    const res = await sqlApp.request(
      '/api/2.0/sql/statements',
      jsonInit('POST', { warehouse_id: wh, statement, wait_timeout: '30s' }),
    );
    return (await res.json()) as {
      status: { state: string; error?: { message: string } };
      manifest?: { schema?: { columns?: { name: string }[] } };
      result?: { data_array?: unknown[][] };
    };
  };
  const rows = async (statement: string) => {
    const r = await q(statement);
    if (r.status.state !== 'SUCCEEDED') throw new Error(`${statement}: ${JSON.stringify(r.status)}`);
    return r.result?.data_array ?? [];
  };
  const columns = async (statement: string) =>
    ((await q(statement)).manifest?.schema?.columns ?? []).map((c) => c.name);
  const history = async (name: string) => {
    const dir = path.join(ext, name, '_delta_log');
    const out: string[] = [];
    for (const f of (await readdir(dir)).filter((x) => x.endsWith('.json')).sort()) {
      const info = (await readFile(path.join(dir, f), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { commitInfo?: { operation: string } })
        .find((a) => a.commitInfo);
      out.push(info!.commitInfo!.operation);
    }
    return out;
  };

  beforeAll(async () => {
    ext = await mkdtemp(path.join(os.tmpdir(), 'ml-delta-dml-ext-'));
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ml-delta-dml-data-'));
    const apps = await catalogSqlApps(dataDir);
    closers.push(() => apps.close());
    ({ sqlApp, wh } = apps);
    await apps.ucApp.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: 'dm' }));
    await rows(
      `CREATE TABLE dm.default.ev (id BIGINT, name STRING, day DATE) USING DELTA PARTITIONED BY (day) LOCATION '${ext}/ev'`,
    );
    await rows(
      `INSERT INTO dm.default.ev VALUES (1, 'a', DATE'2024-01-01'), (2, 'b', DATE'2024-01-02'), (3, 'c', DATE'2024-01-02')`,
    );
  }, 60_000);

  afterAll(async () => {
    for (const c of closers) await c();
    await rm(ext, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('UPDATE, DELETE and MERGE answer Databricks counters and commit copy-on-write', async () => {
    expect(await rows(`UPDATE dm.default.ev SET name = upper(name) WHERE ev.id >= 2`)).toEqual([['2']]);
    expect(await columns(`DELETE FROM dm.default.ev WHERE id = 99`)).toEqual(['num_affected_rows']);
    expect(await rows(`DELETE FROM dm.default.ev AS e WHERE e.id = 1`)).toEqual([['1']]);
    const merge = `MERGE INTO dm.default.ev t USING (SELECT 3 AS id, 'x' AS name, DATE'2024-01-02' AS day UNION ALL SELECT 4, 'd', DATE'2024-01-03') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`;
    expect(await columns(merge.replace("'x'", "'C'"))).toEqual([
      'num_affected_rows',
      'num_updated_rows',
      'num_deleted_rows',
      'num_inserted_rows',
    ]);
    expect(await rows('SELECT id, name, day FROM dm.default.ev ORDER BY id')).toEqual([
      ['2', 'B', '2024-01-02'],
      ['3', 'C', '2024-01-02'],
      ['4', 'd', '2024-01-03'],
    ]);
    expect(
      await rows(
        `MERGE INTO dm.default.ev t USING (SELECT 4 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE AND t.id = 2 THEN UPDATE SET name = 'src'`,
      ),
    ).toEqual([['2', '1', '1', '0']]);
    expect(await rows('SELECT id, name FROM dm.default.ev ORDER BY id')).toEqual([
      ['2', 'src'],
      ['3', 'C'],
    ]);
    expect(await history('ev')).toEqual(['CREATE TABLE', 'WRITE', 'UPDATE', 'DELETE', 'MERGE', 'MERGE']);
    expect(await rows('SELECT count(*) FROM dm.default.ev VERSION AS OF 1')).toEqual([['3']]);
  });

  it('stages only what can change: a file without a matching row is neither read into the stage nor rewritten', async () => {
    await rows(`CREATE TABLE dm.default.pr (id BIGINT, name STRING) USING DELTA LOCATION '${ext}/pr'`);
    await rows(`INSERT INTO dm.default.pr SELECT id, 'a' FROM range(0, 100) AS r(id)`);
    await rows(`INSERT INTO dm.default.pr SELECT id, 'b' FROM range(100, 200) AS r(id)`);
    const log = async (v: number) =>
      (await readFile(path.join(ext, 'pr', '_delta_log', `${String(v).padStart(20, '0')}.json`), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map(
          (l) =>
            JSON.parse(l) as Record<string, { path?: string; operationMetrics?: Record<string, string> }>,
        );
    expect(await rows(`UPDATE dm.default.pr AS p SET name = 'u' WHERE p.id BETWEEN 150 AND 151`)).toEqual([
      ['2'],
    ]);
    let c = await log(3);
    expect(c.filter((a) => a.remove)).toHaveLength(1);
    expect(c.find((a) => a.commitInfo)!.commitInfo!.operationMetrics).toMatchObject({
      numUpdatedRows: '2',
      numCopiedRows: '98',
      numRemovedFiles: '1',
    });
    expect(await rows(`DELETE FROM dm.default.pr WHERE id IN (SELECT max(id) FROM dm.default.pr)`)).toEqual([
      ['1'],
    ]);
    const merge = `MERGE INTO dm.default.pr t USING (SELECT 5 AS id, 'm' AS name UNION ALL SELECT 500, 'n') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`;
    expect(await rows(merge)).toEqual([['2', '1', '0', '1']]);
    c = await log(5);
    expect(c.find((a) => a.commitInfo)!.commitInfo!.operationMetrics).toMatchObject({
      numTargetRowsCopied: '99',
      numTargetFilesRemoved: '1',
    });
    expect(
      await rows(
        `SELECT count(*), sum(id), count(*) FILTER (WHERE name = 'u'), max(name) FROM dm.default.pr`,
      ),
    ).toEqual([['200', String((199 * 200) / 2 - 199 + 500), '2', 'u']]);
  }, 120_000);

  it('writes deletion vectors when the table enables them (protocol 3/7), and reads them back', async () => {
    await rows(
      `CREATE TABLE dm.default.dvt (id BIGINT, name STRING) USING DELTA LOCATION '${ext}/dvt' TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')`,
    );
    await rows(`INSERT INTO dm.default.dvt SELECT id, 'n' || id FROM range(0, 1000) AS r(id)`);
    expect(await rows(`DELETE FROM dm.default.dvt WHERE id % 10 = 0`)).toEqual([['100']]);
    expect(await rows(`UPDATE dm.default.dvt SET name = 'u' WHERE id BETWEEN 1 AND 5`)).toEqual([['5']]);
    const merge = `MERGE INTO dm.default.dvt t USING (SELECT id, 'm' AS name FROM range(995, 1005) AS r(id)) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`;
    expect(await rows(merge)).toEqual([['10', '5', '0', '5']]);
    expect(
      await rows(
        `SELECT count(*), count(*) FILTER (WHERE name = 'u'), count(*) FILTER (WHERE name = 'm') FROM dm.default.dvt`,
      ),
    ).toEqual([['905', '5', '10']]);
    const files = await readdir(path.join(ext, 'dvt'));
    expect(files.filter((f) => f.startsWith('deletion_vector_')).length).toBe(3);
    const v0 = await readFile(path.join(ext, 'dvt', '_delta_log', `${'0'.padStart(20, '0')}.json`), 'utf8');
    expect(v0).toContain('"readerFeatures":["deletionVectors"]');
    const detail = await q(`DESCRIBE DETAIL dm.default.dvt`);
    expect(JSON.stringify(detail.result?.data_array)).toContain('deletionVectors');
    expect(await rows(`SELECT count(*) FROM dm.default.dvt VERSION AS OF 2`)).toEqual([['900']]);
    expect(await history('dvt')).toEqual(['CREATE TABLE', 'WRITE', 'DELETE', 'UPDATE', 'MERGE']);
  }, 120_000);

  it('refuses a MERGE where several source rows change one target row', async () => {
    const r = await q(
      `MERGE INTO dm.default.ev t USING (SELECT 3 AS id, 'p' AS name UNION ALL SELECT 3, 'q') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name`,
    );
    expect(r.status.state).toBe('FAILED');
    expect(r.status.error?.message).toMatch(/DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE/);
    expect(await rows('SELECT name FROM dm.default.ev WHERE id = 3')).toEqual([['C']]);
  });

  it('INSERT OVERWRITE (whole table and one partition), TRUNCATE and CTAS into a location', async () => {
    await rows(
      `CREATE TABLE dm.default.ow (id BIGINT, day DATE) USING DELTA PARTITIONED BY (day) LOCATION '${ext}/ow'`,
    );
    await rows(`INSERT INTO dm.default.ow VALUES (1, DATE'2024-01-01'), (2, DATE'2024-01-02')`);
    expect(await rows(`INSERT OVERWRITE dm.default.ow PARTITION (day = '2024-01-02') SELECT 20`)).toEqual([
      ['1', '1'],
    ]);
    expect(await rows('SELECT id, day FROM dm.default.ow ORDER BY id')).toEqual([
      ['1', '2024-01-01'],
      ['20', '2024-01-02'],
    ]);
    expect(await rows(`INSERT OVERWRITE TABLE dm.default.ow SELECT id * 10, day FROM dm.default.ow`)).toEqual(
      [['2', '2']],
    );
    expect(await rows('SELECT id FROM dm.default.ow ORDER BY id')).toEqual([['10'], ['200']]);
    await rows('TRUNCATE TABLE dm.default.ow');
    expect(await rows('SELECT count(*) FROM dm.default.ow')).toEqual([['0']]);
    expect(await history('ow')).toEqual(['CREATE TABLE', 'WRITE', 'WRITE', 'WRITE', 'TRUNCATE']);

    expect(
      await rows(
        `CREATE TABLE dm.default.ct USING DELTA PARTITIONED BY (day) LOCATION '${ext}/ct' AS SELECT id, name, day FROM dm.default.ev`,
      ),
    ).toEqual([['2', '2']]);
    expect(await rows('SELECT id, name, day FROM dm.default.ct ORDER BY id')).toEqual([
      ['2', 'src', '2024-01-02'],
      ['3', 'C', '2024-01-02'],
    ]);
    await rows(`CREATE OR REPLACE TABLE dm.default.ct USING DELTA LOCATION '${ext}/ct' AS SELECT 7 AS n`);
    expect(await rows('SELECT * FROM dm.default.ct')).toEqual([['7']]);
    expect(await history('ct')).toEqual(['CREATE TABLE', 'WRITE', 'CREATE OR REPLACE TABLE AS SELECT']);
  });

  it('OPTIMIZE compacts and VACUUM honours the retention check', async () => {
    await rows(`INSERT INTO dm.default.ev VALUES (5, 'e', DATE'2024-01-02')`);
    const opt = await rows('OPTIMIZE dm.default.ev ZORDER BY (id)');
    expect(JSON.parse(String(opt[0]![1]))).toMatchObject({ numFilesAdded: 1, numFilesRemoved: 2 });
    const v = await q('VACUUM dm.default.ev RETAIN 0 HOURS');
    expect(v.status.error?.message).toMatch(/retentionDurationCheck/);
    const dry = await rows(
      'SET spark.databricks.delta.retentionDurationCheck.enabled = false; VACUUM dm.default.ev RETAIN 0 HOURS DRY RUN',
    );
    expect(dry.length).toBeGreaterThan(0);
    await rows(
      'SET spark.databricks.delta.retentionDurationCheck.enabled = false; VACUUM dm.default.ev RETAIN 0 HOURS',
    );
    expect(
      (
        await rows(
          'SET spark.databricks.delta.retentionDurationCheck.enabled = false; VACUUM dm.default.ev RETAIN 0 HOURS DRY RUN',
        )
      ).length,
    ).toBe(0);
    expect(await rows('SELECT id FROM dm.default.ev ORDER BY id')).toEqual([['2'], ['3'], ['5']]);
  });
});
