import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Hono } from 'hono';
import { defineService, numberSetting, switchSetting, type SettingsOf } from '@minilake/core';
import { DUCKDB_FOLDER, duckDbEngine, duckDbSettings } from '@minilake/engine-duckdb';
import { iamService } from '@minilake/iam';
import { pipelinesService } from '@minilake/pipelines';
import { unityCatalogService } from '@minilake/unity-catalog';
import { sqlApp } from './app.js';
import { QueryHistoryStore } from './history.js';
import {
  defaultStatementOptions,
  StatementManager,
  type StatementOptions,
  type StatementService,
} from './statements.js';
import { WarehouseStore } from './warehouses.js';
import { sqlWarmer } from './warm.js';

export { sqlApp } from './app.js';
export { WarehouseStore, type WarehouseRecord } from './warehouses.js';
export { QueryHistoryStore, type QueryRecord } from './history.js';
export {
  StatementManager,
  STATEMENT_API_CLIENT,
  defaultStatementOptions,
  type SqlRequest,
  type Statement,
  type StatementManagerOptions,
  type StatementOptions,
  type StatementOutcome,
  type StatementService,
  type StatementState,
} from './statements.js';
export { STARTER_WAREHOUSE_ID, STARTER_WAREHOUSE_NAME, type WarehouseStoreOptions } from './warehouses.js';
export type { ColumnInfo } from './render.js';
export type { Format, Disposition } from './results.js';
export type { StatementParameter } from './dialect/index.js';
// Unity Catalog's visibility rule bound to one caller: the Thrift metadata calls filter by it too.
export { visibilityOf, type Visibility } from './dialect/index.js';

/** What other services may use (`ctx.peer(sqlService)`, declaring `uses: ['sql']`). */
export interface SqlApi {
  /** Whether a statement may name this warehouse (exists and is not deleted). */
  warehouseExists(id: string): boolean;
  /**
   * Statement execution, the same service the REST Statement API uses: Thrift, jobs' sql_task and
   * sql-objects' queries and alerts adapt only the wire shape (MCP tools and the UI are REST clients), and
   * every statement lands in query history (`client` names the front end there). See README.md,
   * "Statement service".
   */
  statements: StatementService;
  /** The legacy data sources (GET /api/2.0/preview/sql/data_sources): each warehouse's data source id. */
  dataSources(): { id: string; warehouseId: string }[];
}

/** The SQL service's settings: the engine's, warehouses' timing, statements' limits. */
export const sqlSettings = {
  ...duckDbSettings,
  MINILAKE_WAREHOUSE_START_DELAY: numberSetting({
    doc:
      'Seconds a SQL warehouse spends STARTING (and STOPPING). A statement on a stopped or starting warehouse ' +
      'waits for it, as on Databricks: the first statement on the starter warehouse `dev` of a fresh server takes this long.',
    default: 1,
  }),
  MINILAKE_SQL_RESULT_TTL: numberSetting({
    doc: "Seconds a statement's result stays fetchable before it is CLOSED and freed.",
    default: 3600,
  }),
  MINILAKE_SQL_CHUNK_BYTES: numberSetting({
    doc: 'Target size of an EXTERNAL_LINKS result chunk.',
    default: 16 * 1024 * 1024,
    integer: true,
    min: 1,
  }),
  MINILAKE_SQL_MAX_STATEMENTS: numberSetting({
    doc:
      'Statement handles (with their results) kept at most; above it the oldest finished ones are dropped early ' +
      '(404), so memory does not grow with the number of statements.',
    default: defaultStatementOptions.maxStatements,
    integer: true,
    min: 1,
  }),
  MINILAKE_SQL_STRICT_WAREHOUSES: switchSetting({
    doc: '`1`: no starter warehouse `dev`; a statement naming a warehouse that was not created is 404, as on Databricks.',
    default: '0',
  }),
};

export type SqlSettings = SettingsOf<typeof sqlSettings>;

export const sqlService = defineService<SqlApi, typeof sqlSettings>({
  name: 'sql',
  description: 'Statement Execution API, SQL warehouses, query history',
  // Without unity-catalog statements run on the engine alone (no catalogs to manage); with iam, warehouses
  // are a permissions object type.
  optionalUses: ['unity-catalog', 'iam', 'pipelines'],
  folders: [DUCKDB_FOLDER],
  settings: sqlSettings,
  async create(ctx) {
    const engine = await duckDbEngine(ctx);
    const uc = ctx.optionalPeer(unityCatalogService);
    const pipelines = ctx.optionalPeer(pipelinesService);
    const warmer = sqlWarmer({ engine, uc, user: ctx.identity.userName, logger: ctx.logger });
    const settings = ctx.settings;
    const transitionMs = settings.MINILAKE_WAREHOUSE_START_DELAY * 1000;
    const iam = ctx.optionalPeer(iamService);
    const warehouses = new WarehouseStore({
      db: ctx.state,
      clock: ctx.clock,
      creator: ctx.identity.userName,
      caller: () => ctx.principal().userName,
      transitionMs,
      strict: settings.MINILAKE_SQL_STRICT_WAREHOUSES,
      onStarting: () => void warmer.warm(),
    });
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
    iam?.registerObjectType(
      {
        request: ['sql/warehouses', 'warehouses'],
        objectType: 'warehouses',
        levels: ['CAN_USE', 'CAN_MANAGE', 'CAN_MONITOR', 'CAN_VIEW', 'IS_OWNER'],
        owner: 'IS_OWNER',
        admins: 'CAN_MANAGE',
        // Databricks' warehouse ACLs: monitoring includes using, managing includes monitoring.
        order: ['CAN_VIEW', 'CAN_USE', 'CAN_MONITOR', 'CAN_MANAGE', 'IS_OWNER'],
        noun: 'warehouse',
      },
      {
        exists: (id) => !['DELETED', 'DELETING', undefined].includes(warehouse(id)?.state),
        owner: (id) => warehouse(id)?.creator_name,
      },
    );
    const chunkBytes = settings.MINILAKE_SQL_CHUNK_BYTES;
    const opts: StatementOptions = {
      ...defaultStatementOptions,
      resultTtlMs: settings.MINILAKE_SQL_RESULT_TTL * 1000,
      maxStatements: settings.MINILAKE_SQL_MAX_STATEMENTS,
      limits: { ...defaultStatementOptions.limits, chunkBytes, memBytes: Math.min(1024 * 1024, chunkBytes) },
    };
    const resultsDir = path.join(ctx.dir, 'results');
    // Statements do not survive a restart, so result files left by a previous process are orphans.
    await rm(resultsDir, { recursive: true, force: true });
    const statements = new StatementManager({
      engine,
      // CREATE MATERIALIZED VIEW / STREAMING TABLE run as pipelines (the pipelines service's Api).
      uc,
      datasets: pipelines?.runDatasetStatement,
      warehouses,
      history,
      clock: ctx.clock,
      identity: ctx.identity,
      caller: () => ctx.principal(),
      mayUse: (id) => iam?.check('sql/warehouses', id, 'CAN_USE'),
      fault: (text) => ctx.fault('statement', text),
      resultsDir,
      logger: ctx.logger,
      options: opts,
    });
    // The dialect's WASM loads and the statement pipeline warms up in the background on the first request to
    // the SQL API (a client lists or creates its warehouse before its first statement) or when a warehouse
    // starts, so neither `ready` nor, usually, the first statement waits for it (warm.ts); a server nobody
    // sends SQL to does not carry the dialect's memory.
    const app = new Hono();
    app.use('/api/2.0/sql/*', async (_c, next) => {
      void warmer.warm();
      await next();
    });
    const access = iam && {
      check: (id: string, level: string) => iam.check('sql/warehouses', id, level),
      can: (id: string, level: string) => iam.can('sql/warehouses', id, level),
    };
    app.route('/', sqlApp(statements, warehouses, history, access));
    return {
      app,
      state: [warehouses, history],
      // Statements are live handles over engine connections and result files, not state: a reset cancels
      // and frees them before the warehouses and history are emptied.
      beforeReset: () => statements.clear(),
      api: {
        warehouseExists: (id) => warehouses.exists(id),
        statements,
        dataSources: () => warehouses.dataSources().map((w) => ({ id: w.data_source_id, warehouseId: w.id })),
      },
      close: async () => {
        warehouses.close();
        await warmer.settle();
        await statements.clear();
      },
    };
  },
});
