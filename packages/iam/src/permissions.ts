/**
 * Object ACLs (/api/2.0/permissions): stored and reported (checked by access.ts). A never-set object has its
 * creator as owner plus the admins group's inherited level; PUT replaces the direct grants, PATCH merges per
 * principal. Which types exist, and which ids, is up to the packages that registered them (PermissionTypes).
 */
import { invalidParameter, notFound, type Collection } from '@minilake/core';
import { principalNotFound, unsupportedPermissionLevel } from './errors.js';
import { objectIdOf, type PermissionType } from './permission-types.js';
import type { AccessControlEntry } from './schemas.js';

type PrincipalKind = 'user' | 'group' | 'service_principal';
export interface AclEntry {
  kind: PrincipalKind;
  name: string;
  level: string;
}
export interface AclRecord {
  entries: AclEntry[];
}

/** The principal lookups ACLs need from the SCIM directory. */
export interface Principals {
  /** The canonical userName and display name of a user, looked up case-insensitively. */
  user(userName: string): { userName: string; display: string } | undefined;
  hasGroup(displayName: string): boolean;
  servicePrincipal(applicationId: string): { display: string } | undefined;
}

type Json = Record<string, unknown>;

export class PermissionsStore {
  constructor(
    private readonly acls: Collection<AclRecord>,
    private readonly principals: Principals,
    private readonly currentUser: () => string,
  ) {}

  drop(request: string, id: string): void {
    this.acls.delete(`${request}:${id}`);
  }

  /** 404 for an id the owning service does not know. */
  assertExists(type: PermissionType, id: string): void {
    if (type.hooks && !type.singleton && !type.hooks.exists(id))
      throw notFound(`${type.objectType} ${id} does not exist.`);
  }

  /** The direct grants of an object (its creator's default ownership included): what checks read. */
  entries(type: PermissionType, id: string): readonly AclEntry[] {
    const set = this.acls.get(`${type.request}:${id}`);
    if (set) return set.entries;
    // Never set: only the creator the owning service records owns it. Not the caller, as what GET shows for
    // an object whose creator is unknown: a check must not pass because of who asks.
    const owner = type.owner && type.hooks?.owner?.(id);
    if (!owner || !type.owner) return [];
    const sp = this.principals.servicePrincipal(owner);
    return [{ kind: sp ? 'service_principal' : 'user', name: owner, level: type.owner }];
  }

  private stored(type: PermissionType, id: string): AclRecord {
    return this.acls.get(`${type.request}:${id}`) ?? this.defaultAcl(type, id);
  }

  private defaultAcl(type: PermissionType, id: string): AclRecord {
    const entries: AclEntry[] = [];
    if (type.owner) {
      const owner = type.hooks?.owner?.(id) ?? this.currentUser();
      const sp = this.principals.servicePrincipal(owner);
      entries.push({ kind: sp ? 'service_principal' : 'user', name: owner, level: type.owner });
    }
    return { entries };
  }

  get(type: PermissionType, id: string) {
    this.assertExists(type, id);
    const acl = this.stored(type, id);
    const byPrincipal = new Map<string, Json>();
    const entry = (kind: PrincipalKind, name: string): Json => {
      const key = `${kind}:${name}`;
      let e = byPrincipal.get(key);
      if (!e) {
        e = { [`${kind}_name`]: name, all_permissions: [] };
        const display = this.display(kind, name);
        if (display !== undefined) e.display_name = display;
        byPrincipal.set(key, e);
      }
      return e;
    };
    for (const a of acl.entries)
      (entry(a.kind, a.name).all_permissions as Json[]).push({ permission_level: a.level, inherited: false });
    const admins = entry('group', 'admins').all_permissions as Json[];
    if (type.adminsDirect) {
      if (admins.length === 0) admins.push({ permission_level: type.admins, inherited: false });
    } else {
      admins.push({
        permission_level: type.admins,
        inherited: true,
        inherited_from_object: [type.adminsFrom],
      });
    }
    return {
      object_id: objectIdOf(type, id),
      object_type: type.objectType,
      access_control_list: [...byPrincipal.values()],
    };
  }

  private display(kind: PrincipalKind, name: string): string | undefined {
    if (kind === 'user') return this.principals.user(name)?.display;
    if (kind === 'service_principal') return this.principals.servicePrincipal(name)?.display;
    return undefined;
  }

  private toEntries(type: PermissionType, list: readonly AccessControlEntry[]): AclEntry[] {
    return list.map((a) => {
      const set = (['user', 'group', 'service_principal'] as const).filter(
        (k) => a[`${k}_name`] !== undefined && a[`${k}_name`] !== '',
      );
      if (set.length !== 1)
        throw invalidParameter(
          'Exactly one of user_name, group_name and service_principal_name must be set in an access control entry.',
        );
      const kind = set[0]!;
      let name = a[`${kind}_name`]!;
      if (kind === 'user') {
        const u = this.principals.user(name);
        if (!u) throw principalNotFound('UserName', name);
        name = u.userName;
      } else if (kind === 'group' && !this.principals.hasGroup(name))
        throw principalNotFound('GroupName', name);
      else if (kind === 'service_principal' && !this.principals.servicePrincipal(name))
        throw principalNotFound('ServicePrincipal', name);
      const level = a.permission_level;
      if (!level) throw invalidParameter('permission_level is required in an access control entry.');
      if (!(level in type.levels)) throw unsupportedPermissionLevel(level, type.objectType);
      if (level === 'IS_OWNER' && kind === 'group')
        throw invalidParameter('A group cannot be the owner of an object.');
      return { kind, name, level };
    });
  }

  /**
   * PUT: the direct grants become exactly these. A principal named more than once keeps the last level named
   * (Databricks takes the latest, even over IS_OWNER); a type that must have one owner (jobs) refuses a list
   * that leaves it none or several, and on the others an owner that is not named is kept.
   */
  set(type: PermissionType, id: string, list: readonly AccessControlEntry[]) {
    this.assertExists(type, id);
    const last = new Map<string, AclEntry>();
    for (const e of this.toEntries(type, list)) {
      const k = `${e.kind}:${e.name}`;
      last.delete(k);
      last.set(k, e);
    }
    const entries = [...last.values()];
    const owners = entries.filter((e) => e.level === 'IS_OWNER').length;
    if (type.ownerRequired && owners !== 1)
      throw invalidParameter(`The ${type.objectType} must have exactly one owner.`);
    if (owners > 1) throw invalidParameter('An object can only have one owner.');
    if (type.owner === 'IS_OWNER' && owners === 0) {
      const current = this.stored(type, id).entries.find((e) => e.level === 'IS_OWNER');
      if (current) entries.unshift(current);
    }
    this.acls.set(`${type.request}:${id}`, { entries: dedupe(entries) });
    return this.get(type, id);
  }

  /** PATCH: each named principal gets the given level; everyone else keeps theirs. */
  update(type: PermissionType, id: string, list: readonly AccessControlEntry[]) {
    this.assertExists(type, id);
    const incoming = this.toEntries(type, list);
    if (incoming.filter((e) => e.level === 'IS_OWNER').length > 1)
      throw invalidParameter('An object can only have one owner.');
    let entries = structuredClone(this.stored(type, id).entries);
    for (const e of incoming) {
      if (e.level === 'IS_OWNER') entries = entries.filter((x) => x.level !== 'IS_OWNER');
      entries = entries.filter((x) => !(x.kind === e.kind && x.name === e.name && x.level !== 'IS_OWNER'));
      entries.push(e);
    }
    this.acls.set(`${type.request}:${id}`, { entries: dedupe(entries) });
    return this.get(type, id);
  }

  levels(type: PermissionType) {
    return {
      permission_levels: Object.entries(type.levels).map(([permission_level, description]) => ({
        permission_level,
        description,
      })),
    };
  }
}

function dedupe(entries: AclEntry[]): AclEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    const k = `${e.kind}:${e.name}:${e.level}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
