import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { workspaceAdminApp } from './app.js';
import { isConfKey, SETTING_BY_TYPE } from './catalog.js';
import { deliver } from './deliver.js';
import { WorkspaceAdminStore } from './store.js';
import type { WorkspaceAdminApi } from './index.js';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createWorkspaceAdmin(ctx: ServiceContext): ServiceInstance<WorkspaceAdminApi> {
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
      deliver: (id, payload) => deliver(store.deliveryTarget(id), payload),
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
}
