import { defineService } from '@minilake/core';
import type { SqlApi } from '@minilake/sql';
import { thriftApp } from './app.js';
import { restRunner } from './runner.js';
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
    const service = new ThriftService({
      runner: restRunner(request),
      request,
      clock: ctx.clock,
      logger: ctx.logger,
      idleMs: seconds(ctx.config.MINILAKE_THRIFT_SESSION_IDLE, 3600) * 1000,
    });
    const sql = ctx.peer<SqlApi>('sql');
    const firstWarehouse = async (): Promise<string | undefined> => {
      const res = await request('/api/2.0/sql/warehouses');
      if (!res.ok) return undefined;
      const body = (await res.json()) as { warehouses?: { id: string }[] };
      return body.warehouses?.[0]?.id;
    };
    const app = thriftApp({
      service,
      async resolveWarehouse(kind, id) {
        if (!sql) return undefined;
        if (sql.warehouseExists(id)) return id;
        return kind === 'cluster' ? firstWarehouse() : undefined;
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
