/**
 * Configuration as a whole: the README's table is the schemas' (generated, and this test fails when they
 * differ), every setting is documented, and start-up problems (bad values, the data dir, the host, the
 * port) are listed together, one line each, naming the setting.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { settingDoc } from '@minilake/core';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  hostSettings,
  loadConfig,
  makeDataDir,
  parseConfig,
  registry,
  serviceSettings,
  StartupError,
  withConfigTable,
} from '../src/index.js';

const readmePath = path.resolve(import.meta.dirname, '../../../README.md');

describe('the settings schemas', () => {
  it("are the README's configuration table (node apps/server/scripts/config-table.mjs rewrites it)", () => {
    const readme = readFileSync(readmePath, 'utf8');
    expect(withConfigTable(readme), 'README.md differs from the settings schemas: run the script').toBe(
      readme,
    );
  });

  it('document every variable, and each variable is declared once (shared ones spread from one schema)', () => {
    const all = { ...hostSettings, ...serviceSettings() };
    for (const [name, s] of Object.entries(all)) {
      expect(name).toMatch(/^MINILAKE_[A-Z0-9_]+$/);
      expect(settingDoc(s).doc, name).not.toBe('');
    }
    // The DuckDB engine's settings reach both services that open it.
    for (const name of ['sql', 'unity-catalog'])
      expect(Object.keys(registry.get(name)!.settings ?? {})).toContain('MINILAKE_DUCKDB_MEMORY_LIMIT');
  });

  it('hand each service the values of the variables it declares', () => {
    const c = parseConfig({ MINILAKE_SQL_RESULT_TTL: '60', MINILAKE_SPARK_ZYGOTE: 'false' });
    expect(c.settings.MINILAKE_SQL_RESULT_TTL).toBe(60);
    expect(c.settings.MINILAKE_SPARK_ZYGOTE).toBe(false);
    expect(c.settings.MINILAKE_WAREHOUSE_START_DELAY).toBe(1);
  });
});

describe('start-up problems', () => {
  const busyPort = () =>
    new Promise<Server>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => resolve(s));
    });

  it('are listed together, one line each, naming the setting', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'minilake-cfg-')), 'a-file');
    writeFileSync(file, 'x');
    const busy = await busyPort();
    const port = (busy.address() as { port: number }).port;
    let err: unknown;
    try {
      await loadConfig({
        MINILAKE_DUCKDB_MEMORY_LIMIT: 'lots',
        MINILAKE_PERSIST: 'yes',
        MINILAKE_DATA_DIR: file,
        MINILAKE_SERVICES: 'sql,warp-drive',
        MINILAKE_PORT: String(port),
      });
    } catch (e) {
      err = e;
    } finally {
      busy.close();
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems).toEqual([
      'MINILAKE_PERSIST="yes" must be 1, 0, true or false',
      'MINILAKE_DUCKDB_MEMORY_LIMIT="lots" must be a size such as 4GB, 512MB or 2GiB',
      `MINILAKE_SERVICES="sql,warp-drive" names unknown services: warp-drive. Valid: all, ${[...registry.keys()].join(', ')}`,
      `MINILAKE_DATA_DIR=${file} is a file, not a folder`,
      expect.stringMatching(new RegExp(`^MINILAKE_PORT=${port}: port ${port} is already in use`)),
    ]);
    expect((err as Error).message.split('\n')).toHaveLength(problems.length + 1);
  });

  it('name the flag that gave a value, and a host that does not resolve', async () => {
    const busy = await busyPort();
    const port = (busy.address() as { port: number }).port;
    await expect(loadConfig({}, { port: String(port) })).rejects.toThrow(
      `--port=${port}: port ${port} is already in use`,
    );
    busy.close();
    await expect(
      loadConfig({ MINILAKE_BIND_HOST: 'no-such-host.invalid', MINILAKE_PORT: '0' }),
    ).rejects.toThrow('MINILAKE_BIND_HOST=no-such-host.invalid does not resolve to an address');
  });

  it('a data dir that cannot be created is an answer, not a hang (/proc refuses children)', async () => {
    const dir = '/proc/minilake-cannot-be-here/x';
    await expect(loadConfig({ MINILAKE_DATA_DIR: dir, MINILAKE_PORT: '0' })).rejects.toThrow(
      `MINILAKE_DATA_DIR=${dir} cannot be created`,
    );
    await expect(makeDataDir(dir)).rejects.toBeInstanceOf(StartupError);
    const nested = path.join(mkdtempSync(path.join(os.tmpdir(), 'minilake-cfg-')), 'a', 'b');
    await makeDataDir(nested);
    await expect(loadConfig({ MINILAKE_DATA_DIR: nested, MINILAKE_PORT: '0' })).resolves.toBeTruthy();
  });
});
