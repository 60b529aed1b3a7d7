/**
 * Running a saved query and evaluating an alert against its real result. The query runs through the SQL
 * service's statement service (so it is in query history like any statement), with its warehouse, default
 * namespace and parameters bound by the engine (never spliced into the text). The alert's condition reads
 * the operand column of the first row, as Databricks does; an empty result takes `empty_result_state`, a
 * failed query or a NULL value (other than IS_NULL) is UNKNOWN.
 */
import { invalidParameter, type Clock, type Logger } from '@minilake/core';
import type { StatementOutcome, StatementParameter, StatementService } from '@minilake/sql';
import type { DeliveryTarget } from '@minilake/workspace-admin';
import type { AlertRecord, AlertState, Json, QueryRecord, SqlObjectsStore } from './store.js';

/** client_application of statements sent by queries, alerts and their jobs. */
export const SQL_OBJECTS_CLIENT = 'Databricks SQL';

const dayMs = 86_400_000;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A QueryParameter (current API shape) as a bound statement parameter; overrides win over defaults. */
export function boundParameter(p: Json, now: number, override?: string): StatementParameter {
  const name = String(p.name);
  const pick = (v: string | undefined, type?: string): StatementParameter => ({
    name,
    value: override ?? v ?? null,
    ...(type ? { type } : {}),
  });
  if (p.text_value) return pick((p.text_value as Json).value as string | undefined, 'STRING');
  if (p.numeric_value) {
    const v = (p.numeric_value as Json).value;
    return pick(v === undefined ? undefined : String(v), 'DOUBLE');
  }
  const many = (p.enum_value ?? p.query_backed_value) as Json | undefined;
  if (many) {
    const values = (many.values as string[] | undefined) ?? [];
    if (override === undefined && values.length > 1)
      throw invalidParameter(
        `Parameter ${name}: MiniLake binds one value; multi-value parameters are not supported.`,
      );
    return pick(values[0], 'STRING');
  }
  if (p.date_value) {
    const d = p.date_value as Json;
    const dynamic = d.dynamic_date_value as string | undefined;
    const value =
      dynamic === 'NOW'
        ? isoDate(now)
        : dynamic === 'YESTERDAY'
          ? isoDate(now - dayMs)
          : (d.date_value as string | undefined);
    return pick(value, 'DATE');
  }
  if (p.date_range_value)
    throw invalidParameter(`Parameter ${name}: date range parameters are not supported by MiniLake.`);
  return pick(undefined);
}

export interface RunOptions {
  /** Parameter values by name (a sql_task's parameters), in place of the saved defaults. */
  parameters?: Record<string, string>;
  timeoutMs?: number;
}

export async function runQuery(
  statements: StatementService,
  q: QueryRecord,
  now: number,
  opts: RunOptions = {},
): Promise<StatementOutcome> {
  if (!q.warehouse_id) throw invalidParameter(`Query ${q.id} has no warehouse_id: set one to run it.`);
  const parameters = (q.parameters ?? []).map((p) =>
    boundParameter(p, now, opts.parameters?.[String(p.name)]),
  );
  return statements.run(
    {
      statement: q.query_text,
      warehouseId: q.warehouse_id,
      ...(q.catalog ? { catalog: q.catalog } : {}),
      ...(q.schema ? { schema: q.schema } : {}),
      ...(parameters.length ? { parameters } : {}),
      client: SQL_OBJECTS_CLIENT,
    },
    opts.timeoutMs ?? 60_000,
  );
}

/** `left` (a rendered value) against a threshold `{double_value | bool_value | string_value}`; undefined: not comparable. */
export function compare(op: string, left: string, threshold: Json): boolean | undefined {
  const right =
    threshold.double_value !== undefined
      ? Number(threshold.double_value)
      : threshold.bool_value !== undefined
        ? Boolean(threshold.bool_value)
        : threshold.string_value !== undefined
          ? String(threshold.string_value)
          : undefined;
  if (right === undefined) return undefined;
  let l: number | string | boolean = left;
  let r: number | string | boolean = right;
  if (typeof right === 'boolean') {
    l = left.toLowerCase() === 'true';
  } else if (
    typeof right === 'number' ||
    (left.trim() !== '' && right !== '' && !isNaN(Number(left)) && !isNaN(Number(right)))
  ) {
    // Numbers compare as numbers (a string threshold that is a number too, as the UI stores it).
    l = Number(left);
    r = Number(right);
    if (isNaN(l)) return undefined;
  }
  switch (op) {
    case 'GREATER_THAN':
      return l > r;
    case 'GREATER_THAN_OR_EQUAL':
      return l >= r;
    case 'LESS_THAN':
      return l < r;
    case 'LESS_THAN_OR_EQUAL':
      return l <= r;
    case 'EQUAL':
      return l === r;
    case 'NOT_EQUAL':
      return l !== r;
    default:
      return undefined;
  }
}

export interface Verdict {
  state: AlertState;
  /** The operand's value in the first row (absent for an empty result or a failed query). */
  value?: string | null;
  error?: string;
}

/** The alert's state for this outcome of its query. */
export function judge(condition: Json, outcome: StatementOutcome): Verdict {
  if (outcome.state !== 'SUCCEEDED') {
    return { state: 'UNKNOWN', error: outcome.error?.message ?? `The query ended ${outcome.state}.` };
  }
  const column = ((condition.operand as Json | undefined)?.column as Json | undefined)?.name as
    string | undefined;
  const rows = outcome.rows ?? [];
  if (rows.length === 0) {
    const empty = condition.empty_result_state as AlertState | undefined;
    return { state: empty === 'OK' || empty === 'TRIGGERED' ? empty : 'UNKNOWN' };
  }
  const index = (outcome.columns ?? []).findIndex((c) => c.name === column);
  if (index < 0) return { state: 'UNKNOWN', error: `The query result has no column ${column ?? '(none)'}.` };
  const value = rows[0]![index] ?? null;
  const op = String(condition.op ?? '');
  if (op === 'IS_NULL') return { state: value === null ? 'TRIGGERED' : 'OK', value };
  if (value === null) return { state: 'UNKNOWN', value };
  const threshold = ((condition.threshold as Json | undefined)?.value as Json | undefined) ?? {};
  const hit = compare(op, value, threshold);
  if (hit === undefined)
    return { state: 'UNKNOWN', value, error: 'The value and the threshold cannot be compared.' };
  return { state: hit ? 'TRIGGERED' : 'OK', value };
}

/** Where an evaluation's notification goes: a notification destination, or a user (by e-mail, not sent). */
export interface Subscription {
  destination_id?: string;
  user_name?: string;
}

export interface NotifierDeps {
  /** The workspace-admin peer's lookup; absent when that service is off (destinations cannot be found). */
  deliveryTarget?: (id: string) => DeliveryTarget;
  logger: Logger;
}

/** What a notification says (the webhook's JSON body). */
export interface Notification {
  alertId: string;
  alertName: string;
  state: string;
  value?: string | null;
  condition: Json;
  queryId?: string;
  queryName?: string;
  subject?: string;
  body?: string;
  time: number;
}

export interface Delivery {
  subscription: Subscription;
  delivered: boolean;
  detail: string;
}

/**
 * Sends the alert's notification to each subscription: a webhook destination gets a real POST (JSON body,
 * basic auth when the destination has credentials); e-mail (and other kinds MiniLake cannot reach) is
 * logged as not sent. A delivery failure is logged and reported, never thrown: the evaluation stands.
 */
export async function notify(deps: NotifierDeps, n: Notification, subs: Subscription[]): Promise<Delivery[]> {
  const subject = n.subject ?? `Alert "${n.alertName}" changed status to ${n.state}`;
  const payload = {
    alert_id: n.alertId,
    alert_name: n.alertName,
    state: n.state,
    value: n.value ?? null,
    condition: n.condition,
    query_id: n.queryId,
    query_name: n.queryName,
    subject,
    body: n.body ?? subject,
    time: new Date(n.time).toISOString(),
  };
  const out: Delivery[] = [];
  for (const sub of subs) {
    if (sub.user_name) {
      deps.logger.info(`alert ${n.alertId}: e-mail to ${sub.user_name} not sent (MiniLake sends no e-mail)`);
      out.push({ subscription: sub, delivered: false, detail: 'e-mail is not sent by MiniLake' });
      continue;
    }
    if (!sub.destination_id) continue;
    let target: DeliveryTarget;
    try {
      if (!deps.deliveryTarget) throw new Error('the workspace-admin service is not enabled');
      target = deps.deliveryTarget(sub.destination_id);
    } catch (e) {
      const detail = `destination ${sub.destination_id} not found: ${(e as Error).message}`;
      deps.logger.warn(`alert ${n.alertId}: ${detail}`);
      out.push({ subscription: sub, delivered: false, detail });
      continue;
    }
    if (target.type === 'WEBHOOK' && 'url' in target) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (target.username !== undefined || target.password !== undefined) {
        headers.authorization = `Basic ${Buffer.from(`${target.username ?? ''}:${target.password ?? ''}`).toString('base64')}`;
      }
      try {
        const res = await fetch(target.url, {
          method: 'POST',
          headers,
          body: JSON.stringify(payload),
          signal: AbortSignal.timeout(10_000),
        });
        await res.arrayBuffer().catch(() => undefined);
        const ok = res.status >= 200 && res.status < 300;
        if (!ok) deps.logger.warn(`alert ${n.alertId}: webhook ${target.displayName} answered ${res.status}`);
        out.push({ subscription: sub, delivered: ok, detail: `HTTP ${res.status}` });
      } catch (e) {
        deps.logger.warn(`alert ${n.alertId}: webhook ${target.displayName} failed: ${(e as Error).message}`);
        out.push({ subscription: sub, delivered: false, detail: (e as Error).message });
      }
      continue;
    }
    const to = 'addresses' in target ? ` to ${target.addresses.join(', ')}` : '';
    deps.logger.info(
      `alert ${n.alertId}: ${target.type} notification${to} not sent (MiniLake only delivers webhooks)`,
    );
    out.push({
      subscription: sub,
      delivered: false,
      detail: `${target.type} destinations are not delivered by MiniLake`,
    });
  }
  return out;
}

export interface EvaluationResult {
  alert: AlertRecord;
  verdict: Verdict;
  /** Whether this evaluation sent (or tried to send) a notification. */
  notified: boolean;
  deliveries: Delivery[];
}

export interface EvaluatorDeps extends NotifierDeps {
  store: SqlObjectsStore;
  statements: StatementService;
  clock: Clock;
}

/**
 * Evaluates the alert now: runs its query, records the new state, and notifies the subscriptions when it
 * goes to TRIGGERED (again only after `seconds_to_retrigger`, when set), or back to OK with notify_on_ok.
 * Muted legacy alerts and `pauseSubscriptions` change state without notifying.
 */
export async function evaluateAlert(
  deps: EvaluatorDeps,
  alertId: string,
  opts: { subscriptions?: Subscription[]; pauseSubscriptions?: boolean } = {},
): Promise<EvaluationResult> {
  const alert = deps.store.activeAlert(alertId);
  const query = deps.store.activeQuery(alert.query_id);
  const outcome = await runQuery(deps.statements, query, deps.clock.now());
  const verdict = judge(alert.condition, outcome);
  const now = deps.clock.now();
  const previous = alert.state;
  const change: Partial<AlertRecord> & Pick<AlertRecord, 'state'> = { state: verdict.state };
  let notify_ = false;
  if (verdict.state === 'TRIGGERED') {
    if (previous !== 'TRIGGERED') {
      change.trigger_time = now;
      notify_ = true;
    } else if (alert.seconds_to_retrigger && alert.notified_at !== undefined) {
      notify_ = now - alert.notified_at >= alert.seconds_to_retrigger * 1000;
    }
  } else if (verdict.state === 'OK' && previous === 'TRIGGERED' && alert.notify_on_ok) {
    notify_ = true;
  }
  if (notify_ && verdict.state === 'TRIGGERED') change.notified_at = now;
  const updated = deps.store.recordEvaluation(alert.id, change);
  const subs = opts.subscriptions ?? [];
  const send = notify_ && !opts.pauseSubscriptions && !alert.legacy?.muted && subs.length > 0;
  const note: Notification = {
    alertId: updated.id,
    alertName: updated.display_name,
    state: verdict.state,
    value: verdict.value ?? null,
    condition: updated.condition,
    queryId: query.id,
    queryName: query.display_name,
    ...(updated.custom_subject !== undefined ? { subject: updated.custom_subject } : {}),
    ...(updated.custom_body !== undefined ? { body: updated.custom_body } : {}),
    time: now,
  };
  const deliveries = send ? await notify(deps, note, subs) : [];
  return { alert: updated, verdict, notified: send, deliveries };
}
