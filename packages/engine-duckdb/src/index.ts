import os from 'node:os';
import { numberSetting, textSetting, type ServiceContext, type SettingsOf } from '@minilake/core';
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

/**
 * The settings the engine reads: every service that opens it spreads these into its own settings schema.
 * The memory limit takes what DuckDB's `memory_limit` takes (a number and a unit), checked at start-up rather
 * than when the engine opens.
 */
export const duckDbSettings = {
  MINILAKE_DUCKDB_MEMORY_LIMIT: textSetting({
    doc: 'DuckDB memory limit, e.g. `4GB` or `512MiB` (larger operators spill to the data dir).',
    shown: 'a quarter of RAM (≥ 1 GB)',
    pattern: [
      /^\s*\d+(\.\d+)?\s*(b|bytes?|k|m|g|t|kb|mb|gb|tb|kib|mib|gib|tib)\s*$/i,
      'must be a size such as 4GB, 512MB or 2GiB',
    ],
  }),
  MINILAKE_DUCKDB_THREADS: numberSetting({
    doc: 'DuckDB worker threads.',
    shown: "DuckDB's (one per core)",
    integer: true,
    min: 1,
  }),
};
export type DuckDbSettings = SettingsOf<typeof duckDbSettings>;

/**
 * DuckDB's own default is 80% of the machine's memory, which on a laptop leaves little for everything else
 * next to an emulator: a quarter of it (at least 1 GB) instead. DuckDB spills larger operators to its
 * temp directory rather than failing.
 */
export function defaultMemoryLimit(totalBytes = os.totalmem()): string {
  return `${Math.max(1024, Math.floor(totalBytes / 4 / 2 ** 20))}MB`;
}

/** The host's one engine: created by the first service that asks, shared by all of them. */
export function duckDbEngine(ctx: ServiceContext<DuckDbSettings>): Promise<DuckDbEngine> {
  return ctx.shared('duckdb', () => {
    const memoryLimit = ctx.settings.MINILAKE_DUCKDB_MEMORY_LIMIT?.trim() || defaultMemoryLimit();
    const threads = ctx.settings.MINILAKE_DUCKDB_THREADS;
    return DuckDbEngine.open({
      dir: ctx.folder(DUCKDB_FOLDER),
      ...(memoryLimit ? { memoryLimit } : {}),
      ...(threads ? { threads } : {}),
      logger: ctx.logger.child('duckdb'),
    });
  });
}
