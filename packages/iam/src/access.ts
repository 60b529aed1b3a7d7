/**
 * The one evaluation of object permissions (MINILAKE_ENFORCE=1): does a principal hold at least a level on
 * an object. Services ask it through IamApi.can / check; the rules live only here.
 *
 * - `admins` members pass everything (Databricks' workspace admins manage every object).
 * - A principal's level is the strongest of the entries naming it: itself (user by userName, service
 *   principal by applicationId), any group it belongs to (nested groups are already expanded in
 *   Principal.groups), and `users`, which every principal of the workspace belongs to.
 * - The creator holds the type's owner level until an ACL is set (the default ACL, as Databricks sets it at
 *   create); the stored ACL otherwise.
 * - Objects inherit their parent's grants (a workspace object its folders'), walking up to the top.
 * - Levels are ordered per type (ObjectTypeDefinition.order): a stronger level grants the weaker ones.
 */
import { permissionDenied, type Principal } from '@minilake/core';
import type { PermissionType, PermissionTypes } from './permission-types.js';
import type { AclEntry, PermissionsStore } from './permissions.js';

/** iam's generic words for levels in refusals, for types that do not declare Databricks' own (`refusal`). */
const WORDS: Record<string, string> = {
  IS_OWNER: 'Owner',
  CAN_MANAGE_RUN: 'Manage Run',
  CAN_ATTACH_TO: 'Attach To',
};
const word = (level: string) =>
  WORDS[level] ??
  level
    .replace(/^CAN_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, sep: string, c: string) => (sep ? ' ' : '') + c.toUpperCase());

/** The levels a refusal names as sufficing, in the words and order the type's refusals use. */
function levelWords(type: PermissionType, level: string): string[] {
  if (type.refusal) {
    const need = type.rank[level]!;
    return type.refusal.order.filter((l) => type.rank[l]! >= need).map((l) => type.refusal!.words[l]!);
  }
  const words = [word(level)];
  if ('IS_OWNER' in type.rank && level !== 'IS_OWNER') words.push(word('IS_OWNER'));
  words.push('Admin');
  return words;
}

export class Access {
  constructor(
    private readonly types: PermissionTypes,
    private readonly perms: PermissionsStore,
  ) {}

  /** The strongest level `who` holds on the object, through grants and inheritance; 'ADMIN' for admins. */
  level(who: Principal, request: string, id: string): string | undefined {
    if (who.groups.includes('admins')) return 'ADMIN';
    const type = this.type(request);
    let best: string | undefined;
    const seen = new Set<string>();
    let at: { type: PermissionType; id: string } | undefined = { type, id };
    while (at && !seen.has(`${at.type.request}:${at.id}`)) {
      seen.add(`${at.type.request}:${at.id}`);
      for (const e of this.perms.entries(at.type, at.id)) {
        if (!matches(who, e)) continue;
        // An inherited level counts at the object's own rank when the parent's type names it too.
        const rank = type.rank[e.level];
        if (rank !== undefined && (best === undefined || rank > type.rank[best]!)) best = e.level;
      }
      const up: { request: string; id: string } | undefined = at.type.hooks?.parent?.(at.id);
      const upType: PermissionType | undefined = up && this.types.get(up.request);
      at = up && upType ? { type: upType, id: up.id } : undefined;
    }
    return best;
  }

  /** Whether `who` holds at least `level` on the object (an unknown level is a bug in the caller). */
  can(who: Principal, request: string, id: string, level: string): boolean {
    const type = this.type(request);
    const need = type.rank[level];
    if (need === undefined) throw new Error(`${level} is not a level of ${type.objectType}`);
    const held = this.level(who, request, id);
    return held === 'ADMIN' || (held !== undefined && type.rank[held]! >= need);
  }

  /**
   * Throws Databricks' refusal when `who` lacks `level`: 403 PERMISSION_DENIED `User <name> does not have
   * <levels> permissions on <type> <id>`, the user unquoted (a service principal by its application id).
   * A type that declares its wording (`refusal`) lists every level at least as strong as the one needed, in
   * Databricks' order: jobs answer "does not have View or Admin or Manage Run or Owner permissions on job
   * <id>" to a read and "Admin or Owner" to a delete (recorded in databricks/cli's cloud-run acceptance test
   * acceptance/bundle/resources/permissions/jobs/destroy_without_mgmtperms). Other types keep iam's generic
   * list (the needed level, Owner where the type has owners, then Admin), which no recorded reply confirms.
   */
  check(who: Principal, request: string, id: string, level: string): void {
    if (this.can(who, request, id, level)) return;
    const type = this.type(request);
    throw permissionDenied(
      `User ${who.userName} does not have ${levelWords(type, level).join(' or ')} permissions on ${type.noun} ${id}`,
    );
  }

  /**
   * Reading or changing an object's ACL (/api/2.0/permissions) needs CAN_MANAGE on it (an owner has it);
   * a type without CAN_MANAGE (cluster policies) and the token/password singletons are the admins' alone.
   * The refusal is the permissions service's own: `<name> does not have Manage permissions on <object>.
   * Please contact the owner or an administrator for access.` (recorded for jobs, whose object it names
   * `Job with ID: ElasticJobId(<id>)`; databricks/cli libs/testserver/jobs.go mirrors the cloud reply).
   */
  checkManage(who: Principal, type: PermissionType, id: string): void {
    if (who.groups.includes('admins')) return;
    if (!type.singleton && 'CAN_MANAGE' in type.rank && this.can(who, type.request, id, 'CAN_MANAGE')) return;
    const object = type.singleton
      ? type.noun
      : type.aclNoun
        ? type.aclNoun.replaceAll('{id}', id)
        : `${type.noun} ${id}`;
    throw permissionDenied(
      `${who.userName} does not have Manage permissions on ${object}. Please contact the owner or an administrator for access.`,
    );
  }

  /**
   * For an ACL kept outside iam (secret scopes): whether `who` holds at least `level`, `order` listing the
   * levels weakest first. Entries name a user, a group (`users`: everyone) or a service principal's
   * applicationId, as secret ACLs do; admins pass.
   */
  holdsIn(
    who: Principal,
    acl: readonly { principal: string; level: string }[],
    order: readonly string[],
    level: string,
  ): boolean {
    if (who.groups.includes('admins')) return true;
    const need = order.indexOf(level);
    if (need < 0) throw new Error(`${level} is not one of ${order.join(', ')}`);
    return acl.some(
      (e) =>
        order.indexOf(e.level) >= need &&
        (e.principal === 'users' ||
          who.groups.includes(e.principal) ||
          e.principal.toLowerCase() === who.userName.toLowerCase()),
    );
  }

  private type(request: string): PermissionType {
    const t = this.types.get(request);
    if (!t) throw new Error(`Permission object type ${request} is not registered`);
    return t;
  }
}

function matches(who: Principal, e: AclEntry): boolean {
  if (e.kind === 'group') return e.name === 'users' || who.groups.includes(e.name);
  if (e.kind === 'service_principal') return who.kind === 'service_principal' && e.name === who.userName;
  return who.kind === 'user' && e.name.toLowerCase() === who.userName.toLowerCase();
}
