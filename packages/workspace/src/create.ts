import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { iamService } from '@minilake/iam';
import { workspaceApp } from './app.js';
import { canonicalPath } from './paths.js';
import { WorkspaceStore, type OwnType } from './store.js';
import type { WorkspaceApi } from './index.js';

/** Each workspace object type's permissions request path and `object_type`, as Databricks names them. */
const PERMISSION_TYPES: Record<OwnType, { request: string; objectType: string }> = {
  NOTEBOOK: { request: 'notebooks', objectType: 'notebook' },
  DIRECTORY: { request: 'directories', objectType: 'directory' },
  FILE: { request: 'files', objectType: 'file' },
};

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createWorkspace(ctx: ServiceContext): ServiceInstance<WorkspaceApi> {
  const iam = ctx.optionalPeer(iamService);
  const store = new WorkspaceStore(ctx.state, {
    clock: ctx.clock,
    dir: ctx.dir,
    userName: ctx.identity.userName,
    ...(iam ? { users: () => iam.userNames() } : {}),
  });
  if (iam) {
    iam.onUserCreated((userName) => store.ensureHome(userName));
    for (const [type, names] of Object.entries(PERMISSION_TYPES) as [
      OwnType,
      (typeof PERMISSION_TYPES)[OwnType],
    ][])
      iam.registerObjectType(
        {
          ...names,
          levels: ['CAN_READ', 'CAN_RUN', 'CAN_EDIT', 'CAN_MANAGE'],
          owner: 'CAN_MANAGE',
          admins: 'CAN_MANAGE',
          // admins manage the whole tree from its root folder
          adminsFrom: '/directories/0',
        },
        { exists: (id) => store.hasObject(type, id) },
      );
    // Foreign objects' ACLs belong to their owners' types (an experiment's owner drops it).
    store.onDeleted = (type, id) => {
      const t = PERMISSION_TYPES[type as OwnType];
      if (t) iam.dropPermissions(t.request, id);
    };
  }
  return {
    app: workspaceApp(store),
    state: [store],
    afterReset: () => store.ensureHomes(),
    api: {
      read: async (p) => (await store.export(canonicalPath(p), 'SOURCE')).content,
      getStatus: (p) => store.getStatus(canonicalPath(p)),
      canonicalPath,
      copyTree: (p, dest) => store.copyTree(canonicalPath(p), dest),
      mountRepo: (p, id, tree) => store.mountRepo(canonicalPath(p), id, tree),
      unmountRepo: (p, id) => store.unmountRepo(canonicalPath(p), id),
      onRepoDeleted: (listener) => {
        store.onRepoDeleted = listener;
      },
      registerObjectType: (type, owner) => store.registerForeignType(type, owner),
      checkFree: (p) => store.checkFree(canonicalPath(p)),
      addObject: (p, type, id) => store.addForeign(canonicalPath(p), type, id),
      moveObject: (from, to) => store.moveForeign(canonicalPath(from), canonicalPath(to)),
      removeObject: (p, id) => store.removeForeign(canonicalPath(p), id),
      objectAt: (p, type) => store.foreignAt(canonicalPath(p), type),
      list: (p) => store.list(canonicalPath(p)),
    },
  };
}
