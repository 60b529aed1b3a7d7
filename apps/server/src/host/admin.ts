/**
 * Phase 5 of the host: the admin routes under /_minilake (always on, whatever MINILAKE_SERVICES says):
 * health, ready, reset, named snapshots and the service list.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Hono } from 'hono';
import * as v from 'valibot';
import { readJson, type Clock, type ServiceDefinition } from '@minilake/core';
import type { Snapshots } from '../snapshots.js';
import type { ServiceHost } from './services.js';

const snapshotBody = v.object({ name: v.optional(v.string()) });

export interface AdminOptions {
  services: ServiceHost;
  snapshots: Snapshots;
  dataDir: string;
  clock: Clock;
  /** Every service the server could enable, for GET /_minilake/services. */
  available: Iterable<ServiceDefinition>;
  /** The host's own state a full reset empties too (injected faults). */
  resetHost?: () => void;
}

/** The data dir writable and every created service ready. */
export async function readiness(o: Pick<AdminOptions, 'services' | 'dataDir'>) {
  const checks: Record<string, string> = {};
  try {
    await access(o.dataDir, constants.W_OK);
    checks.data_dir = 'ok';
  } catch (e) {
    checks.data_dir = `not writable: ${(e as Error).message}`;
  }
  Object.assign(checks, await o.services.ready());
  return { ok: Object.values(checks).every((c) => c === 'ok'), checks };
}

export function adminRoutes(app: Hono, o: AdminOptions): void {
  const { services, snapshots } = o;
  app.get('/_minilake/health', (c) => c.json({ status: 'ok' }));
  app.get('/_minilake/ready', async (c) => {
    const r = await readiness(o);
    return c.json({ status: r.ok ? 'ready' : 'not_ready', checks: r.checks }, r.ok ? 200 : 503);
  });
  app.post('/_minilake/reset', async (c) => {
    const q = c.req.query('services');
    const names = q
      ? q
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined;
    await services.reset(names);
    if (!names) o.resetHost?.();
    return c.json({ reset: names ?? services.order });
  });
  // Snapshots copy and restore every service's state, so every enabled service is created first.
  app.get('/_minilake/snapshots', async (c) => c.json({ snapshots: await snapshots.list() }));
  app.post('/_minilake/snapshots', async (c) => {
    const body = await readJson(c, snapshotBody);
    const name = body.name ?? `snapshot-${new Date(o.clock.now()).toISOString().replace(/[:.]/g, '-')}`;
    await services.createAll();
    return c.json(await snapshots.create(name));
  });
  app.get('/_minilake/snapshots/:name', async (c) => c.json(await snapshots.get(c.req.param('name'))));
  app.post('/_minilake/snapshots/:name/restore', async (c) => {
    await services.createAll();
    return c.json(await snapshots.restore(c.req.param('name')));
  });
  app.delete('/_minilake/snapshots/:name', async (c) => {
    await snapshots.delete(c.req.param('name'));
    return c.json({});
  });
  app.get('/_minilake/services', (c) =>
    c.json({
      enabled: services.order,
      available: [...o.available].map((d) => ({
        name: d.name,
        description: d.description,
        enabled: services.order.includes(d.name),
      })),
    }),
  );
}
