import path from 'node:path';
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
export * from './types.js';
export { ident, literal, qualified, SqlTextError } from './sql.js';
export type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';

/** Config keys the engine reads (documented in the server README). */
export const duckDbConfigDefaults = {
  MINILAKE_DUCKDB_MEMORY_LIMIT: '',
  MINILAKE_DUCKDB_THREADS: '',
} as const;

/** The host's one engine: created by the first service that asks, shared by all of them. */
export function duckDbEngine(ctx: ServiceContext): Promise<DuckDbEngine> {
  return ctx.shared('duckdb', () => {
    const memoryLimit = ctx.config.MINILAKE_DUCKDB_MEMORY_LIMIT || undefined;
    const threadsText = ctx.config.MINILAKE_DUCKDB_THREADS;
    const threads = threadsText && /^\d+$/.test(threadsText) ? Number(threadsText) : undefined;
    return DuckDbEngine.open({
      dir: path.join(ctx.dataDir, 'duckdb'),
      ...(memoryLimit ? { memoryLimit } : {}),
      ...(threads ? { threads } : {}),
      logger: ctx.logger.child('duckdb'),
    });
  });
}
