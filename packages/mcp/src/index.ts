/**
 * @minilake/mcp: an MCP server for agents at /mcp (opt-in: MINILAKE_MCP=1). Its tools call MiniLake through
 * the host's own routes (ServiceContext.request), so validation, errors and persistence are the REST ones.
 */
import { defineService, numberSetting, textSetting } from '@minilake/core';

// The implementation (MCP SDK, zod schemas) is at `@minilake/mcp/host`, so importing the service definition
// costs nothing at start-up.
export type { McpHost } from './server.js';
export type { Send } from './rest.js';

export const mcpSettings = {
  MINILAKE_MCP_ALLOWED_HOSTS: textSetting({
    doc: 'Comma-separated host names `/mcp` accepts in `Host`/`Origin` besides localhost, 127.0.0.1, [::1] and the host MiniLake listens on.',
    shown: '(none)',
  }),
  MINILAKE_MCP_MAX_BODY_BYTES: numberSetting({
    doc: 'Largest MCP request body; larger ones get 413.',
    default: 16 * 1024 * 1024,
    integer: true,
    min: 1,
  }),
};

export const mcpService = defineService<unknown, typeof mcpSettings>({
  name: 'mcp',
  description:
    'MCP server for agents at /mcp: tools, resources and prompts over the REST API (MINILAKE_MCP=1)',
  settings: mcpSettings,
  async create(ctx) {
    // Loaded when the service is enabled, not when the server starts: the MCP SDK and the tools' zod schemas
    // cost ~0.25 s of CPU at start-up, and MCP is opt-in (bench/README.md, cold start).
    const { mcpApp, Rest, mcpHost } = await import('./host.js');
    const host = mcpHost({
      rest: new Rest((path, init) => ctx.request(path, init)),
      userName: ctx.identity.userName,
      logger: ctx.logger,
    });
    const extra = (ctx.settings.MINILAKE_MCP_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const app = mcpApp({
      host,
      maxBodyBytes: ctx.settings.MINILAKE_MCP_MAX_BODY_BYTES,
      // The host it listens on (a wildcard bind is reached through 127.0.0.1) besides the configured ones.
      allowedHosts: () => {
        const self = ctx.selfUrl();
        return self ? [...extra, new URL(self).hostname] : extra;
      },
    });
    return { app, state: [] };
  },
});
