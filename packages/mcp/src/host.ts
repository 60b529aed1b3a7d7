/** The MCP implementation, loaded on use (see index.ts): the app, the tools and the REST client. */
export { mcpApp, hostnameOf } from './app.js';
export { buildMcpServer, mcpHost, allTools, toolsFor, MCP_VERSION, type McpHost } from './server.js';
export { Rest, RestError, type Send } from './rest.js';
