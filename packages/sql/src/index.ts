import { rm } from 'node:fs/promises';
import path from 'node:path';
import { defineService } from '@minilake/core';
import { DUCKDB_FOLDER, duckDbEngine } from '@minilake/engine-duckdb';
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import { sqlApp } from './app.js';
import { QueryHistoryStore } from './history.js';
import { defaultStatementOptions, StatementManager, type StatementOptions } from './statements.js';
import { WarehouseStore } from './warehouses.js';

export { sqlApp } from './app.js';
export { WarehouseStore, type WarehouseRecord } from './warehouses.js';
export { QueryHistoryStore, type QueryRecord } from './history.js';
export {
  StatementManager,
  defaultStatementOptions,
  type Statement,
  type StatementOptions,
} from './statements.js';

/** What other services may use: run a statement to completion (jobs' SQL tasks, the UI). */
export interface SqlApi {
  warehouseExists(id: string): boolean;
}

function numberSetting(text: string | undefined, fallback: number): number {
  const n = text === undefined || text === '' ? NaN : Number(text);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

export const sqlService = defineService<SqlApi>({
  name: 'sql',
  description: 'Statement Execution API, SQL warehouses, query history',
  // Without unity-catalog statements run on the engine alone (no catalogs to manage).
  optionalUses: ['unity-catalog'],
  folders: [DUCKDB_FOLDER],
  configDefaults: {
    MINILAKE_WAREHOUSE_START_DELAY: '1',
    MINILAKE_SQL_RESULT_TTL: '3600',
    MINILAKE_SQL_CHUNK_BYTES: String(16 * 1024 * 1024),
  },
  async create(ctx) {
    const engine = await duckDbEngine(ctx);
    const transitionMs = numberSetting(ctx.config.MINILAKE_WAREHOUSE_START_DELAY, 1) * 1000;
    const warehouses = new WarehouseStore(ctx.state, ctx.clock, ctx.identity.userName, transitionMs);
    const history = new QueryHistoryStore(ctx.state);
    const ttl = numberSetting(ctx.config.MINILAKE_SQL_RESULT_TTL, 3600) * 1000;
    const chunkBytes = Math.max(1, numberSetting(ctx.config.MINILAKE_SQL_CHUNK_BYTES, 16 * 1024 * 1024));
    const opts: StatementOptions = {
      ...defaultStatementOptions,
      resultTtlMs: ttl,
      limits: { ...defaultStatementOptions.limits, chunkBytes, memBytes: Math.min(1024 * 1024, chunkBytes) },
    };
    const resultsDir = path.join(ctx.dir, 'results');
    // Statements do not survive a restart, so result files left by a previous process are orphans.
    await rm(resultsDir, { recursive: true, force: true });
    const statements = new StatementManager(
      engine,
      ctx.optionalPeer<UnityCatalogApi>('unity-catalog'),
      warehouses,
      history,
      ctx.clock,
      ctx.identity,
      resultsDir,
      ctx.logger,
      opts,
    );
    // Statements are live handles over engine connections and result files: reset cancels and frees them.
    const statementState = {
      name: 'sql-statements',
      version: 1,
      reset: () => statements.clear(),
      snapshot: () => ({}),
      restore: () => undefined,
    };
    return {
      app: sqlApp(statements, warehouses, history),
      state: [statementState, warehouses, history],
      api: {
        warehouseExists: (id) => {
          try {
            warehouses.usable(id);
            return true;
          } catch {
            return false;
          }
        },
      },
      close: async () => {
        warehouses.close();
        await statements.clear();
      },
    };
  },
});
