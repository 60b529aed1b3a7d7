/**
 * Configuration comes from MINILAKE_* variables (and --port/--host flags), parsed once here: the host's own
 * settings (below) and every service's (ServiceDefinition.settings, engines' included), with one schema per
 * variable. A bad value stops start-up with every problem listed, one line each, never a half-configured
 * server; the README's configuration table is generated from the same schemas (settings-table.ts).
 */
import path from 'node:path';
import {
  cacheSetting,
  choiceSetting,
  numberSetting,
  parseSettings,
  switchSetting,
  textSetting,
  tlsCertSetting,
  withRequired,
  type LogLevel,
  type Setting,
  type SettingsOf,
  type SettingsSchema,
} from '@minilake/core';
import { serviceNames, registry } from './registry.js';

const validServices = () => ['all', ...registry.keys()].join(', ');

/** The host's own settings (the services' are on their definitions). */
export const hostSettings = {
  MINILAKE_PORT: numberSetting({
    doc: 'Port to listen on (`--port`; `0` picks a free one).',
    default: 8000,
    integer: true,
    max: 65535,
  }),
  MINILAKE_BIND_HOST: textSetting({
    doc: 'Address to bind (`--host`). Use `0.0.0.0` in a container.',
    default: '127.0.0.1',
  }),
  MINILAKE_DATA_DIR: textSetting({
    doc: 'Where catalogs, volumes, workspace and DBFS files live (created if missing).',
    shown: 'temp folder',
  }),
  MINILAKE_PERSIST: switchSetting({
    doc:
      '`1` keeps all state across restarts; every acknowledged write survives `kill -9`. Without it the data dir ' +
      "starts empty and MiniLake's folders in it are removed on exit. With it and no data dir, `~/.minilake/data`.",
    default: '0',
  }),
  MINILAKE_SERVICES: textSetting({
    doc:
      `Comma-separated API groups to enable (\`all\`, or any of ${serviceNames.map((n) => `\`${n}\``).join(', ')}` +
      '; `mcp` is opt-in). Others answer 501. A selected service brings the services it requires (its `uses`, ' +
      'transitively; the start-up line lists what is on); services it only uses when present (`optionalUses`: ' +
      '`sql` and `files` with `unity-catalog`, `compute` and `workspace` with `iam`) stay off unless named.',
    shown: 'all',
  }),
  MINILAKE_LOG_LEVEL: choiceSetting({
    doc: '`debug` logs one line per request; `warn`, `error`, `silent` log less.',
    choices: ['debug', 'info', 'warn', 'error', 'silent'],
    default: 'info',
  }),
  MINILAKE_USER: textSetting({
    doc: 'The user every token maps to (`/Me`).',
    default: 'dev@minilake.local',
    pattern: [/^[^\s/]+$/, 'must be a user name without spaces or slashes'],
  }),
  MINILAKE_WORKSPACE_ID: textSetting({
    doc: 'The workspace id (`X-Databricks-Org-Id`, well-known config).',
    default: '1000000000000000',
    pattern: [/^\d{1,18}$/, 'must be digits (at most 18)'],
  }),
  MINILAKE_TLS: switchSetting({
    doc:
      '`1` serves https with a self-signed certificate for `localhost`/`127.0.0.1`, made once as ' +
      '`<dataDir>/tls/cert.pem` (give clients that file as their CA).',
    default: '0',
  }),
  ...tlsCertSetting,
  MINILAKE_TLS_KEY: textSetting({
    doc: 'PEM file of the key of `MINILAKE_TLS_CERT`.',
  }),
  ...cacheSetting,
  MINILAKE_JUPYTER_PYTHON: textSetting({
    doc:
      'A Python with `jupyterlab`: `/jupyter` starts it on the first request and proxies it ' +
      '(`bash apps/server/scripts/install-jupyter.sh` makes the default one). Without it `/jupyter` says how to install it.',
    shown: '`$MINILAKE_CACHE/jupyter/venv/bin/python`',
  }),
  MINILAKE_WASM_OPTIMIZE: switchSetting({
    doc:
      '`1` lets V8 optimise WebAssembly (the SQL dialect) with TurboFan, as Node does by default: ~2.5 s more CPU ' +
      'after the first statements and ~250 MB more RSS, for no faster translation (bench/README.md, "Issue 16, warm").',
    default: '0',
  }),
  MINILAKE_AUTH: choiceSetting({
    doc:
      "`tokens` checks every request's bearer token: personal access tokens and on-behalf-of tokens (service " +
      'principals) issued through the token APIs, OAuth M2M tokens from `/oidc/v1/token`, and ' +
      '`MINILAKE_ADMIN_TOKEN`; anything else is 401. `any` accepts any token as `MINILAKE_USER`. Turns `iam` on.',
    choices: ['any', 'tokens'],
    default: 'any',
  }),
  MINILAKE_ADMIN_TOKEN: textSetting({
    doc:
      'A bearer token of `MINILAKE_USER` (a workspace admin) that works with `MINILAKE_AUTH=tokens` from the ' +
      'first request, to create the other identities and their tokens.',
  }),
  MINILAKE_MCP: switchSetting({
    doc: '`1` serves the MCP server for agents at `/mcp` (service `mcp`, see `packages/mcp`).',
    default: '0',
  }),
} satisfies SettingsSchema;

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
   * The Spark Connect port (MINILAKE_SPARK_CONNECT_PORT, declared by the connect service: default 15002,
   * `off` none) and whether it was set: a busy default is skipped with a warning, a busy explicit port stops
   * the start. Undefined when off or when the connect service is not enabled.
   */
  sparkConnect: { port: number; explicit: boolean } | undefined;
  /**
   * MINILAKE_AUTH: `any` (every token is the configured user, nothing checked) or `tokens`; and the bootstrap
   * admin token (MINILAKE_ADMIN_TOKEN).
   */
  auth: { mode: 'any' | 'tokens'; adminToken: string | undefined };
  /** Every service setting's value, by variable name (each service gets those its definition declares). */
  settings: Readonly<Record<string, unknown>>;
  /** Which setting a value came from, for messages: `--port` when the flag gave it. */
  labels: { port: string; host: string };
}

/** Start-up problems, one line each, naming the setting (what the CLI prints, without a stack). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`MiniLake cannot start:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Every service setting in the registry, by variable: each definition's, engines' included. A variable two
 * services read (the DuckDB engine's) is one schema both spread in; two different schemas for one name
 * would be a bug, caught here (and by the tests) before anything starts.
 */
export function serviceSettings(): SettingsSchema {
  const all: Record<string, Setting> = {};
  const owner = new Map<string, string>();
  for (const def of registry.values()) {
    for (const [name, schema] of Object.entries(def.settings ?? {})) {
      const prev = all[name] ?? (hostSettings as SettingsSchema)[name];
      if (prev !== undefined && prev !== schema)
        throw new Error(
          `Setting ${name} is declared twice with different schemas (${owner.get(name) ?? 'host'} and ${def.name}): ` +
            'declare it once and spread it into both.',
        );
      all[name] = schema;
      if (!owner.has(name)) owner.set(name, def.name);
    }
  }
  return all;
}

type HostValues = SettingsOf<typeof hostSettings>;

/**
 * Parses everything and returns the configuration with every problem found (an invalid value is replaced
 * by its default so the checks that do not depend on it still run); parseConfig throws on the problems.
 */
export function readConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: { port?: string; host?: string } = {},
): { config: MinilakeConfig; problems: string[]; invalid: Set<string> } {
  const labels = {
    port: flags.port !== undefined ? '--port' : 'MINILAKE_PORT',
    host: flags.host !== undefined ? '--host' : 'MINILAKE_BIND_HOST',
  };
  const input = {
    ...env,
    ...(flags.port !== undefined ? { MINILAKE_PORT: flags.port } : {}),
    ...(flags.host !== undefined ? { MINILAKE_BIND_HOST: flags.host } : {}),
  };
  const label = (n: string) =>
    n === 'MINILAKE_PORT' ? labels.port : n === 'MINILAKE_BIND_HOST' ? labels.host : n;
  const host = parseSettings(hostSettings, input, label);
  const services = parseSettings(serviceSettings(), input);
  const problems = [...host.problems, ...services.problems];
  const invalid = new Set<string>();
  const defaults = parseSettings(hostSettings, {}).values;
  const h = { ...host.values } as Record<string, unknown>;
  for (const name of Object.keys(hostSettings))
    if (!(name in host.values)) {
      invalid.add(name);
      h[name] = defaults[name as keyof HostValues];
    }
  const values = h as HostValues;

  // Which services: the names asked for, the ones they require, and MCP when MINILAKE_MCP=1.
  let names = serviceNames;
  const raw = (values.MINILAKE_SERVICES ?? '').trim();
  if (raw !== '' && raw !== 'all') {
    names = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = names.filter((s) => !registry.has(s));
    if (unknown.length > 0) {
      problems.push(
        `MINILAKE_SERVICES=${JSON.stringify(env.MINILAKE_SERVICES)} names unknown services: ${unknown.join(', ')}. ` +
          `Valid: ${validServices()}`,
      );
      invalid.add('MINILAKE_SERVICES');
      names = names.filter((s) => registry.has(s));
    }
  }
  if (values.MINILAKE_MCP && !names.includes('mcp')) names = [...names, 'mcp'];
  // Checking tokens needs the service that issues them.
  if (values.MINILAKE_AUTH === 'tokens' && !names.includes('iam')) names = [...names, 'iam'];

  const certFile = values.MINILAKE_TLS_CERT;
  const keyFile = values.MINILAKE_TLS_KEY;
  if (!!certFile !== !!keyFile)
    problems.push(
      `MINILAKE_TLS_CERT and MINILAKE_TLS_KEY go together (only ${certFile ? 'the certificate' : 'the key'} is set)`,
    );
  const tlsOn = values.MINILAKE_TLS || (!!certFile && !!keyFile);
  const tls = tlsOn ? { ...(certFile ? { certFile } : {}), ...(keyFile ? { keyFile } : {}) } : undefined;

  const enabled = withRequired(registry, [...new Set(names)]);
  // The port itself is the host's to open (beside its own); the setting is the connect service's.
  const connectPort = (services.values.MINILAKE_SPARK_CONNECT_PORT as string | undefined)?.toLowerCase();
  if (connectPort !== undefined && connectPort !== 'off' && Number(connectPort) > 65535)
    problems.push(
      `MINILAKE_SPARK_CONNECT_PORT=${JSON.stringify(connectPort)} must be a port from 0 to 65535 or off`,
    );
  const sparkConnect =
    enabled.includes('connect') &&
    connectPort !== undefined &&
    connectPort !== 'off' &&
    Number(connectPort) <= 65535
      ? { port: Number(connectPort), explicit: (env.MINILAKE_SPARK_CONNECT_PORT ?? '') !== '' }
      : undefined;

  const cacheDir = values.MINILAKE_CACHE;
  const config: MinilakeConfig = {
    port: values.MINILAKE_PORT,
    host: values.MINILAKE_BIND_HOST,
    dataDir: values.MINILAKE_DATA_DIR,
    persist: values.MINILAKE_PERSIST,
    // A selected service brings the services it requires (its `uses`), transitively; optional ones stay off.
    services: enabled,
    logLevel: values.MINILAKE_LOG_LEVEL,
    userName: values.MINILAKE_USER,
    workspaceId: values.MINILAKE_WORKSPACE_ID,
    tls,
    jupyterPython: values.MINILAKE_JUPYTER_PYTHON ?? path.join(cacheDir, 'jupyter', 'venv', 'bin', 'python'),
    cacheDir,
    wasmOptimize: values.MINILAKE_WASM_OPTIMIZE,
    sparkConnect,
    auth: { mode: values.MINILAKE_AUTH, adminToken: values.MINILAKE_ADMIN_TOKEN },
    settings: { ...services.values, MINILAKE_CACHE: cacheDir },
    labels,
  };
  return { config, problems, invalid };
}

/** The configuration, or a ConfigError listing every bad value. */
export function parseConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: { port?: string; host?: string } = {},
): MinilakeConfig {
  const { config, problems } = readConfig(env, flags);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
