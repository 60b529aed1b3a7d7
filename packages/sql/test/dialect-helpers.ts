/**
 * A real DuckDB for dialect tests. @duckdb/node-api is a dependency of @minilake/engine-duckdb (not of this
 * package), so it is resolved from there. Catalogs are attached like the engine does: main -> main__ml.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
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

export const engine = {
  alias: (c: string): string => (['main', 'system', 'temp', 'memory'].includes(c) ? `${c}__ml` : c),
};

export async function openDuck(): Promise<{ conn: Conn; close(): void }> {
  const req = createRequire(fileURLToPath(new URL('../../engine-duckdb/package.json', import.meta.url)));
  const mod = (await import(req.resolve('@duckdb/node-api'))) as {
    DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<Conn>; closeSync?(): void }> };
  };
  const m = mod as unknown as { JSDuckDBValueConverter: unknown; JsonDuckDBValueConverter: unknown };
  converters = { js: m.JSDuckDBValueConverter, json: m.JsonDuckDBValueConverter };
  const inst = await mod.DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  await conn.run("ATTACH ':memory:' AS main__ml");
  await conn.run('CREATE SCHEMA main__ml."default"');
  return { conn, close: () => inst.closeSync?.() };
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
