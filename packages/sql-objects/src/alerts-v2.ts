/**
 * Alerts V2 (`/api/2.0/alerts`): an alert that carries its own SQL, warehouse, Quartz schedule and
 * notification subscriptions. It is evaluated on its schedule (croner, on the injected clock, as jobs'
 * schedules are) and notifies `evaluation.notification.subscriptions` (webhook destinations get a real POST).
 * The source column may be aggregated over all rows (SUM, COUNT, ...); without an aggregation the first row
 * is read. A failed query is ERROR; an empty result takes `empty_result_state` (UNKNOWN by default) unless the
 * source is aggregated (COUNT of no rows is 0, SUM of none is NULL: UNKNOWN).
 */
import { randomUUID } from 'node:crypto';
import { Cron } from 'croner';
import { Hono } from 'hono';
import {
  invalidParameter,
  keysetPage,
  readJson,
  readQuery,
  v,
  type Clock,
  type Logger,
} from '@minilake/core';
import type { ObjectAccess } from '@minilake/iam';
import type { StatementOutcome, StatementService } from '@minilake/sql';
import type { AlertFiles } from './alert-files.js';
import { alertV2NotFound, missingField, trashed } from './errors.js';
import { compare, notify, SQL_OBJECTS_CLIENT, type NotifierDeps, type Subscription } from './evaluate.js';
import { applyMask, compact, iso, type Json, type SqlObjectsStore } from './store.js';

export type EvaluationState = 'OK' | 'TRIGGERED' | 'UNKNOWN' | 'ERROR';

export interface AlertV2Record {
  id: string;
  seq: number;
  display_name: string;
  query_text: string;
  warehouse_id: string;
  parameters?: Json[];
  /** comparison_operator, source, threshold, empty_result_state, notification (as sent). */
  evaluation: Json;
  /** quartz_cron_schedule, timezone_id, pause_status. */
  schedule: Json;
  custom_summary?: string;
  custom_description?: string;
  parent_path?: string;
  run_as_user_name?: string;
  run_as?: Json;
  owner_user_name: string;
  create_time: number;
  update_time: number;
  trashed_at?: number;
  state: EvaluationState;
  last_evaluated_at?: number;
  notified_at?: number;
}

const MASK = [
  'display_name',
  'query_text',
  'warehouse_id',
  'parameters',
  'evaluation',
  'schedule',
  'custom_summary',
  'custom_description',
  'run_as_user_name',
  'run_as',
  'parent_path',
  'owner_user_name',
] as const;

const OPS = [
  'EQUAL',
  'NOT_EQUAL',
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL',
  'IS_NULL',
  'IS_NOT_NULL',
] as const;
const AGGREGATIONS = ['SUM', 'COUNT', 'COUNT_DISTINCT', 'AVG', 'MEDIAN', 'MIN', 'MAX', 'STDDEV'] as const;

const Column = v.looseObject({
  name: v.string(),
  display: v.optional(v.string()),
  aggregation: v.optional(v.picklist(AGGREGATIONS)),
});
const AlertV2Body = v.looseObject({
  display_name: v.optional(v.string()),
  query_text: v.optional(v.string()),
  warehouse_id: v.optional(v.string()),
  parameters: v.optional(
    v.array(v.looseObject({ name: v.string(), value: v.optional(v.string()), type: v.optional(v.string()) })),
  ),
  evaluation: v.optional(
    v.looseObject({
      comparison_operator: v.picklist(OPS),
      source: Column,
      threshold: v.optional(
        v.looseObject({
          column: v.optional(Column),
          value: v.optional(
            v.object({
              double_value: v.optional(v.number()),
              string_value: v.optional(v.string()),
              bool_value: v.optional(v.boolean()),
            }),
          ),
        }),
      ),
      empty_result_state: v.optional(v.picklist(['OK', 'TRIGGERED', 'UNKNOWN', 'ERROR'])),
      notification: v.optional(
        v.looseObject({
          notify_on_ok: v.optional(v.boolean()),
          retrigger_seconds: v.optional(v.number()),
          subscriptions: v.optional(
            v.array(v.object({ destination_id: v.optional(v.string()), user_email: v.optional(v.string()) })),
          ),
        }),
      ),
    }),
  ),
  schedule: v.optional(
    v.looseObject({
      quartz_cron_schedule: v.string(),
      timezone_id: v.optional(v.string()),
      pause_status: v.optional(v.picklist(['PAUSED', 'UNPAUSED'])),
    }),
  ),
  custom_summary: v.optional(v.string()),
  custom_description: v.optional(v.string()),
  parent_path: v.optional(v.string()),
  run_as_user_name: v.optional(v.string()),
  run_as: v.optional(
    v.object({ user_name: v.optional(v.string()), service_principal_name: v.optional(v.string()) }),
  ),
  owner_user_name: v.optional(v.string()),
});
const ListQuery = v.object({
  page_size: v.optional(v.pipe(v.string(), v.transform(Number), v.number())),
  page_token: v.optional(v.string()),
});
const UpdateQuery = v.object({ update_mask: v.optional(v.string()) });
const TrashQuery = v.object({ purge: v.optional(v.picklist(['true', 'false'])) });

function cronOf(schedule: Json): Cron {
  const expr = String(schedule.quartz_cron_schedule ?? '');
  try {
    return new Cron(expr.trim(), {
      timezone: String(schedule.timezone_id || 'UTC'),
      alternativeWeekdays: true,
      sloppyRanges: true,
      paused: true,
    });
  } catch (e) {
    throw invalidParameter(`Invalid quartz_cron_schedule '${expr}': ${(e as Error).message}`);
  }
}

export function renderAlertV2(a: AlertV2Record): Json {
  return compact({
    id: a.id,
    display_name: a.display_name,
    query_text: a.query_text,
    warehouse_id: a.warehouse_id,
    parameters: a.parameters,
    // Before its first evaluation an alert has no state at all (the CLI's goldens record none).
    evaluation: compact({
      ...a.evaluation,
      state: a.last_evaluated_at === undefined ? undefined : a.state,
      last_evaluated_at: iso(a.last_evaluated_at),
    }),
    schedule: a.schedule,
    custom_summary: a.custom_summary,
    custom_description: a.custom_description,
    parent_path: a.parent_path,
    run_as_user_name: a.run_as_user_name,
    run_as: a.run_as,
    effective_run_as: a.run_as ?? { user_name: a.run_as_user_name ?? a.owner_user_name },
    owner_user_name: a.owner_user_name,
    lifecycle_state: a.trashed_at === undefined ? 'ACTIVE' : 'DELETED',
    create_time: iso(a.create_time),
    update_time: iso(a.update_time),
  });
}

function aggregate(kind: string, values: (string | null)[]): string | null {
  const present = values.filter((x): x is string => x !== null);
  if (kind === 'COUNT') return String(present.length);
  if (kind === 'COUNT_DISTINCT') return String(new Set(present).size);
  const nums = present.map(Number).filter((n) => !isNaN(n));
  if (nums.length === 0) return null;
  const sorted = [...nums].sort((a, b) => a - b);
  const sum = nums.reduce((s, n) => s + n, 0);
  const mean = sum / nums.length;
  switch (kind) {
    case 'SUM':
      return String(sum);
    case 'AVG':
      return String(mean);
    case 'MIN':
      return String(sorted[0]);
    case 'MAX':
      return String(sorted[sorted.length - 1]);
    case 'MEDIAN': {
      const m = Math.floor(sorted.length / 2);
      return String(sorted.length % 2 ? sorted[m] : (sorted[m - 1]! + sorted[m]!) / 2);
    }
    case 'STDDEV': {
      if (nums.length < 2) return null;
      return String(Math.sqrt(nums.reduce((s, n) => s + (n - mean) ** 2, 0) / (nums.length - 1)));
    }
    default:
      return null;
  }
}

/** The evaluation's state for the query's outcome, and the source value read. */
export function judgeV2(
  evaluation: Json,
  outcome: StatementOutcome,
): { state: EvaluationState; value?: string | null; error?: string } {
  if (outcome.state !== 'SUCCEEDED')
    return { state: 'ERROR', error: outcome.error?.message ?? `The query ended ${outcome.state}.` };
  const rows = outcome.rows ?? [];
  // An aggregated source is computed over the rows, as SQL would over the query: COUNT of none is 0.
  const aggregated = Boolean((evaluation.source as Json | undefined)?.aggregation);
  if (rows.length === 0 && !aggregated)
    return { state: (evaluation.empty_result_state as EvaluationState | undefined) ?? 'UNKNOWN' };
  const cols = outcome.columns ?? [];
  const read = (c: Json | undefined): { value?: string | null; error?: string } => {
    const i = cols.findIndex((x) => x.name === c?.name);
    if (i < 0) return { error: `The query result has no column ${String(c?.name)}.` };
    const values = rows.map((r) => r[i] ?? null);
    return { value: c?.aggregation ? aggregate(String(c.aggregation), values) : values[0]! };
  };
  const source = read(evaluation.source as Json);
  if (source.error) return { state: 'ERROR', error: source.error };
  const value = source.value ?? null;
  const op = String(evaluation.comparison_operator);
  if (op === 'IS_NULL') return { state: value === null ? 'TRIGGERED' : 'OK', value };
  if (op === 'IS_NOT_NULL') return { state: value !== null ? 'TRIGGERED' : 'OK', value };
  if (value === null) return { state: 'UNKNOWN', value };
  const threshold = (evaluation.threshold ?? {}) as Json;
  let right = threshold.value as Json | undefined;
  if (threshold.column) {
    const t = read(threshold.column as Json);
    if (t.error) return { state: 'ERROR', error: t.error };
    if (t.value === null || t.value === undefined) return { state: 'UNKNOWN', value };
    right = { string_value: t.value };
  }
  const hit = right ? compare(op, value, right) : undefined;
  if (hit === undefined)
    return { state: 'ERROR', value, error: 'The value and the threshold cannot be compared.' };
  return { state: hit ? 'TRIGGERED' : 'OK', value };
}

export interface AlertsV2Deps extends NotifierDeps {
  store: SqlObjectsStore;
  statements: StatementService;
  clock: Clock;
  logger: Logger;
  warehouseExists(id: string): boolean;
  /** Called with each evaluation a schedule starts, so `idle()` can wait for it (tests step the clock). */
  track?(work: Promise<unknown>): void;
}

/** The alerts' schedules on the injected clock, and evaluation. */
export class AlertsV2 {
  private readonly timers = new Map<string, () => void>();

  constructor(private readonly d: AlertsV2Deps) {
    for (const id of d.store.alertsV2.keys()) this.arm(id);
  }

  get(id: string): AlertV2Record {
    const a = this.d.store.alertsV2.get(id);
    if (!a) throw alertV2NotFound(id);
    return a;
  }

  arm(id: string): void {
    this.timers.get(id)?.();
    this.timers.delete(id);
    const a = this.d.store.alertsV2.get(id);
    if (!a || a.trashed_at !== undefined || a.schedule.pause_status === 'PAUSED') return;
    let next: Date | null;
    try {
      next = cronOf(a.schedule).nextRun(new Date(this.d.clock.now()));
    } catch {
      return;
    }
    if (!next) return;
    this.timers.set(
      id,
      this.d.clock.setTimeout(() => {
        const work = this.evaluate(id)
          .catch((e: Error) => this.d.logger.warn(`scheduled evaluation of alert ${id} failed: ${e.message}`))
          .finally(() => {
            if (this.timers.has(id)) this.arm(id);
          });
        this.d.track?.(work);
      }, next.getTime() - this.d.clock.now()),
    );
  }

  /** To the trash (its schedule stops); nothing when it is already there or gone. */
  markTrashed(id: string): void {
    const a = this.d.store.alertsV2.get(id);
    if (!a || a.trashed_at !== undefined) return;
    this.d.store.alertsV2.update(id, (r) => {
      r.trashed_at = this.d.clock.now();
    });
    this.arm(id);
  }

  close(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  async evaluate(id: string) {
    const a = this.get(id);
    if (a.trashed_at !== undefined) throw trashed('Alert', id);
    const parameters = (a.parameters ?? []).map((p) =>
      compact({
        name: String(p.name),
        value: p.value as string | undefined,
        type: p.type as string | undefined,
      }),
    );
    const outcome = await this.d.statements.run(
      {
        statement: a.query_text,
        warehouseId: a.warehouse_id,
        ...(parameters.length ? { parameters } : {}),
        client: SQL_OBJECTS_CLIENT,
      },
      60_000,
    );
    const verdict = judgeV2(a.evaluation, outcome);
    const now = this.d.clock.now();
    const n = (a.evaluation.notification ?? {}) as Json;
    let send = false;
    if (verdict.state === 'TRIGGERED') {
      if (a.state !== 'TRIGGERED') send = true;
      else if (n.retrigger_seconds && a.notified_at !== undefined)
        send = now - a.notified_at >= Number(n.retrigger_seconds) * 1000;
    } else if (verdict.state === 'OK' && a.state === 'TRIGGERED' && n.notify_on_ok) send = true;
    const updated = this.d.store.alertsV2.update(id, (r) =>
      compact({
        ...r,
        state: verdict.state,
        last_evaluated_at: now,
        ...(send && verdict.state === 'TRIGGERED' ? { notified_at: now } : {}),
      }),
    )!;
    const subs: Subscription[] = ((n.subscriptions as Json[] | undefined) ?? []).map((s) =>
      compact({
        destination_id: s.destination_id as string | undefined,
        user_name: s.user_email as string | undefined,
      }),
    );
    const deliveries =
      send && subs.length
        ? await notify(
            this.d,
            compact({
              alertId: a.id,
              alertName: a.display_name,
              state: verdict.state,
              value: verdict.value ?? null,
              condition: a.evaluation,
              subject: a.custom_summary,
              body: a.custom_description,
              time: now,
            }),
            subs,
          )
        : [];
    return { alert: updated, verdict, notified: send && subs.length > 0, deliveries };
  }
}

function validate(a: Partial<AlertV2Record>, d: AlertsV2Deps) {
  if (!a.display_name) throw missingField('display_name');
  if (!a.query_text) throw missingField('query_text');
  if (!a.warehouse_id) throw missingField('warehouse_id');
  if (!d.warehouseExists(a.warehouse_id))
    throw invalidParameter(`Warehouse ${a.warehouse_id} does not exist.`);
  if (!a.evaluation) throw missingField('evaluation');
  const op = a.evaluation.comparison_operator;
  const t = a.evaluation.threshold as Json | undefined;
  if (op !== 'IS_NULL' && op !== 'IS_NOT_NULL' && !t?.value && !t?.column)
    throw missingField('evaluation.threshold');
  if (!a.schedule) throw missingField('schedule');
  cronOf(a.schedule);
}

/** What a client may write: the server's own fields (id, state, times) are dropped from a body. */
function writable(body: Json): Partial<AlertV2Record> {
  const {
    id: _i,
    state: _s,
    lifecycle_state: _l,
    create_time: _c,
    update_time: _u,
    effective_run_as: _e,
    ...rest
  } = body;
  if (rest.evaluation) {
    const { state: _st, last_evaluated_at: _le, ...ev } = rest.evaluation as Json;
    rest.evaluation = ev;
  }
  return rest as Partial<AlertV2Record>;
}

/** Alerts V2 permission levels, weakest first (their own object type, `alertsv2`). */
export type AlertV2Level = 'CAN_READ' | 'CAN_RUN' | 'CAN_EDIT' | 'CAN_MANAGE';

/** The Alerts V2 operations over the store (the handlers below validate, call these, answer JSON). */
export class AlertsV2Service {
  constructor(
    private readonly d: AlertsV2Deps,
    private readonly alerts: AlertsV2,
    /** The alerts' workspace files, when the workspace runs. */
    private readonly files?: AlertFiles,
    /** Object permissions (MINILAKE_ENFORCE=1 only): iam's evaluation of the `alertsv2` ACLs. */
    private readonly access?: ObjectAccess<AlertV2Level>,
  ) {}

  /** The alert (404 first, as Databricks) on which the caller holds `level`. */
  private alert(id: string, level: AlertV2Level): AlertV2Record {
    const a = this.alerts.get(id);
    this.access?.check(a.id, level);
    return a;
  }

  async create(input: Json): Promise<Json> {
    const d = this.d;
    const body = writable(input);
    validate(body, d);
    this.files?.checkName(body.display_name);
    const now = d.clock.now();
    const seq = [...d.store.alertsV2.values()].reduce((m, a) => Math.max(m, a.seq), 0) + 1;
    const { owner_user_name: _o, ...rest } = body;
    const rec = compact({
      ...rest,
      id: randomUUID(),
      seq,
      owner_user_name: d.store.user,
      create_time: now,
      update_time: now,
      state: 'UNKNOWN' as const,
    }) as AlertV2Record;
    // The file first: a missing folder (404) or a taken name (409) leaves nothing behind.
    await this.files?.add(rec);
    d.store.alertsV2.set(rec.id, rec);
    this.alerts.arm(rec.id);
    return renderAlertV2(rec);
  }

  list(q: { page_size?: number | undefined; page_token?: string | undefined }): Json {
    if (q.page_size !== undefined && q.page_size < 0) throw invalidParameter('page_size must be >= 0.');
    const access = this.access;
    const sorted = [...this.d.store.alertsV2.values()]
      .filter((a) => a.trashed_at === undefined && (!access || access.can(a.id, 'CAN_READ')))
      .sort((a, b) => a.seq - b.seq);
    const page = keysetPage(
      sorted,
      (a) => String(a.seq).padStart(12, '0'),
      q.page_size || 100,
      q.page_token || undefined,
    );
    return compact({ alerts: page.items.map(renderAlertV2), next_page_token: page.nextPageToken });
  }

  get(id: string): Json {
    return renderAlertV2(this.alert(id, 'CAN_READ'));
  }

  async update(id: string, input: Json, mask: string | undefined): Promise<Json> {
    const d = this.d;
    const body = writable(input);
    const current = this.alert(id, 'CAN_EDIT');
    if (current.trashed_at !== undefined) throw trashed('Alert', current.id);
    const next = applyMask(current, body as Json, mask, MASK, [
      'display_name',
      'query_text',
      'warehouse_id',
      'evaluation',
      'schedule',
    ]);
    next.owner_user_name ??= d.store.user;
    validate(next, d);
    this.files?.checkName(next.display_name);
    // parent_path is set on create only (as documented): an update without it keeps the folder.
    if (!next.parent_path && current.parent_path) next.parent_path = current.parent_path;
    // A rename (or a new parent_path) moves the file; a taken name refuses the update.
    await this.files?.move(current, next);
    const rec = d.store.alertsV2.set(next.id, compact({ ...next, update_time: d.clock.now() }));
    this.alerts.arm(rec.id);
    return renderAlertV2(rec);
  }

  /** DELETE: to the trash (its file goes), or gone for good with `purge` (what bundles destroy send). */
  async trash(id: string, purge = false): Promise<void> {
    const a = this.alert(id, 'CAN_MANAGE');
    if (a.trashed_at === undefined) await this.files?.remove(a);
    if (purge) {
      this.d.store.alertsV2.delete(a.id);
      this.alerts.arm(a.id);
      return;
    }
    this.alerts.markTrashed(a.id);
  }

  async evaluate(id: string): Promise<Json> {
    this.alert(id, 'CAN_RUN');
    const r = await this.alerts.evaluate(id);
    return compact({
      alert: renderAlertV2(r.alert),
      value: r.verdict.value,
      error: r.verdict.error,
      notified: r.notified,
      deliveries: r.deliveries,
    });
  }
}

export function alertsV2App(svc: AlertsV2Service): Hono {
  const app = new Hono();
  const BASE = '/api/2.0/alerts';
  app.post(BASE, async (c) => c.json(await svc.create((await readJson(c, AlertV2Body)) as Json)));
  app.get(BASE, (c) => c.json(svc.list(readQuery(c, ListQuery))));
  app.get(`${BASE}/:id`, (c) => c.json(svc.get(c.req.param('id'))));
  app.patch(`${BASE}/:id`, async (c) => {
    const mask = readQuery(c, UpdateQuery).update_mask;
    return c.json(await svc.update(c.req.param('id'), (await readJson(c, AlertV2Body)) as Json, mask));
  });
  app.delete(`${BASE}/:id`, async (c) => {
    await svc.trash(c.req.param('id'), readQuery(c, TrashQuery).purge === 'true');
    return c.json({});
  });
  app.post('/_minilake/alerts/:id/evaluate', async (c) => c.json(await svc.evaluate(c.req.param('id'))));
  return app;
}
