/**
 * The Databricks SQL objects' operations, between the thin HTTP handlers (app.ts) and the store: the
 * current Queries and Alerts APIs, the legacy /preview/sql shapes over the same records, and the two things
 * other services ask of this one through its Api (run a saved query, evaluate an alert now).
 */
import { invalidParameter, type v } from '@minilake/core';
import type { ObjectAccess } from '@minilake/iam';
import type { StatementOutcome, StatementService } from '@minilake/sql';
import { missingField } from './errors.js';
import {
  evaluateAlert,
  runQuery,
  type EvaluationResult,
  type EvaluatorDeps,
  type Subscription,
} from './evaluate.js';
import {
  conditionFromLegacy,
  parameterFromLegacy,
  renderLegacyAlert,
  renderLegacyDashboard,
  renderLegacyQuery,
  renderLegacyVisualization,
  renderLegacyWidget,
  type LegacyContext,
} from './legacy.js';
import type {
  AlertFields,
  DashboardBody,
  LegacyAlertBody,
  LegacyPaging,
  LegacyQueryBody,
  Paging,
  QueryFields,
  VisualizationBody,
  WidgetBody,
} from './schemas.js';
import {
  ALERT_MASK,
  applyMask,
  compact,
  iso,
  QUERY_MASK,
  renderAlert,
  renderQuery,
  type AlertRecord,
  type DashboardRecord,
  type Json,
  type QueryRecord,
  type SqlObjectsStore,
} from './store.js';

type In<S extends v.GenericSchema> = v.InferOutput<S>;

export interface SqlObjectsServiceOptions {
  store: SqlObjectsStore;
  statements: StatementService;
  evaluator: EvaluatorDeps;
  warehouseExists(id: string): boolean;
  /** The data sources (legacy ids of warehouses), from the SQL service. */
  dataSources(): { id: string; warehouseId: string }[];
  userId: number;
  /** Called after a query changes: (re)arms its legacy refresh schedule. */
  onQueryChanged(id: string): void;
  /**
   * Object permissions (MINILAKE_ENFORCE=1 only): iam's evaluation of the queries', alerts' and legacy
   * dashboards' ACLs, one per type.
   */
  access?: Record<SqlObjectKind, ObjectAccess<SqlObjectLevel>>;
}

/** Query and alert levels, weakest first: CAN_VIEW < CAN_RUN < CAN_EDIT < CAN_MANAGE (< IS_OWNER). */
export type SqlObjectLevel = 'CAN_VIEW' | 'CAN_RUN' | 'CAN_EDIT' | 'CAN_MANAGE';
/** The permissions API's request types of the objects this service checks. */
export type SqlObjectKind = 'queries' | 'alerts' | 'dbsql-dashboards';

function pageSize(n: number | undefined): number {
  if (n === undefined || n === 0) return 20;
  if (n < 0) throw invalidParameter('page_size must be >= 0.');
  return Math.min(n, 1000);
}

function legacyPage<T>(items: T[], q: { page?: number | undefined; page_size?: number | undefined }) {
  const page = Math.max(1, q.page ?? 1);
  const size = Math.min(250, Math.max(1, q.page_size ?? 25));
  return { count: items.length, page, page_size: size, results: items.slice((page - 1) * size, page * size) };
}

function validCondition(cond: Json | undefined): void {
  if (!cond) throw missingField('alert.condition');
  if (cond.op !== 'IS_NULL' && !cond.threshold) throw missingField('alert.condition.threshold');
}

export class SqlObjectsService {
  constructor(private readonly o: SqlObjectsServiceOptions) {}

  private get store() {
    return this.o.store;
  }

  /** The query (404 first, as Databricks; `active`: not in the trash) on which the caller holds `level`. */
  private query(id: string, level: SqlObjectLevel, active = false): QueryRecord {
    const q = active ? this.store.activeQuery(id) : this.store.query(id);
    this.o.access?.queries.check(id, level);
    return q;
  }

  private alert(id: string, level: SqlObjectLevel, active = false): AlertRecord {
    const a = active ? this.store.activeAlert(id) : this.store.alert(id);
    this.o.access?.alerts.check(id, level);
    return a;
  }

  /** A legacy dashboard (404 first) on which the caller holds `level`. */
  private dashboard(id: string, level: SqlObjectLevel): DashboardRecord {
    const d = this.store.dashboard(id);
    this.o.access?.['dbsql-dashboards'].check(id, level);
    return d;
  }

  /** For lists: whether the caller may see the object (always without enforcement). */
  private visible(kind: SqlObjectKind): ((id: string) => boolean) | undefined {
    const a = this.o.access?.[kind];
    return a && ((id) => a.can(id, 'CAN_VIEW'));
  }

  private checkWarehouse(id: string | undefined): void {
    if (id !== undefined && id !== '' && !this.o.warehouseExists(id))
      throw invalidParameter(`Warehouse ${id} does not exist.`);
  }

  private legacyCtx(): LegacyContext {
    const sources = this.o.dataSources();
    return {
      store: this.store,
      userId: this.o.userId,
      dataSourceOf: (w) => sources.find((s) => s.warehouseId === w)?.id,
    };
  }

  private warehouseOfSource(id: string | undefined): string | undefined {
    if (id === undefined) return undefined;
    const ds = this.o.dataSources().find((s) => s.id === id);
    if (!ds) throw invalidParameter(`Data source ${id} does not exist.`);
    return ds.warehouseId;
  }

  private changed(id: string): void {
    this.o.onQueryChanged(id);
  }

  // ---- run and evaluate (the Api other services use) ------------------------------------------------------

  /** Runs the saved query (its warehouse, namespace and parameters; `parameters` override saved values). */
  async runQuery(id: string, opts: { parameters?: Record<string, string> } = {}): Promise<StatementOutcome> {
    const q = this.store.activeQuery(id);
    return runQuery(this.o.statements, q, this.store.now(), opts);
  }

  /** Evaluates the alert now and notifies `subscriptions` (see evaluate.ts). */
  async evaluateAlert(
    id: string,
    opts: { subscriptions?: Subscription[]; pauseSubscriptions?: boolean } = {},
  ): Promise<EvaluationResult> {
    return evaluateAlert(this.o.evaluator, id, opts);
  }

  // ---- queries ----------------------------------------------------------------------------------------------

  createQuery(q: In<typeof QueryFields>): Json {
    if (!q.display_name) throw missingField('query.display_name');
    this.checkWarehouse(q.warehouse_id);
    const { owner_user_name: _owner, ...fields } = q;
    const rec = this.store.createQuery({
      ...fields,
      display_name: q.display_name,
      query_text: q.query_text ?? '',
    });
    this.changed(rec.id);
    return renderQuery(rec);
  }

  listQueries(p: In<typeof Paging>): Json {
    const page = this.store.listQueries(
      pageSize(p.page_size),
      p.page_token || undefined,
      this.visible('queries'),
    );
    return compact({ results: page.items.map(renderQuery), next_page_token: page.nextPageToken });
  }

  getQuery(id: string): Json {
    return renderQuery(this.query(id, 'CAN_VIEW'));
  }

  updateQuery(id: string, query: In<typeof QueryFields> | undefined, mask: string | undefined): Json {
    const current = this.query(id, 'CAN_EDIT', true);
    const next = applyMask(current, (query ?? {}) as Json, mask, QUERY_MASK, ['display_name']);
    this.checkWarehouse(next.warehouse_id);
    next.query_text ??= '';
    next.owner_user_name ??= this.store.user;
    // The legacy options echo what the legacy API last wrote; the current API changing parameters replaces them.
    if (next.legacy?.options && next.parameters !== current.parameters)
      next.legacy = { ...next.legacy, options: undefined };
    if (next.legacy && next.warehouse_id !== current.warehouse_id)
      next.legacy = { ...next.legacy, data_source_id: undefined };
    const rec = this.store.replaceQuery(next);
    this.changed(rec.id);
    return renderQuery(rec);
  }

  trashQuery(id: string): void {
    this.query(id, 'CAN_MANAGE');
    this.store.trashQuery(id);
    this.changed(id);
  }

  restoreQuery(id: string): void {
    this.query(id, 'CAN_MANAGE');
    this.store.restoreQuery(id);
    this.changed(id);
  }

  queryVisualizations(id: string): Json {
    const q = this.query(id, 'CAN_VIEW');
    const results = this.store.visualizationsOf(q.id).map((vz) =>
      compact({
        id: vz.id,
        query_id: vz.query_id,
        display_name: vz.name,
        type: vz.type,
        serialized_options: vz.options === undefined ? undefined : JSON.stringify(vz.options),
        create_time: iso(vz.created_at),
        update_time: iso(vz.updated_at),
      }),
    );
    return { results };
  }

  // ---- alerts -----------------------------------------------------------------------------------------------

  createAlert(a: In<typeof AlertFields>): Json {
    if (!a.display_name) throw missingField('alert.display_name');
    if (!a.query_id) throw missingField('alert.query_id');
    validCondition(a.condition);
    const { owner_user_name: _owner, ...fields } = a;
    const rec = this.store.createAlert({
      ...fields,
      display_name: a.display_name,
      query_id: a.query_id,
      condition: a.condition as Json,
    });
    return renderAlert(rec);
  }

  listAlerts(p: In<typeof Paging>): Json {
    const page = this.store.listAlerts(
      pageSize(p.page_size),
      p.page_token || undefined,
      this.visible('alerts'),
    );
    return compact({ results: page.items.map(renderAlert), next_page_token: page.nextPageToken });
  }

  getAlert(id: string): Json {
    return renderAlert(this.alert(id, 'CAN_VIEW'));
  }

  updateAlert(id: string, alert: In<typeof AlertFields> | undefined, mask: string | undefined): Json {
    const current = this.alert(id, 'CAN_EDIT', true);
    const next = applyMask(current, (alert ?? {}) as Json, mask, ALERT_MASK, [
      'display_name',
      'query_id',
      'condition',
    ]);
    validCondition(next.condition);
    next.owner_user_name ??= this.store.user;
    return renderAlert(this.store.replaceAlert(next));
  }

  trashAlert(id: string): void {
    this.alert(id, 'CAN_MANAGE');
    this.store.trashAlert(id);
  }

  // ---- legacy queries ---------------------------------------------------------------------------------------

  private legacyQueryFields(body: In<typeof LegacyQueryBody>, warehouseId: string | undefined) {
    const options = body.options as Json | undefined;
    const params = options?.parameters as Json[] | undefined;
    const out: Partial<QueryRecord> = {};
    if (body.name !== undefined) out.display_name = body.name;
    if (body.description !== undefined) out.description = body.description;
    if (body.query !== undefined) out.query_text = body.query;
    if (warehouseId !== undefined) out.warehouse_id = warehouseId;
    if (body.tags !== undefined) out.tags = body.tags;
    if (options !== undefined) {
      out.parameters = (params ?? []).map(parameterFromLegacy);
      if (typeof options.catalog === 'string') out.catalog = options.catalog;
      if (typeof options.schema === 'string') out.schema = options.schema;
    }
    return out;
  }

  private legacyExtras(
    current: QueryRecord['legacy'],
    body: In<typeof LegacyQueryBody>,
  ): QueryRecord['legacy'] {
    const next = { ...current };
    if (body.options !== undefined) {
      const { catalog: _c, schema: _s, moved_to_trash_at: _m, ...rest } = body.options as Json;
      next.options = rest;
    }
    if (body.schedule !== undefined) next.schedule = body.schedule as Json | null;
    if (body.run_as_role !== undefined) next.run_as_role = body.run_as_role;
    if (body.data_source_id !== undefined) next.data_source_id = body.data_source_id;
    return compact(next);
  }

  createLegacyQuery(body: In<typeof LegacyQueryBody>): Json {
    const fields = this.legacyQueryFields(body, this.warehouseOfSource(body.data_source_id));
    const rec = this.store.createQuery({
      ...fields,
      display_name: fields.display_name ?? 'New Query',
      query_text: fields.query_text ?? '',
      ...(body.parent !== undefined ? { parent_path: body.parent } : {}),
      legacy: this.legacyExtras(undefined, body),
    });
    this.changed(rec.id);
    return renderLegacyQuery(this.legacyCtx(), rec);
  }

  listLegacyQueries(p: In<typeof LegacyPaging>): Json {
    const visible = this.visible('queries');
    let all = [...this.store.queries.values()].filter(
      (q) => q.trashed_at === undefined && (!visible || visible(q.id)),
    );
    if (p.q) all = all.filter((q) => q.display_name.toLowerCase().includes(p.q!.toLowerCase()));
    const order = p.order ?? '-created_at';
    const key = (q: QueryRecord) =>
      order.replace(/^-/, '') === 'name' ? q.display_name : String(q.seq).padStart(12, '0');
    all.sort((a, b) => key(a).localeCompare(key(b)));
    if (order.startsWith('-')) all.reverse();
    const ctx = this.legacyCtx();
    const page = legacyPage(all, p);
    return { ...page, results: page.results.map((q) => renderLegacyQuery(ctx, q)) };
  }

  getLegacyQuery(id: string): Json {
    return renderLegacyQuery(this.legacyCtx(), this.query(id, 'CAN_VIEW'));
  }

  editLegacyQuery(id: string, body: In<typeof LegacyQueryBody>): Json {
    const current = this.query(id, 'CAN_EDIT', true);
    const warehouse = this.warehouseOfSource(body.data_source_id);
    const rec = this.store.replaceQuery({
      ...current,
      ...this.legacyQueryFields(body, warehouse),
      legacy: this.legacyExtras(current.legacy, body),
    });
    this.changed(rec.id);
    return renderLegacyQuery(this.legacyCtx(), rec);
  }

  // ---- legacy alerts ----------------------------------------------------------------------------------------

  private legacyAlertFields(body: In<typeof LegacyAlertBody>): Partial<AlertRecord> {
    const o = body.options as Json | undefined;
    const out: Partial<AlertRecord> = {};
    if (body.name !== undefined) out.display_name = body.name;
    if (body.query_id !== undefined) out.query_id = body.query_id;
    if (body.rearm !== undefined) out.seconds_to_retrigger = body.rearm;
    if (o) {
      out.condition = conditionFromLegacy(o);
      if (typeof o.custom_subject === 'string') out.custom_subject = o.custom_subject;
      if (typeof o.custom_body === 'string') out.custom_body = o.custom_body;
      out.legacy = { muted: o.muted === true };
    }
    return out;
  }

  createLegacyAlert(body: In<typeof LegacyAlertBody>): Json {
    if (!body.name) throw missingField('name');
    if (!body.query_id) throw missingField('query_id');
    if (!body.options) throw missingField('options');
    const f = this.legacyAlertFields(body);
    const rec = this.store.createAlert({
      ...f,
      display_name: body.name,
      query_id: body.query_id,
      condition: f.condition!,
      legacy: f.legacy ?? {},
      ...(body.parent !== undefined ? { parent_path: body.parent } : {}),
    });
    return renderLegacyAlert(this.legacyCtx(), rec);
  }

  listLegacyAlerts(): Json[] {
    const ctx = this.legacyCtx();
    const visible = this.visible('alerts');
    return [...this.store.alerts.values()]
      .filter((a) => a.trashed_at === undefined && (!visible || visible(a.id)))
      .sort((a, b) => a.seq - b.seq)
      .map((a) => renderLegacyAlert(ctx, a));
  }

  getLegacyAlert(id: string): Json {
    return renderLegacyAlert(this.legacyCtx(), this.alert(id, 'CAN_VIEW'));
  }

  editLegacyAlert(id: string, body: In<typeof LegacyAlertBody>): Json {
    const current = this.alert(id, 'CAN_EDIT', true);
    // `rearm` absent from a full legacy edit means no rearm.
    const next: AlertRecord = { ...current, ...this.legacyAlertFields(body) };
    if (body.rearm === undefined) delete next.seconds_to_retrigger;
    return renderLegacyAlert(this.legacyCtx(), this.store.replaceAlert(next));
  }

  deleteLegacyAlert(id: string): void {
    this.alert(id, 'CAN_MANAGE');
    this.store.deleteAlert(id);
  }

  // ---- legacy dashboards, widgets, visualizations -----------------------------------------------------------

  createDashboard(body: In<typeof DashboardBody>): Json {
    if (!body.name) throw missingField('name');
    const { is_draft: _d, ...fields } = body;
    const rec = this.store.createDashboard({ ...fields, name: body.name });
    return renderLegacyDashboard(this.legacyCtx(), rec);
  }

  listDashboards(p: In<typeof LegacyPaging>): Json {
    const visible = this.visible('dbsql-dashboards');
    let all = [...this.store.dashboards.values()].filter(
      (d) => d.trashed_at === undefined && (!visible || visible(d.id)),
    );
    if (p.q) all = all.filter((d) => d.name.toLowerCase().includes(p.q!.toLowerCase()));
    all.sort((a, b) =>
      p.order?.replace(/^-/, '') === 'name' ? a.name.localeCompare(b.name) : a.seq - b.seq,
    );
    if (p.order?.startsWith('-')) all.reverse();
    const ctx = this.legacyCtx();
    const page = legacyPage(all, p);
    return { ...page, results: page.results.map((d) => renderLegacyDashboard(ctx, d, false)) };
  }

  getDashboard(id: string): Json {
    return renderLegacyDashboard(this.legacyCtx(), this.dashboard(id, 'CAN_VIEW'));
  }

  editDashboard(id: string, body: In<typeof DashboardBody>): Json {
    this.dashboard(id, 'CAN_EDIT');
    const { is_draft: _d, ...fields } = body;
    const rec = this.store.updateDashboard(id, compact({ ...fields }));
    return renderLegacyDashboard(this.legacyCtx(), rec);
  }

  trashDashboard(id: string): void {
    this.dashboard(id, 'CAN_MANAGE');
    this.store.trashDashboard(id);
  }

  restoreDashboard(id: string): void {
    this.dashboard(id, 'CAN_MANAGE');
    this.store.restoreDashboard(id);
  }

  private widgetFields(body: In<typeof WidgetBody>, dashboardId: string) {
    return compact({
      dashboard_id: dashboardId,
      visualization_id: body.visualization_id,
      text: body.text,
      options: body.options as Json | undefined,
      width: body.width ?? 1,
    });
  }

  // A widget is its dashboard's content, a visualization its query's: changing one edits its parent.
  createWidget(body: In<typeof WidgetBody>): Json {
    if (!body.dashboard_id) throw missingField('dashboard_id');
    this.dashboard(body.dashboard_id, 'CAN_EDIT');
    const rec = this.store.createWidget(this.widgetFields(body, body.dashboard_id));
    return renderLegacyWidget(this.legacyCtx(), rec);
  }

  editWidget(id: string, body: In<typeof WidgetBody>): Json {
    const current = this.store.widget(id);
    this.dashboard(current.dashboard_id, 'CAN_EDIT');
    const rec = this.store.replaceWidget(current.id, this.widgetFields(body, current.dashboard_id));
    return renderLegacyWidget(this.legacyCtx(), rec);
  }

  deleteWidget(id: string): void {
    this.dashboard(this.store.widget(id).dashboard_id, 'CAN_EDIT');
    this.store.deleteWidget(id);
  }

  createVisualization(body: In<typeof VisualizationBody>): Json {
    if (!body.query_id) throw missingField('query_id');
    if (!body.type) throw missingField('type');
    this.query(body.query_id, 'CAN_EDIT');
    const rec = this.store.createVisualization(
      compact({
        query_id: body.query_id,
        type: body.type,
        name: body.name ?? '',
        description: body.description,
        options: body.options,
      }),
    );
    return renderLegacyVisualization(rec);
  }

  editVisualization(id: string, body: In<typeof VisualizationBody>): Json {
    this.query(this.store.visualization(id).query_id, 'CAN_EDIT');
    const rec = this.store.updateVisualization(
      id,
      compact({ type: body.type, name: body.name, description: body.description, options: body.options }),
    );
    return renderLegacyVisualization(rec);
  }

  deleteVisualization(id: string): void {
    this.query(this.store.visualization(id).query_id, 'CAN_EDIT');
    this.store.deleteVisualization(id);
  }
}
