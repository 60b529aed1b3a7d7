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

const PERMISSION_TYPES: Record<ObjectType, string> = {
  NOTEBOOK: 'notebooks',
  DIRECTORY: 'directories',
  FILE: 'files',
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
      for (const [type, request] of Object.entries(PERMISSION_TYPES) as [ObjectType, string][])
        iam.registerObjectType(request, { exists: (id) => store.hasObject(type, id) });
      store.onDeleted = (type, id) => iam.dropPermissions(PERMISSION_TYPES[type], id);
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
