/**
 * The object types of /api/2.0/permissions. iam declares only the ones it owns (the token and password
 * singletons); every other package registers its own types from its create() through
 * `IamApi.registerObjectType(definition, hooks)`, so the permissions API knows exactly the objects this
 * MiniLake serves: a type nobody registered (jobs while no jobs service runs, pipelines, ...) is refused the
 * way Databricks refuses an unknown request object type, and an id the owner does not know is a 404.
 */
import { invalidParameter } from '@minilake/core';
import { unknownObjectType } from './errors.js';

/** What a package tells iam about an object type it owns (see IamApi.registerObjectType). */
export interface ObjectTypeDefinition {
  /**
   * The request path segment(s) after /api/2.0/permissions/: `clusters`, or `['sql/warehouses',
   * 'warehouses']`. The first one names the object in responses (`object_id: "/sql/warehouses/<id>"`) and
   * keys its stored ACL; the others are aliases for the same objects.
   */
  request: string | readonly string[];
  /** `object_type` in responses, as Databricks spells it: `cluster`, `job`, `warehouses`. */
  objectType: string;
  /** The permission levels the type accepts, in the order permissionLevels lists them. */
  levels: readonly string[];
  /** The level the creator holds by default (IS_OWNER where the type has owners); none when absent. */
  owner?: string;
  /**
   * A PUT must leave exactly one `owner` (Databricks' jobs: "The job must have exactly one owner."); without
   * it a PUT that names no owner keeps the current one.
   */
  ownerRequired?: boolean;
  /** The level the `admins` group inherits on every object of the type. */
  admins: string;
  /** Where the admins' level is inherited from (`inherited_from_object`); `/<request>/` when absent. */
  adminsFrom?: string;
  /** permissionLevels descriptions for levels iam has no wording for. */
  descriptions?: Readonly<Record<string, string>>;
  /**
   * The levels from weakest to strongest, where that differs from `levels` (permissionLevels' order): a
   * level grants every weaker one (jobs: CAN_VIEW < CAN_MANAGE_RUN < CAN_MANAGE < IS_OWNER).
   */
  order?: readonly string[];
  /** How refusals name an object of the type (`job 123`, `warehouse abc`); `objectType` when absent. */
  noun?: string;
  /**
   * How a refusal lists the levels that would have sufficed, where Databricks' wording is known: each
   * level's word and the order the words come in (every level at least as strong as the one needed, in
   * this order). Jobs: "View or Admin or Manage Run or Owner" (CAN_MANAGE is "Admin"). Absent: iam's
   * generic wording (the needed level, Owner where the type has owners, then Admin).
   */
  refusal?: { words: Readonly<Record<string, string>>; order: readonly string[] };
  /**
   * How the permissions API's refusal (reading or changing the ACL without CAN_MANAGE) names the object,
   * `{id}` standing for its id; jobs: `Job with ID: ElasticJobId({id})`. Absent: `<noun> <id>`.
   */
  aclNoun?: string;
}

/** What the owning service answers about one of its objects. */
export interface ObjectHooks {
  exists(id: string): boolean;
  /** The creator, who owns the object by default; the current user when absent. */
  owner?(id: string): string | undefined;
  /**
   * The object whose ACL this one inherits (a workspace object's folder): its request name and id. Checks
   * (IamApi.can/check) walk up through parents; undefined: the top.
   */
  parent?(id: string): { request: string; id: string } | undefined;
}

/** A registered type, resolved. */
export interface PermissionType {
  request: string;
  objectType: string;
  levels: Record<string, string>;
  owner?: string | undefined;
  ownerRequired?: boolean;
  admins: string;
  adminsFrom: string;
  /** true when the admins entry is a direct grant on a singleton object (tokens, passwords). */
  adminsDirect?: boolean;
  /** A singleton object with no id in the path. */
  singleton?: boolean;
  hooks?: ObjectHooks | undefined;
  /** Each level's strength (higher grants more): `order`, else the position in `levels`. */
  rank: Record<string, number>;
  /** How refusals name an object of the type. */
  noun: string;
  /** See ObjectTypeDefinition.refusal. */
  refusal?: { words: Readonly<Record<string, string>>; order: readonly string[] } | undefined;
  /** See ObjectTypeDefinition.aclNoun. */
  aclNoun?: string | undefined;
}

/** Databricks' permissionLevels descriptions of the common levels. */
const DESCRIPTIONS: Record<string, string> = {
  CAN_MANAGE: 'Can Manage permissions',
  IS_OWNER: 'Is owner of the object',
  CAN_ATTACH_TO: 'Can attach to',
  CAN_RESTART: 'Can restart',
  CAN_USE: 'Can use',
  CAN_VIEW: 'Can view',
  CAN_RUN: 'Can run',
  CAN_READ: 'Can read',
  CAN_EDIT: 'Can edit',
  CAN_MANAGE_RUN: 'Can manage runs',
  CAN_MONITOR: 'Can monitor',
  CAN_QUERY: 'Can query',
};

export class PermissionTypes {
  private readonly byRequest = new Map<string, PermissionType>();

  constructor() {
    // The two singletons iam itself owns (token management, password login).
    this.add({
      request: 'authorization/tokens',
      objectType: 'tokens',
      levels: this.describe(['CAN_USE', 'CAN_MANAGE']),
      admins: 'CAN_MANAGE',
      adminsFrom: '/authorization/tokens',
      adminsDirect: true,
      singleton: true,
      rank: { CAN_USE: 0, CAN_MANAGE: 1 },
      noun: 'tokens',
    });
    this.add({
      request: 'authorization/passwords',
      objectType: 'passwords',
      levels: this.describe(['CAN_USE']),
      admins: 'CAN_USE',
      adminsFrom: '/authorization/passwords',
      adminsDirect: true,
      singleton: true,
      rank: { CAN_USE: 0 },
      noun: 'passwords',
    });
  }

  /** Registers a type for its owning package; registering a request name again replaces it. */
  register(def: ObjectTypeDefinition, hooks: ObjectHooks): void {
    const names = typeof def.request === 'string' ? [def.request] : [...def.request];
    const bad = (why: string) => new Error(`Permission object type ${JSON.stringify(def.request)}: ${why}`);
    if (names.length === 0 || names.some((n) => !/^[a-z0-9-]+(\/[a-z0-9-]+)?$/i.test(n)))
      throw bad('request names are one or two path segments');
    if (names.some((n) => n.startsWith('authorization/'))) throw bad('authorization/* belongs to iam');
    const levels = this.describe(def.levels, def.descriptions);
    for (const l of [def.owner, def.admins])
      if (l !== undefined && !(l in levels)) throw bad(`${l} is not a level`);
    const order = def.order ?? def.levels;
    if (order.length !== def.levels.length || order.some((l) => !(l in levels)))
      throw bad('order must list exactly the levels');
    if (def.refusal && def.refusal.order.some((l) => !(l in levels) || def.refusal?.words[l] === undefined))
      throw bad('refusal.order must name levels that refusal.words words');
    const type: PermissionType = {
      request: names[0]!,
      objectType: def.objectType,
      levels,
      owner: def.owner,
      ...(def.ownerRequired ? { ownerRequired: true } : {}),
      admins: def.admins,
      adminsFrom: def.adminsFrom ?? `/${names[0]}/`,
      hooks,
      rank: Object.fromEntries(order.map((l, i) => [l, i])),
      noun: def.noun ?? def.objectType,
      ...(def.refusal ? { refusal: def.refusal } : {}),
      ...(def.aclNoun ? { aclNoun: def.aclNoun } : {}),
    };
    for (const n of names) this.byRequest.set(n, type);
  }

  /** The type a request path names (its canonical request name or an alias), if any package registered it. */
  get(request: string): PermissionType | undefined {
    return this.byRequest.get(request);
  }

  /**
   * Splits the path after /api/2.0/permissions/ into the type and the (decoded) object id, and whether it
   * asks for permissionLevels. An unregistered type or a malformed id is a 400.
   */
  resolve(rest: string): { type: PermissionType; id: string; levelsRequest: boolean } {
    let parts = rest.split('/').filter((p) => p !== '');
    let levelsRequest = false;
    if (parts[parts.length - 1] === 'permissionLevels') {
      levelsRequest = true;
      parts = parts.slice(0, -1);
    }
    for (const take of [2, 1]) {
      if (parts.length < take) continue;
      const type = this.byRequest.get(parts.slice(0, take).join('/'));
      if (!type) continue;
      const id = parts.slice(take).join('/');
      if (type.singleton ? id !== '' : id === '') break;
      let decoded: string;
      try {
        decoded = decodeURIComponent(id);
      } catch {
        throw invalidParameter(`Invalid object id ${JSON.stringify(id)}.`);
      }
      return { type, id: decoded, levelsRequest };
    }
    throw unknownObjectType(parts.length >= 3 ? `${parts[0]}/${parts[1]}` : (parts[0] ?? ''));
  }

  private add(t: PermissionType): void {
    this.byRequest.set(t.request, t);
  }

  private describe(
    names: readonly string[],
    extra?: Readonly<Record<string, string>>,
  ): Record<string, string> {
    return Object.fromEntries(
      names.map((n) => [n, extra?.[n] ?? DESCRIPTIONS[n] ?? n.toLowerCase().replace(/_/g, ' ')]),
    );
  }
}

export function objectIdOf(type: PermissionType, id: string): string {
  return type.singleton ? `/${type.request}` : `/${type.request}/${id}`;
}
