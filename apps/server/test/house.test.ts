/**
 * The host's seams derived from the registry: the folders it owns in a data dir and the start order, both
 * read from the services' own declarations rather than from lists kept in apps/server.
 */
import { startOrder } from '@minilake/core';
import { describe, expect, it } from 'vitest';
import { createMinilake, ownedDataFolders, parseConfig, registry, serviceNames } from '../src/index.js';

describe('derived from the registry', () => {
  it('owns the state folder, every service folder and every declared folder (engines included)', () => {
    const owned = ownedDataFolders();
    // Everything the old hand-written list held is still owned, so no persisted data moves.
    for (const f of ['state', 'duckdb', 'volumes', 'workspace', 'dbfs', 'sql', 'files'])
      expect(owned).toContain(f);
    for (const name of serviceNames) expect(owned).toContain(name);
  });

  it('starts every service after the ones it declares', () => {
    const order = startOrder(registry, serviceNames);
    for (const def of registry.values()) {
      for (const dep of [...(def.uses ?? []), ...(def.optionalUses ?? [])])
        expect(order.indexOf(dep), `${dep} before ${def.name}`).toBeLessThan(order.indexOf(def.name));
    }
  });

  it('answers a trailing slash and an unknown path in process as the real server does', async () => {
    const ml = await createMinilake(
      parseConfig({ MINILAKE_SERVICES: 'secrets', MINILAKE_LOG_LEVEL: 'silent' }),
    );
    try {
      expect((await ml.app.request('/api/2.0/secrets/scopes/list/')).status).toBe(200);
      const other = await ml.app.request('/nowhere');
      expect(other.status).toBe(404);
      expect(((await other.json()) as { error_code: string }).error_code).toBe('ENDPOINT_NOT_FOUND');
    } finally {
      await ml.close();
    }
  });
});
