import * as z from 'zod';
import { RestError, compact } from '../rest.js';
import {
  anyList,
  anyObject,
  CREATE,
  DESTROY,
  DESTROY_ONCE,
  READ,
  tool,
  UPDATE,
  type ToolEnv,
} from './define.js';

const STATEMENTS = '/api/2.0/sql/statements';
const WAREHOUSES = '/api/2.0/sql/warehouses';

interface StatementResponse {
  statement_id: string;
  status?: { state?: string; error?: { error_code?: string; message?: string }; sql_state?: string };
  manifest?: {
    schema?: { columns?: { name: string; type_text?: string; type_name?: string }[] };
    total_row_count?: number;
    truncated?: boolean;
  };
  result?: { data_array?: unknown[][] };
}

export const statementOutput = {
  statement_id: z.string().describe('id for get_statement / cancel_statement'),
  state: z.string().describe('PENDING, RUNNING, SUCCEEDED, FAILED, CANCELED or CLOSED'),
  warehouse_id: z.string().optional().describe('the warehouse the statement ran on'),
  columns: z
    .array(z.object({ name: z.string(), type_text: z.string().optional() }))
    .describe('result columns with their Databricks types'),
  rows: z
    .array(z.array(z.unknown()))
    .describe('result rows; values as the Statement API renders them (strings)'),
  row_count: z.number().describe('rows in the full result'),
  truncated: z.boolean().describe('true when max_rows cut the result'),
};

const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELED', 'CLOSED']);

/** The rows of a statement, or a RestError with the statement's own error code when it failed. */
function shape(r: StatementResponse, warehouseId?: string): Record<string, unknown> {
  const state = r.status?.state ?? 'PENDING';
  if (state === 'FAILED') {
    const e = r.status?.error;
    throw new RestError(400, e?.error_code ?? 'BAD_REQUEST', e?.message ?? 'The statement failed.');
  }
  return compact({
    statement_id: r.statement_id,
    state,
    warehouse_id: warehouseId,
    columns: (r.manifest?.schema?.columns ?? []).map((c) =>
      compact({ name: c.name, type_text: c.type_text }),
    ),
    rows: r.result?.data_array ?? [],
    row_count: r.manifest?.total_row_count ?? 0,
    truncated: r.manifest?.truncated ?? false,
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RunSqlArgs {
  statement: string;
  catalog?: string | undefined;
  schema?: string | undefined;
  warehouse_id?: string | undefined;
  max_rows?: number | undefined;
  parameters?: { name: string; value?: string | null | undefined; type?: string | undefined }[] | undefined;
  timeout_seconds?: number | undefined;
}

/** Submits a statement (on the MCP warehouse when none is named) and polls it to the end or the timeout. */
export async function runStatement(env: ToolEnv, a: RunSqlArgs): Promise<Record<string, unknown>> {
  const warehouseId = a.warehouse_id ?? (await env.fixtures.warehouse()).id;
  const deadline = Date.now() + (a.timeout_seconds ?? 120) * 1000;
  let r = await env.rest.post<StatementResponse>(
    STATEMENTS,
    compact({
      statement: a.statement,
      warehouse_id: warehouseId,
      catalog: a.catalog,
      schema: a.schema,
      parameters: a.parameters,
      row_limit: a.max_rows ?? 1000,
      disposition: 'INLINE',
      format: 'JSON_ARRAY',
      wait_timeout: '30s',
      on_wait_timeout: 'CONTINUE',
    }),
  );
  // A poll, not a fixed sleep: the statement may need its warehouse to start first.
  while (!TERMINAL.has(r.status?.state ?? '') && Date.now() < deadline) {
    await pause(200);
    r = await env.rest.get<StatementResponse>(`${STATEMENTS}/${encodeURIComponent(r.statement_id)}`);
  }
  return shape(r, warehouseId);
}

const sqlArgs = {
  statement: z
    .string()
    .min(1)
    .describe(
      'Databricks SQL (Spark SQL dialect, as on a SQL warehouse); several statements separated by ; run in order and the last result is returned. Read minilake://sql-dialect for what differs.',
    ),
  catalog: z.string().optional().describe('default catalog for unqualified names (default main)'),
  schema: z.string().optional().describe('default schema for unqualified names (default default)'),
  warehouse_id: z
    .string()
    .optional()
    .describe(
      'warehouse to run on; when omitted: a warehouse named "MiniLake MCP" if there is one, else the starter warehouse `dev` every fresh MiniLake has, else a running one (one named "MiniLake MCP" is created only when there is no warehouse at all)',
    ),
};

export const sqlTools = [
  tool({
    name: 'run_sql',
    title: 'Run SQL',
    description:
      'Runs a Databricks SQL statement through the Statement Execution API and returns its columns and rows. A failing statement returns isError with the Databricks error code (TABLE_OR_VIEW_NOT_FOUND, PARSE_SYNTAX_ERROR, ...).',
    needs: ['sql'],
    input: {
      ...sqlArgs,
      max_rows: z.number().int().min(1).max(100000).optional().describe('row limit (default 1000)'),
      parameters: z
        .array(
          z.object({
            name: z.string().describe('marker name, used as :name in the statement'),
            value: z.string().optional().describe('value as text; omitted is NULL'),
            type: z.string().optional().describe('SQL type of the value (default STRING)'),
          }),
        )
        .optional()
        .describe('named parameters, bound by the engine (never spliced into the text)'),
      timeout_seconds: z
        .number()
        .int()
        .min(1)
        .max(3600)
        .optional()
        .describe('how long to wait before returning a RUNNING statement (default 120)'),
    },
    output: statementOutput,
    hints: DESTROY_ONCE,
    run: (args, env) => runStatement(env, args),
  }),
  tool({
    name: 'get_statement',
    title: 'Get statement',
    description:
      'The state and first rows of a statement started by run_sql (for one that was still RUNNING).',
    needs: ['sql'],
    input: { statement_id: z.string().describe('id returned by run_sql') },
    output: statementOutput,
    hints: READ,
    run: async ({ statement_id }, { rest }) =>
      shape(await rest.get<StatementResponse>(`${STATEMENTS}/${encodeURIComponent(statement_id)}`)),
  }),
  tool({
    name: 'cancel_statement',
    title: 'Cancel statement',
    description: 'Cancels a running statement (a finished one is left as it is).',
    needs: ['sql'],
    input: { statement_id: z.string().describe('id returned by run_sql') },
    output: { statement_id: z.string(), state: z.string().describe('the state after the cancel request') },
    hints: UPDATE,
    async run({ statement_id }, { rest }) {
      const id = encodeURIComponent(statement_id);
      await rest.post(`${STATEMENTS}/${id}/cancel`);
      const r = await rest.get<StatementResponse>(`${STATEMENTS}/${id}`);
      return { statement_id, state: r.status?.state ?? 'CANCELED' };
    },
  }),
  tool({
    name: 'explain_sql',
    title: 'Explain SQL',
    description:
      'How MiniLake will run a Databricks statement without running it: the engine plan, or the reason it is refused (an UNSUPPORTED_FEATURE or parse error names the construct). Use it before a statement you are unsure of.',
    needs: ['sql'],
    input: { statement: sqlArgs.statement, catalog: sqlArgs.catalog, schema: sqlArgs.schema },
    output: {
      accepted: z.boolean().describe('true when MiniLake can run the statement'),
      plan: z.string().optional().describe("the engine's plan (DuckDB text)"),
      error_code: z.string().optional().describe('why not: the Databricks error code'),
      message: z.string().optional().describe('why not: the message a client would get'),
    },
    hints: READ,
    async run(args, env) {
      try {
        const r = await runStatement(env, { ...args, statement: `EXPLAIN ${args.statement}`, max_rows: 100 });
        const rows = (r.rows as unknown[][]) ?? [];
        return { accepted: true, plan: rows.map((row) => row.map(String).join('\t')).join('\n') };
      } catch (e) {
        if (e instanceof RestError) return { accepted: false, error_code: e.errorCode, message: e.message };
        throw e;
      }
    },
  }),
  tool({
    name: 'query_history',
    title: 'Query history',
    description:
      'Recent statements (most recent first) with their text, state, duration, rows and error message.',
    needs: ['sql'],
    input: {
      max_results: z.number().int().min(1).max(1000).optional().describe('how many (default 20)'),
      statuses: z
        .array(z.enum(['QUEUED', 'RUNNING', 'FINISHED', 'FAILED', 'CANCELED']))
        .optional()
        .describe('only statements in these states'),
    },
    output: { queries: anyList('QueryInfo records'), has_next_page: z.boolean().optional() },
    hints: READ,
    async run({ max_results, statuses }, { rest }) {
      const r = await rest.get<{ res?: unknown[]; has_next_page?: boolean }>('/api/2.0/sql/history/queries', {
        max_results: max_results ?? 20,
        'filter_by.statuses': statuses,
      });
      return compact({ queries: r.res ?? [], has_next_page: r.has_next_page });
    },
  }),
];

const warehouseOut = { warehouse: anyObject.describe('the warehouse (GetWarehouseResponse)') };
const idArg = { id: z.string().describe('warehouse id') };

async function getWarehouse(env: ToolEnv, id: string) {
  return { warehouse: await env.rest.get(`${WAREHOUSES}/${encodeURIComponent(id)}`) };
}

export const warehouseTools = [
  tool({
    name: 'create_warehouse',
    title: 'Create SQL warehouse',
    description: 'Creates a SQL warehouse; it starts (STARTING, then RUNNING).',
    needs: ['sql'],
    input: {
      name: z.string().min(1).describe('warehouse name'),
      cluster_size: z
        .string()
        .optional()
        .describe('2X-Small ... 4X-Large (stored, not enforced; default Small)'),
      auto_stop_mins: z.number().int().min(0).optional().describe('idle minutes before it stops; 0 never'),
      enable_serverless_compute: z.boolean().optional().describe('serverless warehouse (type PRO)'),
    },
    output: { id: z.string().describe('the new warehouse id'), ...warehouseOut },
    hints: CREATE,
    async run(args, env) {
      const { id } = await env.rest.post<{ id: string }>(WAREHOUSES, compact(args));
      return { id, ...(await getWarehouse(env, id)) };
    },
  }),
  tool({
    name: 'list_warehouses',
    title: 'List SQL warehouses',
    description: 'Every SQL warehouse that is not deleted, with its state.',
    needs: ['sql'],
    input: {},
    output: { warehouses: anyList('warehouses') },
    hints: READ,
    async run(_a, { rest }) {
      const r = await rest.get<{ warehouses?: unknown[] }>(WAREHOUSES);
      return { warehouses: r.warehouses ?? [] };
    },
  }),
  tool({
    name: 'get_warehouse',
    title: 'Get SQL warehouse',
    description: 'One warehouse: state, size, JDBC URL and settings.',
    needs: ['sql'],
    input: idArg,
    output: warehouseOut,
    hints: READ,
    run: ({ id }, env) => getWarehouse(env, id),
  }),
  tool({
    name: 'start_warehouse',
    title: 'Start SQL warehouse',
    description:
      'Starts a stopped warehouse (STOPPED -> STARTING -> RUNNING). Statements also start it on their own.',
    needs: ['sql'],
    input: idArg,
    output: warehouseOut,
    hints: UPDATE,
    async run({ id }, env) {
      await env.rest.post(`${WAREHOUSES}/${encodeURIComponent(id)}/start`);
      return getWarehouse(env, id);
    },
  }),
  tool({
    name: 'stop_warehouse',
    title: 'Stop SQL warehouse',
    description: 'Stops a warehouse (RUNNING -> STOPPING -> STOPPED); running statements are not kept.',
    needs: ['sql'],
    input: idArg,
    output: warehouseOut,
    hints: UPDATE,
    async run({ id }, env) {
      await env.rest.post(`${WAREHOUSES}/${encodeURIComponent(id)}/stop`);
      return getWarehouse(env, id);
    },
  }),
  tool({
    name: 'delete_warehouse',
    title: 'Delete SQL warehouse',
    description: 'Deletes a warehouse (state DELETED; it is no longer listed).',
    needs: ['sql'],
    input: idArg,
    output: { id: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ id }, { rest, fixtures }) {
      await rest.delete(`${WAREHOUSES}/${encodeURIComponent(id)}`);
      fixtures.forget();
      return { id, deleted: true };
    },
  }),
];
