import path from 'node:path';
import type { DuckDbEngine } from '@minilake/engine-duckdb';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DeltaReader, append, commit, createTable } from '../src/index.js';
import { deltaFixture, install, schema, sparkSql } from './fixture.js';

let dir: string;
let engine: DuckDbEngine;
let reader: DeltaReader;
const fixture = deltaFixture('ml-delta-w-');
beforeAll(() => void ({ dir, engine, reader } = fixture));

const read = async (root: string, version?: number) =>
  engine.all(
    `SELECT id, name, day::VARCHAR AS day FROM (${await reader.scanSql(await reader.snapshot(root, version))}) ORDER BY id`,
  );

describe('writing without a JVM', () => {
  it('creates a partitioned table and appends with stats and partition values', async () => {
    const root = path.join(dir, 'events');
    await createTable(reader, root, { schema, partitionColumns: ['day'] });
    const r = await append(
      engine,
      reader,
      root,
      `(VALUES (1::BIGINT, 'a', DATE '2024-01-01'), (2, 'b', DATE '2024-01-02'), (3, 'c b', NULL)) AS t(id, name, day)`,
    );
    expect(r).toEqual({ version: 1, rows: 3 });
    expect(await read(root)).toEqual([
      { id: 1, name: 'a', day: '2024-01-01' },
      { id: 2, name: 'b', day: '2024-01-02' },
      { id: 3, name: 'c b', day: null },
    ]);
    const snap = await reader.snapshot(root);
    const add = snap.files.find((f) => f.partitionValues.day === '2024-01-01')!;
    expect(JSON.parse(add.stats!)).toEqual({
      numRecords: 1,
      minValues: { id: 1, name: 'a' },
      maxValues: { id: 1, name: 'a' },
      nullCount: { id: 0, name: 0 },
    });
    expect(snap.files.find((f) => f.partitionValues.day === null)).toBeDefined();
  });

  it('retries a blind append on the next version when another writer took it', async () => {
    const root = path.join(dir, 'race');
    await createTable(reader, root, { schema, partitionColumns: [] });
    const stale = await reader.snapshot(root);
    await append(engine, reader, root, `(SELECT 1::BIGINT AS id, 'x' AS name, NULL::DATE AS day)`);
    const v = await commit(root, stale, [{ commitInfo: { timestamp: 1, operation: 'WRITE' } }], { reader });
    expect(v).toBe(2);
    await expect(createTable(reader, root, { schema, partitionColumns: [] })).rejects.toThrow(
      /already exists/,
    );
  });

  it.skipIf(!install)(
    'is read back by Spark, history included (needs bash packages/engine-spark/install.sh)',
    async () => {
      const root = path.join(dir, 'events');
      await append(engine, reader, root, `(SELECT 4::BIGINT AS id, 'd' AS name, DATE '2024-01-02' AS day)`);
      const [rows, history, v1] = await sparkSql(
        [
          `SELECT id, name, day FROM delta.\`${root}\` ORDER BY id`,
          `DESCRIBE HISTORY delta.\`${root}\``,
          `SELECT count(*) FROM delta.\`${root}\` VERSION AS OF 1`,
        ],
        170_000,
      );
      expect(rows).toEqual([
        ['1', 'a', '2024-01-01'],
        ['2', 'b', '2024-01-02'],
        ['3', 'c b', null],
        ['4', 'd', '2024-01-02'],
      ]);
      const ops = history!.map((h) => [h[0], h[4]]).sort((a, b) => Number(a[0]) - Number(b[0]));
      expect(ops).toEqual([
        ['0', 'CREATE TABLE'],
        ['1', 'WRITE'],
        ['2', 'WRITE'],
      ]);
      expect(v1).toEqual([['3']]);
    },
    200_000,
  );
});
