/**
 * @minilake/mcp: an MCP server for agents at /mcp (opt-in: MINILAKE_MCP=1). Its tools call MiniLake through
 * the host's own routes (ServiceContext.request), so validation, errors and persistence are the REST ones.
 */
import { defineService } from '@minilake/core';

// The implementation (MCP SDK, zod schemas) is at `@minilake/mcp/host`, so importing the service definition
// costs nothing at start-up.
export type { McpHost } from './server.js';
export type { Send } from './rest.js';

export const mcpService = defineService({
  name: 'mcp',
  description:
    'MCP server for agents at /mcp: tools, resources and prompts over the REST API (MINILAKE_MCP=1)',
  configDefaults: {
    MINILAKE_MCP_ALLOWED_HOSTS: '',
    MINILAKE_MCP_MAX_BODY_BYTES: String(16 * 1024 * 1024),
  },
  async create(ctx) {
    // Loaded when the service is enabled, not when the server starts: the MCP SDK and the tools' zod schemas
    // cost ~0.25 s of CPU at start-up, and MCP is opt-in (bench/README.md, cold start).
    const { mcpApp, Rest, mcpHost } = await import('./host.js');
    const host = mcpHost({
      rest: new Rest((path, init) => ctx.request(path, init)),
      userName: ctx.identity.userName,
      logger: ctx.logger,
    });
    const maxBody = Number(ctx.config.MINILAKE_MCP_MAX_BODY_BYTES);
    const app = mcpApp({
      host,
      maxBodyBytes: Number.isFinite(maxBody) && maxBody > 0 ? maxBody : 16 * 1024 * 1024,
      allowedHosts: () => {
        const extra = (ctx.config.MINILAKE_MCP_ALLOWED_HOSTS ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const self = ctx.selfUrl();
        if (self) extra.push(new URL(self).hostname);
        if (ctx.config.MINILAKE_BIND_HOST) extra.push(ctx.config.MINILAKE_BIND_HOST);
        return extra;
      },
    });
    return { app, state: [] };
  },
});
