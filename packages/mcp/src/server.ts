/**
 * Builds one MCP server (tools, resources, prompts) over a REST client. The HTTP endpoint builds one per
 * request (stateless Streamable HTTP); the stdio bridge builds one for its whole life.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@minilake/core';
import { Fixtures } from './fixtures.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { RestError, type Rest } from './rest.js';
import { adminTools } from './tools/admin.js';
import { deltaTools } from './tools/delta.js';
import { snapshotTools } from './tools/snapshots.js';
import { clusterTools } from './tools/clusters.js';
import { compositeTools } from './tools/composites.js';
import { Failed, type ToolDef, type ToolEnv } from './tools/define.js';
import { jobsTools } from './tools/jobs.js';
import { secretsTools } from './tools/secrets.js';
import { sqlTools, warehouseTools } from './tools/sql.js';
import { dbfsTools, filesTools, workspaceTools } from './tools/storage.js';
import { ucTools } from './tools/unity-catalog.js';

export const MCP_VERSION = '0.1.0';

/** Every tool MiniLake knows, before filtering by the enabled services. */
export const allTools: ToolDef[] = [
  ...adminTools,
  ...snapshotTools,
  ...sqlTools,
  ...warehouseTools,
  ...ucTools,
  ...jobsTools,
  ...workspaceTools,
  ...filesTools,
  ...dbfsTools,
  ...secretsTools,
  ...clusterTools,
  ...compositeTools,
  ...deltaTools,
];

export interface ServerInfo {
  enabled: string[];
  available: { name: string; description?: string; enabled?: boolean }[];
}

/** What a host knows once: the enabled services (from /_minilake/services) and the shared fixtures. */
export interface McpHost {
  rest: Rest;
  fixtures: Fixtures;
  userName: string;
  logger?: Logger | undefined;
  info(): Promise<ServerInfo>;
}

/** A host over a REST client; the services list is read once, on first use. */
export function mcpHost(o: { rest: Rest; userName: string; logger?: Logger | undefined }): McpHost {
  let info: Promise<ServerInfo> | undefined;
  return {
    rest: o.rest,
    userName: o.userName,
    logger: o.logger,
    fixtures: new Fixtures(o.rest),
    info() {
      info ??= o.rest.get<ServerInfo>('/_minilake/services').catch((e: unknown) => {
        info = undefined;
        throw e;
      });
      return info;
    },
  };
}

export const toolsFor = (enabled: ReadonlySet<string>): ToolDef[] =>
  allTools.filter((t) => t.needs.every((n) => enabled.has(n)));

function errorResult(e: RestError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${e.errorCode}: ${e.message}` }],
    // No structuredContent: clients validate it against the tool's output schema even on errors. The code is
    // the text's first word and in _meta.
    _meta: { 'minilake/error_code': e.errorCode, 'minilake/http_status': e.status },
  };
}

export async function buildMcpServer(host: McpHost): Promise<McpServer> {
  const info = await host.info();
  const services = new Set(info.enabled);
  const env: ToolEnv = { rest: host.rest, fixtures: host.fixtures, services, userName: host.userName };
  const tools = toolsFor(services);
  const server = new McpServer(
    { name: 'minilake', title: 'MiniLake', version: MCP_VERSION },
    {
      capabilities: { logging: {}, tools: {}, resources: {}, prompts: {} },
      instructions:
        'MiniLake is the Databricks API on a laptop. Start with setup_fixture, seed data with seed_table, query with run_sql (Databricks SQL; read minilake://sql-dialect). Failures come back as isError with the Databricks error_code.',
    },
  );
  for (const def of tools) {
    server.registerTool(
      def.name,
      {
        title: def.title,
        description: def.description,
        inputSchema: def.input,
        outputSchema: def.output,
        annotations: { title: def.title, ...def.hints },
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          const out = await def.run(args as never, env);
          if (out instanceof Failed)
            return {
              isError: true,
              content: [{ type: 'text', text: `${out.message}\n${JSON.stringify(out.output)}` }],
              // The output matches the tool's schema, so clients validating it on errors accept it.
              structuredContent: out.output,
            };
          return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
        } catch (e) {
          if (e instanceof RestError) return errorResult(e);
          // Arguments are not logged: they may hold a secret value.
          host.logger?.error(`MCP tool ${def.name} failed`, { error: String((e as Error)?.message ?? e) });
          return errorResult(
            new RestError(500, 'INTERNAL_ERROR', `The tool ${def.name} failed unexpectedly.`),
          );
        }
      },
    );
  }
  registerResources(server, env, { tools, available: info.available });
  registerPrompts(server);
  return server;
}
