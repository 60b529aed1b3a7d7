import os from 'node:os';
import type { ServiceContext } from '@minilake/core';
import { DuckDbEngine } from './engine.js';

export {
  DuckDbEngine,
  catalogAlias,
  catalogAliasToName,
  catalogFileName,
  type CatalogChange,
  type CatalogChangeListener,
  type DuckDbEngineOptions,
  type PooledConnection,
} from './engine.js';
export { ident, literal, qualified, SqlTextError } from './sql.js';
export type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';

/**
 * The engine's folder under the data dir (`<dataDir>/duckdb`): every service that opens the engine declares
 * it in ServiceDefinition.folders, so the host knows to clean it when persistence is off.
 */
export const DUCKDB_FOLDER = 'duckdb';

/** Config keys the engine reads (documented in the server README). */
export const duckDbConfigDefaults = {
  MINILAKE_DUCKDB_MEMORY_LIMIT: '',
  MINILAKE_DUCKDB_THREADS: '',
} as const;

/**
 * DuckDB's own default is 80% of the machine's memory, which on a laptop leaves little for everything else
 * next to an emulator: a quarter of it (at least 1 GB) instead. DuckDB spills larger operators to its
 * temp directory rather than failing.
 */
export function defaultMemoryLimit(totalBytes = os.totalmem()): string {
  return `${Math.max(1024, Math.floor(totalBytes / 4 / 2 ** 20))}MB`;
}

/** The host's one engine: created by the first service that asks, shared by all of them. */
export function duckDbEngine(ctx: ServiceContext): Promise<DuckDbEngine> {
  return ctx.shared('duckdb', () => {
    const memoryLimit = ctx.config.MINILAKE_DUCKDB_MEMORY_LIMIT || defaultMemoryLimit();
    const threadsText = ctx.config.MINILAKE_DUCKDB_THREADS;
    const threads = threadsText && /^\d+$/.test(threadsText) ? Number(threadsText) : undefined;
    return DuckDbEngine.open({
      dir: ctx.folder(DUCKDB_FOLDER),
      ...(memoryLimit ? { memoryLimit } : {}),
      ...(threads ? { threads } : {}),
      logger: ctx.logger.child('duckdb'),
    });
  });
}
