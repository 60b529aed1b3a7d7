/**
 * Copy-on-write DML, overwrite, conflicts, checkpoints, OPTIMIZE and VACUUM on real Delta folders, with
 * DuckDB running the statements on the staged table (as the SQL layer does) and Spark reading the result.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, rm, utimes } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDbEngine } from '@minilake/engine-duckdb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Action,
  DeltaReader,
  type PruneTerm,
  DeltaTable,
  type SqlRunner,
  append,
  commit,
  createTable,
  readCommit,
  writeFiles,
} from '../src/index.js';
import { deltaFixture, install, schema, sparkSql } from './fixture.js';

let dir: string;
let engine: DuckDbEngine;
let reader: DeltaReader;
const fixture = deltaFixture('ml-delta-dml-');
beforeAll(() => void ({ dir, engine, reader } = fixture));

/** Runs `fn` with a runner on one connection (staged temporary tables live on a connection). */
function onConnection<T>(fn: (sql: SqlRunner) => Promise<T>): Promise<T> {
  return engine.withConnection((conn) =>
    fn({ all: async (q) => (await conn.runAndReadAll(q)).getRowObjectsJson() as Record<string, unknown>[] }),
  );
}

const rowsOf = async (root: string, version?: number) =>
  (
    await engine.all(
      `SELECT id, name, day::VARCHAR AS day FROM (${await reader.scanSql(await reader.snapshot(root, version))}) ORDER BY id`,
    )
  ).map((r) => [Number(r.id), r.name, r.day]);

/** One statement on the staged table, committed like the SQL layer does. */
async function dml(
  root: string,
  kind: 'UPDATE' | 'DELETE' | 'MERGE',
  statement: (t: string) => string,
  probe?: string,
) {
  return onConnection(async (sql) => {
    const dt = new DeltaTable({ sql, reader, root });
    // The probe is what the SQL layer derives from the statement's condition (over the view stg_scan).
    const staged = await dt.stage('stg', probe === undefined ? {} : { probe, view: 'stg_scan' });
    try {
      // As the SQL layer: the staged table tells which files changed, RETURNING only counts.
      const ret = kind === 'MERGE' ? 'merge_action, __ml_row' : '__ml_row';
      const rows = await sql.all(`${statement('temp.main.stg')} RETURNING ${ret}`);
      const n = { UPDATE: 0, DELETE: 0, INSERT: 0 } as Record<string, number>;
      for (const r of rows) n[kind === 'MERGE' ? String(r.merge_action) : kind]!++;
      return await staged.commit({
        operation: kind,
        touched: [],
        counts: { updated: n.UPDATE!, deleted: n.DELETE!, inserted: n.INSERT! },
      });
    } finally {
      await staged.drop();
    }
  });
}

async function newTable(name: string, partitionColumns: string[] = ['day']) {
  const root = path.join(dir, name);
  await createTable(reader, root, { schema, partitionColumns });
  await append(
    engine,
    reader,
    root,
    `(VALUES (1::BIGINT, 'a', DATE '2024-01-01'), (2, 'b', DATE '2024-01-02'), (3, 'c', DATE '2024-01-02')) AS t(id, name, day)`,
  );
  return root;
}

const commitOf = async (root: string, v: number) => {
  const actions = await readCommit(root, v);
  return {
    info: actions.find((a) => a.commitInfo)!.commitInfo!,
    removes: actions.filter((a) => a.remove).map((a) => a.remove!),
    adds: actions.filter((a) => a.add).map((a) => a.add!),
  };
};

describe('copy-on-write DML', () => {
  it('UPDATE rewrites only the file holding the changed row, with Databricks metrics', async () => {
    const root = await newTable('upd');
    expect(
      await dml(root, 'UPDATE', (t) => `UPDATE ${t} SET name = 'B', __ml_touched = true WHERE id = 2`),
    ).toBe(2);
    expect(await rowsOf(root)).toEqual([
      [1, 'a', '2024-01-01'],
      [2, 'B', '2024-01-02'],
      [3, 'c', '2024-01-02'],
    ]);
    const c = await commitOf(root, 2);
    expect(c.info.operation).toBe('UPDATE');
    expect(c.info.operationMetrics).toMatchObject({
      numUpdatedRows: '1',
      numCopiedRows: '1',
      numRemovedFiles: '1',
      numAddedFiles: '1',
    });
    expect(c.removes).toHaveLength(1);
    expect(c.removes[0]).toMatchObject({
      dataChange: true,
      partitionValues: { day: '2024-01-02' },
      extendedFileMetadata: true,
    });
    expect(typeof c.removes[0]!.deletionTimestamp).toBe('number');
    expect(c.adds[0]!.partitionValues).toEqual({ day: '2024-01-02' });
    // An UPDATE matching nothing commits nothing.
    expect(await dml(root, 'UPDATE', (t) => `UPDATE ${t} SET name = 'x' WHERE id = 99`)).toBeUndefined();
  });

  it('stages only the files that partition values and stats leave (prune terms)', async () => {
    const root = await newTable('prune');
    const staged = (prune: PruneTerm[]) =>
      onConnection(async (sql) => {
        const st = await new DeltaTable({ sql, reader, root }).stage('stg', { prune });
        try {
          return Number((await sql.all('SELECT count(*) AS n FROM temp.main.stg'))[0]!.n);
        } finally {
          await st.drop();
        }
      });
    expect(await staged([])).toBe(3);
    expect(await staged([{ column: 'day', op: '=', values: ['2024-01-02'] }])).toBe(2);
    expect(await staged([{ column: 'id', op: '<', values: [2] }])).toBe(1);
    expect(await staged([{ column: 'id', op: '>', values: [5] }])).toBe(0);
    // Nothing staged, nothing committed.
    expect(await dml(root, 'DELETE', (t) => `DELETE FROM ${t} WHERE id > 5`)).toBeUndefined();
  });

  it('DELETE removes whole files without rewriting when every row goes', async () => {
    const root = await newTable('del');
    await dml(root, 'DELETE', (t) => `DELETE FROM ${t} WHERE day = DATE '2024-01-02'`);
    expect(await rowsOf(root)).toEqual([[1, 'a', '2024-01-01']]);
    const c = await commitOf(root, 2);
    expect(c.info.operation).toBe('DELETE');
    expect(c.info.operationMetrics).toMatchObject({
      numDeletedRows: '2',
      numRemovedFiles: '1',
      numAddedFiles: '0',
    });
    expect(c.adds).toEqual([]);
    expect(await rowsOf(root, 1)).toHaveLength(3);
  });

  it('MERGE updates, deletes and inserts in one commit', async () => {
    const root = await newTable('merge');
    await dml(
      root,
      'MERGE',
      (t) =>
        `MERGE INTO ${t} AS t USING (SELECT 3 AS id, 'C' AS name, DATE '2024-01-02' AS day UNION ALL SELECT 1, 'gone', NULL UNION ALL SELECT 4, 'd', DATE '2024-01-03') s ON t.id = s.id ` +
        `WHEN MATCHED AND s.name = 'gone' THEN DELETE WHEN MATCHED THEN UPDATE SET name = s.name, __ml_touched = true WHEN NOT MATCHED THEN INSERT (id, name, day) VALUES (s.id, s.name, s.day)`,
    );
    expect(await rowsOf(root)).toEqual([
      [2, 'b', '2024-01-02'],
      [3, 'C', '2024-01-02'],
      [4, 'd', '2024-01-03'],
    ]);
    const c = await commitOf(root, 2);
    expect(c.info.operation).toBe('MERGE');
    expect(c.info.operationMetrics).toMatchObject({
      numTargetRowsUpdated: '1',
      numTargetRowsDeleted: '1',
      numTargetRowsInserted: '1',
      numTargetRowsCopied: '1',
      numTargetFilesRemoved: '2',
    });
  });
});

describe('overwrite and truncate', () => {
  it('INSERT OVERWRITE of a static partition replaces only its files; TRUNCATE removes all', async () => {
    const root = await newTable('ow');
    await onConnection(async (sql) => {
      const dt = new DeltaTable({ sql, reader, root });
      await dt.overwrite(`(SELECT 9::BIGINT AS id, 'z' AS name) AS t`, { partition: { day: '2024-01-02' } });
    });
    expect(await rowsOf(root)).toEqual([
      [1, 'a', '2024-01-01'],
      [9, 'z', '2024-01-02'],
    ]);
    expect((await commitOf(root, 2)).info.operationParameters).toMatchObject({ mode: 'Overwrite' });
    await onConnection(async (sql) => {
      const dt = new DeltaTable({ sql, reader, root });
      await dt.overwrite(`(SELECT 5::BIGINT AS id, 'w' AS name, NULL::DATE AS day) AS t`);
    });
    expect(await rowsOf(root)).toEqual([[5, 'w', null]]);
    await onConnection((sql) =>
      new DeltaTable({ sql, reader, root }).overwrite(undefined, { operation: 'TRUNCATE' }),
    );
    expect(await rowsOf(root)).toEqual([]);
    expect((await commitOf(root, 4)).info.operation).toBe('TRUNCATE');
  });
});

describe('optimistic concurrency', () => {
  it('a DELETE whose version an append took retries; a DELETE racing a DELETE fails and cleans up', async () => {
    const root = await newTable('race', []);
    await append(engine, reader, root, `(SELECT 4::BIGINT AS id, 'd' AS name, NULL::DATE AS day)`);
    // Writer A stages on version 2, then B appends (version 3) before A commits: A commits version 4.
    const v = await onConnection(async (sql) => {
      const dt = new DeltaTable({ sql, reader, root });
      const staged = await dt.stage('stg_a');
      await append(engine, reader, root, `(SELECT 5::BIGINT AS id, 'e' AS name, NULL::DATE AS day)`);
      await sql.all(`DELETE FROM temp.main.stg_a WHERE id = 4`);
      const r = await staged.commit({
        operation: 'DELETE',
        touched: [],
        counts: { updated: 0, deleted: 1, inserted: 0 },
      });
      await staged.drop();
      return r;
    });
    expect(v).toBe(4);
    expect((await rowsOf(root)).map((r) => r[0])).toEqual([1, 2, 3, 5]);

    // Two DELETEs staged on the same version: the second to commit read a file the first removed.
    const before = new Set(await readdir(root));
    const err = await onConnection(async (sql) => {
      const a = await new DeltaTable({ sql, reader, root }).stage('stg_a');
      const b = await new DeltaTable({ sql, reader, root }).stage('stg_b');
      await sql.all(`DELETE FROM temp.main.stg_a WHERE id = 1`);
      await sql.all(`UPDATE temp.main.stg_b SET name = 'x', __ml_touched = true WHERE id = 2`);
      await a.commit({
        operation: 'DELETE',
        touched: [],
        counts: { updated: 0, deleted: 1, inserted: 0 },
      });
      const e = await b
        .commit({
          operation: 'UPDATE',
          touched: [],
          counts: { updated: 1, deleted: 0, inserted: 0 },
        })
        .catch((x: unknown) => x);
      await a.drop();
      await b.drop();
      return e as Error;
    });
    expect(err.message).toMatch(/DELTA_CONCURRENT_DELETE_(READ|DELETE)/);
    // A's rewrite added files; B's were removed again.
    const after = (await readdir(root)).filter((f) => !before.has(f));
    const live = new Set((await reader.snapshot(root)).files.map((f) => f.path));
    expect(after.filter((f) => f.endsWith('.parquet') && !live.has(f))).toEqual([]);
  });
});

describe('checkpoints, OPTIMIZE, VACUUM', () => {
  it('writes a checkpoint at version 10 that a fresh reader uses', async () => {
    const root = await newTable('cp', []);
    for (let i = 0; i < 9; i++)
      await append(engine, reader, root, `(SELECT ${10 + i}::BIGINT AS id, 'n' AS name, NULL::DATE AS day)`);
    // The checkpoint is written after the commit returns.
    await reader.settled();
    const log = path.join(root, '_delta_log');
    expect(existsSync(path.join(log, '00000000000000000010.checkpoint.parquet'))).toBe(true);
    expect(JSON.parse(await readFile(path.join(log, '_last_checkpoint'), 'utf8'))).toMatchObject({
      version: 10,
      numOfAddFiles: 10,
    });
    // A fresh reader with the JSON commits before the checkpoint gone still reads version 10 and after.
    await rm(path.join(log, '00000000000000000005.json'));
    await append(engine, reader, root, `(SELECT 99::BIGINT AS id, 'n' AS name, NULL::DATE AS day)`);
    const fresh = new DeltaReader({ sql: engine });
    const snap = await fresh.snapshot(root);
    expect(snap.version).toBe(11);
    const n = await engine.all(`SELECT count(*)::INT AS n FROM (${await fresh.scanSql(snap)})`);
    expect(n[0]!.n).toBe(13);
  });

  it('a failed checkpoint leaves the committed table readable, and is reported', async () => {
    // The checkpoint runs on the reader's own runner: this one fails its COPY half way.
    const failing = {
      all: async (q: string) => {
        if (q.includes('"txn", "add", "remove"')) throw new Error('disk full');
        return engine.all(q);
      },
    };
    const r = new DeltaReader({ sql: failing });
    const root = await newTable('cpfail', []);
    const errors: unknown[] = [];
    for (let i = 0; i < 9; i++) {
      const snap = await r.snapshot(root);
      const { adds } = await writeFiles(
        engine,
        snap,
        `(SELECT ${i}::BIGINT AS id, 'n' AS name, NULL::DATE AS day)`,
        1,
      );
      await commit(
        root,
        snap,
        adds.map((add) => ({ add })),
        {
          reader: r,
          sql: engine,
          onCheckpointError: (e) => errors.push(e),
        },
      );
    }
    await r.settled();
    expect(errors.map(String)).toEqual(['Error: disk full']);
    const log = await readdir(path.join(root, '_delta_log'));
    expect(log.filter((n) => n.includes('checkpoint') || n.startsWith('.ml-'))).toEqual([]);
    const fresh = new DeltaReader({ sql: engine });
    const snap = await fresh.snapshot(root);
    expect(snap.version).toBe(10);
    expect(snap.files).toHaveLength(10);
  });

  it('the snapshot after its own commit is the one a fresh reader replays from the log', async () => {
    const root = await newTable('own', []);
    await dml(root, 'UPDATE', (t) => `UPDATE ${t} SET name = 'B', __ml_touched = true WHERE id = 2`);
    const mine = await reader.snapshot(root);
    const fresh = await new DeltaReader({ sql: engine }).snapshot(root);
    expect(mine.version).toBe(fresh.version);
    expect(mine.files).toEqual(fresh.files);
    expect(mine.metadata).toEqual(fresh.metadata);
    expect(mine.protocol).toEqual(fresh.protocol);
    expect(mine.timestamp).toBe(fresh.timestamp);
    expect((await rowsOf(root)).map((r) => r[1])).toEqual(['a', 'B', 'c']);
  });

  it('OPTIMIZE compacts small files per partition; VACUUM deletes them after the retention', async () => {
    const root = await newTable('opt');
    await append(engine, reader, root, `(SELECT 4::BIGINT AS id, 'd' AS name, DATE '2024-01-02' AS day)`);
    const before = await rowsOf(root);
    const r = await onConnection((sql) =>
      new DeltaTable({ sql, reader, root }).optimize({ zOrderBy: ['id'] }),
    );
    expect(r.metrics).toMatchObject({ numFilesAdded: 1, numFilesRemoved: 2, partitionsOptimized: 1 });
    expect(await rowsOf(root)).toEqual(before);
    const c = await commitOf(root, r.version!);
    expect(c.info.operation).toBe('OPTIMIZE');
    expect(c.removes.every((x) => x.dataChange === false)).toBe(true);

    let now = Date.now();
    const dt = new DeltaTable({ sql: engine, reader, root, now: () => now });
    await expect(dt.vacuum({ retainHours: 0 })).rejects.toThrow(/retentionDurationCheck/);
    // Within the retention nothing goes (the removed files' tombstones are recent).
    expect((await dt.vacuum({ dryRun: true })).files).toEqual([]);
    now += 8 * 24 * 3600_000;
    const removed = c.removes.map((x) => path.join(root, decodeURIComponent(x.path)));
    // Files age by their modification time too: make them old enough.
    for (const f of removed)
      await utimes(f, new Date(now - 9 * 24 * 3600_000), new Date(now - 9 * 24 * 3600_000));
    expect((await dt.vacuum({ dryRun: true })).files.sort()).toEqual(removed.sort());
    expect(removed.every((f) => existsSync(f))).toBe(true);
    await dt.vacuum({});
    expect(removed.some((f) => existsSync(f))).toBe(false);
    expect(await rowsOf(root)).toEqual(before);
  });
});

describe.skipIf(!install)('Spark reads MiniLake DML (needs bash packages/engine-spark/install.sh)', () => {
  it('rows, history and VERSION AS OF after UPDATE, DELETE, MERGE, OPTIMIZE and a checkpoint', async () => {
    const root = await newTable('spark');
    await dml(root, 'UPDATE', (t) => `UPDATE ${t} SET name = 'B', __ml_touched = true WHERE id = 2`);
    await dml(root, 'DELETE', (t) => `DELETE FROM ${t} WHERE id = 1`);
    await dml(
      root,
      'MERGE',
      (t) =>
        `MERGE INTO ${t} AS t USING (SELECT 3 AS id, 'C' AS name, DATE '2024-01-02' AS day UNION ALL SELECT 4, 'd', DATE '2024-01-03') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name, __ml_touched = true WHEN NOT MATCHED THEN INSERT (id, name, day) VALUES (s.id, s.name, s.day)`,
    );
    for (let i = 0; i < 5; i++)
      await append(
        engine,
        reader,
        root,
        `(SELECT ${10 + i}::BIGINT AS id, 'n' AS name, DATE '2024-01-05' AS day)`,
      );
    await onConnection((sql) => new DeltaTable({ sql, reader, root }).optimize());
    await reader.settled();
    expect(existsSync(path.join(root, '_delta_log', '00000000000000000010.checkpoint.parquet'))).toBe(true);
    const [rows, count, history, v2] = await sparkSql(
      [
        `SELECT id, name, day FROM delta.\`${root}\` WHERE id < 10 ORDER BY id`,
        `SELECT count(*) FROM delta.\`${root}\``,
        `DESCRIBE HISTORY delta.\`${root}\``,
        `SELECT id, name FROM delta.\`${root}\` VERSION AS OF 2 ORDER BY id`,
      ],
      570_000,
    );
    expect(rows).toEqual([
      ['2', 'B', '2024-01-02'],
      ['3', 'C', '2024-01-02'],
      ['4', 'd', '2024-01-03'],
    ]);
    expect(count).toEqual([['8']]);
    const ops = history!.map((h) => [Number(h[0]), h[4]]).sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(ops.slice(0, 5)).toEqual([
      [0, 'CREATE TABLE'],
      [1, 'WRITE'],
      [2, 'UPDATE'],
      [3, 'DELETE'],
      [4, 'MERGE'],
    ]);
    expect(ops.at(-1)).toEqual([10, 'OPTIMIZE']);
    expect(v2).toEqual([
      ['1', 'a'],
      ['2', 'B'],
      ['3', 'c'],
    ]);
  }, 600_000);
});

export type { Action };

describe.skipIf(!install)(
  'Spark and MiniLake deletion vectors (needs bash packages/engine-spark/install.sh)',
  () => {
    const spark = (...statements: string[]) => sparkSql(statements, 570_000);

    it("Spark reads MiniLake's DVs; Spark's own DV table keeps working through MiniLake's DML", async () => {
      const ours = await dvTable('dv-spark');
      await dml(ours, 'DELETE', (t) => `DELETE FROM ${t} WHERE id = 2`);
      await dml(ours, 'UPDATE', (t) => `UPDATE ${t} SET name = 'C', __ml_touched = true WHERE id IN (3, 4)`);
      const theirs = path.join(dir, 'spark-dv');
      await spark(
        `CREATE TABLE delta.\`${theirs}\` (id BIGINT, name STRING, day DATE) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')`,
        `INSERT INTO delta.\`${theirs}\` SELECT id, CONCAT('s', id), DATE'2024-01-01' FROM range(10)`,
        `DELETE FROM delta.\`${theirs}\` WHERE id = 0`,
      );
      const before = (await reader.snapshot(theirs)).files;
      expect(before.some((f) => f.deletionVector)).toBe(true);
      await dml(theirs, 'DELETE', (t) => `DELETE FROM ${t} WHERE id = 1`);
      await dml(theirs, 'UPDATE', (t) => `UPDATE ${t} SET name = 'U', __ml_touched = true WHERE id = 2`);
      const dvs = (await reader.snapshot(theirs)).files.filter((f) => f.deletionVector);
      expect(dvs.map((f) => f.deletionVector!.cardinality)).toEqual([3]);
      const [a, b, c, d] = await spark(
        `SELECT id, name FROM delta.\`${ours}\` ORDER BY id`,
        `SELECT count(*), sum(id) FROM delta.\`${theirs}\``,
        `SELECT name FROM delta.\`${theirs}\` WHERE id <= 3 ORDER BY id`,
        `DESCRIBE HISTORY delta.\`${theirs}\``,
      );
      expect(a).toEqual([
        ['1', 'a'],
        ['3', 'C'],
        ['4', 'C'],
        ['5', 'e'],
        ['6', 'f'],
      ]);
      expect(b).toEqual([['8', '44']]);
      expect(c).toEqual([['U'], ['s3']]);
      expect(d!.map((h) => h[4]).slice(0, 2)).toEqual(['UPDATE', 'DELETE']);
      expect((await rowsOf(theirs)).map((r) => r[0])).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    }, 1_200_000);
  },
);

/** A table with deletion vectors on: rows 1-3 in one file, 4-6 in another. */
async function dvTable(name: string) {
  const root = path.join(dir, name);
  await createTable(reader, root, {
    schema,
    partitionColumns: [],
    configuration: { 'delta.enableDeletionVectors': 'true' },
  });
  for (const base of [1, 4])
    await append(
      engine,
      reader,
      root,
      `(SELECT (${base} + i)::BIGINT AS id, chr(CAST(97 + ${base} + i - 1 AS INTEGER)) AS name, DATE '2024-01-01' AS day FROM range(3) r(i))`,
    );
  return root;
}

describe('deletion vectors', () => {
  it('DELETE, UPDATE and MERGE mark rows in DVs (combined with the old one); untouched files stay', async () => {
    const root = await dvTable('dvw');
    const p0 = (await readCommit(root, 0)).find((a) => a.protocol)!.protocol!;
    expect(p0).toEqual({
      minReaderVersion: 3,
      minWriterVersion: 7,
      readerFeatures: ['deletionVectors'],
      writerFeatures: ['deletionVectors'],
    });
    const [f1, f2] = (await reader.snapshot(root)).files.sort((a, b) => a.path.localeCompare(b.path));
    const fileOf = async (id: number) =>
      (await reader.snapshot(root)).files.find(
        (f) => JSON.parse(f.stats!).minValues.id <= id && JSON.parse(f.stats!).maxValues.id >= id,
      )!;
    const first = await fileOf(1);
    expect([f1!.path, f2!.path]).toContain(first.path);

    // DELETE with the probe the SQL layer makes: only the matching row is staged.
    await dml(
      root,
      'DELETE',
      (t) => `DELETE FROM ${t} WHERE id = 2`,
      'SELECT * FROM temp.main.stg_scan WHERE id = 2',
    );
    let c = await commitOf(root, 3);
    expect(c.info.operationMetrics).toMatchObject({
      numDeletedRows: '1',
      numDeletionVectorsAdded: '1',
      numRemovedFiles: '0',
      numAddedFiles: '0',
      numCopiedRows: '0',
    });
    expect(c.removes.map((r) => r.path)).toEqual([first.path]);
    expect(c.adds).toHaveLength(1);
    const add = c.adds[0]!;
    expect(add.path).toBe(first.path);
    expect(add.deletionVector).toMatchObject({ storageType: 'u', offset: 1, cardinality: 1 });
    expect(JSON.parse(add.stats!)).toMatchObject({ numRecords: 3, tightBounds: false });
    const { deletedRows, deletionVectorPath } = await import('../src/index.js');
    expect(existsSync(deletionVectorPath(root, add.deletionVector!)!)).toBe(true);
    expect(await deletedRows(root, add.deletionVector!)).toEqual([1]);
    expect((await rowsOf(root)).map((r) => r[0])).toEqual([1, 3, 4, 5, 6]);

    // UPDATE: the old DV's row and the updated one; the new value goes to a new file.
    await dml(root, 'UPDATE', (t) => `UPDATE ${t} SET name = 'C', __ml_touched = true WHERE id = 3`);
    c = await commitOf(root, 4);
    expect(c.info.operationMetrics).toMatchObject({
      numUpdatedRows: '1',
      numDeletionVectorsAdded: '1',
      numDeletionVectorsUpdated: '1',
      numAddedFiles: '1',
    });
    expect(c.removes[0]!.deletionVector).toEqual(add.deletionVector);
    const dv2 = c.adds.find((a) => a.path === first.path)!.deletionVector!;
    expect(await deletedRows(root, dv2)).toEqual([1, 2]);
    expect(await rowsOf(root)).toEqual([
      [1, 'a', '2024-01-01'],
      [3, 'C', '2024-01-01'],
      [4, 'd', '2024-01-01'],
      [5, 'e', '2024-01-01'],
      [6, 'f', '2024-01-01'],
    ]);

    // MERGE: a semi-join probe stages the matched target rows only.
    await dml(
      root,
      'MERGE',
      (t) =>
        `MERGE INTO ${t} AS t USING (SELECT 5 AS id, 'E' AS name UNION ALL SELECT 9, 'i') s ON t.id = s.id ` +
        `WHEN MATCHED THEN UPDATE SET name = s.name, __ml_touched = true WHEN NOT MATCHED THEN INSERT (id, name, day) VALUES (s.id, s.name, DATE '2024-01-02')`,
      `SELECT * FROM temp.main.stg_scan AS t WHERE EXISTS (SELECT 1 FROM (SELECT 5 AS id UNION ALL SELECT 9) s WHERE t.id = s.id)`,
    );
    c = await commitOf(root, 5);
    expect(c.info.operationMetrics).toMatchObject({
      numTargetRowsUpdated: '1',
      numTargetRowsInserted: '1',
      numTargetDeletionVectorsAdded: '1',
      numTargetRowsCopied: '0',
    });
    expect(c.removes.map((r) => r.path)).toEqual([(await fileOf(4)).path]);
    expect((await rowsOf(root)).map((r) => [r[0], r[1]])).toEqual([
      [1, 'a'],
      [3, 'C'],
      [4, 'd'],
      [5, 'E'],
      [6, 'f'],
      [9, 'i'],
    ]);

    // Deleting a file's last live rows removes it (no DV, no add): both first files go.
    await dml(root, 'DELETE', (t) => `DELETE FROM ${t} WHERE id IN (1, 4, 6)`);
    c = await commitOf(root, 6);
    expect(c.info.operationMetrics).toMatchObject({ numDeletedRows: '3', numRemovedFiles: '2' });
    expect(c.adds).toEqual([]);
    expect((await rowsOf(root)).map((r) => r[0])).toEqual([3, 5, 9]);
    expect((await rowsOf(root, 3)).map((r) => r[0])).toEqual([1, 3, 4, 5, 6]);
  });

  it('a DV commit conflicts like a rewrite: two DELETEs of one file, the loser fails and removes its DV file', async () => {
    const root = await dvTable('dvc');
    const dvFiles = async () => (await readdir(root)).filter((f) => f.startsWith('deletion_vector_'));
    await onConnection(async (sqlA) =>
      onConnection(async (sqlB) => {
        const a = await new DeltaTable({ sql: sqlA, reader, root }).stage('a');
        const b = await new DeltaTable({ sql: sqlB, reader, root }).stage('b');
        await sqlA.all('DELETE FROM temp.main.a WHERE id = 1');
        await sqlB.all('DELETE FROM temp.main.b WHERE id = 2');
        const counts = { updated: 0, deleted: 1, inserted: 0 };
        expect(await a.commit({ operation: 'DELETE', touched: [], counts })).toBe(3);
        await expect(b.commit({ operation: 'DELETE', touched: [], counts })).rejects.toThrow(
          /DELTA_CONCURRENT_DELETE_DELETE/,
        );
        await a.drop();
        await b.drop();
      }),
    );
    expect(await dvFiles()).toHaveLength(1);
    expect((await rowsOf(root)).map((r) => r[0])).toEqual([2, 3, 4, 5, 6]);
  });

  it('OPTIMIZE applies deletion vectors: deleted rows stay deleted, the DV files are removed', async () => {
    const root = await dvTable('dvo');
    await dml(
      root,
      'DELETE',
      (t) => `DELETE FROM ${t} WHERE id IN (2, 5)`,
      'SELECT * FROM temp.main.stg_scan WHERE id IN (2, 5)',
    );
    const before = await reader.snapshot(root);
    expect(before.files.filter((f) => f.deletionVector)).toHaveLength(2);
    const r = await onConnection((sql) => new DeltaTable({ sql, reader, root }).optimize());
    expect(r.metrics).toMatchObject({ numFilesRemoved: 2, numFilesAdded: 1 });
    const c = await commitOf(root, r.version!);
    expect(c.info.operation).toBe('OPTIMIZE');
    expect(c.info.operationMetrics).toMatchObject({ numDeletionVectorsRemoved: '2', numRemovedFiles: '2' });
    expect(c.removes.every((x) => x.dataChange === false && x.deletionVector)).toBe(true);
    const after = await reader.snapshot(root);
    expect(after.files.filter((f) => f.deletionVector)).toEqual([]);
    expect(JSON.parse(after.files[0]!.stats!)).toMatchObject({ numRecords: 4 });
    expect((await rowsOf(root)).map((x) => x[0])).toEqual([1, 3, 4, 6]);
    // A large file whose DV hides more than 5% of its rows is rewritten alone.
    await dml(
      root,
      'DELETE',
      (t) => `DELETE FROM ${t} WHERE id = 3`,
      'SELECT * FROM temp.main.stg_scan WHERE id = 3',
    );
    const alone = await onConnection((sql) =>
      new DeltaTable({ sql, reader, root }).optimize({ minFileSize: 1 }),
    );
    expect(alone.metrics).toMatchObject({ numFilesRemoved: 1, numFilesAdded: 1 });
    expect((await reader.snapshot(root)).files.filter((f) => f.deletionVector)).toEqual([]);
    expect((await rowsOf(root)).map((x) => x[0])).toEqual([1, 4, 6]);
    // Nothing left to purge or compact: no commit.
    const none = await onConnection((sql) =>
      new DeltaTable({ sql, reader, root }).optimize({ minFileSize: 1 }),
    );
    expect(none.version).toBeUndefined();
  });
});

describe('tables MiniLake cannot rewrite', () => {
  it('DML works with deletion vectors enabled; a corrupt deletion vector, column mapping and append-only are refused by name', async () => {
    const root = await newTable('dv', []);
    const base = await reader.snapshot(root);
    const { commit } = await import('../src/index.js');
    await commit(
      root,
      base,
      [
        { commitInfo: { timestamp: Date.now(), operation: 'SET TBLPROPERTIES' } },
        {
          protocol: {
            minReaderVersion: 3,
            minWriterVersion: 7,
            readerFeatures: ['deletionVectors'],
            writerFeatures: ['deletionVectors'],
          },
        },
        {
          metaData: {
            ...base.metadata,
            configuration: { 'delta.enableDeletionVectors': 'true' },
          },
        },
      ],
      { reader },
    );
    await dml(root, 'DELETE', (t) => `DELETE FROM ${t} WHERE id = 1`);
    expect((await rowsOf(root)).map((r) => r[0])).toEqual([2, 3]);
    // A file whose deletion vector cannot be decoded (PROTOCOL.md's inline example: its header is not the
    // layout the protocol and Spark use) is refused, never rewritten as if it deleted nothing.
    const snap = await reader.snapshot(root);
    const f = snap.files[0]!;
    await commit(
      root,
      snap,
      [
        { commitInfo: { timestamp: Date.now(), operation: 'DELETE' } },
        { remove: { path: f.path, deletionTimestamp: Date.now(), dataChange: true } },
        {
          add: {
            ...f,
            deletionVector: {
              storageType: 'i',
              pathOrInlineDv: 'wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=0',
              sizeInBytes: 34,
              cardinality: 1,
            },
          },
        },
      ],
      { reader },
    );
    await expect(dml(root, 'UPDATE', (t) => `UPDATE ${t} SET name = 'x'`)).rejects.toThrow(
      /DELTA_DELETION_VECTOR_CORRUPT/,
    );

    const cm = await newTable('cm', []);
    const cmBase = await reader.snapshot(cm);
    await commit(
      cm,
      cmBase,
      [
        { commitInfo: { timestamp: Date.now(), operation: 'SET TBLPROPERTIES' } },
        { metaData: { ...cmBase.metadata, configuration: { 'delta.appendOnly': 'true' } } },
      ],
      { reader },
    );
    await expect(dml(cm, 'DELETE', (t) => `DELETE FROM ${t}`)).rejects.toThrow(
      /DELTA_CANNOT_MODIFY_APPEND_ONLY/,
    );
    await commit(
      cm,
      await reader.snapshot(cm),
      [
        { commitInfo: { timestamp: Date.now(), operation: 'SET TBLPROPERTIES' } },
        { protocol: { minReaderVersion: 2, minWriterVersion: 5 } },
        { metaData: { ...cmBase.metadata, configuration: { 'delta.columnMapping.mode': 'name' } } },
      ],
      { reader },
    );
    await expect(dml(cm, 'DELETE', (t) => `DELETE FROM ${t}`)).rejects.toThrow(
      /DELTA_UNSUPPORTED_FEATURES_FOR_WRITE.*column mapping/,
    );
  });
});
