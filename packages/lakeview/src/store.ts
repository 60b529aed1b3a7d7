/**
 * Lakeview state: dashboards (draft, published revision, last refresh), their schedules and the schedules'
 * subscriptions. No HTTP here; the workspace entries of the dashboards are kept by dashboards.ts.
 */
import { CollectionStore, type Clock, type Collection, type StateDb } from '@minilake/core';
import { dashboardNotFound, publishedNotFound, scheduleNotFound, subscriptionNotFound } from './errors.js';

export type Json = Record<string, unknown>;

export interface PublishedRecord {
  display_name: string;
  /** The draft's content at publish time: what the published view draws. */
  serialized_dashboard: string;
  warehouse_id?: string;
  embed_credentials: boolean;
  revision_create_time: number;
}

/** What the last refresh (a schedule, a dashboard_task, the API) found. */
export interface RefreshRecord {
  time: number;
  statements: number;
  failed: number;
  errors: { page: string; widget: string; message: string }[];
}

export interface DashboardRecord {
  dashboard_id: string;
  display_name: string;
  /** Canonical (without `/Workspace`), as Databricks answers it. */
  parent_path: string;
  serialized_dashboard: string;
  warehouse_id?: string;
  etag: string;
  create_time: number;
  update_time: number;
  lifecycle_state: 'ACTIVE' | 'TRASHED';
  trashed_at?: number;
  /** Who created it (its default CAN_MANAGE); absent on dashboards stored before it was kept. */
  creator_user_name?: string;
  published?: PublishedRecord;
  last_refresh?: RefreshRecord;
}

export interface ScheduleRecord {
  schedule_id: string;
  dashboard_id: string;
  display_name?: string;
  cron_schedule: { quartz_cron_expression: string; timezone_id: string };
  pause_status: 'PAUSED' | 'UNPAUSED';
  warehouse_id?: string;
  etag: string;
  create_time: number;
  update_time: number;
  /** When it last fired (not on the wire; the UI shows it). */
  last_run_time?: number;
}

export interface SubscriptionRecord {
  subscription_id: string;
  schedule_id: string;
  dashboard_id: string;
  subscriber: { destination_subscriber?: { destination_id: string }; user_subscriber?: { user_id: number } };
  skip_notify?: boolean;
  created_by_user_id: number;
  etag: string;
  create_time: number;
  update_time: number;
}

export const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

/** Drops undefined values, so absent fields are absent on the wire. */
export function compact<T extends Json>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

export const pathOf = (d: Pick<DashboardRecord, 'parent_path' | 'display_name'>): string =>
  `${d.parent_path === '/' ? '' : d.parent_path}/${d.display_name}.lvdash.json`;

export class LakeviewStore extends CollectionStore {
  readonly dashboards: Collection<DashboardRecord>;
  readonly schedules: Collection<ScheduleRecord>;
  readonly subscriptions: Collection<SubscriptionRecord>;

  constructor(
    db: StateDb,
    readonly opts: { clock: Clock },
  ) {
    super('lakeview', 1, db);
    this.dashboards = this.collection('dashboards');
    this.schedules = this.collection('schedules');
    this.subscriptions = this.collection('subscriptions');
  }

  dashboard(id: string): DashboardRecord {
    const d = this.dashboards.get(id);
    if (!d) throw dashboardNotFound(id);
    return d;
  }

  published(id: string): PublishedRecord {
    const p = this.dashboard(id).published;
    if (!p) throw publishedNotFound(id);
    return p;
  }

  schedule(dashboardId: string, scheduleId: string): ScheduleRecord {
    this.dashboard(dashboardId);
    const s = this.schedules.get(scheduleId);
    if (!s || s.dashboard_id !== dashboardId) throw scheduleNotFound(scheduleId);
    return s;
  }

  schedulesOf(dashboardId: string): ScheduleRecord[] {
    return [...this.schedules.values()]
      .filter((s) => s.dashboard_id === dashboardId)
      .sort((a, b) => a.create_time - b.create_time || a.schedule_id.localeCompare(b.schedule_id));
  }

  subscription(dashboardId: string, scheduleId: string, subscriptionId: string): SubscriptionRecord {
    this.schedule(dashboardId, scheduleId);
    const s = this.subscriptions.get(subscriptionId);
    if (!s || s.schedule_id !== scheduleId) throw subscriptionNotFound(subscriptionId);
    return s;
  }

  subscriptionsOf(scheduleId: string): SubscriptionRecord[] {
    return [...this.subscriptions.values()]
      .filter((s) => s.schedule_id === scheduleId)
      .sort((a, b) => a.create_time - b.create_time || a.subscription_id.localeCompare(b.subscription_id));
  }

  /** Removes a schedule and its subscriptions. */
  dropSchedule(scheduleId: string): void {
    for (const s of this.subscriptionsOf(scheduleId)) this.subscriptions.delete(s.subscription_id);
    this.schedules.delete(scheduleId);
  }
}

/** The next etag after `etag`: opaque to clients, a number here so each write gives a new one. */
export function nextEtag(etag: string | undefined): string {
  const n = Number(etag);
  return Number.isSafeInteger(n) ? String(n + 1) : String(Math.floor(Math.random() * 9e7) + 1e7);
}
