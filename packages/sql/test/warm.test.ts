/**
 * The SQL service's warm-up (src/warm.ts): started by a warehouse starting or the first SQL API request, it
 * runs before the first statement without showing in query history, and the first statement then answers as
 * usual.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Logger, type ServiceInstance, StateDb } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { sqlService } from '../src/index.js';

/** A logger that keeps every message, so a test can wait for the warm-up's "done" line. */
function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push(`${level} ${msg}${fields ? ` ${JSON.stringify(fields)}` : ''}`);
  const logger: Logger = {
    level: 'debug',
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: () => logger,
  };
  return logger;
}

describe('SQL warm-up', () => {
  let instance: ServiceInstance | undefined;
  afterEach(async () => {
    await instance?.close?.();
    instance = undefined;
  });

  it('runs when a warehouse starts, stays out of query history, and the first statement answers', async () => {
    const lines: string[] = [];
    const s = await serviceApp(sqlService, {
      config: { MINILAKE_WAREHOUSE_START_DELAY: '0' },
      logger: recordingLogger(lines),
    });
    instance = s.instance;
    const created = await s.app.request(
      '/api/2.0/sql/warehouses',
      jsonInit('POST', { name: 'w', cluster_size: 'Small' }),
    );
    const wh = ((await created.json()) as { id: string }).id;
    await vi.waitFor(() => expect(lines.some((l) => l.includes('SQL warm-up done'))).toBe(true), {
      timeout: 30_000,
      interval: 20,
    });
    expect(lines.filter((l) => l.startsWith('warn'))).toEqual([]);

    const res = await s.app.request(
      '/api/2.0/sql/statements',
      jsonInit('POST', { warehouse_id: wh, statement: 'SELECT 1 AS one', wait_timeout: '30s' }),
    );
    const body = (await res.json()) as { status: { state: string }; result: { data_array: string[][] } };
    expect(body.status.state).toBe('SUCCEEDED');
    expect(body.result.data_array).toEqual([['1']]);

    const history = (await (await s.app.request('/api/2.0/sql/history/queries')).json()) as {
      res?: { query_text: string }[];
    };
    expect(history.res?.map((q) => q.query_text)).toEqual(['SELECT 1 AS one']);
  });

  it('runs on a restart that finds a warehouse running, before any SQL request', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ml-warm-'));
    const config = { MINILAKE_WAREHOUSE_START_DELAY: '0' };
    try {
      let state = await StateDb.open(path.join(dir, 'state'));
      const first = await serviceApp(sqlService, { config, state, dataDir: dir });
      const created = await first.app.request(
        '/api/2.0/sql/warehouses',
        jsonInit('POST', { name: 'w', cluster_size: 'Small' }),
      );
      const wh = ((await created.json()) as { id: string }).id;
      await vi.waitFor(
        async () => {
          const got = await first.app.request(`/api/2.0/sql/warehouses/${wh}`);
          expect(((await got.json()) as { state: string }).state).toBe('RUNNING');
        },
        { timeout: 10_000, interval: 20 },
      );
      await first.instance.close?.();
      await state.close();

      // The restarted service warms up on its own: a Thrift or MCP client's first statement sends no REST
      // request and starts no warehouse.
      const lines: string[] = [];
      state = await StateDb.open(path.join(dir, 'state'));
      const s = await serviceApp(sqlService, { config, state, dataDir: dir, logger: recordingLogger(lines) });
      instance = s.instance;
      await vi.waitFor(() => expect(lines.some((l) => l.includes('SQL warm-up done'))).toBe(true), {
        timeout: 30_000,
        interval: 20,
      });
      await instance.close?.();
      instance = undefined;
      await state.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes cleanly while the warm-up is still under way', async () => {
    const lines: string[] = [];
    const s = await serviceApp(sqlService, { logger: recordingLogger(lines) });
    // The first SQL API request starts the warm-up; the service closes before it can finish.
    expect((await s.app.request('/api/2.0/sql/warehouses')).status).toBe(200);
    await s.instance.close?.();
    expect(lines.filter((l) => l.startsWith('warn') || l.startsWith('error'))).toEqual([]);
  });
});
