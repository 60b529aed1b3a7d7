import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { iamService, objectAccess } from '@minilake/iam';
import { sqlService } from '@minilake/sql';
import { sqlObjectsService } from '@minilake/sql-objects';
import { workspaceService } from '@minilake/workspace';
import { workspaceAdminService } from '@minilake/workspace-admin';
import { lakeviewApp } from './app.js';
import { DASHBOARD, Dashboards, type DashboardLevel } from './dashboards.js';
import type { Selections } from './plan.js';
import { notifySubscribers, refreshDashboard, type RefreshDeps } from './refresh.js';
import { Schedules } from './schedules.js';
import { LakeviewStore } from './store.js';
import type { LakeviewApi } from './index.js';

/**
 * dashboard_task `filters` (values by filter name) as selections: a JSON array for multi-select, a JSON
 * object `{start, end}` for ranges, anything else one value.
 */
export function selectionsFromTaskFilters(filters: Record<string, string>): Selections {
  const out: Selections = {};
  for (const [name, raw] of Object.entries(filters)) {
    let parsed: unknown = raw;
    if (/^\s*[[{]/.test(raw)) {
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = raw;
      }
    }
    if (Array.isArray(parsed)) out[name] = { values: parsed.map((x) => (x === null ? null : String(x))) };
    else if (parsed && typeof parsed === 'object') {
      const r = parsed as { start?: unknown; end?: unknown };
      out[name] = {
        range: {
          ...(r.start !== undefined ? { min: String(r.start) } : {}),
          ...(r.end !== undefined ? { max: String(r.end) } : {}),
        },
      };
    } else out[name] = { values: [String(parsed)] };
  }
  return out;
}

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createLakeview(ctx: ServiceContext): ServiceInstance<LakeviewApi> {
  const sql = ctx.peer(sqlService);
  const workspace = ctx.peer(workspaceService);
  const admin = ctx.optionalPeer(workspaceAdminService);
  const sqlObjects = ctx.optionalPeer(sqlObjectsService);
  const legacy = {
    dashboard: sqlObjects && ((id: string) => sqlObjects.legacyDashboard(id)),
    dataSources: () => sql.dataSources(),
  };
  const store = new LakeviewStore(ctx.state, { clock: ctx.clock });
  const deps: RefreshDeps = {
    store,
    statements: sql.statements,
    clock: ctx.clock,
    logger: ctx.logger,
    ...(admin ? { deliver: (id: string, payload: unknown) => admin.deliver(id, payload) } : {}),
    selfUrl: () => ctx.selfUrl(),
  };
  const userId = Number(ctx.identity.userId) || 1;
  // Created before the dashboards, which tell it when one is trashed or restored (its timers follow).
  const schedules = new Schedules(store, {
    ...deps,
    userId,
    userNameOf: (id) => (id === userId ? ctx.identity.userName : undefined),
  });
  const iam = ctx.optionalPeer(iamService);
  const access = objectAccess<DashboardLevel>(iam, 'dashboards');
  const dashboards = new Dashboards(store, workspace, {
    clock: ctx.clock,
    // Read per use: the request's principal (MINILAKE_AUTH=tokens) creates the dashboard (in its home).
    get userName() {
      return ctx.principal().userName;
    },
    onChanged: (id) => schedules.dashboardChanged(id),
    // MINILAKE_ENFORCE=1: the caller's level on a dashboard, through iam's one evaluation.
    ...(access ? { access } : {}),
  });
  workspace.registerObjectType(DASHBOARD, dashboards.workspaceHooks());
  iam?.registerObjectType(
    {
      request: 'dashboards',
      objectType: 'dashboard',
      levels: ['CAN_READ', 'CAN_RUN', 'CAN_EDIT', 'CAN_MANAGE'],
      owner: 'CAN_MANAGE',
      admins: 'CAN_MANAGE',
    },
    {
      exists: (id) => store.dashboards.get(id)?.lifecycle_state === 'ACTIVE',
      // The creator manages it; a dashboard stored before creators were kept: the configured user's.
      owner: (id) => {
        const d = store.dashboards.get(id);
        return d && (d.creator_user_name ?? ctx.identity.userName);
      },
    },
  );

  const api: LakeviewApi = {
    async refresh(id, opts = {}) {
      const outcome = await refreshDashboard(deps, id, {
        warehouseId: opts.warehouseId,
        selections: opts.filters ? selectionsFromTaskFilters(opts.filters) : {},
      });
      const subscribers = opts.paused ? [] : (opts.subscribers ?? []);
      const deliveries = subscribers.length
        ? await notifySubscribers(
            deps,
            store.dashboard(id),
            outcome,
            subscribers,
            opts.customSubject ? { subject: opts.customSubject } : {},
          )
        : [];
      return { ...outcome, deliveries };
    },
  };
  return {
    app: lakeviewApp({ store, dashboards, schedules, api, legacy }),
    state: [store],
    api,
    // Schedules are timers over the store's records, not state: stopped before it empties, armed again for
    // the schedules a snapshot brings back.
    beforeReset: () => schedules.close(),
    afterRestore: () => {
      for (const id of store.schedules.keys()) schedules.arm(id);
    },
    close: () => schedules.close(),
  };
}
