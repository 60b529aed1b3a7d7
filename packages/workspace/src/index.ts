import { defineService } from '@minilake/core';
import type { IamApi } from '@minilake/iam';
import { workspaceApp } from './app.js';
import { canonicalPath } from './paths.js';
import { WorkspaceStore, type ObjectType } from './store.js';

export { WorkspaceStore } from './store.js';
export type { ObjectInfo, ImportRequest, ObjectType } from './store.js';
export { workspaceApp } from './app.js';

/** What other services (jobs, repos) may use: read workspace files and notebooks. */
export interface WorkspaceApi {
  /** The object's bytes in the given format (SOURCE for notebooks, raw for files). */
  read(path: string): Promise<Buffer>;
  getStatus(path: string): ReturnType<WorkspaceStore['getStatus']>;
}

/** Each workspace object type's permissions request path and `object_type`, as Databricks names them. */
const PERMISSION_TYPES: Record<ObjectType, { request: string; objectType: string }> = {
  NOTEBOOK: { request: 'notebooks', objectType: 'notebook' },
  DIRECTORY: { request: 'directories', objectType: 'directory' },
  FILE: { request: 'files', objectType: 'file' },
};

export const workspaceService = defineService<WorkspaceApi>({
  name: 'workspace',
  description: 'Workspace API and workspace-files: notebooks and files on disk',
  // With iam the permissions API answers 404 for a notebook, folder or file id that does not exist, and
  // forgets an ACL when its object is deleted.
  optionalUses: ['iam'],
  create(ctx) {
    const store = new WorkspaceStore(ctx.state, {
      clock: ctx.clock,
      dir: ctx.dir,
      userName: ctx.identity.userName,
    });
    const iam = ctx.optionalPeer<IamApi>('iam');
    if (iam) {
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
      api: {
        read: async (p) => (await store.export(canonicalPath(p), 'SOURCE')).content,
        getStatus: (p) => store.getStatus(canonicalPath(p)),
      },
    };
  },
});
