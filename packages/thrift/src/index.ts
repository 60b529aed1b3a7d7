import { Hono, type Context } from 'hono';
import { DatabricksError, defineService, numberSetting } from '@minilake/core';
import { sqlService, STARTER_WAREHOUSE_ID } from '@minilake/sql';
import { unityCatalogService } from '@minilake/unity-catalog';
import type { Runner } from './runner.js';

export type { ThriftService } from './service.js';
export type { Runner, Execution, RunRequest } from './runner.js';

export const thriftSettings = {
  MINILAKE_THRIFT_SESSION_IDLE: numberSetting({
    doc: 'Seconds a Thrift SQL session may stay unused before it is closed.',
    default: 3600,
    positive: true,
  }),
};

export const thriftService = defineService<unknown, typeof thriftSettings>({
  name: 'thrift',
  description:
    'Thrift/HS2 SQL endpoint (/sql/1.0/warehouses/<id>) for the SQL connectors, SQLAlchemy and dbt',
  uses: ['sql', 'unity-catalog'],
  settings: thriftSettings,
  create(ctx) {
    const sql = ctx.peer(sqlService);
    const uc = ctx.peer(unityCatalogService);
    const unavailable: Runner = {
      start: () =>
        Promise.reject(new DatabricksError(501, 'NOT_IMPLEMENTED', 'The sql service is not enabled.')),
    };
    // The implementation (the generated TCLIService processor, apache-arrow, lz4) is loaded by the first
    // Thrift call, not at start-up, where it cost ~0.4 s of CPU (bench/README.md, cold start).
    let loaded: Promise<{ service: import('./service.js').ThriftService; app: Hono }> | undefined;
    const load = () =>
      (loaded ??= import('./host.js').then(({ ThriftService, thriftApp, serviceRunner }) => {
        const service = new ThriftService({
          runner: sql ? serviceRunner(sql.statements) : unavailable,
          uc,
          principal: () => ctx.principal(),
          clock: ctx.clock,
          logger: ctx.logger,
          idleMs: ctx.settings.MINILAKE_THRIFT_SESSION_IDLE * 1000,
        });
        const app = thriftApp({
          service,
          resolveWarehouse(kind, id) {
            if (!sql) return undefined;
            if (sql.warehouseExists(id)) return id;
            // The starter warehouse is provisioned by its first statement (or refused in strict mode there).
            if (id === STARTER_WAREHOUSE_ID || kind === 'cluster') return STARTER_WAREHOUSE_ID;
            return undefined;
          },
        });
        // Errors go on to the host's handler, which renders them as Databricks errors.
        app.onError((e) => {
          throw e;
        });
        return { service, app };
      }));
    // The same two routes thriftApp serves (app.ts), forwarded to it once loaded.
    const forward = async (c: Context) => (await load()).app.fetch(c.req.raw, c.env);
    const app = new Hono();
    app.post('/sql/1.0/warehouses/:id', forward);
    app.post('/sql/protocolv1/o/:org/:cluster', forward);
    const clear = async () => {
      if (loaded) await (await loaded).service.clear();
    };
    // Sessions are live handles, not state: a reset closes them.
    return { app, state: [], beforeReset: clear, close: clear };
  },
});
