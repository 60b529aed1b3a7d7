/**
 * Refreshing a dashboard outside a browser (a schedule firing, a job's dashboard_task, the UI's refresh
 * button): every widget's statements run through the SQL service's statement service (so query history has
 * them, client "Lakeview Dashboards"), on the published revision when there is one, and the outcome is recorded.
 * Then the subscribers hear of it: a notification destination gets the payload (a webhook a real POST), a user
 * subscriber is logged as an e-mail MiniLake does not send.
 */
import { invalidParameter, type Clock, type Logger } from '@minilake/core';
import type { StatementService } from '@minilake/sql';
import type { Delivery } from '@minilake/workspace-admin';
import { DashboardError } from './compile.js';
import { planWidget, widgetsOf, type Selections } from './plan.js';
import { parseSerialized } from './serialized.js';
import { compact, iso, type DashboardRecord, type LakeviewStore, type RefreshRecord } from './store.js';

export const LAKEVIEW_CLIENT = 'Lakeview Dashboards';
/** Statements of one refresh running at once (a dashboard of many widgets must not take every connection). */
const CONCURRENCY = 4;

export interface RefreshDeps {
  store: LakeviewStore;
  statements: StatementService;
  clock: Clock;
  logger: Logger;
  /** The workspace-admin peer's delivery; absent when that service is off. */
  deliver?: (destinationId: string, payload: unknown) => Promise<Delivery>;
  /** The server's URL, for the dashboard's address in notifications. */
  selfUrl: () => string | undefined;
}

export interface RefreshOutcome {
  ok: boolean;
  statements: number;
  failed: number;
  /** As jobs' DashboardTaskOutput.page_snapshots: each page's widget errors. */
  pages: { page_display_name: string; widget_error_details: { message: string }[] }[];
  refresh: RefreshRecord;
}

export interface Subscriber {
  destination_id?: string;
  user_name?: string;
}

/** Runs `tasks` with at most `n` at once. */
async function pool<T>(tasks: (() => Promise<T>)[], n: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, tasks.length) }, worker));
  return out;
}

export async function refreshDashboard(
  deps: RefreshDeps,
  id: string,
  opts: { warehouseId?: string | undefined; selections?: Selections } = {},
): Promise<RefreshOutcome> {
  const d = deps.store.dashboard(id);
  if (d.lifecycle_state === 'TRASHED') throw invalidParameter(`Dashboard [${id}] is in the trash.`);
  const source = d.published ?? d;
  const warehouseId = opts.warehouseId || d.published?.warehouse_id || d.warehouse_id;
  if (!warehouseId)
    throw invalidParameter(
      `Dashboard [${id}] has no warehouse_id: set one (or pass warehouse_id) to refresh it.`,
    );
  const content = parseSerialized(source.serialized_dashboard);
  const pages = new Map<string, { message: string }[]>();
  const errors: RefreshRecord['errors'] = [];
  const tasks: (() => Promise<boolean>)[] = [];
  for (const { page, item } of widgetsOf(content)) {
    const pageName = page.displayName ?? page.name;
    if (!pages.has(pageName)) pages.set(pageName, []);
    const w = item.widget;
    const fail = (message: string) => {
      pages.get(pageName)!.push({ message: `${w.spec?.frame?.title || w.name}: ${message}` });
      errors.push({ page: pageName, widget: w.name, message });
      return false;
    };
    let planned;
    try {
      planned = planWidget(content, w, opts.selections ?? {});
    } catch (e) {
      if (!(e instanceof DashboardError)) throw e;
      tasks.push(async () => fail(e.message));
      continue;
    }
    for (const q of planned) {
      tasks.push(async () => {
        const outcome = await deps.statements.run(
          {
            statement: q.compiled.statement,
            warehouseId,
            ...(q.compiled.catalog ? { catalog: q.compiled.catalog } : {}),
            ...(q.compiled.schema ? { schema: q.compiled.schema } : {}),
            ...(q.compiled.parameters.length ? { parameters: q.compiled.parameters } : {}),
            client: LAKEVIEW_CLIENT,
          },
          120_000,
        );
        if (outcome.state === 'SUCCEEDED') return true;
        return fail(outcome.error?.message ?? `The statement ended ${outcome.state}.`);
      });
    }
  }
  const results = await pool(tasks, CONCURRENCY);
  const refresh: RefreshRecord = {
    time: deps.clock.now(),
    statements: results.length,
    failed: results.filter((ok) => !ok).length,
    errors,
  };
  deps.store.dashboards.update(id, (r) => {
    r.last_refresh = refresh;
  });
  return {
    ok: refresh.failed === 0,
    statements: refresh.statements,
    failed: refresh.failed,
    pages: [...pages].map(([page_display_name, widget_error_details]) => ({
      page_display_name,
      widget_error_details,
    })),
    refresh,
  };
}

/** What a subscriber's webhook receives. */
export function notificationPayload(
  d: DashboardRecord,
  outcome: RefreshOutcome,
  extra: { scheduleId?: string; subject?: string; url?: string },
) {
  const subject = extra.subject ?? `Dashboard "${d.display_name}" refreshed`;
  return compact({
    dashboard_id: d.dashboard_id,
    display_name: d.display_name,
    schedule_id: extra.scheduleId,
    subject,
    status: outcome.ok ? 'SUCCESS' : 'FAILED',
    statements: outcome.statements,
    failed_statements: outcome.failed,
    errors: outcome.refresh.errors.length ? outcome.refresh.errors : undefined,
    refreshed_at: iso(outcome.refresh.time),
    url: extra.url,
  });
}

export interface DeliveryReport extends Delivery {
  subscriber: Subscriber;
}

/** Sends the refresh's notification to each subscriber; failures are reported, never thrown. */
export async function notifySubscribers(
  deps: RefreshDeps,
  d: DashboardRecord,
  outcome: RefreshOutcome,
  subscribers: Subscriber[],
  extra: { scheduleId?: string; subject?: string } = {},
): Promise<DeliveryReport[]> {
  const base = deps.selfUrl();
  const payload = notificationPayload(d, outcome, {
    ...extra,
    ...(base ? { url: `${base}/ui/dashboards/${d.dashboard_id}${d.published ? '/published' : ''}` } : {}),
  });
  const out: DeliveryReport[] = [];
  for (const subscriber of subscribers) {
    if (subscriber.destination_id) {
      if (!deps.deliver) {
        out.push({ subscriber, delivered: false, detail: 'the workspace-admin service is not enabled' });
        continue;
      }
      try {
        const r = await deps.deliver(subscriber.destination_id, payload);
        if (!r.delivered)
          deps.logger.warn(
            `dashboard ${d.dashboard_id}: ${subscriber.destination_id} not notified: ${r.detail}`,
          );
        out.push({ subscriber, ...r });
      } catch (e) {
        out.push({ subscriber, delivered: false, detail: (e as Error).message });
      }
    } else if (subscriber.user_name) {
      deps.logger.info(
        `dashboard ${d.dashboard_id}: e-mail to ${subscriber.user_name} not sent (MiniLake sends no e-mail)`,
      );
      out.push({ subscriber, delivered: false, detail: 'e-mail is not sent by MiniLake' });
    }
  }
  return out;
}
