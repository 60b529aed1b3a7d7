/**
 * Lakeview API (/api/2.0/lakeview/dashboards). Fidelity notes:
 * - Create and update take the Dashboard itself as the body; `dataset_catalog` / `dataset_schema` are query
 *   parameters that set every dataset's catalog / schema. The stored `serialized_dashboard` is the text sent
 *   (pages without `pageType` get PAGE_TYPE_CANVAS, which re-serializes it) ending in one newline.
 * - Every PATCH gives a new etag; reads never change it; an etag sent that is not the current one is 409.
 * - DELETE moves the dashboard to the trash (GET still answers, `lifecycle_state: TRASHED`); trashing it
 *   again is 403, as the Terraform provider expects. Its published revision goes with it.
 * - A published revision keeps the draft's content at publish time; its `revision_create_time` is never
 *   before the draft's `update_time` (the CLI reads an older one as "draft not published").
 * - List leaves out etag, paths, serialized_dashboard and update_time, as documented; trashed dashboards
 *   only with `show_trashed=true`.
 * - MiniLake's own routes (/_minilake/lakeview): restore from the trash, refresh now, run a schedule now,
 *   and the published revision's content for the published view (the public API has no call for it).
 */
import { Hono } from 'hono';
import { invalidParameter, keysetPage, readJson, readQuery } from '@minilake/core';
import type { Dashboards } from './dashboards.js';
import { renderDashboard, renderListed, renderPublished } from './dashboards.js';
import { migrateDashboard, type LegacySource } from './migrate.js';
import { renderSchedule, renderSubscription, type Schedules } from './schedules.js';
import * as s from './schemas.js';
import { compact, iso, type Json, type LakeviewStore } from './store.js';
import type { LakeviewApi } from './index.js';

const BASE = '/api/2.0/lakeview/dashboards';
const OWN = '/_minilake/lakeview/dashboards';

export interface LakeviewAppDeps {
  store: LakeviewStore;
  dashboards: Dashboards;
  schedules: Schedules;
  api: LakeviewApi;
  /** The legacy dashboards migrate converts. */
  legacy: LegacySource;
}

/** Page through records sorted by a key: page_size 0 or absent means the server's page (100), capped at 1000. */
function page<T>(
  sorted: T[],
  key: (t: T) => string,
  q: { page_size?: number | undefined; page_token?: string | undefined },
) {
  if (q.page_size !== undefined && q.page_size < 0) throw invalidParameter('page_size must be >= 0.');
  const size = Math.min(q.page_size || 100, 1000);
  return keysetPage(sorted, key, size, q.page_token || undefined);
}

const byCreate = (t: number, id: string) => `${String(t).padStart(15, '0')}:${id}`;

export function lakeviewApp(d: LakeviewAppDeps): Hono {
  const app = new Hono();
  const { store, dashboards, schedules } = d;

  app.post(BASE, async (c) => {
    const q = readQuery(c, s.DatasetQuery);
    const body = await readJson(c, s.DashboardBody);
    const rec = await dashboards.create(body, {
      datasetCatalog: q.dataset_catalog,
      datasetSchema: q.dataset_schema,
    });
    return c.json(renderDashboard(rec));
  });
  app.get(BASE, (c) => {
    const q = readQuery(c, s.ListDashboardsRequest);
    const all = [...store.dashboards.values()]
      .filter(
        (x) => (q.show_trashed || x.lifecycle_state === 'ACTIVE') && dashboards.readable(x.dashboard_id),
      )
      .sort((a, b) => a.create_time - b.create_time || a.dashboard_id.localeCompare(b.dashboard_id));
    const p = page(all, (x) => byCreate(x.create_time, x.dashboard_id), q);
    return c.json(compact({ dashboards: p.items.map(renderListed), next_page_token: p.nextPageToken }));
  });
  app.post(`${BASE}/migrate`, async (c) => {
    const body = await readJson(c, s.MigrateDashboardRequest);
    return c.json(renderDashboard(await migrateDashboard(d, body)));
  });
  app.get(`${BASE}/:id`, (c) => c.json(renderDashboard(dashboards.dashboard(c.req.param('id'), 'CAN_READ'))));
  app.patch(`${BASE}/:id`, async (c) => {
    const q = readQuery(c, s.DatasetQuery);
    const body = await readJson(c, s.DashboardBody);
    const rec = await dashboards.update(c.req.param('id'), body, {
      datasetCatalog: q.dataset_catalog,
      datasetSchema: q.dataset_schema,
    });
    return c.json(renderDashboard(rec));
  });
  app.delete(`${BASE}/:id`, async (c) => {
    await dashboards.trash(c.req.param('id'));
    return c.json({});
  });
  app.post(`${BASE}/:id/revert`, async (c) => {
    const body = await readJson(c, s.RevertDashboardRequest);
    const id = c.req.param('id');
    const current = dashboards.dashboard(id, 'CAN_EDIT');
    const published = store.published(id);
    const rec = await dashboards.update(id, {
      display_name: published.display_name,
      serialized_dashboard: published.serialized_dashboard,
      warehouse_id: current.warehouse_id,
      etag: body.etag,
    });
    return c.json({ dashboard: renderDashboard(rec) });
  });

  // ---- published ----------------------------------------------------------------------------------------
  app.post(`${BASE}/:id/published`, async (c) => {
    const body = await readJson(c, s.PublishRequest);
    return c.json(renderPublished(dashboards.publish(c.req.param('id'), body)));
  });
  app.get(`${BASE}/:id/published`, (c) => c.json(renderPublished(dashboards.published(c.req.param('id')))));
  app.delete(`${BASE}/:id/published`, (c) => {
    dashboards.unpublish(c.req.param('id'));
    return c.json({});
  });

  // ---- schedules and subscriptions ---------------------------------------------------------------------
  const SCHED = `${BASE}/:id/schedules`;
  app.post(SCHED, async (c) => {
    dashboards.dashboard(c.req.param('id'), 'CAN_EDIT');
    const body = await readJson(c, s.ScheduleBody);
    return c.json(renderSchedule(schedules.create(c.req.param('id'), body)));
  });
  app.get(SCHED, (c) => {
    const q = readQuery(c, s.PageQuery);
    dashboards.dashboard(c.req.param('id'), 'CAN_READ');
    const p = page(store.schedulesOf(c.req.param('id')), (x) => byCreate(x.create_time, x.schedule_id), q);
    return c.json(compact({ schedules: p.items.map(renderSchedule), next_page_token: p.nextPageToken }));
  });
  app.get(`${SCHED}/:sid`, (c) => {
    dashboards.dashboard(c.req.param('id'), 'CAN_READ');
    return c.json(renderSchedule(store.schedule(c.req.param('id'), c.req.param('sid'))));
  });
  app.put(`${SCHED}/:sid`, async (c) => {
    dashboards.dashboard(c.req.param('id'), 'CAN_EDIT');
    const body = await readJson(c, s.ScheduleBody);
    return c.json(renderSchedule(schedules.update(c.req.param('id'), c.req.param('sid'), body)));
  });
  app.delete(`${SCHED}/:sid`, (c) => {
    dashboards.dashboard(c.req.param('id'), 'CAN_EDIT');
    schedules.delete(c.req.param('id'), c.req.param('sid'), readQuery(c, s.EtagQuery).etag);
    return c.json({});
  });
  const SUBS = `${SCHED}/:sid/subscriptions`;
  // Subscribing (oneself or others) and reading subscriptions: any reader of the dashboard.
  app.post(SUBS, async (c) => {
    dashboards.dashboard(c.req.param('id'), 'CAN_READ');
    const body = await readJson(c, s.SubscriptionBody);
    return c.json(renderSubscription(schedules.subscribe(c.req.param('id'), c.req.param('sid'), body)));
  });
  app.get(SUBS, (c) => {
    const q = readQuery(c, s.PageQuery);
    dashboards.dashboard(c.req.param('id'), 'CAN_READ');
    store.schedule(c.req.param('id'), c.req.param('sid'));
    const p = page(
      store.subscriptionsOf(c.req.param('sid')),
      (x) => byCreate(x.create_time, x.subscription_id),
      q,
    );
    return c.json(
      compact({ subscriptions: p.items.map(renderSubscription), next_page_token: p.nextPageToken }),
    );
  });
  app.get(`${SUBS}/:subid`, (c) => {
    dashboards.dashboard(c.req.param('id'), 'CAN_READ');
    return c.json(
      renderSubscription(store.subscription(c.req.param('id'), c.req.param('sid'), c.req.param('subid'))),
    );
  });
  app.delete(`${SUBS}/:subid`, (c) => {
    dashboards.dashboard(c.req.param('id'), 'CAN_READ');
    schedules.unsubscribe(
      c.req.param('id'),
      c.req.param('sid'),
      c.req.param('subid'),
      readQuery(c, s.EtagQuery).etag,
    );
    return c.json({});
  });

  // ---- MiniLake's own -----------------------------------------------------------------------------------
  app.post(`${OWN}/:id/restore`, async (c) =>
    c.json(renderDashboard(await dashboards.restore(c.req.param('id')))),
  );
  app.post(`${OWN}/:id/refresh`, async (c) => {
    dashboards.dashboard(c.req.param('id'), 'CAN_RUN');
    const body = await readJson(c, s.RefreshRequest);
    const r = await d.api.refresh(c.req.param('id'), {
      ...(body.warehouse_id ? { warehouseId: body.warehouse_id } : {}),
      ...(body.notify ? {} : { paused: true }),
    });
    return c.json({ ...r, refresh: { ...r.refresh, time: iso(r.refresh.time) } });
  });
  app.get(`${OWN}/:id/published/content`, (c) => {
    const p = dashboards.published(c.req.param('id'));
    return c.json(
      compact({
        display_name: p.display_name,
        serialized_dashboard: p.serialized_dashboard,
        warehouse_id: p.warehouse_id,
      }),
    );
  });
  app.get(`${OWN}/:id/status`, (c) => {
    const x = dashboards.dashboard(c.req.param('id'), 'CAN_READ');
    const last = x.last_refresh;
    return c.json(
      compact({
        last_refresh: last ? { ...last, time: iso(last.time) } : undefined,
        schedules: store
          .schedulesOf(x.dashboard_id)
          .map((sc) => compact({ ...renderSchedule(sc), last_run_time: iso(sc.last_run_time) } as Json)),
      }),
    );
  });
  app.post(`${OWN}/:id/schedules/:sid/run`, async (c) => {
    dashboards.dashboard(c.req.param('id'), 'CAN_RUN');
    store.schedule(c.req.param('id'), c.req.param('sid'));
    const r = await schedules.fire(c.req.param('sid'));
    return c.json({
      statements: r?.outcome.statements,
      failed: r?.outcome.failed,
      deliveries: r?.deliveries ?? [],
    });
  });
  return app;
}
