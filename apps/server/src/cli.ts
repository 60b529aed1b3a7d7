#!/usr/bin/env node
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { DependencyError, StateVersionError } from '@minilake/core';
import { ConfigError } from './config.js';
import { StartupError } from './host/data-dir.js';
import { listen } from './listen.js';
import type { TlsMaterial } from './tls.js';
import { registry } from './registry.js';
import { createMinilake } from './server.js';
import { listenProblem, loadConfig } from './startup.js';
import { addressLines } from './welcome.js';

const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

const help = `minilake ${version}: the Databricks API on your laptop

Usage: minilake [--port N] [--host ADDR]
       minilake mcp --stdio [--url URL]   (MCP over stdio; see minilake mcp --help)

Options:
  -p, --port N      port to listen on (MINILAKE_PORT, default 8000; 0 picks a free port)
  -H, --host ADDR   address to bind (MINILAKE_BIND_HOST, default 127.0.0.1)
  -h, --help        show this help
  -v, --version     show the version

Environment (all of them: the README's configuration table):
  MINILAKE_DATA_DIR    where data lives (default: a temp folder removed on exit; ~/.minilake/data with persistence)
  MINILAKE_PERSIST     1 (or true) keeps every acknowledged write across restarts and crashes; 0 (or false) not
  MINILAKE_SERVICES    comma-separated services to enable, with those they require (default all): ${[...registry.keys()].join(', ')}
  MINILAKE_LOG_LEVEL   debug, info, warn, error or silent (default info)
  MINILAKE_MCP         1 serves the MCP server for agents at /mcp
  MINILAKE_WASM_OPTIMIZE  1 lets V8 optimise WebAssembly (the SQL dialect) with TurboFan (default 0)
`;

/** A problem the user can fix: its lines alone (no stack trace, which would only hide them), exit 2. */
function refuse(lines: string): never {
  process.stderr.write(`${lines}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  // Loaded on use: the MCP SDK and the certificate generator cost ~0.2 s of start-up each (bench/README.md).
  if (process.argv[2] === 'mcp')
    return (await import('./mcp-stdio.js')).runMcpStdio(process.argv.slice(3), process.env);
  let flags;
  try {
    flags = parseArgs({
      options: {
        port: { type: 'string', short: 'p' },
        host: { type: 'string', short: 'H' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${help}`);
    process.exit(2);
  }
  if (flags.help) return void process.stdout.write(help);
  if (flags.version) return void process.stdout.write(`${version}\n`);

  let config;
  try {
    config = await loadConfig(process.env, { port: flags.port, host: flags.host });
  } catch (e) {
    if (e instanceof ConfigError) refuse(e.message);
    throw e;
  }
  // The SQL dialect (@polyglot-sql/sdk) is a 22.7 MB WebAssembly module. With V8's default tiering its first
  // translations make TurboFan optimise much of it in background threads: ~2.5 s of CPU on the 2 cores the
  // first statements compete for, and ~200 MB more RSS, for translations no faster than the baseline
  // compiler's (bench/README.md, "Issue 16, warm"). The flag is read when a module compiles and tiers up,
  // so it applies when set here, before the first request loads the dialect. Set by the server process, not
  // by @minilake/sql: a library must not change an embedding process's V8 flags.
  if (!config.wasmOptimize) v8.setFlagsFromString('--liftoff-only');
  const ml = await createMinilake(config);
  const tlsCache = path.join(config.cacheDir, 'tls');
  const tls = config.tls
    ? await (await import('./tls.js')).tlsMaterial({ ...config.tls, cacheDir: tlsCache }, ml.dataDir)
    : undefined;
  // Databricks Connect dials MiniLake's own port with TLS even when REST is plain http: the certificate it
  // gets (and the CA file users point GRPC_DEFAULT_SSL_ROOTS_FILE_PATH at) is read or made on first use,
  // and written to <data dir>/tls/cert.pem once the server listens.
  let onDemand: Promise<TlsMaterial> | undefined;
  const tlsOnDemand = () =>
    (onDemand ??= import('./tls.js').then((m) => m.tlsMaterial({ cacheDir: tlsCache }, ml.dataDir)));
  const l = await listen(ml, config.port, config.host, tls, {
    ...(ml.grpc ? { grpc: ml.grpc } : {}),
    ...(ml.grpcSplice ? { grpcSplice: ml.grpcSplice } : {}),
    ...(config.sparkConnect ? { sparkConnect: config.sparkConnect } : {}),
    tlsOnDemand,
  }).catch(async (e: unknown) => {
    // The port was free a moment ago (loadConfig checked): another process took it since.
    await ml.close().catch(() => undefined);
    return refuse(new ConfigError([listenProblem(e, config)]).message);
  });
  ml.logger.info(
    `MiniLake ${version} listening on ${l.url} (services: ${ml.services.join(', ') || 'none'}; data: ${ml.dataDir}${config.persist ? ', persistent' : ''}${tls ? `; certificate: ${tls.certFile}` : ''})`,
  );
  for (const line of addressLines({
    url: l.url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//127.0.0.1'),
    mcp: ml.services.includes('mcp'),
    jupyterPython: config.jupyterPython,
    ...(l.sparkConnectPort !== undefined ? { sparkConnectPort: String(l.sparkConnectPort) } : {}),
  }))
    ml.logger.info(line);
  if (ml.grpc && !tls) {
    // In the background: the first Databricks Connect session should not wait for a key to be made.
    setTimeout(() => void tlsOnDemand().catch(() => undefined), 200).unref();
  }

  let signalled = false;
  const stop = (signal: string) => {
    if (signalled) return;
    signalled = true;
    ml.logger.info(`${signal} received, shutting down`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    l.shutdown().then(
      () => process.exit(0),
      (e: unknown) => {
        ml.logger.error('shutdown failed', { error: String(e) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e: unknown) => {
  // Problems the user can fix: the message says what to do; a stack would only hide it.
  if (e instanceof StartupError) refuse(new ConfigError([e.message]).message);
  if (e instanceof StateVersionError || e instanceof DependencyError) {
    process.stderr.write(`minilake cannot start: ${e.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`minilake failed to start: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
