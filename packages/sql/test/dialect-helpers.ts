/**
 * The real DuckDbEngine for dialect tests. Value converters come from @duckdb/node-api, a dependency of
 * @minilake/engine-duckdb (not of this package), so it is resolved from there.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDbEngine } from '@minilake/engine-duckdb';
import { executeDatabricksSql, type ExecuteInput } from '../src/dialect/index.js';

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

let converters: { js: unknown; json: unknown } | undefined;

/** The real engine: catalogs as attached database files under a temp dir, `main` aliased to `main__ml`. */
export let engine: DuckDbEngine;

export async function openDuck(): Promise<{ conn: Conn; engine: DuckDbEngine; close(): Promise<void> }> {
  const req = createRequire(fileURLToPath(new URL('../../engine-duckdb/package.json', import.meta.url)));
  const m = (await import(req.resolve('@duckdb/node-api'))) as {
    JSDuckDBValueConverter: unknown;
    JsonDuckDBValueConverter: unknown;
  };
  converters = { js: m.JSDuckDBValueConverter, json: m.JsonDuckDBValueConverter };
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

function nested(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(nested);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const o = v as Record<string, unknown>;
    // MAP values come back as {entries: [{key, value}]}.
    if (Array.isArray(o.entries))
      return Object.fromEntries(
        (o.entries as { key: unknown; value: unknown }[]).map((e) => [String(e.key), nested(e.value)]),
      );
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, nested(x)]));
  }
  return v;
}

function render(v: unknown, type: string, js: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object') return JSON.stringify(nested(js));
  if (typeof v === 'number' && (type === 'DOUBLE' || type === 'FLOAT')) {
    if (Number.isInteger(v)) return `${v}.0`;
    return String(v);
  }
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** Runs Databricks SQL and renders rows the way the Statement API's JSON_ARRAY does (strings or null). */
export async function runSql(conn: Conn, input: ExecuteInput | string): Promise<Rendered> {
  const inp = typeof input === 'string' ? { statement: input } : input;
  const res = (await executeDatabricksSql(conn as never, inp, { engine })) as unknown as {
    columnNames(): string[];
    columnTypes(): { toString(): string }[];
    fetchAllChunks(): Promise<{ convertRows<T>(c: unknown): (T | null)[][] }[]>;
  };
  const types = res.columnTypes().map((t) => t.toString());
  const rows: (string | null)[][] = [];
  for (const chunk of await res.fetchAllChunks()) {
    const json = chunk.convertRows<unknown>(converters!.json);
    const js = chunk.convertRows<unknown>(converters!.js);
    json.forEach((r, k) => rows.push(r.map((v, i) => render(v, types[i]!, js[k]![i]))));
  }
  return { columns: res.columnNames(), types, rows };
}
