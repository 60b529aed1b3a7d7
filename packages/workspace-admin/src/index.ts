import { defineService } from '@minilake/core';
import { workspaceAdminApp } from './app.js';
import { isConfKey, SETTING_BY_TYPE } from './catalog.js';
import { WorkspaceAdminStore } from './store.js';

export { WorkspaceAdminStore } from './store.js';
export { workspaceAdminApp } from './app.js';

/** What other services may read: workspace-conf values and the workspace's default namespace. */
export interface WorkspaceAdminApi {
  conf(key: string): string | null;
  /** The default catalog set through the default_namespace_ws setting, if any. */
  defaultNamespace(): string | undefined;
}

export const workspaceAdminService = defineService<WorkspaceAdminApi>({
  name: 'workspace-admin',
  description:
    'Workspace conf, IP access lists, git credentials, global init scripts, notification destinations, settings',
  create(ctx) {
    const store = new WorkspaceAdminStore(ctx.state, ctx.clock, ctx.identity);
    return {
      app: workspaceAdminApp(store),
      state: [store],
      api: {
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
