import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { iamService } from '@minilake/iam';
import { workspaceApp } from './app.js';
import { canonicalPath } from './paths.js';
import { WorkspaceStore, type ObjectType } from './store.js';
import type { WorkspaceApi } from './index.js';

/** Each workspace object type's permissions request path and `object_type`, as Databricks names them. */
const PERMISSION_TYPES: Record<ObjectType, { request: string; objectType: string }> = {
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
      ObjectType,
      (typeof PERMISSION_TYPES)[ObjectType],
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
    store.onDeleted = (type, id) => iam.dropPermissions(PERMISSION_TYPES[type].request, id);
  }
  return {
    app: workspaceApp(store),
    state: [store],
    afterReset: () => store.ensureHomes(),
    api: {
      read: async (p) => (await store.export(canonicalPath(p), 'SOURCE')).content,
      getStatus: (p) => store.getStatus(canonicalPath(p)),
    },
  };
}
