/**
 * Test helpers for all three tiers: a service app in process (tier 2), a real `minilake` process on port 0
 * (tier 3), official SDK clients pointed at it, and a matcher for Databricks-shaped errors.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { expect } from 'vitest';
import { WorkspaceClient } from '@databricks/sdk-experimental';
import {
  contextFor,
  installErrorHandling,
  silentLogger,
  type ContextOptions,
  type ServiceDefinition,
  type ServiceInstance,
  type ServiceContext,
  type SettingsOf,
  type SettingsSchema,
} from '@minilake/core';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const serverEntry =
  process.env.MINILAKE_SERVER_ENTRY ?? path.join(repoRoot, 'apps/server/dist/cli.js');

/**
 * Tier 2: one service (plus the peers it uses, given in `peers`) mounted in a fresh app, for `app.request()`,
 * with the same error handling as the real server (core's installErrorHandling) and the same peer checks
 * (a lookup of a peer the definition does not declare throws). `config` holds raw MINILAKE_* values, parsed
 * with the definition's settings schema as the host parses them (a bad value throws).
 */
export async function serviceApp<Api, S extends SettingsSchema = SettingsSchema>(
  def: ServiceDefinition<Api, S>,
  opts: Omit<ContextOptions, 'service' | 'uses' | 'optionalUses' | 'folders' | 'settingsSchema'> & {
    peers?: Map<string, unknown>;
  } = {},
): Promise<{ app: Hono; instance: ServiceInstance<Api>; ctx: ServiceContext<SettingsOf<S>> }> {
  const app = new Hono();
  // Clusters run no Spark in tier-2 tests (as startServer's default): they are about the control plane.
  const config = { MINILAKE_CLUSTER_RUNTIME: 'none', ...opts.config };
  const ctx = contextFor<SettingsOf<S>>(def, { logger: silentLogger, hostApp: () => app, ...opts, config });
  const instance = await def.create(ctx);
  installErrorHandling(app, silentLogger);
  app.route('/', instance.app);
  return { app, instance, ctx };
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  proc: ChildProcess;
  output(): string;
  /** SIGTERM and wait for a clean exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: the crash a persistent server must survive. */
  kill9(): Promise<void>;
}

/**
 * The URL a spawned MiniLake prints on its "listening on" line, and everything it has printed (then and
 * later). The URL rejects, with the output, if the process exits first or prints no such line in time.
 */
export function listening(
  proc: ChildProcess,
  timeoutMs = 20_000,
): { url: Promise<string>; output: () => string } {
  let out = '';
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (https?:\/\/\S+) /.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  return { url, output: () => out };
}

/** Tier 3: starts the built server (`pnpm build` first) on a free port with a fresh data dir. */
export async function startServer(
  opts: { env?: Record<string, string>; dataDir?: string; timeoutMs?: number } = {},
): Promise<RunningServer> {
  if (!existsSync(serverEntry)) throw new Error(`${serverEntry} is missing: run 'pnpm build' first`);
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'minilake-test-'));
  const proc = spawn(process.execPath, [serverEntry, '--port', '0'], {
    // Clusters run no Spark unless a test asks (MINILAKE_CLUSTER_RUNTIME=spark): most tests are about the
    // control plane. The Spark Connect port is a free one, so parallel servers never contend for 15002.
    env: {
      ...process.env,
      MINILAKE_DATA_DIR: dataDir,
      MINILAKE_LOG_LEVEL: 'info',
      MINILAKE_CLUSTER_RUNTIME: 'none',
      MINILAKE_SPARK_CONNECT_PORT: '0',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const { url: listeningUrl, output } = listening(proc, opts.timeoutMs ?? 20_000);
  const url = await listeningUrl;
  return {
    url,
    port: Number(new URL(url).port),
    dataDir,
    proc,
    output,
    async stop() {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      return exited;
    },
    async kill9() {
      if (proc.exitCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
}

/** The official TypeScript SDK, pointed at a MiniLake URL with a PAT (any token is accepted). */
export function workspaceClient(url: string): WorkspaceClient {
  process.env.DATABRICKS_CONFIG_FILE = '/dev/null';
  return new WorkspaceClient({ host: url, token: 'dapi-minilake-test', authType: 'pat' });
}

/** Asserts a Databricks-shaped error response and returns its body. */
export async function expectDatabricksError(
  res: Response,
  status: number,
  errorCode: string,
): Promise<{ error_code: string; message: string }> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as { error_code: string; message: string };
  expect(body.error_code, text).toBe(errorCode);
  expect(typeof body.message).toBe('string');
  return body;
}

/** JSON request helper for `app.request()` and fetch alike. */
export const jsonInit = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', authorization: 'Bearer dapi-test' },
  body: body === undefined ? undefined : JSON.stringify(body),
});

let counter = 0;
/** A name unique to this test process, for resources that must not collide across tests. */
export const uniqueName = (prefix = 't'): string =>
  `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
