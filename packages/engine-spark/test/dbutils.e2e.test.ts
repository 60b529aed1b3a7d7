/**
 * dbutils against a real MiniLake server (`pnpm build` first): secrets through /api/2.0/secrets, files on
 * DBFS and in a Unity Catalog volume through the DBFS and Files APIs, and the databricks-sdk in user code
 * pointed at the server by DATABRICKS_HOST. Skipped only when the Spark install is absent.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@minilake/testing';
import { createContext } from '@minilake/core';
import { createSparkEngine, sparkSettings, type SparkEngine } from '../src/index.js';
import { cacheDir, installed, skipReason, task, tmp, write } from './helpers.js';

describe.skipIf(!installed)(
  `dbutils on a real MiniLake server (${installed ? 'installed' : skipReason})`,
  () => {
    let server: RunningServer;
    let engine: SparkEngine;
    const dir = tmp('spark-dbutils-');
    const id = randomBytes(3).toString('hex');
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(server.url + p, {
        method,
        headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
      return text ? (JSON.parse(text) as Record<string, unknown>) : {};
    };

    beforeAll(async () => {
      server = await startServer();
      engine = createSparkEngine(
        createContext({
          dataDir: dir,
          settingsSchema: sparkSettings,
          config: { MINILAKE_CACHE: cacheDir },
          selfUrl: () => server.url,
        }),
      );
      await call('POST', '/api/2.0/secrets/scopes/create', { scope: `sc_${id}` });
      await call('POST', '/api/2.0/secrets/put', {
        scope: `sc_${id}`,
        key: 'pw',
        string_value: `s3cr3t-${id}`,
      });
      await call('POST', '/api/2.1/unity-catalog/catalogs', { name: `c_${id}` });
      await call('POST', '/api/2.1/unity-catalog/schemas', { name: 's', catalog_name: `c_${id}` });
      await call('POST', '/api/2.1/unity-catalog/volumes', {
        catalog_name: `c_${id}`,
        schema_name: 's',
        name: 'v',
        volume_type: 'MANAGED',
      });
    }, 60_000);
    afterAll(async () => {
      await engine?.close();
      await server?.stop();
    });

    it('secret listings, dbfs:/ and /Volumes files, and the databricks-sdk all reach the server', async () => {
      const vol = `/Volumes/c_${id}/s/v`;
      const file = write(
        dir,
        'fs.py',
        `
print("keys", [s.key for s in dbutils.secrets.list("sc_${id}")])
print("scope listed", "sc_${id}" in [s.name for s in dbutils.secrets.listScopes()])
dbutils.fs.mkdirs("dbfs:/tmp/t_${id}")
dbutils.fs.put("dbfs:/tmp/t_${id}/a.txt", "hello dbfs", True)
print("head", dbutils.fs.head("dbfs:/tmp/t_${id}/a.txt"))
dbutils.fs.cp("dbfs:/tmp/t_${id}/a.txt", "/tmp/t_${id}/b.txt")
dbutils.fs.mv("dbfs:/tmp/t_${id}/b.txt", "dbfs:/tmp/t_${id}/c.txt")
print("dbfs ls", sorted(f.name for f in dbutils.fs.ls("dbfs:/tmp/t_${id}")))
dbutils.fs.put("${vol}/in/x.csv", "a,b\\n1,2\\n")
dbutils.fs.cp("dbfs:/tmp/t_${id}", "${vol}/copied", recurse=True)
print("vol ls", sorted(f.name for f in dbutils.fs.ls("${vol}")))
print("vol copied", sorted((f.name, f.size) for f in dbutils.fs.ls("${vol}/copied")))
print("vol head", repr(dbutils.fs.head("${vol}/in/x.csv")))
print("rm", dbutils.fs.rm("${vol}/copied", True), dbutils.fs.rm("dbfs:/tmp/t_${id}", recurse=True))
print("after rm", sorted(f.name for f in dbutils.fs.ls("${vol}")))
try:
    dbutils.fs.ls("dbfs:/tmp/t_${id}")
except FileNotFoundError as e:
    print("gone:", e)
from databricks.sdk import WorkspaceClient
print("sdk user", WorkspaceClient().current_user.me().user_name)
`,
      );
      const r = await engine.launch(task(dir, { file })).result;
      expect(r.outcome, `${r.error}\n${r.errorTrace}\n${r.logs}`).toBe('SUCCESS');
      expect(r.logs).toContain("keys ['pw']");
      expect(r.logs).toContain('scope listed True');
      expect(r.logs).toContain('head hello dbfs');
      expect(r.logs).toContain("dbfs ls ['a.txt', 'c.txt']");
      expect(r.logs).toContain("vol ls ['copied/', 'in/']");
      expect(r.logs).toContain("vol copied [('a.txt', 10), ('c.txt', 10)]");
      expect(r.logs).toContain("vol head 'a,b\\n1,2\\n'");
      expect(r.logs).toContain('rm True True');
      expect(r.logs).toContain("after rm ['in/']");
      expect(r.logs).toContain('gone:');
      expect(r.logs).toContain('sdk user dev@minilake.local');
      // What dbutils wrote is what the Files API serves.
      const res = await fetch(`${server.url}/api/2.0/fs/files${vol}/in/x.csv`, {
        headers: { Authorization: 'Bearer t' },
      });
      expect(await res.text()).toBe('a,b\n1,2\n');
    }, 240_000);

    it('dbutils.secrets.get reads the value (redacted in output), or fails clearly where the server refuses reads', async () => {
      const probe = await fetch(`${server.url}/api/2.0/secrets/get?scope=sc_${id}&key=pw`, {
        headers: { Authorization: 'Bearer t' },
      });
      const file = write(
        dir,
        'secret.py',
        `pw = dbutils.secrets.get("sc_${id}", "pw")\nprint("secret printed:", pw)\nprint("secret length", len(pw), "bytes", len(dbutils.secrets.getBytes("sc_${id}", "pw")))\n`,
      );
      const r = await engine.launch(task(dir, { file })).result;
      if (probe.status === 200) {
        expect(r.outcome, `${r.error}\n${r.logs}`).toBe('SUCCESS');
        // The code got the value; what it printed is redacted, as Databricks does.
        expect(r.logs).toContain('secret printed: [REDACTED]');
        expect(r.logs).not.toContain(`s3cr3t-${id}`);
        expect(r.logs).toContain(`secret length ${`s3cr3t-${id}`.length} bytes ${`s3cr3t-${id}`.length}`);
      } else {
        // A server that keeps secrets write-only (MINILAKE_SECRETS_WRITE_ONLY=1): the task fails and says why.
        expect(probe.status).toBe(403);
        expect(r.outcome).toBe('FAILED');
        expect(r.error).toContain('Secret values cannot be read');
      }
    }, 240_000);

    it('the caller redacts the secrets it resolved into the environment', async () => {
      const file = write(dir, 'env.py', 'import os\nprint("token is", os.environ["MY_TOKEN"])\n');
      const r = await engine.launch(
        task(dir, { file, env: { MY_TOKEN: `tok-${id}` }, redact: [`tok-${id}`], compute: 'classic' }),
      ).result;
      expect(r.outcome).toBe('SUCCESS');
      expect(r.logs).toContain('token is [REDACTED]');
    }, 240_000);
  },
);
