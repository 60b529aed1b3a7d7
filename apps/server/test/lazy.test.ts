import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMinilake, parseConfig, registry } from '../src/index.js';

const json = { 'content-type': 'application/json' };

describe('services started on their first request', () => {
  it('declare prefixes that cover every route they serve', async () => {
    // Each lazily started service, alone: the routes it adds to those of the host and its required peers
    // are all under its `paths`.
    // Persistent, so the peers start with the host (a required peer that declares paths, as workspace does
    // for lakeview, mlflow and pipelines, or compute for connect, would otherwise not be mounted yet) and their routes are listed.
    const routesOf = async (services: string) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'minilake-lazy-'));
      const ml = await createMinilake(
        parseConfig({
          MINILAKE_SERVICES: services,
          MINILAKE_LOG_LEVEL: 'silent',
          MINILAKE_PERSIST: '1',
          MINILAKE_DATA_DIR: dir,
        }),
      );
      const routes = new Set(ml.app.routes.map((r) => r.path));
      await ml.close();
      rmSync(dir, { recursive: true, force: true });
      return routes;
    };
    for (const def of registry.values()) {
      if (!def.paths) continue;
      const hostRoutes = await routesOf(def.uses?.join(',') || 'iam');
      // Persistent, so it starts with the host and its routes are mounted where app.routes lists them.
      const dir = mkdtempSync(path.join(os.tmpdir(), 'minilake-lazy-'));
      const ml = await createMinilake(
        parseConfig({
          MINILAKE_SERVICES: def.name,
          MINILAKE_LOG_LEVEL: 'silent',
          MINILAKE_PERSIST: '1',
          MINILAKE_DATA_DIR: dir,
        }),
      );
      try {
        // Middleware over a wildcard (`app.use('/api/*', guard)`) guards the service's own routes only.
        const own = ml.app.routes
          .filter((r) => !(r.method === 'ALL' && r.path.endsWith('*')))
          .map((r) => r.path)
          .filter((p) => !hostRoutes.has(p));
        const outside = own.filter(
          (p) => !def.paths!.some((prefix) => p === prefix || p.startsWith(`${prefix}/`)),
        );
        expect(outside, def.name).toEqual([]);
      } finally {
        await ml.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('answer their first request, fall through on paths they do not serve, and reset or snapshot', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'minilake-lazy-'));
    const ml = await createMinilake(parseConfig({ MINILAKE_DATA_DIR: dir, MINILAKE_LOG_LEVEL: 'silent' }));
    try {
      expect((await ml.ready()).ok).toBe(true);
      expect(ml.services).toContain('compute');
      // Reset before anything started: nothing to empty, no error.
      expect((await ml.app.request('/_minilake/reset', { method: 'POST' })).status).toBe(200);
      // iam answers a cluster's permissions as it would with compute started: the type is known, the id not.
      const perm = await ml.app.request('/api/2.0/permissions/clusters/0101-000000-nope');
      expect(perm.status).toBe(404);
      expect(((await perm.json()) as { error_code: string }).error_code).toBe('RESOURCE_DOES_NOT_EXIST');
      const created = await ml.app.request('/api/2.0/secrets/scopes/create', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ scope: 's1' }),
      });
      expect(created.status).toBe(200);
      const list = (await (await ml.app.request('/api/2.0/secrets/scopes/list')).json()) as {
        scopes: { name: string }[];
      };
      expect(list.scopes.map((s) => s.name)).toEqual(['s1']);
      // A path under a lazy service's prefix that it does not serve: the host's 501, as before.
      const unknown = await ml.app.request('/api/2.0/clusters/not-an-operation');
      expect(unknown.status).toBe(501);
      // Errors keep their Databricks shape.
      const bad = await ml.app.request('/api/2.0/secrets/scopes/create', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ scope: 's1' }),
      });
      expect(bad.status).toBe(409);
      expect(((await bad.json()) as { error_code: string }).error_code).toBe('RESOURCE_ALREADY_EXISTS');
      // A snapshot holds every service, started or not.
      const snap = await ml.app.request('/_minilake/snapshots', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: 'all' }),
      });
      expect(((await snap.json()) as { services: string[] }).services.sort()).toEqual(
        [...ml.services].sort(),
      );
      await ml.reset(['secrets']);
      const after = (await (await ml.app.request('/api/2.0/secrets/scopes/list')).json()) as {
        scopes?: unknown[];
      };
      expect(after.scopes ?? []).toEqual([]);
    } finally {
      await ml.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
