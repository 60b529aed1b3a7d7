import { defineService } from '@minilake/core';

import type { ForeignObjectType, ObjectInfo, WorkspaceStore } from './store.js';

export type { ObjectInfo, ObjectType, ForeignObjectType } from './store.js';
export type { ImportRequest } from './imports.js';

/** What other services (jobs, repos) may use: read workspace files and notebooks. */
export interface WorkspaceApi {
  /** The object's bytes in the given format (SOURCE for notebooks, raw for files). */
  read(path: string): Promise<Buffer>;
  getStatus(path: string): ReturnType<WorkspaceStore['getStatus']>;
  /** A path in the workspace's canonical form (absolute, no `/Workspace` prefix); 400 when it is not valid. */
  canonicalPath(path: string): string;
  /** Copies a folder's files and notebooks (as SOURCE files with their extension) into a local folder. */
  copyTree(path: string, dest: string): Promise<void>;
  /**
   * Git folders (the repos service): `mountRepo` makes `path` a folder of type REPO (object_id `repoId`)
   * holding a copy of the checkout `tree`, replacing that repo's earlier content; `unmountRepo` removes it.
   * `onRepoDeleted` is told when a client deletes a Git folder through this API.
   */
  mountRepo(path: string, repoId: number, tree: string): Promise<ObjectInfo>;
  unmountRepo(path: string, repoId: number): Promise<void>;
  onRepoDeleted(listener: (repoId: number) => void): void;
  /**
   * Objects another service owns (an MLflow experiment at `/Users/me/exp`, a Lakeview dashboard at
   * `<folder>/<name>.lvdash.json`): the workspace lists them with their `object_type`, refuses to put anything
   * else at their path, and moves and deletes them with the tree. Register the type once (from create), then
   * add, move and remove its objects as they change. A type whose content is a file (dashboards) also gives
   * `importSuffix`, `import` and `export`: importing such a file creates or overwrites one, exporting it gives
   * the owner's content.
   */
  registerObjectType(type: string, owner: ForeignObjectType): void;
  /** Throws the workspace's error when `path` cannot take a new object (no parent folder, something there). */
  checkFree(path: string): void;
  /**
   * Throws 403 PERMISSION_DENIED when the caller may not create an object at `path` (MINILAKE_ENFORCE=1): it
   * needs Can Manage on the parent folder, which a user has on their home folder and everything in it,
   * `admins` everywhere, and everyone in `/Shared`. Passes everything when permissions are not enforced.
   */
  checkCanCreate(path: string): void;
  /**
   * Whether the caller holds `level` (CAN_READ, CAN_RUN, CAN_EDIT, CAN_MANAGE) on the object at `path`, by
   * the tree's rules (grants inherited down folders, home folders, `/Shared` everyone's, admins, creators);
   * true without MINILAKE_ENFORCE=1 or with nothing at `path`. For objects kept elsewhere that inherit their
   * folder's grants (experiments).
   */
  holds(path: string, level: 'CAN_READ' | 'CAN_RUN' | 'CAN_EDIT' | 'CAN_MANAGE'): boolean;
  addObject(path: string, type: string, resourceId: string): Promise<ObjectInfo>;
  moveObject(from: string, to: string): Promise<void>;
  /** Forgets the object (deleted by its owner); nothing happens when another object is at that path now. */
  removeObject(path: string, resourceId: string): Promise<void>;
  /** The object of that type at `path`, if any. */
  objectAt(path: string, type: string): ObjectInfo | undefined;
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
