/**
 * Minimal structural types for the engine pieces the dialect layer uses. The real DuckDBConnection /
 * DuckDBResult (@duckdb/node-api) satisfy them; staying structural lets the engine's leased connections (a
 * Proxy) and test wrappers pass without casts.
 */
import type { DuckDbEngine } from '@minilake/engine-duckdb';
export interface DuckDBResultLike {
  readonly columnCount: number;
}

export interface DuckDBPreparedLike {
  bind(values: Record<string, unknown>): void;
  /** Forgets the values bound before (a cached statement is bound again for every run). */
  clearBindings?(): void;
  stream(): Promise<DuckDBResultLike>;
  /** Runs to a materialized result (its chunks are then read synchronously). */
  run?(): Promise<DuckDBResultLike>;
  destroySync(): void;
}

export interface DuckDBReaderLike {
  getRows(): unknown[][];
  columnNames(): string[];
}

export interface DuckDBConnectionLike {
  stream(sql: string, values?: Record<string, unknown>): Promise<DuckDBResultLike>;
  /** One statement, parsed and planned in one engine call (see execute.ts `streamOne`). */
  prepare?(sql: string): Promise<DuckDBPreparedLike>;
  run(sql: string, values?: Record<string, unknown>): Promise<unknown>;
  runAndReadAll(sql: string, values?: Record<string, unknown>): Promise<DuckDBReaderLike>;
}

/** What the dialect uses of the engine (@minilake/engine-duckdb's DuckDbEngine; tests pass a real one). */
export type DuckDbEngineLike = Pick<
  DuckDbEngine,
  'alias' | 'catalogForAlias' | 'catalogEpoch' | 'notifyChange'
>;
