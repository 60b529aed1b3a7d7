import { defineService } from '@minilake/core';

import type { WorkspaceStore } from './store.js';

import type { OwnedEntry, OwnedObjectType } from './owned.js';
import type { ObjectInfo } from './store.js';

export type { ObjectInfo, ImportRequest, ObjectType } from './store.js';
export type { OwnedEntry, OwnedObjectType } from './owned.js';

/**
 * What other services may use: read workspace files and notebooks (jobs, repos), and keep the entries of
 * objects they own in the tree (dashboards, MLflow experiments; see owned.ts and the README).
 */
export interface WorkspaceApi {
  /** The object's bytes in the given format (SOURCE for notebooks, raw for files, an owned object's export). */
  read(path: string): Promise<Buffer>;
  getStatus(path: string): ReturnType<WorkspaceStore['getStatus']>;
  /** A client path in canonical form (`/Workspace` prefix dropped, escapes refused): 400 when it is not one. */
  canonicalPath(path: string): string;
  /** Declares this service the owner of an object type (once, from its create). */
  registerObjectType(type: string, owner: OwnedObjectType): void;
  /**
   * Places an owned object's entry at `path` (canonical): 404 RESOURCE_DOES_NOT_EXIST when the parent folder is
   * missing, 409 RESOURCE_ALREADY_EXISTS when another object is there (unless `overwrite`; a folder is never
   * replaced). Placing the same object again refreshes its entry.
   */
  putObject(path: string, entry: OwnedEntry, opts?: { overwrite?: boolean }): Promise<ObjectInfo>;
  /** Moves an owned object's entry (a rename), keeping its object id; the same errors as putObject. */
  moveObject(from: string, to: string, entry: OwnedEntry): Promise<ObjectInfo>;
  /** Removes an owned object's entry if `path` still holds it (the owner deleted or trashed the object). */
  removeObject(path: string, entry: OwnedEntry): Promise<void>;
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
