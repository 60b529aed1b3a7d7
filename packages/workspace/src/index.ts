import { defineService } from '@minilake/core';

import type { WorkspaceStore } from './store.js';

export type { ObjectInfo, ImportRequest, ObjectType } from './store.js';

/** What other services (jobs, repos) may use: read workspace files and notebooks. */
export interface WorkspaceApi {
  /** The object's bytes in the given format (SOURCE for notebooks, raw for files). */
  read(path: string): Promise<Buffer>;
  getStatus(path: string): ReturnType<WorkspaceStore['getStatus']>;
  /** A folder's children (an object itself when it is not a folder), as `workspace/list` answers. */
  list(path: string): ReturnType<WorkspaceStore['list']>;
}

export const workspaceService = defineService<WorkspaceApi>({
  name: 'workspace',
  description: 'Workspace API and workspace-files: notebooks and files on disk',
  // With iam the permissions API answers 404 for a notebook, folder or file id that does not exist, and
  // forgets an ACL when its object is deleted.
  optionalUses: ['iam'],
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: [
    '/api/2.0/workspace',
    '/api/2.0/workspace-files',
    '/api/2.0/permissions/notebooks',
    '/api/2.0/permissions/directories',
    '/api/2.0/permissions/files',
  ],
  async create(ctx) {
    return (await import('./create.js')).createWorkspace(ctx);
  },
});
