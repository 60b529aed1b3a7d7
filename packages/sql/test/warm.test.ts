/**
 * The SQL service's warm-up (src/warm.ts): started by a warehouse starting or the first SQL API request, it
 * runs before the first statement without showing in query history, and the first statement then answers as
 * usual.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger, ServiceInstance } from '@minilake/core';
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

  it('closes cleanly while the warm-up is still under way', async () => {
    const lines: string[] = [];
    const s = await serviceApp(sqlService, { logger: recordingLogger(lines) });
    // The first SQL API request starts the warm-up; the service closes before it can finish.
    expect((await s.app.request('/api/2.0/sql/warehouses')).status).toBe(200);
    await s.instance.close?.();
    expect(lines.filter((l) => l.startsWith('warn') || l.startsWith('error'))).toEqual([]);
  });
});
