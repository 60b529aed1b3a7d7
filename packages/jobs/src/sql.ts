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
