/**
 * Queries (/api/2.0/sql/queries), Alerts (/api/2.0/sql/alerts), and the legacy /api/2.0/preview/sql queries,
 * alerts, dashboards, widgets and visualizations over the same store. Fidelity notes:
 * - PATCH takes `update_mask` with Databricks' field-mask semantics (store.ts `applyMask`).
 * - DELETE moves a query, a new-API alert or a dashboard to the trash (GET still answers, lifecycle_state
 *   TRASHED; lists leave it out); the legacy alert delete is permanent.
 * - The current Alerts API has no schedule: an alert is evaluated by a job's sql_task `alert` (with its
 *   subscriptions), by the refresh schedule of a legacy query, or on demand through
 *   `POST /_minilake/sql/alerts/{id}/evaluate` (MiniLake's own path; Databricks has none).
 * - `POST /_minilake/sql/queries/{id}/run` runs a saved query (jobs' sql_task `query` calls it in process).
 */
import { Hono } from 'hono';
import { invalidParameter, readJson, readQuery, v } from '@minilake/core';
import type { StatementService } from '@minilake/sql';
import { evaluateAlert, runQuery, type EvaluatorDeps } from './evaluate.js';
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
import { missingField } from './errors.js';
import {
  str,
  QueryFields,
  AlertFields,
  Paging,
  LegacyPaging,
  LegacyQueryBody,
  LegacyAlertBody,
  DashboardBody,
  WidgetBody,
  VisualizationBody,
  EvaluateBody,
  RunBody,
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
  type Json,
  type QueryRecord,
  type SqlObjectsStore,
} from './store.js';

const Q = '/api/2.0/sql/queries';
const A = '/api/2.0/sql/alerts';
const LQ = '/api/2.0/preview/sql/queries';
const LA = '/api/2.0/preview/sql/alerts';
const LD = '/api/2.0/preview/sql/dashboards';
const LW = '/api/2.0/preview/sql/widgets';
const LV = '/api/2.0/preview/sql/visualizations';

export interface SqlObjectsAppDeps {
  store: SqlObjectsStore;
  statements: StatementService;
  evaluator: EvaluatorDeps;
  warehouseExists(id: string): boolean;
  /** The data sources (legacy ids of warehouses), read from the SQL service's `data_sources`. */
  dataSources(): Promise<{ id: string; warehouse_id: string }[]>;
  userId: number;
  /** Called after a query changes: (re)arms its legacy refresh schedule. */
  onQueryChanged(id: string): void;
}

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

export function sqlObjectsApp(deps: SqlObjectsAppDeps): Hono {
  const { store } = deps;
  const app = new Hono();

  const checkWarehouse = (id: string | undefined) => {
    if (id !== undefined && id !== '' && !deps.warehouseExists(id))
      throw invalidParameter(`Warehouse ${id} does not exist.`);
  };
  async function legacyCtx(): Promise<LegacyContext> {
    const sources = await deps.dataSources();
    return {
      store,
      userId: deps.userId,
      dataSourceOf: (w) => sources.find((s) => s.warehouse_id === w)?.id,
    };
  }
  async function warehouseOfSource(id: string | undefined): Promise<string | undefined> {
    if (id === undefined) return undefined;
    const ds = (await deps.dataSources()).find((s) => s.id === id);
    if (!ds) throw invalidParameter(`Data source ${id} does not exist.`);
    return ds.warehouse_id;
  }

  // ---- queries -------------------------------------------------------------------------------------------

  app.post(Q, async (c) => {
    const body = await readJson(
      c,
      v.object({ query: v.optional(QueryFields), auto_resolve_display_name: v.optional(v.boolean()) }),
    );
    const q = body.query ?? {};
    if (!q.display_name) throw missingField('query.display_name');
    checkWarehouse(q.warehouse_id);
    const { owner_user_name: _owner, ...fields } = q;
    const rec = store.createQuery({
      ...fields,
      display_name: q.display_name,
      query_text: q.query_text ?? '',
    });
    deps.onQueryChanged(rec.id);
    return c.json(renderQuery(rec));
  });
  app.get(Q, (c) => {
    const p = readQuery(c, Paging);
    const page = store.listQueries(pageSize(p.page_size), p.page_token || undefined);
    return c.json(compact({ results: page.items.map(renderQuery), next_page_token: page.nextPageToken }));
  });
  app.get(`${Q}/:id`, (c) => c.json(renderQuery(store.query(c.req.param('id')))));
  app.patch(`${Q}/:id`, async (c) => {
    const body = await readJson(
      c,
      v.object({
        query: v.optional(QueryFields),
        update_mask: str(),
        auto_resolve_display_name: v.optional(v.boolean()),
      }),
    );
    const current = store.activeQuery(c.req.param('id'));
    const next = applyMask(current, (body.query ?? {}) as Json, body.update_mask, QUERY_MASK, [
      'display_name',
    ]);
    checkWarehouse(next.warehouse_id);
    next.query_text ??= '';
    next.owner_user_name ??= store.user;
    // The legacy options echo what the legacy API last wrote; the current API changing parameters replaces them.
    if (next.legacy?.options && next.parameters !== current.parameters)
      next.legacy = { ...next.legacy, options: undefined };
    if (next.legacy && next.warehouse_id !== current.warehouse_id)
      next.legacy = { ...next.legacy, data_source_id: undefined };
    const rec = store.replaceQuery(next);
    deps.onQueryChanged(rec.id);
    return c.json(renderQuery(rec));
  });
  app.delete(`${Q}/:id`, (c) => {
    store.trashQuery(c.req.param('id'));
    deps.onQueryChanged(c.req.param('id'));
    return c.json({});
  });
  app.get(`${Q}/:id/visualizations`, (c) => {
    const q = store.query(c.req.param('id'));
    const results = store.visualizationsOf(q.id).map((vz) =>
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
    return c.json({ results });
  });

  // ---- alerts --------------------------------------------------------------------------------------------

  const validCondition = (cond: Json | undefined) => {
    if (!cond) throw missingField('alert.condition');
    if (cond.op !== 'IS_NULL' && !cond.threshold) throw missingField('alert.condition.threshold');
  };
  app.post(A, async (c) => {
    const body = await readJson(
      c,
      v.object({ alert: v.optional(AlertFields), auto_resolve_display_name: v.optional(v.boolean()) }),
    );
    const a = body.alert ?? {};
    if (!a.display_name) throw missingField('alert.display_name');
    if (!a.query_id) throw missingField('alert.query_id');
    validCondition(a.condition);
    const { owner_user_name: _owner, ...fields } = a;
    const rec = store.createAlert({
      ...fields,
      display_name: a.display_name,
      query_id: a.query_id,
      condition: a.condition as Json,
    });
    return c.json(renderAlert(rec));
  });
  app.get(A, (c) => {
    const p = readQuery(c, Paging);
    const page = store.listAlerts(pageSize(p.page_size), p.page_token || undefined);
    return c.json(compact({ results: page.items.map(renderAlert), next_page_token: page.nextPageToken }));
  });
  app.get(`${A}/:id`, (c) => c.json(renderAlert(store.alert(c.req.param('id')))));
  app.patch(`${A}/:id`, async (c) => {
    const body = await readJson(
      c,
      v.object({
        alert: v.optional(AlertFields),
        update_mask: str(),
        auto_resolve_display_name: v.optional(v.boolean()),
      }),
    );
    const current = store.activeAlert(c.req.param('id'));
    const next = applyMask(current, (body.alert ?? {}) as Json, body.update_mask, ALERT_MASK, [
      'display_name',
      'query_id',
      'condition',
    ]);
    validCondition(next.condition);
    next.owner_user_name ??= store.user;
    return c.json(renderAlert(store.replaceAlert(next)));
  });
  app.delete(`${A}/:id`, (c) => {
    store.trashAlert(c.req.param('id'));
    return c.json({});
  });

  // ---- MiniLake: run a saved query, evaluate an alert now ----------------------------------------------------

  app.post('/_minilake/sql/alerts/:id/evaluate', async (c) => {
    const body = await readJson(c, EvaluateBody);
    const r = await evaluateAlert(deps.evaluator, c.req.param('id'), {
      ...(body.subscriptions ? { subscriptions: body.subscriptions } : {}),
      ...(body.pause_subscriptions !== undefined ? { pauseSubscriptions: body.pause_subscriptions } : {}),
    });
    return c.json(
      compact({
        alert: renderAlert(r.alert),
        value: r.verdict.value,
        error: r.verdict.error,
        notified: r.notified,
        deliveries: r.deliveries,
      }),
    );
  });
  app.post('/_minilake/sql/queries/:id/run', async (c) => {
    const body = await readJson(c, RunBody);
    const q = store.activeQuery(c.req.param('id'));
    const out = await runQuery(
      deps.statements,
      q,
      store.now(),
      body.parameters ? { parameters: body.parameters } : {},
    );
    return c.json(
      compact({
        statement_id: out.statementId,
        state: out.state,
        error: out.error,
        row_count: out.rows?.length,
        truncated: out.truncated,
      }),
    );
  });

  // ---- legacy queries ------------------------------------------------------------------------------------

  function legacyQueryFields(body: v.InferOutput<typeof LegacyQueryBody>, warehouseId: string | undefined) {
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
  function legacyExtras(
    current: QueryRecord['legacy'],
    body: v.InferOutput<typeof LegacyQueryBody>,
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

  app.post(LQ, async (c) => {
    const body = await readJson(c, LegacyQueryBody);
    const warehouse = await warehouseOfSource(body.data_source_id);
    const fields = legacyQueryFields(body, warehouse);
    const rec = store.createQuery({
      ...fields,
      display_name: fields.display_name ?? 'New Query',
      query_text: fields.query_text ?? '',
      ...(body.parent !== undefined ? { parent_path: body.parent } : {}),
      legacy: legacyExtras(undefined, body),
    });
    deps.onQueryChanged(rec.id);
    return c.json(renderLegacyQuery(await legacyCtx(), rec));
  });
  app.get(LQ, async (c) => {
    const p = readQuery(c, LegacyPaging);
    let all = [...store.queries.values()].filter((q) => q.trashed_at === undefined);
    if (p.q) all = all.filter((q) => q.display_name.toLowerCase().includes(p.q!.toLowerCase()));
    const order = p.order ?? '-created_at';
    const key = (q: QueryRecord) =>
      order.replace(/^-/, '') === 'name' ? q.display_name : String(q.seq).padStart(12, '0');
    all.sort((a, b) => key(a).localeCompare(key(b)));
    if (order.startsWith('-')) all.reverse();
    const ctx = await legacyCtx();
    const page = legacyPage(all, p);
    return c.json({ ...page, results: page.results.map((q) => renderLegacyQuery(ctx, q)) });
  });
  app.get(`${LQ}/:id`, async (c) =>
    c.json(renderLegacyQuery(await legacyCtx(), store.query(c.req.param('id')))),
  );
  app.post(`${LQ}/:id`, async (c) => {
    const body = await readJson(c, LegacyQueryBody);
    const current = store.activeQuery(c.req.param('id'));
    const warehouse = await warehouseOfSource(body.data_source_id);
    const rec = store.replaceQuery({
      ...current,
      ...legacyQueryFields(body, warehouse),
      legacy: legacyExtras(current.legacy, body),
    });
    deps.onQueryChanged(rec.id);
    return c.json(renderLegacyQuery(await legacyCtx(), rec));
  });
  app.delete(`${LQ}/:id`, (c) => {
    store.trashQuery(c.req.param('id'));
    deps.onQueryChanged(c.req.param('id'));
    return c.json({});
  });
  app.post(`${LQ}/trash/:id`, (c) => {
    store.restoreQuery(c.req.param('id'));
    deps.onQueryChanged(c.req.param('id'));
    return c.json({});
  });

  // ---- legacy alerts -------------------------------------------------------------------------------------

  function legacyAlertFields(body: v.InferOutput<typeof LegacyAlertBody>): Partial<AlertRecord> {
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
  app.post(LA, async (c) => {
    const body = await readJson(c, LegacyAlertBody);
    if (!body.name) throw missingField('name');
    if (!body.query_id) throw missingField('query_id');
    if (!body.options) throw missingField('options');
    const f = legacyAlertFields(body);
    const rec = store.createAlert({
      ...f,
      display_name: body.name,
      query_id: body.query_id,
      condition: f.condition!,
      legacy: f.legacy ?? {},
      ...(body.parent !== undefined ? { parent_path: body.parent } : {}),
    });
    return c.json(renderLegacyAlert(await legacyCtx(), rec));
  });
  app.get(LA, async (c) => {
    const ctx = await legacyCtx();
    const all = [...store.alerts.values()]
      .filter((a) => a.trashed_at === undefined)
      .sort((a, b) => a.seq - b.seq);
    return c.json(all.map((a) => renderLegacyAlert(ctx, a)));
  });
  app.get(`${LA}/:id`, async (c) =>
    c.json(renderLegacyAlert(await legacyCtx(), store.alert(c.req.param('id')))),
  );
  app.put(`${LA}/:id`, async (c) => {
    const body = await readJson(c, LegacyAlertBody);
    const current = store.activeAlert(c.req.param('id'));
    const f = legacyAlertFields(body);
    // `rearm` absent from a full legacy edit means no rearm.
    const next: AlertRecord = { ...current, ...f };
    if (body.rearm === undefined) delete next.seconds_to_retrigger;
    return c.json(renderLegacyAlert(await legacyCtx(), store.replaceAlert(next)));
  });
  app.delete(`${LA}/:id`, (c) => {
    store.deleteAlert(c.req.param('id'));
    return c.json({});
  });

  // ---- legacy dashboards, widgets, visualizations --------------------------------------------------------

  app.post(LD, async (c) => {
    const body = await readJson(c, DashboardBody);
    if (!body.name) throw missingField('name');
    const { is_draft: _d, ...fields } = body;
    const rec = store.createDashboard({ ...fields, name: body.name });
    return c.json(renderLegacyDashboard(await legacyCtx(), rec));
  });
  app.get(LD, async (c) => {
    const p = readQuery(c, LegacyPaging);
    let all = [...store.dashboards.values()].filter((d) => d.trashed_at === undefined);
    if (p.q) all = all.filter((d) => d.name.toLowerCase().includes(p.q!.toLowerCase()));
    all.sort((a, b) =>
      p.order?.replace(/^-/, '') === 'name' ? a.name.localeCompare(b.name) : a.seq - b.seq,
    );
    if (p.order?.startsWith('-')) all.reverse();
    const ctx = await legacyCtx();
    const page = legacyPage(all, p);
    return c.json({ ...page, results: page.results.map((d) => renderLegacyDashboard(ctx, d, false)) });
  });
  app.get(`${LD}/:id`, async (c) =>
    c.json(renderLegacyDashboard(await legacyCtx(), store.dashboard(c.req.param('id')))),
  );
  app.post(`${LD}/:id`, async (c) => {
    const body = await readJson(c, DashboardBody);
    const { is_draft: _d, ...fields } = body;
    const rec = store.updateDashboard(c.req.param('id'), compact({ ...fields }));
    return c.json(renderLegacyDashboard(await legacyCtx(), rec));
  });
  app.delete(`${LD}/:id`, (c) => {
    store.trashDashboard(c.req.param('id'));
    return c.json({});
  });
  app.post(`${LD}/trash/:id`, (c) => {
    store.restoreDashboard(c.req.param('id'));
    return c.json({});
  });

  const widgetFields = (body: v.InferOutput<typeof WidgetBody>, dashboardId: string) =>
    compact({
      dashboard_id: dashboardId,
      visualization_id: body.visualization_id,
      text: body.text,
      options: body.options as Json | undefined,
      width: body.width ?? 1,
    });
  app.post(LW, async (c) => {
    const body = await readJson(c, WidgetBody);
    if (!body.dashboard_id) throw missingField('dashboard_id');
    const rec = store.createWidget(widgetFields(body, body.dashboard_id));
    return c.json(renderLegacyWidget(await legacyCtx(), rec));
  });
  app.post(`${LW}/:id`, async (c) => {
    const body = await readJson(c, WidgetBody);
    const current = store.widget(c.req.param('id'));
    const rec = store.replaceWidget(current.id, widgetFields(body, current.dashboard_id));
    return c.json(renderLegacyWidget(await legacyCtx(), rec));
  });
  app.delete(`${LW}/:id`, (c) => {
    store.deleteWidget(c.req.param('id'));
    return c.json({});
  });

  app.post(LV, async (c) => {
    const body = await readJson(c, VisualizationBody);
    if (!body.query_id) throw missingField('query_id');
    if (!body.type) throw missingField('type');
    const rec = store.createVisualization(
      compact({
        query_id: body.query_id,
        type: body.type,
        name: body.name ?? '',
        description: body.description,
        options: body.options,
      }),
    );
    return c.json(renderLegacyVisualization(rec));
  });
  app.post(`${LV}/:id`, async (c) => {
    const body = await readJson(c, VisualizationBody);
    const rec = store.updateVisualization(
      c.req.param('id'),
      compact({ type: body.type, name: body.name, description: body.description, options: body.options }),
    );
    return c.json(renderLegacyVisualization(rec));
  });
  app.delete(`${LV}/:id`, (c) => {
    store.deleteVisualization(c.req.param('id'));
    return c.json({});
  });

  return app;
}
