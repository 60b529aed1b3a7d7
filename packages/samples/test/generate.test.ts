import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DeltaReader } from '@minilake/delta';
import { DuckDbEngine } from '@minilake/engine-duckdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_TABLES } from '../src/index.js';
import { sampleRows, writeSampleTable } from '../src/generate.js';
import { counts, partSupplier, retailPrice } from '../src/tpch.js';

let dir: string;
let engine: DuckDbEngine;
let reader: DeltaReader;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ml-samples-'));
  engine = await DuckDbEngine.open({ dir: path.join(dir, 'duckdb') });
  reader = new DeltaReader({ sql: engine });
});
afterAll(async () => {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

const write = (schema: string, name: string) =>
  engine.withConnection((conn) => writeSampleTable(conn, reader, path.join(dir, schema, name), schema, name));
const scan = async (schema: string, name: string) =>
  reader.scanSql(await reader.snapshot(path.join(dir, schema, name)));

describe('sample rows', () => {
  it('are the same on every run (seeded, no clock, no Math.random)', () => {
    for (const t of SAMPLE_TABLES.filter((x) => x.name !== 'lineitem' && x.name !== 'orders'))
      expect(JSON.stringify(sampleRows(t.schema, t.name))).toBe(JSON.stringify(sampleRows(t.schema, t.name)));
  });

  it('follow dbgen: keys, the partsupp formula, sparse order keys, retail prices, dates', () => {
    const c = counts(0.01);
    expect(sampleRows('tpch', 'customer')).toHaveLength(c.customer);
    expect(sampleRows('tpch', 'supplier')).toHaveLength(100);
    expect(sampleRows('tpch', 'nation')).toHaveLength(25);
    expect(sampleRows('tpch', 'region').map((r) => r[1])).toEqual([
      'AFRICA',
      'AMERICA',
      'ASIA',
      'EUROPE',
      'MIDDLE EAST',
    ]);
    const ps = sampleRows('tpch', 'partsupp');
    expect(ps).toHaveLength(4 * c.part);
    // Every part has four distinct suppliers, within range.
    expect(new Set(ps.slice(0, 4).map((r) => r[1])).size).toBe(4);
    expect(partSupplier(1, 0, 100)).toBe(2);
    expect(retailPrice(1)).toBe(901);
    const orders = sampleRows('tpch', 'orders');
    expect(orders).toHaveLength(15_000);
    expect(orders.slice(0, 9).map((o) => o[0])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 33]);
    expect(orders.every((o) => (o[1] as number) % 3 !== 0)).toBe(true);
    const dates = orders.map((o) => o[4] as string).sort();
    expect(dates[0]! >= '1992-01-01' && dates.at(-1)! <= '1998-08-02').toBe(true);
  });

  it('nyctaxi trips: Databricks row count, pickups in Jan-Feb 2016, drop-off after pickup', () => {
    const t = sampleRows('nyctaxi', 'trips');
    expect(t).toHaveLength(21_932);
    for (const [pick, drop, dist, fare, pz, dz] of t.slice(0, 500)) {
      expect(drop as number).toBeGreaterThan(pick as number);
      expect(dist as number).toBeGreaterThan(0);
      expect(fare as number).toBeGreaterThanOrEqual(2.5);
      expect(String(pz)).toMatch(/^1[01]\d{3}$/);
      expect(String(dz)).toMatch(/^1[01]\d{3}$/);
    }
  });
});

describe('writeSampleTable', () => {
  it('writes Delta tables whose rows join as TPC-H rows do, with Databricks types', async () => {
    for (const n of ['orders', 'lineitem', 'region'] as const) await write('tpch', n);
    await write('nyctaxi', 'trips');
    const [o, l] = [await scan('tpch', 'orders'), await scan('tpch', 'lineitem')];
    const [row] = await engine.all(
      `SELECT count(*) AS n, count(DISTINCT o.o_orderkey) AS orders,
              sum(CASE WHEN abs(o.o_totalprice - t.total) > 0.02 THEN 1 ELSE 0 END) AS wrong
         FROM (${o}) o JOIN (SELECT l_orderkey, sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)) AS total
                                FROM (${l}) GROUP BY l_orderkey) t ON t.l_orderkey = o.o_orderkey`,
    );
    expect(row).toMatchObject({ orders: 15_000, wrong: 0 });
    const types = await engine.all(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM (${o}))`);
    expect(Object.fromEntries(types.map((t) => [t.column_name, t.column_type]))).toMatchObject({
      o_orderkey: 'BIGINT',
      o_totalprice: 'DECIMAL(18,2)',
      o_orderdate: 'DATE',
      o_shippriority: 'INTEGER',
    });
    const [trip] = await engine.all(
      `SELECT count(*) AS n, min(tpep_pickup_datetime)::VARCHAR AS first FROM (${await scan('nyctaxi', 'trips')})`,
    );
    expect(trip!.n).toBe(21_932);
    expect(String(trip!.first)).toMatch(/^2016-01-01/);
  });

  it('leaves an existing table alone', async () => {
    expect(await write('tpch', 'region')).toEqual({ rows: -1 });
  });
});
