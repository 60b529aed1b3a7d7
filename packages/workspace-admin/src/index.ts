import { defineService } from '@minilake/core';
import { workspaceAdminApp } from './app.js';
import { isConfKey, SETTING_BY_TYPE } from './catalog.js';
import { WorkspaceAdminStore } from './store.js';

export { WorkspaceAdminStore, type DeliveryTarget } from './store.js';
import type { DeliveryTarget } from './store.js';
export { workspaceAdminApp } from './app.js';

/** What other services may read: workspace-conf values and the workspace's default namespace. */
export interface WorkspaceAdminApi {
  conf(key: string): string | null;
  /** The default catalog set through the default_namespace_ws setting, if any. */
  defaultNamespace(): string | undefined;
  /** Where a notification to this destination goes (404 DatabricksError when it does not exist). */
  deliveryTarget(id: string): DeliveryTarget;
}

export const workspaceAdminService = defineService<WorkspaceAdminApi>({
  name: 'workspace-admin',
  description:
    'Workspace conf, IP access lists, git credentials, global init scripts, notification destinations, settings',
  create(ctx) {
    // The delivery key sits beside the state it seals, so the two move together (in memory without persistence).
    const store = new WorkspaceAdminStore(
      ctx.state,
      ctx.clock,
      ctx.identity,
      ctx.state.dir ? { keyDir: ctx.state.dir } : {},
    );
    return {
      app: workspaceAdminApp(store),
      state: [store],
      api: {
        deliveryTarget: (id) => store.deliveryTarget(id),
        conf: (key) => (isConfKey(key) ? (store.getConf(key)[key] ?? null) : null),
        defaultNamespace: () => {
          try {
            const s = store.getSetting(SETTING_BY_TYPE.get('default_namespace_ws')!);
            return (s.namespace as { value?: string }).value;
          } catch {
            return undefined;
          }
        },
      },
    };
  },
});
