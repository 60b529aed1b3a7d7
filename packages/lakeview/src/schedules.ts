/**
 * Dashboard schedules (Quartz cron with a Java time zone, at most 10 a dashboard) and their subscriptions (a
 * notification destination or a user, at most 100 a schedule). An unpaused schedule of an active dashboard is
 * armed on the injected clock (croner, as alerts' and jobs' schedules are); when it fires the dashboard is
 * refreshed with the schedule's warehouse and each subscription without `skip_notify` is notified.
 */
import { randomUUID } from 'node:crypto';
import { Cron } from 'croner';
import { invalidParameter, type Logger } from '@minilake/core';
import { inTrash, missingField, staleEtag, tooMany } from './errors.js';
import { notifySubscribers, refreshDashboard, type RefreshDeps, type Subscriber } from './refresh.js';
import {
  compact,
  iso,
  nextEtag,
  type Json,
  type LakeviewStore,
  type ScheduleRecord,
  type SubscriptionRecord,
} from './store.js';

const MAX_SCHEDULES = 10;
const MAX_SUBSCRIPTIONS = 100;

export function renderSchedule(s: ScheduleRecord): Json {
  return compact({
    schedule_id: s.schedule_id,
    dashboard_id: s.dashboard_id,
    display_name: s.display_name,
    cron_schedule: s.cron_schedule,
    pause_status: s.pause_status,
    warehouse_id: s.warehouse_id,
    etag: s.etag,
    create_time: iso(s.create_time),
    update_time: iso(s.update_time),
  });
}

export function renderSubscription(s: SubscriptionRecord): Json {
  return compact({
    subscription_id: s.subscription_id,
    schedule_id: s.schedule_id,
    dashboard_id: s.dashboard_id,
    subscriber: s.subscriber,
    skip_notify: s.skip_notify,
    created_by_user_id: s.created_by_user_id,
    etag: s.etag,
    create_time: iso(s.create_time),
    update_time: iso(s.update_time),
  });
}

/** Quartz syntax (seconds first, `?`, 1 = Sunday) in the schedule's time zone. */
function cronOf(expr: string, timezone: string): Cron {
  try {
    return new Cron(expr.trim(), {
      timezone: timezone || 'UTC',
      alternativeWeekdays: true,
      sloppyRanges: true,
      paused: true,
    });
  } catch (e) {
    throw invalidParameter(`Invalid quartz_cron_expression '${expr}': ${(e as Error).message}`);
  }
}

export interface ScheduleInput {
  display_name?: string | undefined;
  cron_schedule?:
    { quartz_cron_expression?: string | undefined; timezone_id?: string | undefined } | undefined;
  pause_status?: 'PAUSED' | 'UNPAUSED' | undefined;
  warehouse_id?: string | undefined;
  etag?: string | undefined;
}

export interface SubscriptionInput {
  subscriber?:
    | {
        destination_subscriber?: { destination_id?: string | undefined } | undefined;
        user_subscriber?: { user_id?: number | undefined } | undefined;
      }
    | undefined;
  skip_notify?: boolean | undefined;
}

export class Schedules {
  private readonly timers = new Map<string, () => void>();

  constructor(
    private readonly store: LakeviewStore,
    private readonly deps: RefreshDeps & {
      logger: Logger;
      userId: number;
      userNameOf: (id: number) => string | undefined;
    },
  ) {
    for (const id of store.schedules.keys()) this.arm(id);
  }

  private get now() {
    return this.deps.clock.now();
  }

  private active(dashboardId: string) {
    const d = this.store.dashboard(dashboardId);
    if (d.lifecycle_state === 'TRASHED') throw inTrash(dashboardId);
    return d;
  }

  private cronFields(input: ScheduleInput, current?: ScheduleRecord) {
    const expr = input.cron_schedule?.quartz_cron_expression ?? current?.cron_schedule.quartz_cron_expression;
    if (!expr) throw missingField('cron_schedule.quartz_cron_expression');
    const tz = input.cron_schedule?.timezone_id || current?.cron_schedule.timezone_id || 'UTC';
    cronOf(expr, tz);
    return { quartz_cron_expression: expr, timezone_id: tz };
  }

  create(dashboardId: string, input: ScheduleInput): ScheduleRecord {
    this.active(dashboardId);
    if (input.etag) throw invalidParameter('etag must be left empty when a schedule is created.');
    if (this.store.schedulesOf(dashboardId).length >= MAX_SCHEDULES)
      throw tooMany('dashboard’s schedules', MAX_SCHEDULES);
    const now = this.now;
    const s: ScheduleRecord = compact({
      schedule_id: randomUUID().replaceAll('-', ''),
      dashboard_id: dashboardId,
      display_name: input.display_name || undefined,
      cron_schedule: this.cronFields(input),
      pause_status: input.pause_status ?? 'UNPAUSED',
      warehouse_id: input.warehouse_id || undefined,
      etag: nextEtag(undefined),
      create_time: now,
      update_time: now,
    });
    this.store.schedules.set(s.schedule_id, s);
    this.arm(s.schedule_id);
    return s;
  }

  update(dashboardId: string, scheduleId: string, input: ScheduleInput): ScheduleRecord {
    this.active(dashboardId);
    const current = this.store.schedule(dashboardId, scheduleId);
    if (input.etag && input.etag !== current.etag) throw staleEtag('schedule', input.etag, current.etag);
    const next: ScheduleRecord = compact({
      ...current,
      display_name: input.display_name ?? current.display_name,
      cron_schedule: this.cronFields(input, current),
      pause_status: input.pause_status ?? current.pause_status,
      warehouse_id: input.warehouse_id ?? current.warehouse_id,
      etag: nextEtag(current.etag),
      update_time: this.now,
    });
    this.store.schedules.set(scheduleId, next);
    this.arm(scheduleId);
    return next;
  }

  delete(dashboardId: string, scheduleId: string, etag?: string): void {
    const current = this.store.schedule(dashboardId, scheduleId);
    if (etag && etag !== current.etag) throw staleEtag('schedule', etag, current.etag);
    this.store.dropSchedule(scheduleId);
    this.arm(scheduleId);
  }

  subscribe(dashboardId: string, scheduleId: string, input: SubscriptionInput): SubscriptionRecord {
    this.active(dashboardId);
    this.store.schedule(dashboardId, scheduleId);
    if (this.store.subscriptionsOf(scheduleId).length >= MAX_SUBSCRIPTIONS)
      throw tooMany('schedule’s subscriptions', MAX_SUBSCRIPTIONS);
    const dest = input.subscriber?.destination_subscriber?.destination_id;
    const user = input.subscriber?.user_subscriber?.user_id;
    if ((dest === undefined) === (user === undefined))
      throw invalidParameter(
        'subscriber must set exactly one of destination_subscriber.destination_id and user_subscriber.user_id.',
      );
    const now = this.now;
    const s: SubscriptionRecord = compact({
      subscription_id: randomUUID().replaceAll('-', ''),
      schedule_id: scheduleId,
      dashboard_id: dashboardId,
      subscriber:
        dest !== undefined
          ? { destination_subscriber: { destination_id: dest } }
          : { user_subscriber: { user_id: user! } },
      skip_notify: input.skip_notify || undefined,
      created_by_user_id: this.deps.userId,
      etag: nextEtag(undefined),
      create_time: now,
      update_time: now,
    });
    this.store.subscriptions.set(s.subscription_id, s);
    return s;
  }

  unsubscribe(dashboardId: string, scheduleId: string, subscriptionId: string, etag?: string): void {
    const s = this.store.subscription(dashboardId, scheduleId, subscriptionId);
    if (etag && etag !== s.etag) throw staleEtag('subscription', etag, s.etag);
    this.store.subscriptions.delete(subscriptionId);
  }

  /** Re-arms every schedule of a dashboard (it was trashed, restored or deleted). */
  dashboardChanged(dashboardId: string): void {
    for (const s of this.store.schedulesOf(dashboardId)) this.arm(s.schedule_id);
  }

  /** (Re)arms a schedule's timer for its next fire time; a paused, removed or trashed one is disarmed. */
  arm(scheduleId: string): void {
    this.timers.get(scheduleId)?.();
    this.timers.delete(scheduleId);
    const s = this.store.schedules.get(scheduleId);
    const d = s ? this.store.dashboards.get(s.dashboard_id) : undefined;
    if (!s || !d || d.lifecycle_state !== 'ACTIVE' || s.pause_status === 'PAUSED') return;
    let next: Date | null;
    try {
      next = cronOf(s.cron_schedule.quartz_cron_expression, s.cron_schedule.timezone_id).nextRun(
        new Date(this.now),
      );
    } catch {
      return;
    }
    if (!next) return;
    this.timers.set(
      scheduleId,
      this.deps.clock.setTimeout(() => {
        void this.fire(scheduleId)
          .catch((e: Error) => this.deps.logger.warn(`dashboard schedule ${scheduleId} failed: ${e.message}`))
          .finally(() => {
            if (this.timers.has(scheduleId)) this.arm(scheduleId);
          });
      }, next.getTime() - this.now),
    );
  }

  /** What a schedule does when it fires: refresh, then notify the subscriptions that want it. */
  async fire(scheduleId: string) {
    const s = this.store.schedules.get(scheduleId);
    if (!s) return undefined;
    this.store.schedules.update(scheduleId, (r) => {
      r.last_run_time = this.now;
    });
    const outcome = await refreshDashboard(this.deps, s.dashboard_id, { warehouseId: s.warehouse_id });
    const subscribers: Subscriber[] = this.store
      .subscriptionsOf(scheduleId)
      .filter((x) => !x.skip_notify)
      .map((x) =>
        x.subscriber.destination_subscriber
          ? { destination_id: x.subscriber.destination_subscriber.destination_id }
          : {
              user_name:
                this.deps.userNameOf(x.subscriber.user_subscriber!.user_id) ??
                `user ${x.subscriber.user_subscriber!.user_id}`,
            },
      );
    const deliveries = await notifySubscribers(
      this.deps,
      this.store.dashboard(s.dashboard_id),
      outcome,
      subscribers,
      {
        scheduleId,
        ...(s.display_name ? { subject: `Dashboard schedule "${s.display_name}"` } : {}),
      },
    );
    return { outcome, deliveries };
  }

  close(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }
}
