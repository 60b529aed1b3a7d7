/**
 * Writes a sample table as a Delta table: the seeded rows go into a temporary DuckDB table through an
 * appender, then one Delta commit (Parquet written by DuckDB) casts them to the table's types. The table is
 * made in a staging folder and renamed into place, so a reader (MiniLake's SQL, Spark) sees the whole table
 * or none of it, even after a crash half-way.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  append,
  createTable,
  type DeltaReader,
  duckDbType,
  LOG_DIR,
  type SparkSchema,
} from '@minilake/delta';
import { ident, type DuckDBConnection } from '@minilake/engine-duckdb';
import { sampleTable, TPCH_SCALE_FACTOR, type SampleTable } from './index.js';
import { trips } from './nyctaxi.js';
import * as tpch from './tpch.js';
import type { Row } from './tpch.js';

/** The rows of a sample table, in column order (numbers, ISO dates, epoch seconds for timestamps). */
export function sampleRows(schema: string, name: string, sf = TPCH_SCALE_FACTOR): Row[] {
  if (schema === 'nyctaxi' && name === 'trips') return trips();
  if (schema === 'tpch')
    switch (name) {
      case 'region':
        return tpch.region();
      case 'nation':
        return tpch.nation();
      case 'supplier':
        return tpch.supplier(sf);
      case 'customer':
        return tpch.customer(sf);
      case 'part':
        return tpch.part(sf);
      case 'partsupp':
        return tpch.partsupp(sf);
      case 'orders':
        return tpch.ordersAndLines(sf).orders;
      case 'lineitem':
        return tpch.ordersAndLines(sf).lines;
    }
  throw new Error(`No sample table ${schema}.${name}`);
}

/** How a column travels through the appender, and the cast that gives it its Delta type. */
function staging(type: string): { raw: 'INTEGER' | 'DOUBLE' | 'VARCHAR'; cast: (c: string) => string } {
  if (type === 'long' || type === 'integer')
    return { raw: 'INTEGER', cast: (c) => `CAST(${c} AS ${duckDbType(type)})` };
  if (type === 'timestamp') return { raw: 'DOUBLE', cast: (c) => `to_timestamp(${c})` };
  if (type === 'double' || type.startsWith('decimal'))
    return { raw: 'DOUBLE', cast: (c) => `CAST(${c} AS ${duckDbType(type)})` };
  return { raw: 'VARCHAR', cast: (c) => `CAST(${c} AS ${duckDbType(type)})` };
}

export function sparkSchema(t: SampleTable): SparkSchema {
  return {
    type: 'struct',
    fields: t.columns.map((c) => ({ name: c.name, type: c.type, nullable: true, metadata: {} })),
  };
}

/**
 * Makes `<root>` the Delta table `schema.name` unless a Delta log is already there. `conn` is a connection
 * of the engine `reader` reads with (the temporary table lives on it).
 */
export async function writeSampleTable(
  conn: DuckDBConnection,
  reader: DeltaReader,
  root: string,
  schema: string,
  name: string,
  o: { now?: number } = {},
): Promise<{ rows: number }> {
  const t = sampleTable(schema, name);
  if (!t) throw new Error(`No sample table ${schema}.${name}`);
  if (existsSync(path.join(root, LOG_DIR))) return { rows: -1 };
  const rows = sampleRows(schema, name);
  const temp = `__ml_sample_${schema}_${name}_${randomUUID().slice(0, 8)}`;
  const stage = t.columns.map((c) => ({ name: c.name, ...staging(c.type) }));
  await conn.run(
    `CREATE TEMP TABLE ${ident(temp)} (${stage.map((c) => `${ident(c.name)} ${c.raw}`).join(', ')})`,
  );
  const tmpRoot = `${root}.tmp-${randomUUID()}`;
  try {
    const appender = await conn.createAppender(temp, 'main', 'temp');
    for (const row of rows) {
      for (let i = 0; i < stage.length; i++) {
        const v = row[i]!;
        const raw = stage[i]!.raw;
        if (raw === 'INTEGER') appender.appendInteger(v as number);
        else if (raw === 'DOUBLE') appender.appendDouble(v as number);
        else appender.appendVarchar(String(v));
      }
      appender.endRow();
    }
    appender.closeSync();
    const now = o.now ?? Date.now();
    await mkdir(path.dirname(root), { recursive: true });
    await createTable(reader, tmpRoot, { schema: sparkSchema(t), partitionColumns: [], now });
    const runner = {
      all: async (q: string) => {
        const r = (await conn.runAndReadAll(q)) as unknown as {
          getRowObjectsJson(): Record<string, unknown>[];
        };
        return r.getRowObjectsJson();
      },
    };
    const source = `(SELECT ${stage.map((c) => `${c.cast(ident(c.name))} AS ${ident(c.name)}`).join(', ')} FROM ${ident(temp)})`;
    const written = await append(runner, reader, tmpRoot, source, {
      now: () => now,
      engineInfo: 'MiniLake samples',
    });
    reader.forget(tmpRoot);
    await rename(tmpRoot, root);
    return { rows: written.rows };
  } catch (e) {
    reader.forget(tmpRoot);
    await rm(tmpRoot, { recursive: true, force: true });
    throw e;
  } finally {
    await conn.run(`DROP TABLE IF EXISTS ${ident(temp)}`).catch(() => undefined);
  }
}
