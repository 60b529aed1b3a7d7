import { defineService } from '@minilake/core';
import { DatabricksError } from '@minilake/core';
import { STARTER_WAREHOUSE_ID, type SqlApi } from '@minilake/sql';
import { thriftApp } from './app.js';
import { serviceRunner, type Runner } from './runner.js';
import { ThriftService } from './service.js';

export { thriftApp, processThrift } from './app.js';
export { ThriftService } from './service.js';
export type { Runner, Execution, RunRequest } from './runner.js';

function seconds(text: string | undefined, fallback: number): number {
  const n = text === undefined || text === '' ? NaN : Number(text);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export const thriftService = defineService({
  name: 'thrift',
  description:
    'Thrift/HS2 SQL endpoint (/sql/1.0/warehouses/<id>) for the SQL connectors, SQLAlchemy and dbt',
  uses: ['sql', 'unity-catalog'],
  configDefaults: {
    // Seconds a session may stay unused before it is closed.
    MINILAKE_THRIFT_SESSION_IDLE: '3600',
  },
  create(ctx) {
    const request = (p: string, init?: RequestInit) => ctx.request(p, init);
    const sql = ctx.peer<SqlApi>('sql');
    const unavailable: Runner = {
      start: () =>
        Promise.reject(new DatabricksError(501, 'NOT_IMPLEMENTED', 'The sql service is not enabled.')),
    };
    const service = new ThriftService({
      runner: sql ? serviceRunner(sql.statements) : unavailable,
      request,
      clock: ctx.clock,
      logger: ctx.logger,
      idleMs: seconds(ctx.config.MINILAKE_THRIFT_SESSION_IDLE, 3600) * 1000,
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
    const sessions = {
      name: 'thrift-sessions',
      version: 1,
      reset: () => service.clear().then(() => undefined),
      snapshot: () => ({}),
      restore: () => undefined,
    };
    return { app, state: [sessions], close: () => service.clear().then(() => undefined) };
  },
});
