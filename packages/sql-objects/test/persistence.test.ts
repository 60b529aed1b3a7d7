import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, StateDb } from '@minilake/core';
import { sqlService, type SqlApi } from '@minilake/sql';
import { jsonInit, serviceApp } from '@minilake/testing';
import { workspaceAdminService, type WorkspaceAdminApi } from '@minilake/workspace-admin';
import { sqlObjectsService } from '../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function boot(dir: string, clock: ManualClock) {
  const state = await StateDb.open(path.join(dir, 'state'));
  const opts = { clock, state, dataDir: dir };
  // The statement service waits on its clock: it keeps the system clock here.
  const s = await serviceApp(sqlService, {
    state,
    dataDir: dir,
    config: { MINILAKE_WAREHOUSE_START_DELAY: '0' },
  });
  const wa = await serviceApp(workspaceAdminService, opts);
  const made = await serviceApp(sqlObjectsService, {
    ...opts,
    peers: new Map<string, unknown>([
      ['sql', s.instance.api as SqlApi],
      ['workspace-admin', wa.instance.api as WorkspaceAdminApi],
    ]),
  });
  const call = async (method: string, p: string, body?: unknown): Promise<Any> => {
    const res = await made.app.request(p, jsonInit(method, body));
    expect(res.status, p).toBe(200);
    return res.json();
  };
  const close = async () => {
    await made.instance.close?.();
    await wa.instance.close?.();
    await s.instance.close?.();
    await state.close();
  };
  return { call, close, admin: wa, sql: s.instance.api as SqlApi };
}

describe('persistence', () => {
  it('queries, alerts and webhook delivery survive a restart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'minilake-sqlobj-'));
    dirs.push(dir);
    const clock = new ManualClock(Date.now());
    const first = await boot(dir, clock);
    const q = await first.call('POST', '/api/2.0/sql/queries', {
      query: { display_name: 'kept', query_text: 'SELECT 5 AS n', warehouse_id: 'dev' },
    });
    const a = await first.call('POST', '/api/2.0/sql/alerts', {
      alert: {
        display_name: 'kept alert',
        query_id: q.id,
        condition: {
          op: 'EQUAL',
          operand: { column: { name: 'n' } },
          threshold: { value: { double_value: 5 } },
        },
      },
    });
    const dest = await first.admin.app.request(
      '/api/2.0/notification-destinations',
      jsonInit('POST', { display_name: 'h', config: { generic_webhook: { url: 'http://127.0.0.1:9/x' } } }),
    );
    const destId = ((await dest.json()) as Any).id as string;
    await first.close();

    const second = await boot(dir, clock);
    expect(await second.call('GET', `/api/2.0/sql/queries/${q.id}`)).toMatchObject({ display_name: 'kept' });
    const r = await second.call('POST', `/_minilake/sql/alerts/${a.id}/evaluate`, {
      subscriptions: [{ destination_id: destId }],
    });
    expect(r.alert.state).toBe('TRIGGERED');
    // The sealed webhook URL was read back with the persisted key (the port refuses: not delivered, no throw).
    expect(r.deliveries).toMatchObject([{ delivered: false }]);
    expect((second.admin.instance.api as WorkspaceAdminApi).deliveryTarget(destId)).toMatchObject({
      type: 'WEBHOOK',
      url: 'http://127.0.0.1:9/x',
    });
    await second.close();
  });
});
