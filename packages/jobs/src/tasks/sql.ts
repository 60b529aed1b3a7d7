/**
 * sql_task: a SQL file runs as one statement on the SQL service's statement service (the one the Statement
 * Execution API uses, so it takes the same path: warehouse checks, dialect, query history); a saved query
 * or an alert runs through the sql-objects service's Api (the query's warehouse, namespace and parameters;
 * the alert's evaluation and the task's subscriptions). A dashboard is not supported.
 */
import { v } from '@minilake/core';
import { resolveAll } from '../refs.js';
import { defineTask, fail, text, textMap, type ExecDeps, type ExecInput, type Outcome } from './types.js';

const Settings = v.looseObject({
  warehouse_id: v.optional(text),
  parameters: v.optional(textMap),
  file: v.optional(v.looseObject({ path: v.optional(v.string()), source: v.optional(v.string()) })),
  query: v.optional(v.looseObject({ query_id: v.optional(v.string()) })),
  alert: v.optional(
    v.looseObject({
      alert_id: v.optional(v.string()),
      subscriptions: v.optional(
        v.array(v.object({ destination_id: v.optional(v.string()), user_name: v.optional(v.string()) })),
      ),
      pause_subscriptions: v.optional(v.boolean()),
    }),
  ),
});

const succeeded = (logs: string): Outcome => ({
  result: 'SUCCESS',
  message: '',
  output: { logs, logs_truncated: false },
});

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Runs the file's text as one statement; the run's cancel interrupts it. */
async function runFile(
  d: ExecDeps,
  input: ExecInput,
  statement: string,
  warehouseId: string,
  parameters: Record<string, string>,
): Promise<Outcome> {
  if (!warehouseId) return fail('sql_task.warehouse_id is required.');
  if (!d.sql) return fail('sql_task needs the sql service, which is not enabled.');
  const statements = d.sql.statements;
  let stmt;
  try {
    stmt = statements.execute({
      statement,
      warehouseId,
      parameters: Object.entries(parameters).map(([name, value]) => ({ name, value })),
    });
  } catch (e) {
    return fail(message(e));
  }
  input.register(() => statements.cancel(stmt));
  await stmt.done;
  if (stmt.state === 'SUCCEEDED' || stmt.state === 'CLOSED')
    return succeeded(`Statement ${stmt.id} succeeded (${stmt.result?.totalRows ?? 0} rows).\n`);
  return fail(stmt.error?.message ?? `SQL statement ${stmt.state}`);
}

async function runSavedQuery(d: ExecDeps, queryId: string, parameters: Record<string, string>) {
  if (!d.sqlObjects) return fail('sql_task.query needs the sql-objects service, which is not enabled.');
  let out;
  try {
    out = await d.sqlObjects.runQuery(queryId, { parameters });
  } catch (e) {
    return fail(message(e));
  }
  if (out.state !== 'SUCCEEDED') return fail(out.error?.message ?? `Query ${queryId} ${out.state}`);
  return succeeded(
    `Query ${queryId}: statement ${out.statementId} succeeded (${out.rows?.length ?? 0} rows).\n`,
  );
}

async function runAlert(
  d: ExecDeps,
  alertId: string,
  opts: { subscriptions: { destination_id?: string; user_name?: string }[]; pause: boolean },
) {
  if (!d.sqlObjects) return fail('sql_task.alert needs the sql-objects service, which is not enabled.');
  let r;
  try {
    r = await d.sqlObjects.evaluateAlert(alertId, {
      subscriptions: opts.subscriptions,
      pauseSubscriptions: opts.pause,
    });
  } catch (e) {
    return fail(message(e));
  }
  const error = r.verdict.error ? ` (${r.verdict.error})` : '';
  return succeeded(`Alert ${alertId}: ${r.alert.state}${error}${r.notified ? ', notified' : ''}.\n`);
}

export const sqlTask = defineTask({
  field: 'sql_task',
  settings: Settings,
  async run(d, input, sql, refs): Promise<Outcome> {
    const parameters = () => resolveAll(sql.parameters ?? {}, refs);
    if (sql.query?.query_id) return runSavedQuery(d, sql.query.query_id, parameters());
    if (sql.alert?.alert_id)
      return runAlert(d, sql.alert.alert_id, {
        subscriptions: sql.alert.subscriptions ?? [],
        pause: sql.alert.pause_subscriptions === true,
      });
    const file = sql.file;
    if (!file?.path)
      return fail(
        'Only sql_task with a file, a query or an alert is supported by MiniLake (dashboard is not).',
      );
    if (file.source === 'GIT') return fail('sql_task files from git_source are not supported by MiniLake.');
    const text = await d.files.localFileText(file.path, input.workDir);
    return runFile(d, input, text, sql.warehouse_id ?? '', parameters());
  },
});
