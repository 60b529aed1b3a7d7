/**
 * /api/1.2 execution contexts under MINILAKE_AUTH=tokens, with the cluster, the engine and the session's
 * configuration stubbed: a context created by an authenticated caller has its Spark session configured with
 * the caller's token (under the session and user ids its REPL then connects with) and calls the server back
 * with that token; nobody else may use it. Without authentication nothing of this happens (default unchanged).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabricksError, runAsPrincipal, type Principal } from '@minilake/core';
import type { ComputeApi } from '@minilake/compute';
import type { SparkEngine } from '@minilake/engine-spark';
import { Contexts } from '../src/contexts.js';
import { Upstreams } from '../src/proxy.js';

const principal = (userName: string): Principal => ({
  kind: 'service_principal',
  userName,
  id: userName,
  displayName: userName,
  groups: ['users'],
});

function setup(runtimeDir = '/nonexistent') {
  const configured: { sessionId: string; userContext: Buffer | undefined; token: string }[] = [];
  const envs: Record<string, string>[] = [];
  const compute = {
    getCluster: () => ({ state: 'RUNNING' }),
    checkAccess: () => undefined,
    awaitSpark: () => Promise.resolve({ port: 1 }),
    sparkPort: () => 1,
    recordActivity: () => undefined,
  } as unknown as ComputeApi;
  const spark = {
    // A REPL that ends at once: what matters here is the environment it was started with.
    pythonRuntime: () =>
      Promise.resolve({
        python: process.execPath,
        runtimeDir,
        env: (extra: Record<string, string>) => {
          envs.push(extra);
          return { PATH: process.env.PATH ?? '', ...extra };
        },
      }),
  } as unknown as SparkEngine;
  const upstreams = new Upstreams();
  const contexts = new Contexts({
    compute,
    spark,
    logger: { info() {}, warn() {}, error() {}, debug() {} } as never,
    holdMs: 1000,
    upstreams,
    configure: (_u, sessionId, userContext, token) => {
      configured.push({ sessionId, userContext, token });
      return Promise.resolve();
    },
  });
  return { contexts, configured, envs, close: () => (contexts.clear(), upstreams.close()) };
}

const settle = async (envs: unknown[]) => {
  for (let i = 0; i < 100 && envs.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
};

describe('execution contexts with MINILAKE_AUTH=tokens', () => {
  it("configures the context's session with its creator's token and refuses anyone else", async () => {
    const t = setup();
    try {
      const a = principal('app-a');
      const id = runAsPrincipal(a, () => t.contexts.create('c1', 'python', 'token-a'));
      await settle(t.envs);
      expect(t.configured).toHaveLength(1);
      expect(t.configured[0]!.token).toBe('token-a');
      const env = t.envs[0]!;
      expect(env.DATABRICKS_TOKEN).toBe('token-a');
      expect(env.SPARK_REMOTE).toContain(`;session_id=${t.configured[0]!.sessionId};user_id=`);
      // The user_context the session was made under names the user id the REPL connects with.
      const userId = /user_id=([^;]+)/.exec(env.SPARK_REMOTE!)![1]!;
      expect(t.configured[0]!.userContext!.toString('latin1')).toContain(userId);

      expect(runAsPrincipal(a, () => t.contexts.status('c1', id)).id).toBe(id);
      let err: unknown;
      try {
        runAsPrincipal(principal('app-b'), () => t.contexts.execute('c1', id, 'python', '1'));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DatabricksError);
      expect((err as DatabricksError).status).toBe(403);
      expect((err as DatabricksError).errorCode).toBe('PERMISSION_DENIED');
    } finally {
      t.close();
    }
  });

  it('leaves an unauthenticated context as it was: the engine session, no owner', async () => {
    const t = setup();
    try {
      const id = t.contexts.create('c1', 'python', 'whatever');
      await settle(t.envs);
      expect(t.configured).toHaveLength(0);
      const env = t.envs[0]!;
      expect(env.DATABRICKS_TOKEN).toBeUndefined();
      expect(env.SPARK_REMOTE).not.toContain('session_id');
      expect(runAsPrincipal(principal('anyone'), () => t.contexts.status('c1', id)).id).toBe(id);
    } finally {
      t.close();
    }
  });

  it("takes its creator's newer bearer before the command that brings it, for the session and the REPL", async () => {
    // A REPL (run by node) that says it is ready and answers each command with the line it was sent.
    const dir = mkdtempSync(path.join(tmpdir(), 'ml-repl-'));
    writeFileSync(
      path.join(dir, 'minilake_repl.py'),
      `const fs = require('node:fs');
       fs.writeSync(3, JSON.stringify({ ready: true }) + '\\n');
       require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
         const req = JSON.parse(l);
         fs.writeSync(3, JSON.stringify({ id: req.id, status: 'Finished', results: { resultType: 'text', data: l } }) + '\\n');
       });`,
    );
    const t = setup(dir);
    try {
      const a = principal('app-a');
      const id = runAsPrincipal(a, () => t.contexts.create('c1', 'python', 'token-a'));
      const sent = async (token: string) => {
        const cmd = runAsPrincipal(a, () => t.contexts.execute('c1', id, 'python', '1', token));
        for (let i = 0; i < 500; i++) {
          const st = runAsPrincipal(a, () => t.contexts.commandStatus('c1', id, cmd));
          if (st.status === 'Finished') return JSON.parse(String(st.results!.data)) as { token?: string };
          await new Promise((r) => setTimeout(r, 10));
        }
        throw new Error('the command did not finish');
      };
      expect((await sent('token-a')).token).toBeUndefined();
      expect(t.configured.map((c) => c.token)).toEqual(['token-a']);
      // Refreshed: the same session is configured again, then the REPL is handed the token.
      expect((await sent('token-a2')).token).toBe('token-a2');
      expect(t.configured.map((c) => c.token)).toEqual(['token-a', 'token-a2']);
      expect(t.configured[1]!.sessionId).toBe(t.configured[0]!.sessionId);
      expect((await sent('token-a2')).token).toBeUndefined();
      expect(t.configured).toHaveLength(2);
    } finally {
      t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
