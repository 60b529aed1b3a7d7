/**
 * Databricks SQL objects: queries, alerts, legacy dashboards, widgets and visualizations. One record per
 * object in the shape of the current API (`/api/2.0/sql/queries`, `/api/2.0/sql/alerts`); the legacy
 * `/api/2.0/preview/sql/*` API is an adapter over the same records (legacy.ts), and keeps only what it alone
 * has (a query's refresh schedule, raw legacy parameter options, an alert's `muted`) beside them.
 * Deleting a query, a new-API alert or a dashboard moves it to the trash (lifecycle_state TRASHED); a legacy
 * alert delete is permanent, as on Databricks.
 */
import { randomUUID } from 'node:crypto';
import { CollectionStore, keysetPage, type Clock, type Collection, type StateDb } from '@minilake/core';
import type { AlertV2Record } from './alerts-v2.js';
import {
  alertNotFound,
  badMaskField,
  dashboardNotFound,
  missingField,
  queryNotFound,
  trashed,
  updateMaskRequired,
  visualizationNotFound,
  widgetNotFound,
} from './errors.js';

export type Json = Record<string, unknown>;
export type AlertState = 'OK' | 'TRIGGERED' | 'UNKNOWN';

export interface QueryRecord {
  id: string;
  seq: number;
  display_name: string;
  description?: string;
  query_text: string;
  warehouse_id?: string;
  catalog?: string;
  schema?: string;
  /** The current API's QueryParameter objects (text_value, numeric_value, enum_value, ...). */
  parameters?: Json[];
  tags?: string[];
  parent_path?: string;
  apply_auto_limit?: boolean;
  run_as_mode?: string;
  owner_user_name: string;
  last_modifier_user_name: string;
  create_time: number;
  update_time: number;
  trashed_at?: number;
  /** What only the legacy API has: written by it, read back by it. */
  legacy?: {
    /** The legacy `options` object as sent (parameters in the legacy shape), while the new API left them alone. */
    options?: Json;
    schedule?: Json | null;
    run_as_role?: string;
    data_source_id?: string;
  };
}

export interface AlertRecord {
  id: string;
  seq: number;
  display_name: string;
  query_id: string;
  /** The current API's AlertCondition (op, operand.column.name, threshold.value, empty_result_state). */
  condition: Json;
  custom_body?: string;
  custom_subject?: string;
  notify_on_ok?: boolean;
  seconds_to_retrigger?: number;
  parent_path?: string;
  owner_user_name: string;
  create_time: number;
  update_time: number;
  trashed_at?: number;
  state: AlertState;
  /** When the alert last went to TRIGGERED (ms). */
  trigger_time?: number;
  /** When a TRIGGERED notification was last sent (for seconds_to_retrigger / rearm). */
  notified_at?: number;
  /** Whether the record was created through the legacy API (its delete is permanent). */
  legacy?: { muted?: boolean };
}

export interface VisualizationRecord {
  id: string;
  query_id: string;
  type: string;
  name: string;
  description?: string;
  options?: unknown;
  created_at: number;
  updated_at: number;
}

export interface DashboardRecord {
  id: string;
  seq: number;
  name: string;
  tags?: string[];
  parent?: string;
  run_as_role?: string;
  dashboard_filters_enabled?: boolean;
  user: string;
  created_at: number;
  updated_at: number;
  trashed_at?: number;
}

export interface WidgetRecord {
  id: string;
  dashboard_id: string;
  visualization_id?: string;
  text?: string;
  options?: Json;
  width: number;
  created_at: number;
  updated_at: number;
}

/** Fields of a PATCH body that `update_mask` may name, per object. */
export const QUERY_MASK = [
  'display_name',
  'description',
  'query_text',
  'warehouse_id',
  'catalog',
  'schema',
  'parameters',
  'tags',
  'apply_auto_limit',
  'run_as_mode',
  'owner_user_name',
] as const;
export const ALERT_MASK = [
  'display_name',
  'query_id',
  'condition',
  'custom_body',
  'custom_subject',
  'notify_on_ok',
  'seconds_to_retrigger',
  'owner_user_name',
] as const;

/**
 * Field-mask semantics as Databricks has them: the mask is required, `*` replaces every updatable field
 * (an absent field is cleared), otherwise only the named fields change (a named field absent from the body
 * is cleared) and the others are left alone whatever the body says. A sub-path (`condition.op`) names its
 * top-level field.
 */
export function applyMask<R extends object>(
  record: R,
  body: Json,
  mask: string | undefined,
  allowed: readonly string[],
  required: readonly string[] = [],
): R {
  if (mask === undefined || mask.trim() === '') throw updateMaskRequired();
  const fields = mask.trim() === '*' ? [...allowed] : mask.split(',').map((f) => f.trim().split('.')[0]!);
  for (const f of fields) if (!allowed.includes(f)) throw badMaskField(f, allowed);
  const out = { ...record } as Json;
  for (const f of new Set(fields)) {
    if (body[f] === undefined) {
      if (required.includes(f)) throw missingField(f);
      delete out[f];
    } else out[f] = body[f];
  }
  return out as R;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** Drops undefined fields so a rendered object has no `"x": undefined` keys. */
export function compact<T extends Json>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

export interface SqlObjectsStoreOptions {
  db: StateDb;
  clock: Clock;
  /**
   * The user a request acts as (owner of what it creates): read per use, so a getter can answer the
   * request's principal (MINILAKE_AUTH=tokens).
   */
  readonly user: string;
}

export class SqlObjectsStore extends CollectionStore {
  readonly queries: Collection<QueryRecord>;
  readonly alerts: Collection<AlertRecord>;
  readonly visualizations: Collection<VisualizationRecord>;
  readonly dashboards: Collection<DashboardRecord>;
  readonly widgets: Collection<WidgetRecord>;
  readonly alertsV2: Collection<AlertV2Record>;
  private readonly clock: Clock;
  private readonly who: () => string;

  constructor(opts: SqlObjectsStoreOptions) {
    super('sql-objects', 1, opts.db);
    this.clock = opts.clock;
    this.who = () => opts.user;
    this.queries = this.collection('queries');
    this.alerts = this.collection('alerts');
    this.visualizations = this.collection('visualizations');
    this.dashboards = this.collection('dashboards');
    this.widgets = this.collection('widgets');
    this.alertsV2 = this.collection('alerts_v2');
  }

  now(): number {
    return this.clock.now();
  }

  get user(): string {
    return this.who();
  }

  private nextSeq(c: Collection<{ seq: number }>): number {
    let max = 0;
    for (const r of c.values()) max = Math.max(max, r.seq);
    return max + 1;
  }

  // ---------- queries ----------

  createQuery(
    input: Omit<
      QueryRecord,
      'id' | 'seq' | 'owner_user_name' | 'last_modifier_user_name' | 'create_time' | 'update_time'
    >,
  ): QueryRecord {
    const now = this.now();
    const q: QueryRecord = compact({
      ...input,
      id: randomUUID(),
      seq: this.nextSeq(this.queries),
      owner_user_name: this.user,
      last_modifier_user_name: this.user,
      create_time: now,
      update_time: now,
    });
    return this.queries.set(q.id, q);
  }

  query(id: string): QueryRecord {
    const q = this.queries.get(id);
    if (!q) throw queryNotFound(id);
    return q;
  }

  /** A query that may be changed or run (not in the trash). */
  activeQuery(id: string): QueryRecord {
    const q = this.query(id);
    if (q.trashed_at !== undefined) throw trashed('Query', id);
    return q;
  }

  replaceQuery(next: QueryRecord): QueryRecord {
    return this.queries.set(
      next.id,
      compact({ ...next, update_time: this.now(), last_modifier_user_name: this.user }),
    );
  }

  trashQuery(id: string): void {
    this.query(id);
    this.queries.update(id, (q) => {
      q.trashed_at ??= this.now();
    });
  }

  restoreQuery(id: string): void {
    this.query(id);
    this.queries.update(id, (q) => {
      delete q.trashed_at;
    });
  }

  /** Active queries in creation order, keyset-paged. */
  /** `visible`: which queries the caller may see (MINILAKE_ENFORCE=1); all when absent. */
  listQueries(
    pageSize: number | undefined,
    pageToken: string | undefined,
    visible?: (id: string) => boolean,
  ) {
    const sorted = [...this.queries.values()]
      .filter((q) => q.trashed_at === undefined && (!visible || visible(q.id)))
      .sort((a, b) => a.seq - b.seq);
    return keysetPage(sorted, (q) => String(q.seq).padStart(12, '0'), pageSize, pageToken);
  }

  // ---------- visualizations ----------

  createVisualization(
    input: Omit<VisualizationRecord, 'id' | 'created_at' | 'updated_at'>,
  ): VisualizationRecord {
    this.query(input.query_id);
    const now = this.now();
    const v = compact({ ...input, id: randomUUID(), created_at: now, updated_at: now });
    return this.visualizations.set(v.id, v);
  }

  visualization(id: string): VisualizationRecord {
    const v = this.visualizations.get(id);
    if (!v) throw visualizationNotFound(id);
    return v;
  }

  updateVisualization(id: string, change: Partial<VisualizationRecord>): VisualizationRecord {
    const v = this.visualization(id);
    return this.visualizations.set(
      id,
      compact({ ...v, ...change, id, query_id: v.query_id, updated_at: this.now() }),
    );
  }

  deleteVisualization(id: string): void {
    this.visualization(id);
    this.visualizations.delete(id);
    for (const w of this.widgets.values()) if (w.visualization_id === id) this.widgets.delete(w.id);
  }

  visualizationsOf(queryId: string): VisualizationRecord[] {
    return [...this.visualizations.values()]
      .filter((v) => v.query_id === queryId)
      .sort((a, b) => a.created_at - b.created_at); // stable: ties keep creation order
  }

  // ---------- alerts ----------

  createAlert(
    input: Omit<AlertRecord, 'id' | 'seq' | 'owner_user_name' | 'create_time' | 'update_time' | 'state'>,
  ): AlertRecord {
    this.activeQuery(input.query_id);
    const now = this.now();
    const a: AlertRecord = compact({
      ...input,
      id: randomUUID(),
      seq: this.nextSeq(this.alerts),
      owner_user_name: this.user,
      create_time: now,
      update_time: now,
      state: 'UNKNOWN' as const,
    });
    return this.alerts.set(a.id, a);
  }

  alert(id: string): AlertRecord {
    const a = this.alerts.get(id);
    if (!a) throw alertNotFound(id);
    return a;
  }

  activeAlert(id: string): AlertRecord {
    const a = this.alert(id);
    if (a.trashed_at !== undefined) throw trashed('Alert', id);
    return a;
  }

  replaceAlert(next: AlertRecord): AlertRecord {
    if (next.query_id !== this.alert(next.id).query_id) this.activeQuery(next.query_id);
    return this.alerts.set(next.id, compact({ ...next, update_time: this.now() }));
  }

  /** Records an evaluation's outcome (not an edit: update_time stays). */
  recordEvaluation(id: string, change: Pick<AlertRecord, 'state'> & Partial<AlertRecord>): AlertRecord {
    return this.alerts.update(id, (a) => compact({ ...a, ...change }))!;
  }

  trashAlert(id: string): void {
    this.alert(id);
    this.alerts.update(id, (a) => {
      a.trashed_at ??= this.now();
    });
  }

  deleteAlert(id: string): void {
    this.alert(id);
    this.alerts.delete(id);
  }

  /** `visible`: which alerts the caller may see (MINILAKE_ENFORCE=1); all when absent. */
  listAlerts(pageSize: number | undefined, pageToken: string | undefined, visible?: (id: string) => boolean) {
    const sorted = [...this.alerts.values()]
      .filter((a) => a.trashed_at === undefined && (!visible || visible(a.id)))
      .sort((a, b) => a.seq - b.seq);
    return keysetPage(sorted, (a) => String(a.seq).padStart(12, '0'), pageSize, pageToken);
  }

  // ---------- dashboards and widgets ----------

  createDashboard(
    input: Omit<DashboardRecord, 'id' | 'seq' | 'user' | 'created_at' | 'updated_at'>,
  ): DashboardRecord {
    const now = this.now();
    const d = compact({
      ...input,
      id: randomUUID(),
      seq: this.nextSeq(this.dashboards),
      user: this.user,
      created_at: now,
      updated_at: now,
    });
    return this.dashboards.set(d.id, d);
  }

  dashboard(id: string): DashboardRecord {
    const d = this.dashboards.get(id);
    if (!d) throw dashboardNotFound(id);
    return d;
  }

  updateDashboard(id: string, change: Partial<DashboardRecord>): DashboardRecord {
    const d = this.dashboard(id);
    return this.dashboards.set(id, compact({ ...d, ...change, id, updated_at: this.now() }));
  }

  trashDashboard(id: string): void {
    this.dashboard(id);
    this.dashboards.update(id, (d) => {
      d.trashed_at ??= this.now();
    });
  }

  restoreDashboard(id: string): void {
    this.dashboard(id);
    this.dashboards.update(id, (d) => {
      delete d.trashed_at;
    });
  }

  widgetsOf(dashboardId: string): WidgetRecord[] {
    return [...this.widgets.values()]
      .filter((w) => w.dashboard_id === dashboardId)
      .sort((a, b) => a.created_at - b.created_at); // stable: ties keep creation order
  }

  createWidget(input: Omit<WidgetRecord, 'id' | 'created_at' | 'updated_at'>): WidgetRecord {
    this.dashboard(input.dashboard_id);
    if (input.visualization_id !== undefined) this.visualization(input.visualization_id);
    const now = this.now();
    const w = compact({ ...input, id: randomUUID(), created_at: now, updated_at: now });
    return this.widgets.set(w.id, w);
  }

  widget(id: string): WidgetRecord {
    const w = this.widgets.get(id);
    if (!w) throw widgetNotFound(id);
    return w;
  }

  replaceWidget(id: string, next: Omit<WidgetRecord, 'id' | 'created_at' | 'updated_at'>): WidgetRecord {
    const w = this.widget(id);
    if (next.visualization_id !== undefined) this.visualization(next.visualization_id);
    return this.widgets.set(id, compact({ ...next, id, created_at: w.created_at, updated_at: this.now() }));
  }

  deleteWidget(id: string): void {
    this.widget(id);
    this.widgets.delete(id);
  }
}

// ---------- rendering in the current API's shape ----------

export function renderQuery(q: QueryRecord): Json {
  return compact({
    id: q.id,
    display_name: q.display_name,
    description: q.description,
    query_text: q.query_text,
    warehouse_id: q.warehouse_id,
    catalog: q.catalog,
    schema: q.schema,
    parameters: q.parameters,
    tags: q.tags,
    parent_path: q.parent_path,
    apply_auto_limit: q.apply_auto_limit,
    run_as_mode: q.run_as_mode,
    owner_user_name: q.owner_user_name,
    last_modifier_user_name: q.last_modifier_user_name,
    lifecycle_state: q.trashed_at === undefined ? 'ACTIVE' : 'TRASHED',
    create_time: iso(q.create_time),
    update_time: iso(q.update_time),
  });
}

export function renderAlert(a: AlertRecord): Json {
  return compact({
    id: a.id,
    display_name: a.display_name,
    query_id: a.query_id,
    condition: a.condition,
    custom_body: a.custom_body,
    custom_subject: a.custom_subject,
    notify_on_ok: a.notify_on_ok,
    seconds_to_retrigger: a.seconds_to_retrigger,
    parent_path: a.parent_path,
    owner_user_name: a.owner_user_name,
    state: a.state,
    trigger_time: iso(a.trigger_time),
    lifecycle_state: a.trashed_at === undefined ? 'ACTIVE' : 'TRASHED',
    create_time: iso(a.create_time),
    update_time: iso(a.update_time),
  });
}

export { iso };
