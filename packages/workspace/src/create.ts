import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { iamService } from '@minilake/iam';
import { workspaceApp } from './app.js';
import { PERMISSION_TYPES, WorkspaceAccess } from './access.js';
import { canonicalPath, parentOf } from './paths.js';
import { WorkspaceStore, type OwnType } from './store.js';
import type { WorkspaceApi } from './index.js';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createWorkspace(ctx: ServiceContext): ServiceInstance<WorkspaceApi> {
  const iam = ctx.optionalPeer(iamService);
  const store = new WorkspaceStore(ctx.state, {
    clock: ctx.clock,
    dir: ctx.dir,
    userName: ctx.identity.userName,
    ...(iam ? { users: () => iam.userNames() } : {}),
  });
  const caller = () => ctx.principal().userName;
  const access = new WorkspaceAccess(store, iam, caller);
  store.creator = caller;
  if (iam?.enforcing) store.authorizeWrite = (p, existing) => access.checkWrite(p, existing);
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
        {
          exists: (id) => store.hasObject(type, id),
          // A home folder is its user's; everything else inherits from the folders above it.
          owner: (id) => store.ownerOf(type, id),
          parent: (id) => {
            const up = store.parentIdOf(type, id);
            return up === undefined ? undefined : { request: 'directories', id: up };
          },
        },
      );
    // Foreign objects' ACLs belong to their owners' types (an experiment's owner drops it).
    store.onDeleted = (type, id) => {
      const t = PERMISSION_TYPES[type as OwnType];
      if (t) iam.dropPermissions(t.request, id);
    };
  }
  return {
    app: workspaceApp(store, access),
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
      checkCanCreate: (p) => {
        const c = canonicalPath(p);
        // A missing parent is checkFree's 404; no point refusing what cannot exist.
        if (store.folderId(parentOf(c)) !== undefined) access.checkCreate(c);
      },
      holds: (p, level) => access.holds(canonicalPath(p), level),
      addObject: (p, type, id) => store.addForeign(canonicalPath(p), type, id),
      moveObject: (from, to) => store.moveForeign(canonicalPath(from), canonicalPath(to)),
      removeObject: (p, id) => store.removeForeign(canonicalPath(p), id),
      objectAt: (p, type) => store.foreignAt(canonicalPath(p), type),
      list: (p) => store.list(canonicalPath(p)),
    },
  };
}
