import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateDb } from '@minilake/core';
import { jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService } from '../src/index.js';

const B = '/api/2.1/unity-catalog';

describe('persistence', () => {
  it('re-attaches every catalog from the journal after a restart', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ml-uc-p-'));
    const stateDir = path.join(dataDir, 'state');
    const first = await serviceApp(unityCatalogService, { dataDir, state: await StateDb.open(stateDir) });
    // main is there from the start; a dropped built-in stays dropped after the restart.
    await first.app.request(`${B}/catalogs/main`, jsonInit('GET'));
    const created = (await (
      await first.app.request(
        `${B}/tables`,
        jsonInit('POST', {
          name: 't',
          catalog_name: 'main',
          schema_name: 'default',
          columns: [{ name: 'id', type_text: 'bigint' }],
        }),
      )
    ).json()) as { table_id: string };
    await first.instance.api!.engine.run(`INSERT INTO main__ml."default".t VALUES (42)`);
    await first.ctx.state.flush(); // what the HTTP layer awaits before answering
    await first.instance.api!.engine.close();

    const second = await serviceApp(unityCatalogService, { dataDir, state: await StateDb.open(stateDir) });
    const api = second.instance.api!;
    expect(api.engine.catalogNames()).toEqual(['hive_metastore', 'main', 'samples']);
    const t = (await api.getTable('main.default.t')) as { table_id: string };
    expect(t.table_id).toBe(created.table_id);
    expect(await api.engine.all(`SELECT id FROM main__ml."default".t`)).toEqual([{ id: 42 }]);
    await api.engine.close();
  });
});
