/**
 * Object permissions on the workspace tree (MINILAKE_ENFORCE=1), after Databricks' folder and notebook ACL
 * tables. The levels, grants, groups, admins and inheritance are iam's (IamApi.can walks up the folders);
 * this module only says which level each operation needs and what the tree grants by default:
 *
 * - CAN_READ: get-status, export, list (a folder the caller may not read is a 403; a readable folder lists
 *   only the children the caller may read), workspace-files reads.
 * - CAN_EDIT: overwriting an existing notebook or file.
 * - CAN_MANAGE: creating an object in a folder (import, import-file, mkdirs: on the nearest folder that
 *   exists; Databricks' "Create, import, and delete items" is Can Manage's, and MLflow experiments are
 *   created under the same rule), delete, and the object's permissions (iam checks those itself).
 * - A user's home folder `/Users/<name>` is theirs (Can Manage), the creator of an object manages it,
 *   everyone manages `/Shared` and everything in it (Databricks grants `users` Can Manage there, and an
 *   inherited level cannot be taken away below it), everyone may read `/` and `/Users` themselves (to list
 *   what they can see in them), admins everything.
 */
import type { IamApi } from '@minilake/iam';
import { noPermission } from './errors.js';
import type { OwnType, WorkspaceStore } from './store.js';

/** Each workspace object type's permissions request path, `object_type` and refusal noun, as Databricks names them. */
export const PERMISSION_TYPES: Record<OwnType, { request: string; objectType: string }> = {
  NOTEBOOK: { request: 'notebooks', objectType: 'notebook' },
  DIRECTORY: { request: 'directories', objectType: 'directory' },
  FILE: { request: 'files', objectType: 'file' },
};

export type WorkspaceLevel = 'CAN_READ' | 'CAN_RUN' | 'CAN_EDIT' | 'CAN_MANAGE';
const WORDS: Record<WorkspaceLevel, string> = {
  CAN_READ: 'Read',
  CAN_RUN: 'Run',
  CAN_EDIT: 'Edit',
  CAN_MANAGE: 'Manage',
};

const inShared = (p: string) => p === '/Shared' || p.startsWith('/Shared/');

export class WorkspaceAccess {
  constructor(
    private readonly store: WorkspaceStore,
    private readonly iam: IamApi | undefined,
    private readonly caller: () => string,
  ) {}

  /** Whether the caller holds `level` on the object at `p` (true for a path with nothing there). */
  holds(p: string, level: WorkspaceLevel): boolean {
    if (!this.iam?.enforcing || inShared(p)) return true;
    if ((p === '/' || p === '/Users') && level === 'CAN_READ') return true;
    const acl = this.store.aclOf(p);
    return !acl || this.iam.can(PERMISSION_TYPES[acl.type].request, acl.id, level);
  }

  /** Throws 403 PERMISSION_DENIED unless the caller holds `level` on `p`; `shown`: the path as the client gave it. */
  check(p: string, level: WorkspaceLevel, shown = p): void {
    if (this.holds(p, level)) return;
    const acl = this.store.aclOf(p);
    const noun = acl ? PERMISSION_TYPES[acl.type].objectType : 'directory';
    throw noPermission(this.caller(), WORDS[level], noun, shown);
  }

  /**
   * Creating `p` (and any missing folders above it): Can Manage on the nearest folder that exists. Nothing
   * to check when `p` exists already (mkdirs of an existing folder is a no-op).
   */
  checkCreate(p: string): void {
    const at = this.store.nearestExisting(p);
    if (at === p) return;
    this.check(at, 'CAN_MANAGE');
  }

  /** An import writing `p`: Can Edit to replace an object, Can Manage on the folder to create one. */
  checkWrite(p: string, existing: boolean): void {
    if (existing) this.check(p, 'CAN_EDIT');
    else this.checkCreate(p);
  }
}
