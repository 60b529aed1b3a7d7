import { defineService } from '@minilake/core';
import { workspaceApp } from './app.js';
import { canonicalPath } from './paths.js';
import { WorkspaceStore } from './store.js';

export { WorkspaceStore } from './store.js';
export type { ObjectInfo, ImportRequest, ObjectType } from './store.js';
export { workspaceApp } from './app.js';

/** What other services (jobs, repos) may use: read workspace files and notebooks. */
export interface WorkspaceApi {
  /** The object's bytes in the given format (SOURCE for notebooks, raw for files). */
  read(path: string): Promise<Buffer>;
  getStatus(path: string): ReturnType<WorkspaceStore['getStatus']>;
}

export const workspaceService = defineService<WorkspaceApi>({
  name: 'workspace',
  description: 'Workspace API and workspace-files: notebooks and files on disk',
  create(ctx) {
    const store = new WorkspaceStore(ctx.state, ctx.clock, ctx.dataDir, ctx.identity.userName);
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
