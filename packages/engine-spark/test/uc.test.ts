import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ucCatalogConf, ucTaskConf } from '../src/uc.js';

describe('the Spark conf a task gets for Unity Catalog', () => {
  it("uses the official connector's keys, and skips names Spark keeps for itself", () => {
    // No `main` among them: the session's current catalog stays Spark's.
    expect(ucCatalogConf(['lake', 'spark_catalog', 'a-b'], 'http://127.0.0.1:9', 'tok')).toEqual({
      // The server itself, for DatabricksSqlExtension (catalogs created after the session started).
      'spark.minilake.uc.uri': 'http://127.0.0.1:9',
      'spark.minilake.uc.token': 'tok',
      'spark.sql.catalog.lake': 'dev.minilake.spark.MiniLakeCatalog',
      'spark.sql.catalog.lake.uri': 'http://127.0.0.1:9',
      'spark.sql.catalog.lake.token': 'tok',
      'spark.sql.catalog.a-b': 'dev.minilake.spark.MiniLakeCatalog',
      'spark.sql.catalog.a-b.uri': 'http://127.0.0.1:9',
      'spark.sql.catalog.a-b.token': 'tok',
    });
  });

  describe('from a server listing catalogs', () => {
    let server: http.Server;
    let url: string;
    const seen: string[] = [];
    const jar = path.join(mkdtempSync(path.join(os.tmpdir(), 'uc-jar-')), 'minilake-uc-spark.jar');
    writeFileSync(jar, '');
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ catalogs: [{ name: 'main' }, { name: 'sales' }] }));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('configures every listed catalog, asking with the task token', async () => {
      const conf = await ucTaskConf({ jars: [jar], selfUrl: url, token: 'dapi-task' });
      expect(Object.keys(conf).filter((k) => !/\.(uri|token)$/.test(k))).toEqual([
        'spark.sql.catalog.main',
        'spark.sql.catalog.sales',
        // `main` is the current catalog, as on a Unity Catalog workspace.
        'spark.sql.defaultCatalog',
      ]);
      expect(conf['spark.sql.defaultCatalog']).toBe('main');
      expect(conf['spark.sql.catalog.sales.uri']).toBe(url);
      expect(seen).toEqual(['GET /api/2.1/unity-catalog/catalogs Bearer dapi-task']);
    });

    it('configures nothing without the plugin jar or a server URL, and no catalog when the server is gone', async () => {
      expect(await ucTaskConf({ jars: [], selfUrl: url, token: 't' })).toEqual({});
      expect(await ucTaskConf({ jars: [jar], selfUrl: undefined, token: 't' })).toEqual({});
      // Still the server for Databricks SQL: catalogs it lists later are added by the extension.
      expect(await ucTaskConf({ jars: [jar], selfUrl: 'http://127.0.0.1:1', token: 't' })).toEqual({
        'spark.minilake.uc.uri': 'http://127.0.0.1:1',
        'spark.minilake.uc.token': 't',
      });
    });
  });
});
