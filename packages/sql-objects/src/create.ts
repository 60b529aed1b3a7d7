import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { iamService, objectAccess } from '@minilake/iam';
import { sqlService } from '@minilake/sql';
import { workspaceService } from '@minilake/workspace';
import { workspaceAdminService } from '@minilake/workspace-admin';
import { ALERT_V2, AlertFiles } from './alert-files.js';
import { AlertsV2, alertsV2App, AlertsV2Service, type AlertsV2Deps, type AlertV2Level } from './alerts-v2.js';
import { sqlObjectsApp } from './app.js';
import { evaluateAlert, type EvaluatorDeps } from './evaluate.js';
import { SqlObjectsService, type SqlObjectLevel } from './service.js';
import { SqlObjectsStore } from './store.js';
import type { SqlObjectsApi } from './index.js';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createSqlObjects(ctx: ServiceContext): ServiceInstance<SqlObjectsApi> {
  const sql = ctx.peer(sqlService);
  const admin = ctx.optionalPeer(workspaceAdminService);
  const store = new SqlObjectsStore({
    db: ctx.state,
    clock: ctx.clock,
    // Read per use: the request's principal (MINILAKE_AUTH=tokens) creates and owns; the configured user
    // outside a request.
    get user() {
      return ctx.principal().userName;
    },
  });
  const evaluator: EvaluatorDeps = {
    store,
    statements: sql.statements,
    clock: ctx.clock,
    logger: ctx.logger,
    ...(admin ? { deliveryTarget: (id: string) => admin.deliveryTarget(id) } : {}),
  };

  // Evaluations the clock started, so idle() can wait for them (a test steps the clock, then waits).
  const inFlight = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const idle = async () => {
    while (inFlight.size > 0) await Promise.allSettled(inFlight);
  };

  // A legacy query's refresh schedule (`schedule.interval`, seconds) re-evaluates the alerts on it, on the
  // injectable clock, as Databricks SQL did before alerts had schedules of their own.
  const timers = new Map<string, () => void>();
  const arm = (id: string) => {
    timers.get(id)?.();
    timers.delete(id);
    const q = store.queries.get(id);
    const interval = Number(
      (q?.legacy?.schedule as { interval?: unknown } | null | undefined)?.interval ?? 0,
    );
    if (!q || q.trashed_at !== undefined || !(interval > 0)) return;
    timers.set(
      id,
      ctx.clock.setTimeout(() => {
        const alerts = [...store.alerts.values()].filter(
          (a) => a.query_id === id && a.trashed_at === undefined,
        );
        track(
          (async () => {
            for (const a of alerts) {
              await evaluateAlert(evaluator, a.id).catch((e: Error) =>
                ctx.logger.warn(`scheduled evaluation of alert ${a.id} failed: ${e.message}`),
              );
            }
            if (timers.has(id)) arm(id);
          })(),
        );
      }, interval * 1000),
    );
  };
  const disarmAll = () => {
    for (const cancel of timers.values()) cancel();
    timers.clear();
  };
  for (const id of store.queries.keys()) arm(id);

  const iam = ctx.optionalPeer(iamService);
  const levels = ['CAN_VIEW', 'CAN_RUN', 'CAN_EDIT', 'CAN_MANAGE', 'IS_OWNER'];
  iam?.registerObjectType(
    {
      request: ['queries', 'sql/queries'],
      objectType: 'query',
      levels,
      owner: 'IS_OWNER',
      admins: 'CAN_MANAGE',
    },
    {
      exists: (id) => store.queries.get(id)?.trashed_at === undefined && store.queries.has(id),
      owner: (id) => store.queries.get(id)?.owner_user_name,
    },
  );
  iam?.registerObjectType(
    {
      request: ['alerts', 'sql/alerts'],
      objectType: 'alert',
      levels,
      owner: 'IS_OWNER',
      admins: 'CAN_MANAGE',
    },
    {
      exists: (id) => store.alerts.has(id) && store.alerts.get(id)?.trashed_at === undefined,
      owner: (id) => store.alerts.get(id)?.owner_user_name,
    },
  );
  iam?.registerObjectType(
    {
      request: ['dbsql-dashboards', 'sql/dashboards'],
      objectType: 'dashboard',
      levels,
      owner: 'IS_OWNER',
      admins: 'CAN_MANAGE',
    },
    {
      exists: (id) => store.dashboards.has(id) && store.dashboards.get(id)?.trashed_at === undefined,
      owner: (id) => store.dashboards.get(id)?.user,
    },
  );

  // Alerts V2 are their own permission object type (`permissions get alertsv2 <id>` in the CLI's goldens).
  iam?.registerObjectType(
    {
      request: 'alertsv2',
      objectType: 'alertv2',
      levels: ['CAN_READ', 'CAN_RUN', 'CAN_EDIT', 'CAN_MANAGE'],
      owner: 'CAN_MANAGE',
      admins: 'CAN_MANAGE',
    },
    {
      exists: (id) => store.alertsV2.get(id)?.trashed_at === undefined && store.alertsV2.has(id),
      owner: (id) => store.alertsV2.get(id)?.owner_user_name,
    },
  );
  const v2deps: AlertsV2Deps = { ...evaluator, warehouseExists: (id) => sql.warehouseExists(id), track };
  const alertsV2 = new AlertsV2(v2deps);
  // Each alert is also its `.dbalert.json` in the workspace, when the workspace runs.
  const workspace = ctx.optionalPeer(workspaceService);
  const files =
    workspace &&
    new AlertFiles({
      workspace,
      home: `/Users/${ctx.identity.userName}`,
      alert: (id) => store.alertsV2.get(id),
      trash: (id) => alertsV2.markTrashed(id),
    });
  if (workspace && files) workspace.registerObjectType(ALERT_V2, files.hooks());
  const service = new SqlObjectsService({
    store,
    statements: sql.statements,
    evaluator,
    warehouseExists: (id) => sql.warehouseExists(id),
    dataSources: () => sql.dataSources(),
    userId: Number(ctx.identity.userId) || 1,
    onQueryChanged: arm,
    // MINILAKE_ENFORCE=1: the caller's level on a query, alert or legacy dashboard, through iam's one evaluation.
    ...(iam?.enforcing
      ? {
          access: {
            queries: objectAccess<SqlObjectLevel>(iam, 'queries')!,
            alerts: objectAccess<SqlObjectLevel>(iam, 'alerts')!,
            'dbsql-dashboards': objectAccess<SqlObjectLevel>(iam, 'dbsql-dashboards')!,
          },
        }
      : {}),
  });
  const app = sqlObjectsApp(service);
  app.route(
    '/',
    alertsV2App(new AlertsV2Service(v2deps, alertsV2, files, objectAccess<AlertV2Level>(iam, 'alertsv2'))),
  );
  return {
    app,
    state: [store],
    api: {
      runQuery: (id, opts) => service.runQuery(id, opts),
      evaluateAlert: (id, opts) => service.evaluateAlert(id, opts),
      legacyDashboard: (id) => service.getDashboard(id),
      idle,
    },
    // Schedules are timers over the store's records: stopped before it empties, armed again for the
    // records a snapshot brings back.
    beforeReset: () => {
      disarmAll();
      alertsV2.close();
    },
    afterRestore: () => {
      for (const id of store.queries.keys()) arm(id);
      for (const id of store.alertsV2.keys()) alertsV2.arm(id);
    },
    close: () => {
      disarmAll();
      alertsV2.close();
    },
  };
}
