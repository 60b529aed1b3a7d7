/** The real DuckDbEngine for dialect tests, and the Statement API's value rendering. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDbEngine } from '@minilake/engine-duckdb';
import { executeDatabricksSql, type ExecuteInput } from '../src/dialect/index.js';
import { scalarString, type TypeLike } from '../src/render.js';

interface Reader {
  getRowsJson(): unknown[][];
  columnNames(): string[];
  columnTypes(): { toString(): string }[];
}
interface Conn {
  run(sql: string, values?: Record<string, unknown>): Promise<unknown>;
  runAndReadAll(sql: string, values?: Record<string, unknown>): Promise<Reader & { getRows(): unknown[][] }>;
  stream(sql: string, values?: Record<string, unknown>): Promise<{ columnCount: number }>;
  closeSync?(): void;
}

/** The real engine: catalogs as attached database files under a temp dir, `main` aliased to `main__ml`. */
export let engine: DuckDbEngine;

export async function openDuck(): Promise<{ conn: Conn; engine: DuckDbEngine; close(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ml-dialect-'));
  engine = await DuckDbEngine.open({ dir });
  await engine.attachCatalog('main');
  const lease = await engine.acquire();
  const conn = lease.conn as unknown as Conn;
  await conn.run(`CREATE SCHEMA IF NOT EXISTS ${engine.alias('main')}."default"`);
  return {
    conn,
    engine,
    close: async () => {
      lease.release();
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Rendered {
  columns: string[];
  types: string[];
  rows: (string | null)[][];
}

/**
 * Runs Databricks SQL and renders every value with the Statement API's own JSON_ARRAY renderer
 * (src/render.ts), so the corpus checks the strings a client receives.
 */
export async function runSql(conn: Conn, input: ExecuteInput | string): Promise<Rendered> {
  const inp = typeof input === 'string' ? { statement: input } : input;
  const res = (await executeDatabricksSql(conn as never, inp, { engine })) as unknown as {
    columnNames(): string[];
    columnTypes(): (TypeLike & { toString(): string })[];
    fetchAllChunks(): Promise<{ getRows(): unknown[][] }[]>;
  };
  const duckTypes = res.columnTypes();
  const rows: (string | null)[][] = [];
  for (const chunk of await res.fetchAllChunks()) {
    for (const r of chunk.getRows()) rows.push(r.map((v, i) => scalarString(v, duckTypes[i])));
  }
  return { columns: res.columnNames(), types: duckTypes.map((t) => t.toString()), rows };
}
