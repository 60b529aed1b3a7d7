/**
 * Issue 30, a real Spark Connect client under MINILAKE_AUTH=tokens: pyspark's own client (the Spark install's
 * venv) against the built server's Spark Connect port, serverless. Without a token it is refused
 * (UNAUTHENTICATED) before any Spark starts; with the admin token in the connection string (`;token=`, which
 * makes the client use TLS: it trusts MiniLake's local certificate) it runs a query. Skipped without the
 * Spark install (bash packages/engine-spark/install.sh).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@minilake/testing';

const ADMIN = 'e2e-admin-token';
const versions = JSON.parse(
  readFileSync(path.join(__dirname, '../../../packages/engine-spark/versions.json'), 'utf8'),
) as { pyspark: string; deltaSpark: string };
const cache = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake');
const python = path.join(cache, `spark-${versions.pyspark}-delta-${versions.deltaSpark}`, 'venv/bin/python');

// One fresh session per connection string (create(), not getOrCreate(), which would reuse the first).
const CLIENT = `
import sys
from pyspark.sql import SparkSession
try:
    n = SparkSession.builder.remote(sys.argv[1]).create().range(3).count()
    print("COUNT", n)
except Exception as e:
    print("REFUSED", str(e).replace("\\n", " ")[:400])
`;

function client(remote: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'nice',
      ['-n', '19', python, '-c', CLIENT, remote],
      { env: { ...process.env, ...env }, timeout: 40_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}

let server: RunningServer;
let scPort = 0;
let cert = '';

describe.skipIf(!existsSync(python))('pyspark Spark Connect with MINILAKE_AUTH=tokens', () => {
  beforeAll(async () => {
    server = await startServer({ env: { MINILAKE_AUTH: 'tokens', MINILAKE_ADMIN_TOKEN: ADMIN } });
    const line = /Spark Connect: sc:\/\/[^:]+:(\d+)/;
    const until = Date.now() + 20_000;
    while (!line.test(server.output()) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    scPort = Number(line.exec(server.output())![1]);
    cert = path.join(server.dataDir, 'tls', 'cert.pem');
    while (!existsSync(cert) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is refused without a token, and runs a query with one', { timeout: 60_000 }, async () => {
    const refused = await client(`sc://localhost:${scPort}`, {});
    expect(refused).toContain('REFUSED');
    expect(refused).toContain('Credential was not sent');
    const ok = await client(`sc://localhost:${scPort}/;token=${ADMIN}`, {
      GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: cert,
    });
    expect(ok).toContain('COUNT 3');
  });
});
