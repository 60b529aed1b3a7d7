/**
 * Queries (/api/2.0/sql/queries), Alerts (/api/2.0/sql/alerts), and the legacy /api/2.0/preview/sql queries,
 * alerts, dashboards, widgets and visualizations over the same store. Fidelity notes:
 * - PATCH takes `update_mask` with Databricks' field-mask semantics (store.ts `applyMask`).
 * - DELETE moves a query, a new-API alert or a dashboard to the trash (GET still answers, lifecycle_state
 *   TRASHED; lists leave it out); the legacy alert delete is permanent.
 * - The current Alerts API has no schedule: an alert is evaluated by a job's sql_task `alert` (with its
 *   subscriptions, through this service's Api), by the refresh schedule of a legacy query, or on demand
 *   through `POST /_minilake/sql/alerts/{id}/evaluate` (MiniLake's own path; Databricks has none).
 * - `POST /_minilake/sql/queries/{id}/run` runs a saved query (jobs' sql_task `query` does the same through
 *   the Api).
 * Handlers validate, call the service (service.ts) and answer JSON.
 */
import { Hono } from 'hono';
import { readJson, readQuery, v } from '@minilake/core';
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
import type { SqlObjectsService } from './service.js';
import { compact, renderAlert } from './store.js';

const Q = '/api/2.0/sql/queries';
const A = '/api/2.0/sql/alerts';
const LQ = '/api/2.0/preview/sql/queries';
const LA = '/api/2.0/preview/sql/alerts';
const LD = '/api/2.0/preview/sql/dashboards';
const LW = '/api/2.0/preview/sql/widgets';
const LV = '/api/2.0/preview/sql/visualizations';

const CreateQuery = v.object({
  query: v.optional(QueryFields),
  auto_resolve_display_name: v.optional(v.boolean()),
});
const UpdateQuery = v.object({
  query: v.optional(QueryFields),
  update_mask: str(),
  auto_resolve_display_name: v.optional(v.boolean()),
});
const CreateAlert = v.object({
  alert: v.optional(AlertFields),
  auto_resolve_display_name: v.optional(v.boolean()),
});
const UpdateAlert = v.object({
  alert: v.optional(AlertFields),
  update_mask: str(),
  auto_resolve_display_name: v.optional(v.boolean()),
});

export function sqlObjectsApp(svc: SqlObjectsService): Hono {
  const app = new Hono();
  const id = (c: { req: { param(name: 'id'): string } }) => c.req.param('id');

  // ---- queries -------------------------------------------------------------------------------------------

  app.post(Q, async (c) => c.json(svc.createQuery((await readJson(c, CreateQuery)).query ?? {})));
  app.get(Q, (c) => c.json(svc.listQueries(readQuery(c, Paging))));
  app.get(`${Q}/:id`, (c) => c.json(svc.getQuery(id(c))));
  app.patch(`${Q}/:id`, async (c) => {
    const body = await readJson(c, UpdateQuery);
    return c.json(svc.updateQuery(id(c), body.query, body.update_mask));
  });
  app.delete(`${Q}/:id`, (c) => {
    svc.trashQuery(id(c));
    return c.json({});
  });
  app.get(`${Q}/:id/visualizations`, (c) => c.json(svc.queryVisualizations(id(c))));

  // ---- alerts --------------------------------------------------------------------------------------------

  app.post(A, async (c) => c.json(svc.createAlert((await readJson(c, CreateAlert)).alert ?? {})));
  app.get(A, (c) => c.json(svc.listAlerts(readQuery(c, Paging))));
  app.get(`${A}/:id`, (c) => c.json(svc.getAlert(id(c))));
  app.patch(`${A}/:id`, async (c) => {
    const body = await readJson(c, UpdateAlert);
    return c.json(svc.updateAlert(id(c), body.alert, body.update_mask));
  });
  app.delete(`${A}/:id`, (c) => {
    svc.trashAlert(id(c));
    return c.json({});
  });

  // ---- MiniLake: run a saved query, evaluate an alert now ----------------------------------------------------

  app.post('/_minilake/sql/alerts/:id/evaluate', async (c) => {
    const body = await readJson(c, EvaluateBody);
    const r = await svc.evaluateAlert(id(c), {
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
    const out = await svc.runQuery(id(c), body.parameters ? { parameters: body.parameters } : {});
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

  app.post(LQ, async (c) => c.json(svc.createLegacyQuery(await readJson(c, LegacyQueryBody))));
  app.get(LQ, (c) => c.json(svc.listLegacyQueries(readQuery(c, LegacyPaging))));
  app.get(`${LQ}/:id`, (c) => c.json(svc.getLegacyQuery(id(c))));
  app.post(`${LQ}/:id`, async (c) => c.json(svc.editLegacyQuery(id(c), await readJson(c, LegacyQueryBody))));
  app.delete(`${LQ}/:id`, (c) => {
    svc.trashQuery(id(c));
    return c.json({});
  });
  app.post(`${LQ}/trash/:id`, (c) => {
    svc.restoreQuery(id(c));
    return c.json({});
  });

  // ---- legacy alerts -------------------------------------------------------------------------------------

  app.post(LA, async (c) => c.json(svc.createLegacyAlert(await readJson(c, LegacyAlertBody))));
  app.get(LA, (c) => c.json(svc.listLegacyAlerts()));
  app.get(`${LA}/:id`, (c) => c.json(svc.getLegacyAlert(id(c))));
  app.put(`${LA}/:id`, async (c) => c.json(svc.editLegacyAlert(id(c), await readJson(c, LegacyAlertBody))));
  app.delete(`${LA}/:id`, (c) => {
    svc.deleteLegacyAlert(id(c));
    return c.json({});
  });

  // ---- legacy dashboards, widgets, visualizations --------------------------------------------------------

  app.post(LD, async (c) => c.json(svc.createDashboard(await readJson(c, DashboardBody))));
  app.get(LD, (c) => c.json(svc.listDashboards(readQuery(c, LegacyPaging))));
  app.get(`${LD}/:id`, (c) => c.json(svc.getDashboard(id(c))));
  app.post(`${LD}/:id`, async (c) => c.json(svc.editDashboard(id(c), await readJson(c, DashboardBody))));
  app.delete(`${LD}/:id`, (c) => {
    svc.trashDashboard(id(c));
    return c.json({});
  });
  app.post(`${LD}/trash/:id`, (c) => {
    svc.restoreDashboard(id(c));
    return c.json({});
  });

  app.post(LW, async (c) => c.json(svc.createWidget(await readJson(c, WidgetBody))));
  app.post(`${LW}/:id`, async (c) => c.json(svc.editWidget(id(c), await readJson(c, WidgetBody))));
  app.delete(`${LW}/:id`, (c) => {
    svc.deleteWidget(id(c));
    return c.json({});
  });

  app.post(LV, async (c) => c.json(svc.createVisualization(await readJson(c, VisualizationBody))));
  app.post(`${LV}/:id`, async (c) =>
    c.json(svc.editVisualization(id(c), await readJson(c, VisualizationBody))),
  );
  app.delete(`${LV}/:id`, (c) => {
    svc.deleteVisualization(id(c));
    return c.json({});
  });

  return app;
}
