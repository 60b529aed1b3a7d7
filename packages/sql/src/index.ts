import { rm } from 'node:fs/promises';
import path from 'node:path';
import { defineService } from '@minilake/core';
import { duckDbEngine } from '@minilake/engine-duckdb';
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

/** The part of iam's api sql uses (structural: no package dependency on iam). */
interface IamPeer {
  registerObjectType(
    definition: {
      request: readonly string[];
      objectType: string;
      levels: readonly string[];
      owner: string;
      admins: string;
    },
    hooks: { exists(id: string): boolean; owner(id: string): string | undefined },
  ): void;
}

function numberSetting(text: string | undefined, fallback: number): number {
  const n = text === undefined || text === '' ? NaN : Number(text);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

export const sqlService = defineService<SqlApi>({
  name: 'sql',
  description: 'Statement Execution API, SQL warehouses, query history',
  uses: ['unity-catalog', 'iam'],
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
    // Warehouses are a permissions object type (both request paths; levels, owner and admins as Databricks
    // has them): iam answers 404 for a warehouse that does not exist or was deleted.
    const warehouse = (id: string) => {
      try {
        return warehouses.get(id);
      } catch {
        return undefined;
      }
    };
    ctx.peer<IamPeer>('iam')?.registerObjectType(
      {
        request: ['sql/warehouses', 'warehouses'],
        objectType: 'warehouses',
        levels: ['CAN_USE', 'CAN_MANAGE', 'CAN_MONITOR', 'CAN_VIEW', 'IS_OWNER'],
        owner: 'IS_OWNER',
        admins: 'CAN_MANAGE',
      },
      {
        exists: (id) => !['DELETED', 'DELETING', undefined].includes(warehouse(id)?.state),
        owner: (id) => warehouse(id)?.creator_name,
      },
    );
    const ttl = numberSetting(ctx.config.MINILAKE_SQL_RESULT_TTL, 3600) * 1000;
    const chunkBytes = Math.max(1, numberSetting(ctx.config.MINILAKE_SQL_CHUNK_BYTES, 16 * 1024 * 1024));
    const opts: StatementOptions = {
      ...defaultStatementOptions,
      resultTtlMs: ttl,
      limits: { ...defaultStatementOptions.limits, chunkBytes, memBytes: Math.min(1024 * 1024, chunkBytes) },
    };
    const resultsDir = path.join(ctx.dataDir, 'sql', 'results');
    // Statements do not survive a restart, so result files left by a previous process are orphans.
    await rm(resultsDir, { recursive: true, force: true });
    const statements = new StatementManager(
      engine,
      ctx.peer('unity-catalog'),
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
