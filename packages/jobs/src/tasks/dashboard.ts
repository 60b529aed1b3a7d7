/**
 * dashboard_task: refreshes a Lakeview dashboard through the lakeview service's Api (every widget's statements
 * on the statement service, on the task's warehouse or the dashboard's) and sends the refresh to the task's
 * subscribers (a webhook destination gets a real POST; e-mail is logged, not sent). `filters` set the filter
 * widgets of those names. A failed widget fails the task; each page's widget errors are in
 * `dashboard_output.page_snapshots`, as Databricks reports them.
 */
import { v } from '@minilake/core';
import type { TaskOutput } from '../store.js';
import { defineTask, fail, text, textMap, type Outcome } from './types.js';

const Settings = v.looseObject({
  dashboard_id: v.optional(v.string()),
  warehouse_id: v.optional(text),
  filters: v.optional(textMap),
  subscription: v.optional(
    v.looseObject({
      custom_subject: v.optional(v.string()),
      paused: v.optional(v.boolean()),
      subscribers: v.optional(
        v.array(v.object({ destination_id: v.optional(v.string()), user_name: v.optional(v.string()) })),
      ),
    }),
  ),
});

export const dashboardTask = defineTask({
  field: 'dashboard_task',
  settings: Settings,
  resolveRefs: true,
  async run(d, _input, s): Promise<Outcome> {
    if (!s.dashboard_id) return fail('dashboard_task.dashboard_id is required.');
    if (!d.lakeview) return fail('dashboard_task needs the lakeview service, which is not enabled.');
    let r;
    try {
      r = await d.lakeview.refresh(s.dashboard_id, {
        ...(s.warehouse_id ? { warehouseId: s.warehouse_id } : {}),
        ...(s.filters && Object.keys(s.filters).length ? { filters: s.filters } : {}),
        subscribers: (s.subscription?.subscribers ?? []).map((x) => ({
          ...(x.destination_id ? { destination_id: x.destination_id } : {}),
          ...(x.user_name ? { user_name: x.user_name } : {}),
        })),
        ...(s.subscription?.custom_subject ? { customSubject: s.subscription.custom_subject } : {}),
        paused: s.subscription?.paused === true,
      });
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
    const delivered = r.deliveries.filter((x) => x.delivered).length;
    const logs =
      `Dashboard ${s.dashboard_id} refreshed: ${r.statements} statements, ${r.failed} failed` +
      (r.deliveries.length ? `; ${delivered} of ${r.deliveries.length} subscribers notified` : '') +
      '.\n';
    const output: TaskOutput = { logs, logs_truncated: false, dashboard_output: { page_snapshots: r.pages } };
    if (r.ok) return { result: 'SUCCESS', message: '', output };
    const first = r.refresh.errors[0]?.message ?? 'a widget failed';
    return fail(`A widget failed: ${first}`, { ...output, error: first });
  },
});
