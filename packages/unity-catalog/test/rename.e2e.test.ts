import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer, uniqueName, workspaceClient, type RunningServer } from '@minilake/testing';

describe('schema rename under persistence', () => {
  it("a renamed schema's volumes keep their new storage_location after kill -9", async () => {
    const s1 = await startServer({ env: { MINILAKE_PERSIST: '1' } });
    let s2: RunningServer | undefined;
    try {
      const w1 = workspaceClient(s1.url);
      const cat = uniqueName('rn');
      await w1.catalogs.create({ name: cat });
      await w1.schemas.create({ name: 'before', catalog_name: cat });
      await w1.volumes.create({
        name: 'landing',
        catalog_name: cat,
        schema_name: 'before',
        volume_type: 'MANAGED',
      });
      // A file in the volume, through the Files API, so the moved directory can be checked for content.
      const put = await fetch(`${s1.url}/api/2.0/fs/files/Volumes/${cat}/before/landing/a.txt`, {
        method: 'PUT',
        headers: { authorization: 'Bearer dapi-test' },
        body: 'hello',
      });
      expect(put.status).toBeLessThan(300);
      // Plain fetch: the TypeScript SDK (0.17.0) sends no body with PATCH requests.
      const patch = await fetch(`${s1.url}/api/2.1/unity-catalog/schemas/${cat}.before`, {
        method: 'PATCH',
        headers: { authorization: 'Bearer dapi-test', 'content-type': 'application/json' },
        body: JSON.stringify({ new_name: 'after' }),
      });
      expect(patch.status).toBe(200);
      const renamed = await w1.volumes.read({ name: `${cat}.after.landing` });
      await s1.kill9();

      s2 = await startServer({ env: { MINILAKE_PERSIST: '1' }, dataDir: s1.dataDir });
      const w2 = workspaceClient(s2.url);
      const again = await w2.volumes.read({ name: `${cat}.after.landing` });
      expect(again.storage_location).toBe(renamed.storage_location);
      expect(again.storage_location).toContain(`${path.sep}after${path.sep}landing`);
      const dir = again.storage_location!.replace(/^file:\/\//, '');
      expect(existsSync(dir)).toBe(true);
      expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('hello');
      const get = await fetch(`${s2.url}/api/2.0/fs/files/Volumes/${cat}/after/landing/a.txt`, {
        headers: { authorization: 'Bearer dapi-test' },
      });
      expect(await get.text()).toBe('hello');
    } finally {
      await s1.stop();
      await s2?.stop();
    }
  });
});
