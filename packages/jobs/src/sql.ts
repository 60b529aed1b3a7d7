/**
 * The one place jobs talks to the SQL service: a sql_task file runs as a statement through the Statement
 * Execution API, sent in process through the host's app (ctx.request), so it takes exactly the path a client's
 * statement takes (warehouse checks, dialect, history).
 */
import type { ServiceContext } from '@minilake/core';

export interface SqlFileResult {
  ok: boolean;
  error: string;
  summary: string;
}

const TERMINAL = ['SUCCEEDED', 'FAILED', 'CANCELED', 'CLOSED'];

export async function runSqlFile(
  ctx: Pick<ServiceContext, 'request' | 'clock'>,
  input: { statement: string; warehouseId: string; parameters: Record<string, string> },
): Promise<SqlFileResult> {
  if (!input.warehouseId) return { ok: false, error: 'sql_task.warehouse_id is required.', summary: '' };
  const send = async (path: string, init?: RequestInit) => {
    const res = await ctx.request(path, init);
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    return { status: res.status, body };
  };
  let r = await send('/api/2.0/sql/statements', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      statement: input.statement,
      warehouse_id: input.warehouseId,
      wait_timeout: '30s',
      on_wait_timeout: 'CONTINUE',
      parameters: Object.entries(input.parameters).map(([name, value]) => ({ name, value })),
    }),
  });
  if (r.status !== 200)
    return { ok: false, error: String(r.body.message ?? `SQL statement failed (${r.status})`), summary: '' };
  const id = String(r.body.statement_id);
  for (;;) {
    const status = r.body.status as { state?: string; error?: { message?: string } } | undefined;
    const state = status?.state ?? 'FAILED';
    if (TERMINAL.includes(state)) {
      if (state === 'SUCCEEDED') {
        const m = r.body.manifest as { total_row_count?: number } | undefined;
        return {
          ok: true,
          error: '',
          summary: `Statement ${id} succeeded (${m?.total_row_count ?? 0} rows).\n`,
        };
      }
      return { ok: false, error: status?.error?.message ?? `SQL statement ${state}`, summary: '' };
    }
    await new Promise<void>((resolve) => ctx.clock.setTimeout(resolve, 200));
    r = await send(`/api/2.0/sql/statements/${id}`);
  }
}

async function post(ctx: Pick<ServiceContext, 'request'>, path: string, body: unknown) {
  const res = await ctx.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

/**
 * sql_task `query`: runs the saved query (its warehouse, namespace and parameters; the task's parameters
 * override the saved values) through the sql-objects service, in process.
 */
export async function runSavedQuery(
  ctx: Pick<ServiceContext, 'request'>,
  input: { queryId: string; parameters: Record<string, string> },
): Promise<SqlFileResult> {
  const r = await post(ctx, `/_minilake/sql/queries/${encodeURIComponent(input.queryId)}/run`, {
    parameters: input.parameters,
  });
  if (r.status !== 200)
    return {
      ok: false,
      error: String(r.body.message ?? `Query ${input.queryId} failed (${r.status})`),
      summary: '',
    };
  if (r.body.state !== 'SUCCEEDED') {
    const error = r.body.error as { message?: string } | undefined;
    return {
      ok: false,
      error: error?.message ?? `Query ${input.queryId} ${String(r.body.state)}`,
      summary: '',
    };
  }
  return {
    ok: true,
    error: '',
    summary: `Query ${input.queryId}: statement ${String(r.body.statement_id)} succeeded (${Number(r.body.row_count ?? 0)} rows).\n`,
  };
}

/** sql_task `alert`: evaluates the alert now and notifies its subscriptions (the task's own). */
export async function runAlert(
  ctx: Pick<ServiceContext, 'request'>,
  input: { alertId: string; subscriptions: unknown[]; pauseSubscriptions: boolean },
): Promise<SqlFileResult> {
  const r = await post(ctx, `/_minilake/sql/alerts/${encodeURIComponent(input.alertId)}/evaluate`, {
    subscriptions: input.subscriptions,
    pause_subscriptions: input.pauseSubscriptions,
  });
  if (r.status !== 200)
    return {
      ok: false,
      error: String(r.body.message ?? `Alert ${input.alertId} failed (${r.status})`),
      summary: '',
    };
  const alert = r.body.alert as { state?: string } | undefined;
  const error = r.body.error ? ` (${String(r.body.error)})` : '';
  return {
    ok: true,
    error: '',
    summary: `Alert ${input.alertId}: ${alert?.state ?? 'UNKNOWN'}${error}${r.body.notified ? ', notified' : ''}.\n`,
  };
}
