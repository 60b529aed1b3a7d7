import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService } from '@minilake/unity-catalog';
import { filesService } from '../src/index.js';

// The Files API against the real unity-catalog service (DuckDB engine), both in process.
let uc: Hono;
let files: Hono;
let storage: string;
beforeAll(async () => {
  const peers = new Map<string, unknown>();
  const ucService = await serviceApp(unityCatalogService, { peers });
  peers.set('unity-catalog', ucService.instance.api);
  uc = ucService.app;
  files = (await serviceApp(filesService, { peers })).app;
  expect((await uc.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: 'fc' }))).status).toBe(
    200,
  );
  const vol = await uc.request(
    '/api/2.1/unity-catalog/volumes',
    jsonInit('POST', { catalog_name: 'fc', schema_name: 'default', name: 'vol', volume_type: 'MANAGED' }),
  );
  expect(vol.status).toBe(200);
  storage = ((await vol.json()) as { storage_location: string }).storage_location.replace(/^file:\/\//, '');
});

describe('Files API on a real Unity Catalog volume', () => {
  it("writes into the volume's own storage location", async () => {
    const put = await files.request('/api/2.0/fs/files/Volumes/fc/default/vol/in/data.csv', {
      method: 'PUT',
      body: 'a,b\n1,2\n',
    });
    expect(put.status).toBe(204);
    expect(await readFile(path.join(storage, 'in/data.csv'), 'utf8')).toBe('a,b\n1,2\n');
  });

  it('is a 404 for a volume, schema or catalog that does not exist', async () => {
    for (const p of ['fc/default/nope', 'fc/nope/vol', 'nope/default/vol']) {
      const res = await files.request(`/api/2.0/fs/files/Volumes/${p}/x.txt`, { method: 'PUT', body: 'x' });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error_code: string }).error_code).toMatch(/DOES_NOT_EXIST|NOT_FOUND/);
    }
    const list = await files.request('/api/2.0/fs/directories/Volumes/fc/default/nope');
    expect(list.status).toBe(404);
  });
});
