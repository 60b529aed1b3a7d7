/**
 * `minilake mcp --stdio`: the MCP server for clients that only speak stdio. With --url (or DATABRICKS_HOST) it
 * talks to a running MiniLake over HTTP; without, it starts MiniLake in this process (on a free port, so Spark
 * tasks can call back) and sends the tools' requests through its app. stdout carries only the protocol; logs
 * go to stderr.
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createLogger } from '@minilake/core';
import { buildMcpServer, mcpHost, Rest } from '@minilake/mcp/host';
import { ConfigError, parseConfig } from './config.js';
import { listen } from './listen.js';
import { createMinilake } from './server.js';
import { loadConfig } from './startup.js';

export const mcpHelp = `Usage: minilake mcp --stdio [--url URL]

Serves MiniLake's MCP tools, resources and prompts on stdin/stdout.
  --stdio      required: speak MCP over stdio
  --url URL    a running MiniLake (default DATABRICKS_HOST); without one, MiniLake starts in this process
`;

export async function runMcpStdio(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { stdio: { type: 'boolean' }, url: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help || !values.stdio) {
    process.stderr.write(mcpHelp);
    process.exit(values.help ? 0 : 2);
  }
  const url = (values.url ?? env.DATABRICKS_HOST ?? '').replace(/\/+$/, '');
  let rest: Rest;
  let userName: string;
  let close = async () => {};
  let config;
  try {
    // A server started in process is checked against the machine too (data dir, host, port).
    const flags = env.MINILAKE_PORT === undefined ? { port: '0' } : {};
    config = url ? parseConfig(env, flags) : await loadConfig(env, flags);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  if (url) {
    const base = /^https?:\/\//.test(url) ? url : `https://${url}`;
    rest = new Rest((path, init) => fetch(`${base}${path}`, init));
    const me = await rest
      .get<{ userName?: string }>('/api/2.0/preview/scim/v2/Me')
      .catch(() => ({ userName: undefined }));
    userName = me.userName ?? config.userName;
  } else {
    const ml = await createMinilake(config, { logger });
    const l = await listen(ml, config.port, config.host);
    logger.warn(`MiniLake started in process for MCP on ${l.url} (data: ${ml.dataDir})`);
    rest = new Rest((path, init) => Promise.resolve(ml.app.request(`http://localhost${path}`, init)));
    userName = config.userName;
    close = () => l.shutdown();
  }
  const server = await buildMcpServer(mcpHost({ rest, userName, logger }));
  const transport = new StdioServerTransport();
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    void server
      .close()
      .then(close)
      .finally(() => process.exit(0));
  };
  transport.onclose = stop;
  process.stdin.on('end', stop);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await server.connect(transport);
}
