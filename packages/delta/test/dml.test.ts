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
  DeltaTable,
  type SqlRunner,
  append,
  createTable,
  readCommit,
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
async function dml(root: string, kind: 'UPDATE' | 'DELETE' | 'MERGE', statement: (t: string) => string) {
  return onConnection(async (sql) => {
    const dt = new DeltaTable({ sql, reader, root });
    const staged = await dt.stage('stg');
    try {
      const ret = kind === 'MERGE' ? 'merge_action, __ml_file' : '__ml_file';
      const rows = await sql.all(`${statement('temp.main.stg')} RETURNING ${ret}`);
      const n = { UPDATE: 0, DELETE: 0, INSERT: 0 } as Record<string, number>;
      for (const r of rows) n[kind === 'MERGE' ? String(r.merge_action) : kind]!++;
      return await staged.commit({
        operation: kind,
        touched: rows.map((r) => r.__ml_file).filter((f) => f !== null) as string[],
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
    expect(await dml(root, 'UPDATE', (t) => `UPDATE ${t} SET name = 'B' WHERE id = 2`)).toBe(2);
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
        `WHEN MATCHED AND s.name = 'gone' THEN DELETE WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT (id, name, day) VALUES (s.id, s.name, s.day)`,
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
      const rows = await sql.all(`DELETE FROM temp.main.stg_a WHERE id = 4 RETURNING __ml_file`);
      const r = await staged.commit({
        operation: 'DELETE',
        touched: rows.map((x) => String(x.__ml_file)),
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
      const ra = await sql.all(`DELETE FROM temp.main.stg_a WHERE id = 1 RETURNING __ml_file`);
      const rb = await sql.all(`UPDATE temp.main.stg_b SET name = 'x' WHERE id = 2 RETURNING __ml_file`);
      await a.commit({
        operation: 'DELETE',
        touched: ra.map((x) => String(x.__ml_file)),
        counts: { updated: 0, deleted: 1, inserted: 0 },
      });
      const e = await b
        .commit({
          operation: 'UPDATE',
          touched: rb.map((x) => String(x.__ml_file)),
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
    await dml(root, 'UPDATE', (t) => `UPDATE ${t} SET name = 'B' WHERE id = 2`);
    await dml(root, 'DELETE', (t) => `DELETE FROM ${t} WHERE id = 1`);
    await dml(
      root,
      'MERGE',
      (t) =>
        `MERGE INTO ${t} AS t USING (SELECT 3 AS id, 'C' AS name, DATE '2024-01-02' AS day UNION ALL SELECT 4, 'd', DATE '2024-01-03') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT (id, name, day) VALUES (s.id, s.name, s.day)`,
    );
    for (let i = 0; i < 5; i++)
      await append(
        engine,
        reader,
        root,
        `(SELECT ${10 + i}::BIGINT AS id, 'n' AS name, DATE '2024-01-05' AS day)`,
      );
    await onConnection((sql) => new DeltaTable({ sql, reader, root }).optimize());
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

describe('tables MiniLake cannot rewrite', () => {
  it('copy-on-write works with deletion vectors enabled; a corrupt deletion vector, column mapping and append-only are refused by name', async () => {
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
