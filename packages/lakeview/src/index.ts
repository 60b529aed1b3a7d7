import { defineService } from '@minilake/core';
import type { RefreshOutcome, Subscriber } from './refresh.js';

export type { RefreshOutcome, Subscriber } from './refresh.js';

/** What other services may use: jobs' dashboard_task refreshes a dashboard and notifies its subscribers. */
export interface LakeviewApi {
  /**
   * Runs every widget's statements (the published revision when there is one) on `warehouseId` or the
   * dashboard's warehouse, records the refresh, then notifies `subscribers` (unless `paused`).
   * 404 for an unknown dashboard, 400 for a trashed one or one without a warehouse.
   */
  refresh(
    dashboardId: string,
    opts?: {
      warehouseId?: string;
      /** dashboard_task `filters`: values by filter widget name (a JSON array for multi-select). */
      filters?: Record<string, string>;
      subscribers?: Subscriber[];
      customSubject?: string;
      paused?: boolean;
    },
  ): Promise<RefreshOutcome & { deliveries: { delivered: boolean; detail: string }[] }>;
}

export const lakeviewService = defineService<LakeviewApi>({
  name: 'lakeview',
  description:
    'AI/BI (Lakeview) dashboards: drafts, published revisions, schedules and subscriptions, refresh',
  uses: ['sql', 'workspace'],
  // iam: the `dashboards` permissions type; workspace-admin: the notification destinations subscribers are;
  // sql-objects: the legacy dashboards migrate reads.
  optionalUses: ['iam', 'workspace-admin', 'sql-objects'],
  paths: ['/api/2.0/lakeview', '/_minilake/lakeview', '/api/2.0/permissions/dashboards'],
  async create(ctx) {
    return (await import('./create.js')).createLakeview(ctx);
  },
});
