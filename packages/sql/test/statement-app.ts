/** The SQL service in process with one running warehouse, for tests that post statements to it. */
import type { SharedResource } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '@minilake/unity-catalog';
import type { Hono } from 'hono';
import { sqlService } from '../src/index.js';

/** The parts of a Statement API answer these tests read. */
export interface StatementBody {
  statement_id: string;
  status: { state: string; error?: { error_code: string; message: string } };
  manifest?: {
    schema: { columns: { name: string; type_name: string; type_text: string }[] };
    total_row_count: number;
    truncated: boolean;
  };
  result?: { data_array?: (string | null)[][] };
}

export interface StatementApp {
  /** POSTs one statement (waiting up to 30 s) and returns the HTTP status and the parsed body. */
  post(statement: string, extra?: Record<string, unknown>): Promise<{ status: number; body: StatementBody }>;
  close(): Promise<void>;
}

export async function statementApp(warehouseName: string): Promise<StatementApp> {
  const { app, instance } = await serviceApp(sqlService, { config: { MINILAKE_WAREHOUSE_START_DELAY: '0' } });
  const res = await app.request(
    '/api/2.0/sql/warehouses',
    jsonInit('POST', { name: warehouseName, cluster_size: 'Small' }),
  );
  const wh = ((await res.json()) as { id: string }).id;
  return {
    async post(statement, extra = {}) {
      const r = await app.request(
        '/api/2.0/sql/statements',
        jsonInit('POST', { warehouse_id: wh, statement, wait_timeout: '30s', ...extra }),
      );
      return { status: r.status, body: (await r.json()) as StatementBody };
    },
    close: async () => {
      await instance.close?.();
    },
  };
}

/** Unity Catalog and the SQL service in process over one data dir (one engine), with one running warehouse. */
export interface CatalogSqlApps {
  ucApp: Hono;
  sqlApp: Hono;
  /** The running warehouse's id. */
  wh: string;
  /** Unity Catalog's Api (its engine, its store), for tests that look under the REST surface. */
  uc: UnityCatalogApi;
  close(): Promise<void>;
}

export async function catalogSqlApps(
  dataDir: string,
  ucConfig: Record<string, string> = {},
): Promise<CatalogSqlApps> {
  const shared = new Map<string, Promise<SharedResource>>();
  const uc = await serviceApp(unityCatalogService, { dataDir, sharedResources: shared, config: ucConfig });
  const sql = await serviceApp(sqlService, {
    dataDir,
    sharedResources: shared,
    peers: new Map([['unity-catalog', uc.instance.api]]),
    config: { MINILAKE_WAREHOUSE_START_DELAY: '0' },
  });
  const res = await sql.app.request(
    '/api/2.0/sql/warehouses',
    jsonInit('POST', { name: 'd', cluster_size: 'Small' }),
  );
  const wh = ((await res.json()) as { id: string }).id;
  return {
    ucApp: uc.app,
    sqlApp: sql.app,
    wh,
    uc: uc.instance.api as UnityCatalogApi,
    close: async () => {
      await sql.instance.close?.();
      await uc.instance.close?.();
    },
  };
}
