/**
 * Resources: guides (text) and live views of the server's state (JSON, read through the same REST routes as
 * the tools). Templates address one catalog, table, workspace object or run output.
 */
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RestError } from './rest.js';
import type { ToolDef, ToolEnv } from './tools/define.js';
import { catalogTree } from './tools/composites.js';
import { probedDialect } from './dialect-probes.js';
import { ucList } from './tools/unity-catalog.js';
import { AGENT_GUIDE, ERROR_GUIDE, PYSPARK_GUIDE, SQL_DIALECT_BODY, SQL_DIALECT_HEADER } from './guides.js';

const json = (uri: string, value: unknown) => ({
  contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
});
const markdown = (uri: string, text: string) => ({ contents: [{ uri, mimeType: 'text/markdown', text }] });

/** A REST failure as a JSON-RPC error the client shows (404 -> resource not found). */
async function guarded<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof RestError)
      throw new McpError(e.status === 404 ? -32002 : ErrorCode.InvalidParams, `${e.errorCode}: ${e.message}`);
    throw e;
  }
}

/** What each service is, for the capabilities resource: how it behaves, beyond its one-line description. */
const KIND: Record<string, string> = {
  'unity-catalog': 'real: catalogs are DuckDB database files, tables real tables',
  sql: 'real: statements run on DuckDB; warehouses are clock-driven state machines',
  jobs: 'real: runs execute (Spark tasks through spark-submit); runs are state machines',
  workspace: 'real: files on disk',
  files: 'real: volume and DBFS files on disk',
  secrets: 'real: encrypted at rest, write-only',
  compute: 'state machines: clusters start and stop on a clock, no real nodes',
  iam: 'stored: users, groups, permissions (not enforced), tokens',
  'workspace-admin': 'stored settings',
  mcp: 'this MCP server',
};

export function registerResources(
  server: McpServer,
  env: ToolEnv,
  info: { tools: ToolDef[]; available: { name: string; description?: string; enabled?: boolean }[] },
): void {
  const { rest, services } = env;

  server.registerResource(
    'capabilities',
    'minilake://capabilities',
    {
      title: 'What this MiniLake serves',
      description:
        'Generated from the running server: every service (enabled or not, what kind of emulation it is), the MCP tools each enables, and the rule for everything else (501 NOT_IMPLEMENTED).',
      mimeType: 'application/json',
    },
    async (uri) =>
      json(uri.href, {
        services: info.available.map((s) => ({
          name: s.name,
          description: s.description,
          enabled: services.has(s.name),
          kind: KIND[s.name] ?? 'see the service README',
          mcp_tools: info.tools.filter((t) => t.needs[0] === s.name).map((t) => t.name),
        })),
        always_on: {
          admin_routes: ['/_minilake/health', '/_minilake/ready', '/_minilake/reset', '/_minilake/services'],
          mcp_tools: info.tools.filter((t) => t.needs.length === 0).map((t) => t.name),
        },
        not_built: 'Any other Databricks /api path answers 501 NOT_IMPLEMENTED, never a fake success.',
        auth: 'Any token is accepted; every request acts as one local user.',
        tool_count: info.tools.length,
      }),
  );

  server.registerResource(
    'sql-dialect',
    'minilake://sql-dialect',
    {
      title: 'SQL dialect: Databricks SQL on DuckDB',
      description:
        'What Databricks SQL MiniLake runs as on Databricks, what it refuses and why, and the known differences; with a table of constructs checked live on this server (their value or refusal). Read it before writing SQL.',
      mimeType: 'text/markdown',
    },
    async (uri) => {
      let probed = '';
      try {
        probed = await probedDialect(env);
      } catch (e) {
        probed = `## Checked on this server\n\nThe probes could not run: ${(e as Error).message}\n`;
      }
      return markdown(uri.href, `${SQL_DIALECT_HEADER}\n${probed}\n${SQL_DIALECT_BODY}`);
    },
  );

  server.registerResource(
    'pyspark-guide',
    'minilake://pyspark-guide',
    {
      title: 'PySpark guide',
      description: 'How run_python_script runs PySpark here: the session, tables, volumes, dbutils, output.',
      mimeType: 'text/markdown',
    },
    async (uri) => markdown(uri.href, PYSPARK_GUIDE),
  );

  server.registerResource(
    'error-codes',
    'minilake://error-codes',
    {
      title: 'Error codes',
      description: 'The Databricks error codes tools return, what they mean and what to do.',
      mimeType: 'text/markdown',
    },
    async (uri) => markdown(uri.href, ERROR_GUIDE),
  );

  server.registerResource(
    'agent-guide',
    'minilake://agent-guide',
    {
      title: 'Agent guide',
      description: 'The three-call flow (setup_fixture, seed_table, run_sql) and which tool to reach for.',
      mimeType: 'text/markdown',
    },
    async (uri) =>
      markdown(
        uri.href,
        `${AGENT_GUIDE}\n## Tools on this server\n\n${info.tools.map((t) => `- \`${t.name}\`: ${t.title}`).join('\n')}\n`,
      ),
  );

  server.registerResource(
    'catalogs',
    'minilake://catalogs',
    {
      title: 'Catalogs',
      description: 'Every catalog with its schemas (live).',
      mimeType: 'application/json',
    },
    async (uri) =>
      guarded(async () => {
        if (!services.has('unity-catalog')) return json(uri.href, { catalogs: [] });
        const catalogs = (await ucList(rest, 'catalogs', {})) as { name: string; comment?: string }[];
        const out = [];
        for (const c of catalogs) {
          const schemas = (await ucList(rest, 'schemas', { catalog_name: c.name })) as { name: string }[];
          out.push({ name: c.name, comment: c.comment, schemas: schemas.map((s) => s.name) });
        }
        return json(uri.href, { catalogs: out });
      }),
  );

  server.registerResource(
    'warehouses',
    'minilake://warehouses',
    {
      title: 'SQL warehouses',
      description:
        'Every SQL warehouse and its state (live); run_sql uses "MiniLake MCP" when none is named.',
      mimeType: 'application/json',
    },
    async (uri) =>
      guarded(async () => {
        if (!services.has('sql')) return json(uri.href, { warehouses: [] });
        const r = await rest.get<{ warehouses?: Record<string, unknown>[] }>('/api/2.0/sql/warehouses');
        return json(uri.href, {
          warehouses: (r.warehouses ?? []).map((w) => ({ id: w.id, name: w.name, state: w.state })),
        });
      }),
  );

  server.registerResource(
    'query-history',
    'minilake://query-history',
    {
      title: 'Recent statements',
      description: 'The last 20 SQL statements: text, state, duration, error (live).',
      mimeType: 'application/json',
    },
    async (uri) =>
      guarded(async () => {
        if (!services.has('sql')) return json(uri.href, { queries: [] });
        const r = await rest.get<{ res?: Record<string, unknown>[] }>('/api/2.0/sql/history/queries', {
          max_results: 20,
        });
        return json(uri.href, {
          queries: (r.res ?? []).map((q) => ({
            query_id: q.query_id,
            status: q.status,
            query_text: q.query_text,
            duration: q.duration,
            rows_produced: q.rows_produced,
            error_message: q.error_message,
          })),
        });
      }),
  );

  server.registerResource(
    'catalog',
    new ResourceTemplate('minilake://catalog/{catalog}', {
      list: async () => {
        if (!services.has('unity-catalog')) return { resources: [] };
        try {
          const catalogs = (await ucList(rest, 'catalogs', {})) as { name: string }[];
          return {
            resources: catalogs.map((c) => ({
              uri: `minilake://catalog/${encodeURIComponent(c.name)}`,
              name: `catalog ${c.name}`,
              mimeType: 'application/json',
            })),
          };
        } catch {
          return { resources: [] };
        }
      },
    }),
    {
      title: 'Catalog tree',
      description: 'One catalog: schemas, tables with columns, volumes (as describe_catalog_tree).',
      mimeType: 'application/json',
    },
    async (uri, { catalog }) =>
      guarded(async () => json(uri.href, await catalogTree(env, decodeURIComponent(String(catalog)), true))),
  );

  server.registerResource(
    'table',
    new ResourceTemplate('minilake://table/{full_name}', { list: undefined }),
    {
      title: 'Table',
      description: 'One table by catalog.schema.table: columns, type, format, location, properties.',
      mimeType: 'application/json',
    },
    async (uri, { full_name }) =>
      guarded(async () =>
        json(
          uri.href,
          await rest.get(
            `/api/2.1/unity-catalog/tables/${encodeURIComponent(decodeURIComponent(String(full_name)))}`,
          ),
        ),
      ),
  );

  server.registerResource(
    'workspace',
    new ResourceTemplate('minilake://workspace/{+path}', { list: undefined }),
    {
      title: 'Workspace object',
      description: 'A workspace file or notebook (its source), or a folder (its listing), by path.',
    },
    async (uri, { path }) =>
      guarded(async () => {
        const p = `/${decodeURIComponent(String(path)).replace(/^\/+/, '')}`;
        const status = await rest.get<{ object_type?: string }>('/api/2.0/workspace/get-status', { path: p });
        if (status.object_type === 'DIRECTORY' || status.object_type === 'REPO') {
          const r = await rest.get<{ objects?: unknown[] }>('/api/2.0/workspace/list', { path: p });
          return json(uri.href, { path: p, objects: r.objects ?? [] });
        }
        const r = await rest.get<{ content?: string }>('/api/2.0/workspace/export', {
          path: p,
          format: 'SOURCE',
        });
        return {
          contents: [
            {
              uri: uri.href,
              mimeType: 'text/plain',
              text: Buffer.from(r.content ?? '', 'base64').toString('utf8'),
            },
          ],
        };
      }),
  );

  server.registerResource(
    'run-output',
    new ResourceTemplate('minilake://run/{run_id}/output', { list: undefined }),
    {
      title: 'Run output',
      description: "A job run's output per task: logs (stdout), error, error_trace (needs the jobs service).",
      mimeType: 'application/json',
    },
    async (uri, { run_id }) =>
      guarded(async () => {
        const run = await rest.get<{ tasks?: { run_id: number; task_key: string }[] }>(
          '/api/2.2/jobs/runs/get',
          {
            run_id: String(run_id),
          },
        );
        const taskRuns = run.tasks?.length ? run.tasks : [{ run_id: Number(run_id), task_key: '' }];
        const outputs = [];
        for (const t of taskRuns)
          outputs.push({
            task_key: t.task_key,
            ...(await rest.get('/api/2.2/jobs/runs/get-output', { run_id: t.run_id })),
          });
        return json(uri.href, { run_id: Number(run_id), outputs });
      }),
  );
}
