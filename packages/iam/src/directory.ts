/**
 * The SCIM directory: users, groups and service principals, the current user (`/Me`), and the SCIM
 * operations on them (list with filter/sort/paging/projection, create, PUT, PATCH, delete). Group membership
 * is stored once, on the group (member ids); a principal's `groups` attribute is derived from it, so the two
 * views cannot disagree.
 */
import { randomUUID } from 'node:crypto';
import { numericId, scimPage, type Collection, type Identity, type Principal } from '@minilake/core';
import {
  groupExists,
  scimInvalidPath,
  scimInvalidValue,
  scimMemberNotFound,
  scimNotFound,
  servicePrincipalExists,
  userExists,
  type ScimKind,
} from './errors.js';
import { matches, parseFilter, project, sortResources, type Resource } from './scim.js';
import type { GroupInput, PatchOperation, ServicePrincipalInput, UserInput } from './schemas.js';

export const SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  userWorkspace: 'urn:ietf:params:scim:schemas:extension:workspace:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  servicePrincipal: 'urn:ietf:params:scim:schemas:core:2.0:ServicePrincipal',
} as const;

interface ComplexValue {
  value?: string | undefined;
  display?: string | undefined;
  primary?: boolean | undefined;
  type?: string | undefined;
}

interface PrincipalBase {
  id: string;
  /** Creation order: lists are returned in it unless sortBy says otherwise. */
  seq: number;
  displayName?: string;
  externalId?: string;
  entitlements: ComplexValue[];
  roles: ComplexValue[];
}
export interface UserRecord extends PrincipalBase {
  userName: string;
  active: boolean;
  name?: { givenName?: string; familyName?: string };
  emails?: ComplexValue[];
}
export interface GroupRecord extends PrincipalBase {
  displayName: string;
  members: string[];
}
export interface ServicePrincipalRecord extends PrincipalBase {
  applicationId: string;
  active: boolean;
}
type AnyRecord = UserRecord | GroupRecord | ServicePrincipalRecord;

export interface ListQuery {
  filter?: string | undefined;
  startIndex?: number | undefined;
  count?: number | undefined;
  attributes?: string | undefined;
  excludedAttributes?: string | undefined;
  sortBy?: string | undefined;
  sortOrder?: string | undefined;
}

const DEFAULT_ENTITLEMENTS = ['allow-cluster-create', 'databricks-sql-access', 'workspace-access'];
const MULTI = ['members', 'groups', 'entitlements', 'roles', 'emails'] as const;
type MultiAttr = (typeof MULTI)[number];

const clone = <T>(x: T): T => structuredClone(x);
const cv = (list: readonly ComplexValue[] | undefined): ComplexValue[] =>
  (list ?? [])
    .filter((c) => c.value !== undefined)
    .map((c) => {
      const out: ComplexValue = { value: String(c.value) };
      if (c.display !== undefined) out.display = c.display;
      if (c.primary !== undefined) out.primary = c.primary;
      if (c.type !== undefined) out.type = c.type;
      return out;
    });

export interface DirectoryCollections {
  users: Collection<UserRecord>;
  groups: Collection<GroupRecord>;
  servicePrincipals: Collection<ServicePrincipalRecord>;
}

export class Directory {
  private readonly users: Collection<UserRecord>;
  private readonly groups: Collection<GroupRecord>;
  private readonly sps: Collection<ServicePrincipalRecord>;
  private seq = 0;
  private meJson: string | undefined;

  constructor(
    collections: DirectoryCollections,
    private readonly identity: Identity,
  ) {
    this.users = collections.users;
    this.groups = collections.groups;
    this.sps = collections.servicePrincipals;
    this.loaded();
  }

  /**
   * After start-up, a reset (both seed the workspace's first user and groups) or a restore (which brings its
   * own): creation order continues after the highest stored one, and /Me is computed again.
   */
  loaded(seed = true): void {
    this.seq = 0;
    for (const c of [this.users, this.groups, this.sps] as Collection<AnyRecord>[])
      for (const r of c.values()) this.seq = Math.max(this.seq, r.seq);
    if (seed) this.seed();
    this.changed();
  }

  /** The workspace as it starts: the configured user, an admin, in the `admins` and `users` groups. */
  private seed(): void {
    const me = this.identity;
    if (!this.users.has(me.userId) && !this.findUser(me.userName)) {
      const [givenName = me.displayName, ...rest] = me.displayName.split(' ');
      this.users.set(me.userId, {
        id: me.userId,
        seq: ++this.seq,
        userName: me.userName,
        displayName: me.displayName,
        active: true,
        name: { givenName, familyName: rest.join(' ') },
        emails: [{ value: me.userName, type: 'work', primary: true }],
        entitlements: DEFAULT_ENTITLEMENTS.map((value) => ({ value })),
        roles: [],
      });
    }
    const meId = this.findUser(me.userName)?.id ?? me.userId;
    for (const name of ['admins', 'users']) {
      if (this.findGroup(name)) continue;
      const id = String(numericId());
      this.groups.set(id, {
        id,
        seq: ++this.seq,
        displayName: name,
        members: [meId],
        entitlements: name === 'users' ? [{ value: 'workspace-access' }] : [],
        roles: [],
      });
    }
    this.changed();
  }

  private changed(): void {
    this.meJson = undefined;
  }

  // ---------- lookups ----------

  findUser(userName: string): UserRecord | undefined {
    const lower = userName.toLowerCase();
    for (const u of this.users.values()) if (u.userName.toLowerCase() === lower) return u;
    return undefined;
  }
  findGroup(displayName: string): GroupRecord | undefined {
    for (const g of this.groups.values()) if (g.displayName === displayName) return g;
    return undefined;
  }
  findServicePrincipal(applicationId: string): ServicePrincipalRecord | undefined {
    for (const s of this.sps.values()) if (s.applicationId === applicationId) return s;
    return undefined;
  }
  private principal(id: string): { kind: ScimKind; record: AnyRecord } | undefined {
    const u = this.users.get(id);
    if (u) return { kind: 'User', record: u };
    const g = this.groups.get(id);
    if (g) return { kind: 'Group', record: g };
    const s = this.sps.get(id);
    if (s) return { kind: 'ServicePrincipal', record: s };
    return undefined;
  }
  private collectionOf(kind: ScimKind): Collection<AnyRecord> {
    return (
      kind === 'User' ? this.users : kind === 'Group' ? this.groups : this.sps
    ) as Collection<AnyRecord>;
  }
  private get(kind: ScimKind, id: string): AnyRecord {
    const r = this.collectionOf(kind).get(id);
    if (!r) throw scimNotFound(kind, id);
    return r;
  }

  // ---------- rendering ----------

  private displayOf(id: string): string | undefined {
    const p = this.principal(id);
    if (!p) return undefined;
    return p.kind === 'User' ? (p.record as UserRecord).userName : p.record.displayName;
  }

  private groupsOf(id: string): Resource[] {
    const out: Resource[] = [];
    for (const g of this.groups.values())
      if (g.members.includes(id))
        out.push({ display: g.displayName, type: 'direct', value: g.id, $ref: `Groups/${g.id}` });
    return out;
  }

  private common(r: AnyRecord, out: Resource): Resource {
    if (r.externalId !== undefined) out.externalId = r.externalId;
    if (r.entitlements.length > 0) out.entitlements = clone(r.entitlements);
    if (r.roles.length > 0) out.roles = clone(r.roles);
    const groups = this.groupsOf(r.id);
    if (groups.length > 0) out.groups = groups;
    return out;
  }

  private renderUser(u: UserRecord): Resource {
    const out: Resource = {
      schemas: [SCHEMA.user, SCHEMA.userWorkspace],
      id: u.id,
      userName: u.userName,
      displayName: u.displayName ?? u.userName,
      active: u.active,
      emails: clone(u.emails ?? [{ value: u.userName, type: 'work', primary: true }]),
    };
    if (u.name) out.name = clone(u.name);
    return this.common(u, out);
  }

  private renderGroup(g: GroupRecord): Resource {
    const out: Resource = {
      schemas: [SCHEMA.group],
      id: g.id,
      displayName: g.displayName,
      members: g.members.map((m) => {
        const p = this.principal(m);
        const ref = p ? `${p.kind === 'User' ? 'Users' : `${p.kind}s`}/${m}` : undefined;
        return { display: this.displayOf(m), value: m, ...(ref ? { $ref: ref } : {}) };
      }),
      meta: { resourceType: 'WorkspaceGroup' },
    };
    return this.common(g, out);
  }

  private renderServicePrincipal(s: ServicePrincipalRecord): Resource {
    const out: Resource = {
      schemas: [SCHEMA.servicePrincipal],
      id: s.id,
      applicationId: s.applicationId,
      displayName: s.displayName ?? s.applicationId,
      active: s.active,
    };
    return this.common(s, out);
  }

  private render(kind: ScimKind, r: AnyRecord): Resource {
    if (kind === 'User') return this.renderUser(r as UserRecord);
    if (kind === 'Group') return this.renderGroup(r as GroupRecord);
    return this.renderServicePrincipal(r as ServicePrincipalRecord);
  }

  // ---------- SCIM operations ----------

  /** The current user's record as JSON, computed once per change (GET /Me is on every client's hot path). */
  meBody(): string {
    if (this.meJson === undefined) {
      const u = this.findUser(this.identity.userName);
      this.meJson = JSON.stringify(
        u
          ? this.renderUser(u)
          : this.renderUser({
              id: this.identity.userId,
              seq: 0,
              userName: this.identity.userName,
              displayName: this.identity.displayName,
              active: true,
              entitlements: [],
              roles: [],
            }),
      );
    }
    return this.meJson;
  }

  list(kind: ScimKind, q: ListQuery) {
    let items = [...this.collectionOf(kind).values()]
      .sort((a, b) => a.seq - b.seq)
      .map((r) => this.render(kind, r));
    if (q.filter && q.filter.trim() !== '') {
      const f = parseFilter(q.filter);
      items = items.filter((r) => matches(r, f));
    }
    items = sortResources(items, q.sortBy, q.sortOrder);
    const page = scimPage(items, { startIndex: q.startIndex, count: q.count });
    page.Resources = page.Resources.map((r) => project(r, q.attributes, q.excludedAttributes));
    return page;
  }

  read(kind: ScimKind, id: string, attributes?: string, excluded?: string): Resource {
    return project(this.render(kind, this.get(kind, id)), attributes, excluded);
  }

  /** Told the userName of every user created through SCIM (the workspace makes their home folders). */
  readonly userCreated: ((userName: string) => void)[] = [];

  /** Every user's userName (the configured user included). */
  userNames(): string[] {
    return [...this.users.values()].map((u) => u.userName);
  }

  createUser(input: UserInput): Resource {
    const userName = input.userName?.trim();
    if (!userName) throw scimInvalidValue('userName is required.');
    if (this.findUser(userName)) throw userExists(userName);
    const id = String(numericId());
    const u: UserRecord = {
      id,
      seq: ++this.seq,
      userName,
      active: input.active ?? true,
      entitlements: cv(input.entitlements),
      roles: cv(input.roles),
    };
    this.assignUserFields(u, input);
    this.users.set(id, u);
    this.setGroupsOf(id, input.groups);
    this.joinUsersGroup(id);
    this.changed();
    for (const l of this.userCreated) l(userName);
    return this.renderUser(u);
  }

  private assignUserFields(u: UserRecord, input: UserInput): void {
    if (input.displayName !== undefined) u.displayName = input.displayName;
    if (input.externalId !== undefined) u.externalId = input.externalId;
    if (input.name) {
      const name: UserRecord['name'] = {};
      if (input.name.givenName !== undefined) name.givenName = input.name.givenName;
      if (input.name.familyName !== undefined) name.familyName = input.name.familyName;
      u.name = name;
    }
    if (input.emails && input.emails.length > 0) u.emails = cv(input.emails);
  }

  private joinUsersGroup(id: string): void {
    const users = this.findGroup('users');
    if (users && !users.members.includes(id)) {
      users.members.push(id);
      this.groups.set(users.id, users);
    }
  }

  createGroup(input: GroupInput): Resource {
    const displayName = input.displayName?.trim();
    if (!displayName) throw scimInvalidValue('displayName is required.');
    if (this.findGroup(displayName)) throw groupExists(displayName);
    const id = String(numericId());
    const g: GroupRecord = {
      id,
      seq: ++this.seq,
      displayName,
      members: this.checkMembers(id, input.members),
      entitlements: cv(input.entitlements),
      roles: cv(input.roles),
    };
    if (input.externalId !== undefined) g.externalId = input.externalId;
    this.groups.set(id, g);
    this.setGroupsOf(id, input.groups);
    this.changed();
    return this.renderGroup(g);
  }

  createServicePrincipal(input: ServicePrincipalInput): Resource {
    const applicationId = input.applicationId?.trim() || randomUUID();
    if (this.findServicePrincipal(applicationId)) throw servicePrincipalExists(applicationId);
    const id = String(numericId());
    const s: ServicePrincipalRecord = {
      id,
      seq: ++this.seq,
      applicationId,
      active: input.active ?? true,
      entitlements: cv(input.entitlements),
      roles: cv(input.roles),
    };
    if (input.displayName !== undefined) s.displayName = input.displayName;
    if (input.externalId !== undefined) s.externalId = input.externalId;
    this.sps.set(id, s);
    this.setGroupsOf(id, input.groups);
    this.joinUsersGroup(id);
    this.changed();
    return this.renderServicePrincipal(s);
  }

  /** PUT: replaces every attribute the body can carry (membership included); the id stays. */
  replace(kind: ScimKind, id: string, input: UserInput & GroupInput & ServicePrincipalInput): Resource {
    const old = this.get(kind, id);
    const base = { id, seq: old.seq, entitlements: cv(input.entitlements), roles: cv(input.roles) };
    let next: AnyRecord;
    if (kind === 'User') {
      const userName = input.userName?.trim();
      if (!userName) throw scimInvalidValue('userName is required.');
      const clash = this.findUser(userName);
      if (clash && clash.id !== id) throw userExists(userName);
      const u: UserRecord = { ...base, userName, active: input.active ?? true };
      this.assignUserFields(u, input);
      next = u;
    } else if (kind === 'Group') {
      const displayName = input.displayName?.trim();
      if (!displayName) throw scimInvalidValue('displayName is required.');
      const clash = this.findGroup(displayName);
      if (clash && clash.id !== id) throw groupExists(displayName);
      next = { ...base, displayName, members: this.checkMembers(id, input.members) };
      if (input.externalId !== undefined) next.externalId = input.externalId;
    } else {
      const prev = old as ServicePrincipalRecord;
      const applicationId = input.applicationId?.trim() || prev.applicationId;
      const clash = this.findServicePrincipal(applicationId);
      if (clash && clash.id !== id) throw servicePrincipalExists(applicationId);
      const s: ServicePrincipalRecord = { ...base, applicationId, active: input.active ?? true };
      if (input.displayName !== undefined) s.displayName = input.displayName;
      if (input.externalId !== undefined) s.externalId = input.externalId;
      next = s;
    }
    this.collectionOf(kind).set(id, next);
    if (input.groups !== undefined) this.setGroupsOf(id, input.groups, true);
    this.changed();
    return this.render(kind, next);
  }

  delete(kind: ScimKind, id: string): void {
    this.get(kind, id);
    this.collectionOf(kind).delete(id);
    for (const g of this.groups.values()) {
      if (!g.members.includes(id)) continue;
      g.members = g.members.filter((m) => m !== id);
      this.groups.set(g.id, g);
    }
    this.changed();
  }

  /** Validates member ids (they must exist; a group cannot contain itself) and removes duplicates. */
  private checkMembers(groupId: string, members: readonly ComplexValue[] | undefined): string[] {
    const out: string[] = [];
    for (const m of members ?? []) {
      const id = m.value === undefined ? undefined : String(m.value);
      if (!id) throw scimInvalidValue('A member needs a value (the principal id).');
      if (id === groupId) throw scimInvalidValue('A group cannot be a member of itself.');
      if (!this.principal(id)) throw scimMemberNotFound(id);
      if (!out.includes(id)) out.push(id);
    }
    return out;
  }

  /** Adds the principal to the given groups; with `exact`, also removes it from every other group. */
  private setGroupsOf(id: string, groups: readonly ComplexValue[] | undefined, exact = false): void {
    if (groups === undefined && !exact) return;
    const wanted = new Set<string>();
    for (const g of groups ?? []) {
      const gid = g.value === undefined ? '' : String(g.value);
      if (!this.groups.has(gid)) throw scimNotFound('Group', gid);
      if (gid === id) throw scimInvalidValue('A group cannot be a member of itself.');
      wanted.add(gid);
    }
    for (const g of this.groups.values()) {
      const has = g.members.includes(id);
      if (wanted.has(g.id) && !has) g.members.push(id);
      // membership of the built-in `users` group is automatic: replacing a principal's groups keeps it
      else if (exact && !wanted.has(g.id) && has && g.displayName !== 'users')
        g.members = g.members.filter((m) => m !== id);
      else continue;
      this.groups.set(g.id, g);
    }
  }

  /** PATCH with SCIM Operations: add / remove / replace, with or without a path, value filters in paths. */
  patch(kind: ScimKind, id: string, ops: readonly PatchOperation[]): Resource {
    const record = clone(this.get(kind, id)) as AnyRecord & Record<string, unknown>;
    let groupIds = new Set(this.groupsOf(id).map((g) => String(g.value)));
    const multi: Partial<Record<MultiAttr, ComplexValue[]>> = {};
    const listOf = (attr: MultiAttr): ComplexValue[] => {
      if (multi[attr]) return multi[attr];
      let list: ComplexValue[];
      if (attr === 'members') list = ((record as GroupRecord).members ?? []).map((value) => ({ value }));
      else if (attr === 'groups') list = [...groupIds].map((value) => ({ value }));
      else list = clone(((record as Record<string, unknown>)[attr] as ComplexValue[] | undefined) ?? []);
      return (multi[attr] = list);
    };

    const applyOne = (op: 'add' | 'remove' | 'replace', rawPath: string, value: unknown) => {
      const path = rawPath.replace(
        /^urn:ietf:params:scim:schemas:[^ [\]]*?:(User|Group|ServicePrincipal):/i,
        '',
      );
      const m = /^([A-Za-z$][\w$]*)(?:\.([\w$]+))?(?:\[(.+)\])?(?:\.([\w$]+))?$/.exec(path.trim());
      if (!m) throw scimInvalidPath(rawPath);
      const attr = m[1]!.toLowerCase();
      const sub = m[2];
      const filterText = m[3];
      const multiAttr = MULTI.find((a) => a === attr);
      if (multiAttr) {
        if (multiAttr === 'members' && kind !== 'Group') throw scimInvalidPath(rawPath);
        if (multiAttr === 'emails' && kind !== 'User') throw scimInvalidPath(rawPath);
        const current = listOf(multiAttr);
        const incoming = toComplexList(value);
        const f = filterText ? parseFilter(filterText) : undefined;
        const hit = (c: ComplexValue) => (f ? matches(c as Resource, f) : true);
        let next: ComplexValue[];
        if (op === 'add') {
          next = [...current];
          for (const c of incoming) if (!next.some((x) => x.value === c.value)) next.push(c);
        } else if (op === 'replace') {
          next = f ? current.filter((c) => !hit(c)) : [];
          for (const c of incoming) if (!next.some((x) => x.value === c.value)) next.push(c);
        } else if (f) {
          next = current.filter((c) => !hit(c));
        } else if (incoming.length > 0) {
          const drop = new Set(incoming.map((c) => c.value));
          next = current.filter((c) => !drop.has(c.value));
        } else next = [];
        multi[multiAttr] = next;
        return;
      }
      if (filterText) throw scimInvalidPath(rawPath);
      const scalar = unwrapScalar(value);
      const set = (key: string, check?: (v: unknown) => boolean) => {
        if (op === 'remove') {
          if (key === 'userName' || key === 'applicationId' || (key === 'displayName' && kind === 'Group'))
            throw scimInvalidValue(`${key} cannot be removed.`);
          delete record[key];
          return;
        }
        if (check && !check(scalar)) throw scimInvalidValue(`Invalid value for ${key}.`);
        record[key] = scalar;
      };
      const isString = (v: unknown) => typeof v === 'string';
      switch (attr) {
        case 'active':
          if (kind === 'Group') throw scimInvalidPath(rawPath);
          if (op === 'remove') throw scimInvalidValue('active cannot be removed.');
          record.active = scalar === true || String(scalar).toLowerCase() === 'true';
          return;
        case 'displayname':
          return set('displayName', isString);
        case 'externalid':
          return set('externalId', isString);
        case 'username':
          if (kind !== 'User') throw scimInvalidPath(rawPath);
          return set('userName', isString);
        case 'applicationid':
          if (kind !== 'ServicePrincipal') throw scimInvalidPath(rawPath);
          return set('applicationId', isString);
        case 'name': {
          if (kind !== 'User') throw scimInvalidPath(rawPath);
          const u = record as UserRecord;
          if (!sub) {
            if (op === 'remove') delete u.name;
            else if (scalar && typeof scalar === 'object') u.name = { ...u.name, ...(scalar as object) };
            else throw scimInvalidValue('name must be an object.');
            return;
          }
          const key = sub === 'givenName' || sub.toLowerCase() === 'givenname' ? 'givenName' : 'familyName';
          if (!/^(givenname|familyname)$/i.test(sub)) throw scimInvalidPath(rawPath);
          const name = { ...u.name };
          if (op === 'remove') delete name[key];
          else if (typeof scalar === 'string') name[key] = scalar;
          else throw scimInvalidValue(`Invalid value for name.${sub}.`);
          u.name = name;
          return;
        }
        default:
          throw scimInvalidPath(rawPath);
      }
    };

    for (const operation of ops) {
      const op = operation.op as 'add' | 'remove' | 'replace';
      if (operation.path && operation.path.trim() !== '') {
        applyOne(op, operation.path, operation.value);
      } else {
        if (op === 'remove') throw scimInvalidValue('A remove operation needs a path.');
        const value = operation.value;
        if (!value || typeof value !== 'object' || Array.isArray(value))
          throw scimInvalidValue('An operation without a path needs an object value.');
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          if (k === 'schemas' || k === 'id' || k === 'meta') continue;
          applyOne(op, k, v);
        }
      }
    }

    // Validate and commit.
    if (kind === 'User') {
      const u = record as UserRecord;
      if (typeof u.userName !== 'string' || u.userName.trim() === '')
        throw scimInvalidValue('userName is required.');
      const clash = this.findUser(u.userName);
      if (clash && clash.id !== id) throw userExists(u.userName);
      if (multi.emails) u.emails = cv(multi.emails);
    }
    if (kind === 'Group') {
      const g = record as GroupRecord;
      const clash = this.findGroup(g.displayName);
      if (clash && clash.id !== id) throw groupExists(g.displayName);
      if (multi.members) g.members = this.checkMembers(id, multi.members);
    }
    if (kind === 'ServicePrincipal') {
      const s = record as ServicePrincipalRecord;
      const clash = this.findServicePrincipal(s.applicationId);
      if (clash && clash.id !== id) throw servicePrincipalExists(s.applicationId);
    }
    if (multi.entitlements) record.entitlements = cv(multi.entitlements);
    if (multi.roles) record.roles = cv(multi.roles);
    if (multi.groups) {
      groupIds = new Set(multi.groups.map((g) => String(g.value)));
      for (const gid of groupIds) if (!this.groups.has(gid)) throw scimNotFound('Group', gid);
    }
    this.collectionOf(kind).set(id, record);
    if (multi.groups)
      this.setGroupsOf(
        id,
        [...groupIds].map((value) => ({ value })),
        true,
      );
    this.changed();
    return this.render(kind, record);
  }

  /**
   * The principal a token's owner id names (a user or a service principal), with every group it belongs to,
   * through nested groups; undefined when it is gone or deactivated (its tokens stop working, as Databricks').
   */
  principalById(id: string): Principal | undefined {
    const u = this.users.get(id);
    const s = u ? undefined : this.sps.get(id);
    const r = u ?? s;
    if (!r || !r.active) return undefined;
    const groups = new Set<string>();
    const seen = new Set<string>([id]);
    let frontier = [id];
    while (frontier.length) {
      const next: string[] = [];
      for (const g of this.groups.values())
        if (!seen.has(g.id) && g.members.some((m) => frontier.includes(m))) {
          seen.add(g.id);
          groups.add(g.displayName);
          next.push(g.id);
        }
      frontier = next;
    }
    return u
      ? {
          kind: 'user',
          id,
          userName: u.userName,
          displayName: u.displayName ?? u.userName,
          groups: [...groups],
        }
      : {
          kind: 'service_principal',
          id,
          userName: s!.applicationId,
          displayName: s!.displayName ?? s!.applicationId,
          groups: [...groups],
        };
  }

  /**
   * /Me for an authenticated caller other than the configured user: a user's own record, or a service
   * principal's rendered as a user whose userName is its applicationId (what Databricks answers an SP's
   * token with, and what clients compare against).
   */
  meBodyOf(p: Principal): string {
    if (p.kind === 'user') {
      const u = this.users.get(p.id);
      if (u) return JSON.stringify(this.renderUser(u));
      return this.meBody();
    }
    const s = this.sps.get(p.id);
    if (!s) return this.meBody();
    const out = this.renderServicePrincipal(s);
    return JSON.stringify({
      ...out,
      schemas: [SCHEMA.user, SCHEMA.userWorkspace],
      userName: s.applicationId,
    });
  }

  /** A service principal by its SCIM id. */
  servicePrincipalById(id: string): ServicePrincipalRecord | undefined {
    return this.sps.get(id);
  }

  /** The current user's SCIM id. */
  meId(): string {
    return this.findUser(this.identity.userName)?.id ?? this.identity.userId;
  }
}

/** A patch value for a multi-valued attribute: one complex value, a list of them, or bare strings. */
function toComplexList(value: unknown): ComplexValue[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item) => {
    if (item && typeof item === 'object') {
      const c = item as ComplexValue;
      if (c.value === undefined) throw scimInvalidValue('Each value needs a "value" field.');
      return cv([c])[0]!;
    }
    return { value: String(item) };
  });
}

/** `[{"value": false}]` and `{"value": "x"}` are accepted for scalar attributes, as Databricks does. */
function unwrapScalar(value: unknown): unknown {
  let v = value;
  if (Array.isArray(v) && v.length === 1) v = v[0];
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && 'value' in v)
    return (v as { value: unknown }).value;
  return v;
}
