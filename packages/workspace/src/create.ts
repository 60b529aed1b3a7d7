import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { iamService } from '@minilake/iam';
import { workspaceApp } from './app.js';
import { canonicalPath } from './paths.js';
import { WorkspaceStore, type BuiltinType } from './store.js';
import type { WorkspaceApi } from './index.js';

/** Each workspace object type's permissions request path and `object_type`, as Databricks names them. */
const PERMISSION_TYPES: Record<BuiltinType, { request: string; objectType: string }> = {
  NOTEBOOK: { request: 'notebooks', objectType: 'notebook' },
  DIRECTORY: { request: 'directories', objectType: 'directory' },
  FILE: { request: 'files', objectType: 'file' },
};

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createWorkspace(ctx: ServiceContext): ServiceInstance<WorkspaceApi> {
  const store = new WorkspaceStore(ctx.state, {
    clock: ctx.clock,
    dir: ctx.dir,
    userName: ctx.identity.userName,
  });
  const iam = ctx.optionalPeer(iamService);
  if (iam) {
    for (const [type, names] of Object.entries(PERMISSION_TYPES) as [
      BuiltinType,
      (typeof PERMISSION_TYPES)[BuiltinType],
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
    // Owned types' ACLs belong to their owners' permissions types (a dashboard's are lakeview's).
    store.onDeleted = (type, id) => {
      const names = PERMISSION_TYPES[type as BuiltinType] as
        (typeof PERMISSION_TYPES)[BuiltinType] | undefined;
      if (names) iam.dropPermissions(names.request, id);
    };
  }
  store.onOwnerError = (type, e) =>
    ctx.logger.warn(`the owner of ${type} objects failed after a workspace delete: ${(e as Error).message}`);
  return {
    app: workspaceApp(store),
    state: [store],
    api: {
      read: async (p) => (await store.export(canonicalPath(p), 'SOURCE')).content,
      getStatus: (p) => store.getStatus(canonicalPath(p)),
      canonicalPath,
      registerObjectType: (type, owner) => store.registerOwnedType(type, owner),
      putObject: (p, entry, opts) => store.putOwned(canonicalPath(p), entry, opts?.overwrite ?? false),
      moveObject: (from, to, entry) => store.moveOwned(canonicalPath(from), canonicalPath(to), entry),
      removeObject: (p, entry) => store.removeOwned(canonicalPath(p), entry),
    },
  };
}
