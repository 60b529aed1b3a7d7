/**
 * Configuration comes from MINILAKE_* variables (and --port/--host flags), parsed once here. A bad value stops
 * start-up with every problem listed, never a half-configured server.
 */
import os from 'node:os';
import path from 'node:path';
import { withRequired, type LogLevel } from '@minilake/core';
import { serviceNames, registry } from './registry.js';

export interface MinilakeConfig {
  port: number;
  host: string;
  dataDir: string | undefined;
  persist: boolean;
  services: string[];
  logLevel: LogLevel;
  userName: string;
  workspaceId: string;
  /** HTTPS (MINILAKE_TLS=1, or MINILAKE_TLS_CERT + MINILAKE_TLS_KEY); undefined serves plain http. */
  tls: { certFile?: string; keyFile?: string } | undefined;
  /** A Python with jupyterlab for /jupyter (MINILAKE_JUPYTER_PYTHON, default the venv install-jupyter.sh makes). */
  jupyterPython: string;
  /** Where installs are cached (MINILAKE_CACHE). */
  cacheDir: string;
  /**
   * Whether V8 may optimise WebAssembly with TurboFan (MINILAKE_WASM_OPTIMIZE=1). Off by default: the server
   * then runs WebAssembly (the SQL dialect) on V8's baseline compiler only (cli.ts, bench/README.md).
   */
  wasmOptimize: boolean;
  /**
   * The Spark Connect port (MINILAKE_SPARK_CONNECT_PORT, default 15002; `off` turns it off) and whether it
   * was set: a busy default is skipped with a warning, a busy explicit port stops the start.
   */
  sparkConnect: { port: number; explicit: boolean } | undefined;
  /** Every MINILAKE_* variable services may read, with service defaults applied. */
  serviceConfig: Record<string, string | undefined>;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid MiniLake configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const levels: LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

function parseBool(name: string, raw: string | undefined, problems: string[]): boolean {
  if (raw === undefined || raw === '') return false;
  const s = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off'].includes(s)) return false;
  problems.push(`${name}=${JSON.stringify(raw)} must be one of 1, 0, true, false`);
  return false;
}

function parsePort(name: string, raw: string | undefined, problems: string[]): number {
  if (raw === undefined || raw === '') return 8000;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535) {
    problems.push(`${name}=${JSON.stringify(raw)} must be a port number between 0 and 65535`);
    return 8000;
  }
  return n;
}

export function parseConfig(
  env: Record<string, string | undefined>,
  flags: { port?: string; host?: string } = {},
): MinilakeConfig {
  const problems: string[] = [];
  const port = parsePort(
    flags.port !== undefined ? '--port' : 'MINILAKE_PORT',
    flags.port ?? env.MINILAKE_PORT,
    problems,
  );
  const host = flags.host ?? env.MINILAKE_BIND_HOST ?? '127.0.0.1';
  if (host === '') problems.push('MINILAKE_BIND_HOST must not be empty');
  const persist = parseBool('MINILAKE_PERSIST', env.MINILAKE_PERSIST, problems);
  const logLevel = (env.MINILAKE_LOG_LEVEL ?? 'info').toLowerCase() as LogLevel;
  if (!levels.includes(logLevel)) {
    problems.push(
      `MINILAKE_LOG_LEVEL=${JSON.stringify(env.MINILAKE_LOG_LEVEL)} must be one of ${levels.join(', ')}`,
    );
  }
  // MCP is opt-in: the default service list leaves it out, MINILAKE_MCP=1 adds it.
  const mcp = parseBool('MINILAKE_MCP', env.MINILAKE_MCP, problems);
  const wasmOptimize = parseBool('MINILAKE_WASM_OPTIMIZE', env.MINILAKE_WASM_OPTIMIZE, problems);
  const rawServices = (env.MINILAKE_SERVICES ?? '').trim();
  let services = serviceNames;
  if (rawServices !== '' && rawServices !== 'all') {
    services = rawServices
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = services.filter((s) => !registry.has(s));
    if (unknown.length > 0) {
      problems.push(
        `MINILAKE_SERVICES names unknown services: ${unknown.join(', ')}. Valid: ${serviceNames.join(', ')}`,
      );
    }
  }
  if (mcp && !services.includes('mcp')) services = [...services, 'mcp'];
  const workspaceId = env.MINILAKE_WORKSPACE_ID ?? '1000000000000000';
  if (!/^\d{1,18}$/.test(workspaceId))
    problems.push(`MINILAKE_WORKSPACE_ID=${JSON.stringify(workspaceId)} must be digits`);
  const userName = env.MINILAKE_USER ?? 'dev@minilake.local';
  if (!/^[^\s/]+$/.test(userName))
    problems.push(`MINILAKE_USER=${JSON.stringify(userName)} must be a user name without spaces or slashes`);

  const certFile = env.MINILAKE_TLS_CERT || undefined;
  const keyFile = env.MINILAKE_TLS_KEY || undefined;
  if (!!certFile !== !!keyFile) problems.push('MINILAKE_TLS_CERT and MINILAKE_TLS_KEY go together');
  const tlsOn = parseBool('MINILAKE_TLS', env.MINILAKE_TLS, problems) || (!!certFile && !!keyFile);
  const tls = tlsOn ? { ...(certFile ? { certFile } : {}), ...(keyFile ? { keyFile } : {}) } : undefined;

  const serviceConfig: Record<string, string | undefined> = {};
  for (const def of registry.values()) Object.assign(serviceConfig, def.configDefaults);
  for (const [k, v] of Object.entries(env))
    if (k.startsWith('MINILAKE_') && v !== undefined) serviceConfig[k] = v;
  for (const def of registry.values()) {
    for (const key of Object.keys(def.configDefaults ?? {})) {
      const value = serviceConfig[key];
      const expected = def.configDefaults?.[key] ?? '';
      // Service settings with a numeric default must stay numeric (delays, limits).
      if (/^\d+(\.\d+)?$/.test(expected) && value !== undefined && !/^\d+(\.\d+)?$/.test(value)) {
        problems.push(`${key}=${JSON.stringify(value)} must be a non-negative number`);
      }
    }
  }

  const rawConnect = (env.MINILAKE_SPARK_CONNECT_PORT ?? '').trim().toLowerCase();
  let sparkConnect: MinilakeConfig['sparkConnect'] = { port: 15002, explicit: false };
  if (['off', 'none', 'false', 'no'].includes(rawConnect)) sparkConnect = undefined;
  else if (rawConnect !== '')
    sparkConnect = {
      port: parsePort('MINILAKE_SPARK_CONNECT_PORT', env.MINILAKE_SPARK_CONNECT_PORT, problems),
      explicit: true,
    };

  const cacheDir = env.MINILAKE_CACHE || path.join(os.homedir(), '.cache', 'minilake');
  if (problems.length > 0) throw new ConfigError(problems);
  // A selected service brings the services it requires (its `uses`), transitively; optional ones stay off.
  const enabled = withRequired(registry, [...new Set(services)]);
  return {
    port,
    host,
    dataDir: env.MINILAKE_DATA_DIR || undefined,
    persist,
    services: enabled,
    logLevel,
    userName,
    workspaceId,
    tls,
    jupyterPython: env.MINILAKE_JUPYTER_PYTHON || path.join(cacheDir, 'jupyter', 'venv', 'bin', 'python'),
    cacheDir,
    wasmOptimize,
    sparkConnect,
    serviceConfig,
  };
}
