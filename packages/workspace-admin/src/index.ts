import { defineService } from '@minilake/core';

export type { DeliveryTarget } from './store.js';
export type { Delivery } from './deliver.js';
import type { Delivery } from './deliver.js';
import type { DeliveryTarget } from './store.js';

/** What other services may read: workspace-conf values and the workspace's default namespace. */
export interface WorkspaceAdminApi {
  conf(key: string): string | null;
  /** The default catalog set through the default_namespace_ws setting, if any. */
  defaultNamespace(): string | undefined;
  /** Where a notification to this destination goes (404 DatabricksError when it does not exist). */
  deliveryTarget(id: string): DeliveryTarget;
  /**
   * Sends `payload` (JSON) to the destination: a webhook gets a real POST, other kinds are reported as not
   * delivered. Never throws for a failed delivery; 404 DatabricksError for a destination that does not exist.
   */
  deliver(id: string, payload: unknown): Promise<Delivery>;
}

export const workspaceAdminService = defineService<WorkspaceAdminApi>({
  name: 'workspace-admin',
  description:
    'Workspace conf, IP access lists, git credentials, global init scripts, notification destinations, settings',
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: [
    '/api/2.0/workspace-conf',
    '/api/2.0/ip-access-lists',
    '/api/2.0/git-credentials',
    '/api/2.0/global-init-scripts',
    '/api/2.0/notification-destinations',
    '/api/2.0/settings',
  ],
  async create(ctx) {
    return (await import('./create.js')).createWorkspaceAdmin(ctx);
  },
});
