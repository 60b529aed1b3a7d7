/**
 * @minilake/mcp: an MCP server for agents at /mcp (opt-in: MINILAKE_MCP=1). Its tools call MiniLake through
 * the host's own routes (ServiceContext.request), so validation, errors and persistence are the REST ones.
 */
import { defineService } from '@minilake/core';
import { mcpApp } from './app.js';
import { Rest } from './rest.js';
import { mcpHost } from './server.js';

export { mcpApp, hostnameOf } from './app.js';
export { buildMcpServer, mcpHost, allTools, toolsFor, MCP_VERSION, type McpHost } from './server.js';
export { Rest, RestError, type Send } from './rest.js';

export const mcpService = defineService({
  name: 'mcp',
  description:
    'MCP server for agents at /mcp: tools, resources and prompts over the REST API (MINILAKE_MCP=1)',
  configDefaults: {
    MINILAKE_MCP_ALLOWED_HOSTS: '',
    MINILAKE_MCP_MAX_BODY_BYTES: String(16 * 1024 * 1024),
  },
  create(ctx) {
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
