/**
 * The start-up checks that need the machine, not just the values: the data dir can be a folder we write,
 * the bind host resolves, the port is free. Each problem is one line naming the setting, listed with the
 * configuration's own problems, so a user fixes everything in one go and never reads a stack trace.
 */
import { lookup } from 'node:dns/promises';
import { mkdtemp, rmdir, stat } from 'node:fs/promises';
import { createServer, isIP } from 'node:net';
import path from 'node:path';
import { ConfigError, readConfig, type MinilakeConfig } from './config.js';
import { configuredDataDir, fsReason } from './host/data-dir.js';

const code = (e: unknown) => (e as NodeJS.ErrnoException).code;

/**
 * Whether the data dir can be made, without making it (nothing is left behind when another problem stops
 * the start): the nearest existing folder must take a new folder, which is tried and removed at once.
 */
async function checkDataDir(dir: string, setting: string): Promise<string | undefined> {
  let at = dir;
  for (;;) {
    let s;
    try {
      s = await stat(at);
    } catch (e) {
      if (code(e) !== 'ENOENT' && code(e) !== 'ENOTDIR')
        return `${setting}=${dir} cannot be used: ${at}: ${fsReason(e)}`;
      const up = path.dirname(at);
      if (up === at) return `${setting}=${dir} cannot be created`;
      at = up;
      continue;
    }
    if (!s.isDirectory())
      return at === dir
        ? `${setting}=${dir} is a file, not a folder`
        : `${setting}=${dir} cannot be created: ${at} is a file, not a folder`;
    try {
      await rmdir(await mkdtemp(path.join(at, '.minilake-check-')));
      return undefined;
    } catch (e) {
      return at === dir
        ? `${setting}=${dir} is not writable: ${fsReason(e)}`
        : `${setting}=${dir} cannot be created in ${at}: ${fsReason(e)}`;
    }
  }
}

async function checkHost(host: string, label: string): Promise<string | undefined> {
  if (isIP(host)) return undefined;
  try {
    await lookup(host);
    return undefined;
  } catch {
    return `${label}=${host} does not resolve to an address`;
  }
}

/** A listen error as the line that names its cause (what listen() rejects with, or the port probe). */
export function listenProblem(e: unknown, config: MinilakeConfig): string {
  const { port, host, labels } = config;
  switch (code(e)) {
    case 'EADDRINUSE':
      return `${labels.port}=${port}: port ${port} is already in use on ${host} (another MiniLake? pick another port, or 0 for any free one)`;
    case 'EACCES':
      return `${labels.port}=${port}: port ${port} needs privileges this user does not have (use a port above 1023)`;
    case 'EADDRNOTAVAIL':
      return `${labels.host}=${host} is not an address of this machine`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${labels.host}=${host} does not resolve to an address`;
    default:
      // The Spark Connect port's own problem (listen.ts) already names its setting.
      if ((e as Error).message?.startsWith('MINILAKE_SPARK_CONNECT_PORT=')) return (e as Error).message;
      return `cannot listen on ${host}:${port} (${labels.port}, ${labels.host}): ${(e as Error).message}`;
  }
}

/** Binds the port for a moment: a busy port is reported with the rest rather than after every service started. */
function checkPort(config: MinilakeConfig): Promise<string | undefined> {
  if (config.port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (e) => resolve(listenProblem(e, config)));
    probe.listen({ port: config.port, host: config.host, exclusive: true }, () =>
      probe.close(() => resolve(undefined)),
    );
  });
}

/**
 * The configuration from the environment and flags, checked against the machine: a ConfigError lists every
 * problem (bad values, the data dir, the host, the port) together.
 */
export async function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: { port?: string; host?: string } = {},
): Promise<MinilakeConfig> {
  const { config, problems, invalid } = readConfig(env, flags);
  // With MINILAKE_PERSIST invalid the default data dir is unknown: only a named one is checked.
  const dir = invalid.has('MINILAKE_PERSIST') && !config.dataDir ? undefined : configuredDataDir(config);
  // The data dir and the network are checked at once (a few ms of start-up, mostly the first fs and socket
  // calls the server would make anyway); the port only when the host resolved.
  const [dirProblem, netProblems] = await Promise.all([
    dir ? checkDataDir(dir, 'MINILAKE_DATA_DIR') : undefined,
    checkHost(config.host, config.labels.host).then(async (hostProblem) =>
      hostProblem ? [hostProblem] : invalid.has('MINILAKE_PORT') ? [] : [await checkPort(config)],
    ),
  ]);
  for (const p of [dirProblem, ...netProblems]) if (p) problems.push(p);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
