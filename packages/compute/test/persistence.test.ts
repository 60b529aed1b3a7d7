import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, StateDb } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { computeService } from '../src/index.js';

type Json = Record<string, any>;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function boot(dir: string, clock: ManualClock) {
  const state = await StateDb.open(path.join(dir, 'state'));
  const { app, instance } = await serviceApp(computeService, {
    clock,
    state,
    dataDir: dir,
    config: { MINILAKE_CLUSTER_START_DELAY: '2', MINILAKE_CLUSTER_TERMINATE_DELAY: '1' },
  });
  const call = async (p: string, body?: unknown): Promise<Json> => {
    const res = await app.request(p, body === undefined ? undefined : jsonInit('POST', body));
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  };
  const close = async () => {
    await instance.close?.();
    await state.close();
  };
  return { call, close };
}

describe('timers after a restart with persistence', () => {
  it('re-arms transitions from the persisted state', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'minilake-compute-'));
    dirs.push(dir);
    const clock = new ManualClock();
    const first = await boot(dir, clock);
    const spec = { spark_version: '15.4.x-scala2.12', node_type_id: 'i3.xlarge', num_workers: 1 };
    const starting = (await first.call('/api/2.1/clusters/create', spec)).cluster_id as string;
    const deleted = (await first.call('/api/2.1/clusters/create', spec)).cluster_id as string;
    clock.advance(500);
    await first.call('/api/2.1/clusters/delete', { cluster_id: deleted }); // due at 1500
    clock.advance(800);
    const late = (await first.call('/api/2.1/clusters/create', spec)).cluster_id as string; // due at 3300
    await first.close();

    // The "process" is down for a while (until t=2000); its timers are gone.
    const clock2 = new ManualClock(clock.now() + 700);
    const second = await boot(dir, clock2);
    const state = async (id: string) =>
      (await second.call(`/api/2.1/clusters/get?cluster_id=${id}`)).state as string;
    expect(await state(starting)).toBe('PENDING');
    expect(await state(deleted)).toBe('TERMINATING');
    clock2.advance(0);
    // Both fell due while the server was down: they settle as soon as it is back.
    expect(await state(starting)).toBe('RUNNING');
    expect(await state(deleted)).toBe('TERMINATED');
    expect(await state(late)).toBe('PENDING');
    clock2.advance(1299);
    expect(await state(late)).toBe('PENDING');
    clock2.advance(1);
    expect(await state(late)).toBe('RUNNING');
    const events = await second.call('/api/2.1/clusters/events', { cluster_id: deleted });
    expect(events.events.map((e: Json) => e.type)).not.toContain('RUNNING');
    await second.close();
  });
});
