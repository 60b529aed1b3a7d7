import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DuckDbEngine, literal } from '@minilake/engine-duckdb';
import { locateInstall, settingsFrom } from '@minilake/engine-spark';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeltaError,
  DeltaReader,
  checkReadable,
  deletedRows,
  listLog,
  parseSchemaString,
  duckDbType,
} from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// The tables are written by real Spark + delta-spark; without that install the Spark-backed tests are skipped
// (install it with `bash packages/engine-spark/install.sh`).
const install = await locateInstall(settingsFrom({ MINILAKE_CACHE: process.env.MINILAKE_CACHE })).catch(
  () => undefined,
);

describe('schema and protocol (no Spark needed)', () => {
  it('maps Spark types to DuckDB types', () => {
    const s = parseSchemaString(
      JSON.stringify({
        type: 'struct',
        fields: [
          { name: 'a', type: 'long', nullable: true, metadata: {} },
          { name: 'b', type: 'decimal(10,2)', nullable: true, metadata: {} },
          {
            name: 'c',
            type: { type: 'array', elementType: 'string', containsNull: true },
            nullable: true,
            metadata: {},
          },
          {
            name: 'd',
            type: {
              type: 'struct',
              fields: [{ name: 'x y', type: 'timestamp', nullable: true, metadata: {} }],
            },
            nullable: true,
            metadata: {},
          },
        ],
      }),
    );
    expect(s.fields.map((f) => duckDbType(f.type))).toEqual([
      'BIGINT',
      'DECIMAL(10,2)',
      'VARCHAR[]',
      'STRUCT("x y" TIMESTAMPTZ)',
    ]);
  });

  it('refuses reader features it cannot read, naming them', () => {
    expect(() =>
      checkReadable({ minReaderVersion: 3, readerFeatures: ['columnMapping', 'variantType'] }),
    ).toThrow(/variantType/);
    expect(() => checkReadable({ minReaderVersion: 4 })).toThrow(DeltaError);
    expect(() =>
      checkReadable({ minReaderVersion: 3, readerFeatures: ['timestampNtz', 'columnMapping'] }),
    ).not.toThrow();
  });
});

describe.skipIf(!install)('tables written by Spark (needs bash packages/engine-spark/install.sh)', () => {
  let root: string | undefined;
  let dir: string;
  let engine: DuckDbEngine;
  let reader: DeltaReader;
  const rows = async (name: string, order = 'id', version?: number) => {
    const snap = await reader.snapshot(path.join(dir, name), version);
    return engine.all(`SELECT * FROM (${await reader.scanSql(snap)}) ORDER BY ${order}`);
  };

  // DELTA_TEST_TABLES=<dir> reads tables make_tables.py wrote before (a copy: tests may change them).
  const prebuilt = process.env.DELTA_TEST_TABLES;

  beforeAll(async () => {
    // The temp root is kept apart from `dir`: when making the tables fails, `dir` is still the root, and
    // removing its parent removed the whole temp folder (every other process's files in /tmp).
    root = await mkdtemp(path.join(os.tmpdir(), 'ml-delta-'));
    dir = root;
    if (prebuilt) await cp(prebuilt, path.join(dir, 'tables'), { recursive: true });
    else
      await promisify(execFile)(
        install!.python,
        [path.join(here, 'fixtures', 'make_tables.py'), path.join(dir, 'tables'), install!.jars.join(',')],
        { timeout: 280_000, maxBuffer: 64 * 1024 * 1024 },
      );
    dir = path.join(dir, 'tables');
    engine = await DuckDbEngine.open({ dir: path.join(dir, '..', 'duckdb') });
    reader = new DeltaReader({ sql: engine });
  }, 300_000);

  afterAll(async () => {
    await engine?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('reads a simple table with its types', async () => {
    const snap = await reader.snapshot(path.join(dir, 'simple'));
    expect(snap.version).toBe(2);
    expect(snap.columns().map((c) => `${c.name}:${c.typeText}:${c.duckType}`)).toEqual([
      'id:bigint:BIGINT',
      'name:string:VARCHAR',
      'amount:decimal(10,2):DECIMAL(10,2)',
      'ts:timestamp:TIMESTAMPTZ',
      'd:date:DATE',
      'ok:boolean:BOOLEAN',
    ]);
    const r = await engine.all(
      `SELECT id, name, amount::VARCHAR AS amount, epoch(ts) AS ts, d::VARCHAR AS d, ok FROM (${await reader.scanSql(snap)}) ORDER BY id`,
    );
    expect(r).toEqual([
      { id: 1, name: 'a', amount: '1.50', ts: Date.UTC(2024, 0, 1, 10) / 1000, d: '2024-01-01', ok: true },
      {
        id: 2,
        name: 'b',
        amount: '2.25',
        ts: Date.UTC(2024, 0, 2, 11, 30) / 1000,
        d: '2024-01-02',
        ok: false,
      },
      { id: 3, name: null, amount: null, ts: null, d: null, ok: null },
    ]);
  });

  it('time travels and caches snapshots by version', async () => {
    expect(await rows('simple', 'id', 1)).toHaveLength(1);
    const a = await reader.snapshot(path.join(dir, 'simple'));
    expect(await reader.snapshot(path.join(dir, 'simple'))).toBe(a);
    await expect(reader.snapshot(path.join(dir, 'simple'), 9)).rejects.toThrow(
      /Available versions: \[0, 2\]/,
    );
  });

  it('reads partition values (URI-encoded paths, raw folders, nulls, ints)', async () => {
    const r = await rows('parts');
    expect(r).toEqual([
      { id: 1, city: 'new york', n: 1 },
      { id: 2, city: 'a%b=c', n: 2 },
      { id: 3, city: null, n: 3 },
      { id: 4, city: 'new york', n: 1 },
    ]);
    const snap = await reader.snapshot(path.join(dir, 'parts'));
    expect(snap.partitionColumns).toEqual(['city', 'n']);
    expect(snap.columns().find((c) => c.name === 'city')?.partitionIndex).toBe(0);
  });

  it('starts from a checkpoint and replays the commits after it (removes included)', async () => {
    const listing = await listLog(path.join(dir, 'ckpt'));
    expect([...listing.checkpoints.keys()].sort()).toEqual([10, 5]);
    const r = await rows('ckpt');
    expect(r.map((x) => Number(x.id))).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9, 100]);
    // Before the DELETE (version 11), row 3 is there; version 7 is rebuilt from the checkpoint at 5.
    expect((await rows('ckpt', 'id', 10)).map((x) => Number(x.id))).toContain(3);
    expect(await rows('ckpt', 'id', 7)).toHaveLength(7);
  });

  it('reads a multi-part checkpoint', async () => {
    const log = await readdir(path.join(dir, 'multipart', '_delta_log'));
    expect(log.filter((n) => /\.checkpoint\.\d{10}\.\d{10}\.parquet$/.test(n)).length).toBeGreaterThan(1);
    expect((await rows('multipart')).map((x) => Number(x.id))).toEqual([0, 1, 2, 3]);
  });

  it.each(['colmap', 'colmap_id'])('reads column mapping (%s): renamed and added columns', async (name) => {
    const snap = await reader.snapshot(path.join(dir, name));
    expect(snap.columns().map((c) => c.name)).toEqual(['id', 'label', 'p', 'extra']);
    expect(await rows(name)).toEqual([
      { id: 1, label: 'one', p: 'x', extra: null },
      { id: 2, label: 'two', p: 'y', extra: 7 },
    ]);
  });

  it('drops the rows deletion vectors delete (DELETE, then UPDATE over a DV)', async () => {
    expect((await rows('dv')).map((x) => Number(x.id))).toEqual([0, 1, 3, 4, 6, 7, 8, 9]);
    // Before the DELETE, every row is there.
    expect(await rows('dv', 'id', 1)).toHaveLength(10);
    const expected = Array.from({ length: 1010 }, (_, i) => i).filter((i) => i % 7 !== 0 && i !== 1005);
    const r = await rows('dv_update');
    expect(r.map((x) => Number(x.id))).toEqual(expected);
    expect(r.filter((x) => x.v === 'changed').map((x) => Number(x.id))).toEqual([1, 500]);
    expect(r.filter((x) => x.v !== 'changed').every((x) => x.v === `v${x.id}`)).toBe(true);
    const snap = await reader.snapshot(path.join(dir, 'dv_update'));
    expect(snap.files.filter((f) => f.deletionVector).length).toBe(2);
  });

  it('reads v2 checkpoints (UUID-named JSON, add actions in _sidecars/) with the commits after them', async () => {
    const listing = await listLog(path.join(dir, 'v2ckpt'));
    expect([...listing.checkpoints.keys()].sort()).toEqual([3, 6]);
    expect(listing.checkpoints.get(6)![0]).toMatch(/^0{19}6\.checkpoint\.[0-9a-f-]{36}\.json$/);
    const snap = await reader.snapshot(path.join(dir, 'v2ckpt'));
    expect(snap.protocol.readerFeatures).toContain('v2Checkpoint');
    expect((await rows('v2ckpt')).map((x) => Number(x.id))).toEqual([0, 1, 3, 4, 5, 6]);
    // Version 4 starts from the checkpoint at 3 (a fresh reader: no cached state to extend).
    const fresh = new DeltaReader({ sql: engine });
    const s4 = await fresh.snapshot(path.join(dir, 'v2ckpt'), 4);
    expect(s4.files).toHaveLength(4);
    const r4 = await engine.all(`SELECT id FROM (${await fresh.scanSql(s4)}) ORDER BY id`);
    expect(r4.map((x) => Number(x.id))).toEqual([0, 1, 2, 3]);
  });

  it('reads a v2-spec checkpoint under a classic name (the compatibility copy older readers find)', async () => {
    const src = path.join(dir, 'v2ckpt');
    const copy = path.join(dir, 'v2compat');
    await cp(src, copy, { recursive: true });
    const log = path.join(copy, '_delta_log');
    const uuidNamed = (await readdir(log)).filter((n) => /\.checkpoint\.[0-9a-f-]{36}\.json$/.test(n));
    for (const n of uuidNamed) {
      const v = n.slice(0, 20);
      // Same content as the UUID-named checkpoint, as Parquet under the classic name.
      await engine.all(
        `COPY (SELECT * FROM read_json(${literal(path.join(log, n))}, format = 'newline_delimited')) TO ${literal(path.join(log, `${v}.checkpoint.parquet`))} (FORMAT parquet)`,
      );
      await rm(path.join(log, n));
    }
    const listing = await listLog(copy);
    expect(listing.checkpoints.get(6)).toEqual(['00000000000000000006.checkpoint.parquet']);
    const fresh = new DeltaReader({ sql: engine });
    const s7 = await fresh.snapshot(copy, 7);
    expect(s7.files).toHaveLength(7);
    const r = await engine.all(`SELECT id FROM (${await fresh.scanSql(s7)}) ORDER BY id`);
    expect(r.map((x) => Number(x.id))).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('reads timestamp_ntz and widened types (old files keep the narrow type)', async () => {
    const snap = await reader.snapshot(path.join(dir, 'ntz_widen'));
    expect(snap.columns().map((c) => `${c.name}:${c.typeText}:${c.duckType}`)).toEqual([
      'id:bigint:BIGINT',
      'ts:timestamp_ntz:TIMESTAMP',
      'n:int:INTEGER',
    ]);
    const r = await engine.all(
      `SELECT id::VARCHAR AS id, ts::VARCHAR AS ts, n FROM (${await reader.scanSql(snap)}) ORDER BY id`,
    );
    expect(r).toEqual([
      { id: '1', ts: '2024-03-01 12:34:56', n: 7 },
      { id: '5000000000', ts: '2024-03-02 00:00:00', n: 100000 },
    ]);
  });

  it('exports the deleted row set of a file for writers', async () => {
    const snap = await reader.snapshot(path.join(dir, 'dv'));
    const [file] = snap.files;
    expect(await deletedRows(snap.root, file!.deletionVector!)).toEqual([2, 5]);
  });

  it('says a folder without a log is not a Delta table', async () => {
    await expect(reader.snapshot(dir)).rejects.toMatchObject({ errorCode: 'DELTA_TABLE_NOT_FOUND' });
  });
});
