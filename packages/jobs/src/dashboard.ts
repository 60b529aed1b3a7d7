/**
 * dashboard_task: refreshes a Lakeview dashboard through the lakeview service's Api (every widget's statements
 * on the statement service, on the task's warehouse or the dashboard's) and sends the refresh to the task's
 * subscribers (a webhook destination gets a real POST; e-mail is logged, not sent). `filters` set the filter
 * widgets of those names. A failed widget fails the task; each page's widget errors are in
 * `dashboard_output.page_snapshots`, as Databricks reports them.
 */
import type { LakeviewApi } from '@minilake/lakeview';
import type { Json } from './settings.js';
import type { TaskOutput } from './store.js';

export interface DashboardTaskOutcome {
  ok: boolean;
  message: string;
  output: TaskOutput;
}

const str = (x: unknown) =>
  typeof x === 'string' ? x : x === undefined || x === null ? undefined : String(x);

export async function runDashboardTask(
  lakeview: Pick<LakeviewApi, 'refresh'> | undefined,
  spec: Json,
): Promise<DashboardTaskOutcome> {
  const fail = (message: string): DashboardTaskOutcome => ({
    ok: false,
    message,
    output: { error: message },
  });
  const dashboardId = str(spec.dashboard_id);
  if (!dashboardId) return fail('dashboard_task.dashboard_id is required.');
  if (!lakeview) return fail('dashboard_task needs the lakeview service, which is not enabled.');
  const sub = (spec.subscription ?? {}) as Json;
  const subscribers = ((sub.subscribers as Json[] | undefined) ?? []).map((s) => ({
    ...(str(s.destination_id) ? { destination_id: str(s.destination_id)! } : {}),
    ...(str(s.user_name) ? { user_name: str(s.user_name)! } : {}),
  }));
  const filters = Object.fromEntries(
    Object.entries((spec.filters as Json | undefined) ?? {}).map(([k, v]) => [k, String(v)]),
  );
  let r;
  try {
    r = await lakeview.refresh(dashboardId, {
      ...(str(spec.warehouse_id) ? { warehouseId: str(spec.warehouse_id)! } : {}),
      ...(Object.keys(filters).length ? { filters } : {}),
      subscribers,
      ...(str(sub.custom_subject) ? { customSubject: str(sub.custom_subject)! } : {}),
      paused: sub.paused === true,
    });
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }
  const delivered = r.deliveries.filter((x) => x.delivered).length;
  const logs =
    `Dashboard ${dashboardId} refreshed: ${r.statements} statements, ${r.failed} failed` +
    (r.deliveries.length ? `; ${delivered} of ${r.deliveries.length} subscribers notified` : '') +
    '.\n';
  const output: TaskOutput = { logs, logs_truncated: false, dashboard_output: { page_snapshots: r.pages } };
  if (r.ok) return { ok: true, message: '', output };
  const first = r.refresh.errors[0]?.message ?? 'a widget failed';
  return { ok: false, message: `A widget failed: ${first}`, output: { ...output, error: first } };
}
