import { defineService, enforceSetting, validate, type Principal } from '@minilake/core';
import { Access } from './access.js';
import { iamApp } from './app.js';
import { SetObjectPermissions } from './schemas.js';
import type { TokenPrincipal } from './tokens.js';
import { PermissionTypes, type ObjectHooks, type ObjectTypeDefinition } from './permission-types.js';
import { IamStore } from './store.js';

export { IamStore } from './store.js';
export { Directory } from './directory.js';
export { PermissionsStore } from './permissions.js';
export { Access } from './access.js';
export { TokenStore, type TokenPrincipal } from './tokens.js';
export { PermissionTypes, type ObjectHooks, type ObjectTypeDefinition } from './permission-types.js';
export { iamApp } from './app.js';
export { ScimError } from './errors.js';
export { parseFilter, matches, project } from './scim.js';

/** What other services may use: the current user's SCIM record and the permissions API's object types. */
/** An owning service's object permissions, bound to its type: `check` throws the 403, `can` filters lists. */
export interface ObjectAccess<Level extends string = string> {
  check(id: string, level: Level): void;
  can(id: string, level: Level): boolean;
}

/**
 * `check` and `can` of one object type, for a service to hand its store; undefined without iam or without
 * MINILAKE_ENFORCE=1, so nothing is asked on the way when nothing is enforced.
 */
export function objectAccess<Level extends string>(
  iam: IamApi | undefined,
  requestObjectType: string,
): ObjectAccess<Level> | undefined {
  if (!iam?.enforcing) return undefined;
  return {
    check: (id, level) => iam.check(requestObjectType, id, level),
    can: (id, level) => iam.can(requestObjectType, id, level),
  };
}

export interface IamApi {
  /** The current user's SCIM record (the same JSON as GET /Me). */
  me(): Record<string, unknown>;
  /** The ACL of `/<requestObjectType>/<id>` as GET /api/2.0/permissions returns it (undefined if unknown). */
  permissions(requestObjectType: string, id: string): unknown;
  /** True when the value is a live token issued through /api/2.0/token/create or on-behalf-of. */
  isIssuedToken(value: string): boolean;
  /**
   * The principal a bearer token acts as (its user or service principal, with its groups), or undefined for
   * an unknown, deleted or expired token, or one whose owner is gone: the host's MINILAKE_AUTH=tokens seam.
   */
  authenticate(value: string): Principal | undefined;
  /**
   * Makes an object type the calling package owns known to /api/2.0/permissions: its request path
   * segment(s), `object_type`, levels, the creator's and the admins' levels (see ObjectTypeDefinition), and
   * how to tell whether an id exists and who created it. Call it from create(); until a package does, the
   * permissions API refuses the type as Databricks refuses an unknown one (400 INVALID_PARAMETER_VALUE).
   */
  registerObjectType(definition: ObjectTypeDefinition, hooks: ObjectHooks): void;
  /**
   * MINILAKE_ENFORCE=1: object permissions are checked. Services need not read it: `can` and `check` pass
   * everything when it is off.
   */
  readonly enforcing: boolean;
  /**
   * Whether the caller (ctx.principal()) holds at least `level` on `/<requestObjectType>/<id>`, through its
   * groups, `users`, `admins`, the creator's ownership and inherited grants (see access.ts); always true
   * without MINILAKE_ENFORCE=1. Ask after the object is known to exist. For lists: show what `can` allows.
   */
  can(requestObjectType: string, id: string, level: string): boolean;
  /**
   * Like `can`, throwing Databricks' refusal (403 PERMISSION_DENIED naming the caller, the level and the
   * object) when the caller lacks the level. The one call an enforcing handler makes.
   */
  check(requestObjectType: string, id: string, level: string): void;
  /**
   * For an ACL another service keeps itself (secret scopes): whether the caller holds at least `level`, with
   * `order` the levels weakest first and entries naming a user, a group (`users`: everyone) or a service
   * principal's applicationId; admins pass. Always true without MINILAKE_ENFORCE=1.
   */
  holdsIn(
    acl: readonly { principal: string; level: string }[],
    order: readonly string[],
    level: string,
  ): boolean;
  /** Forgets the stored ACL of a deleted object (`requestObjectType` may be any of the type's names). */
  dropPermissions(requestObjectType: string, id: string): void;
  /**
   * What PUT /api/2.0/permissions/<requestObjectType>/<id> does with `access_control_list` (validated as
   * that request's body is; a DatabricksError for a bad entry or an unknown object), answering the new ACL.
   */
  setPermissions(requestObjectType: string, id: string, accessControlList: unknown): unknown;
  /**
   * A short-lived token acting as `principal` (a job run's run_as), for work a service runs on someone's
   * behalf; the token APIs list it like any other. The caller revokes it when the work ends.
   */
  mintToken(
    principal: TokenPrincipal,
    opts: { lifetimeSeconds: number; comment: string },
  ): { value: string; tokenId: string };
  /** Revokes a minted token (one already deleted is no error). */
  revokeToken(tokenId: string): void;
  /** Every SCIM user's userName. */
  userNames(): string[];
  /** Calls `listener` with the userName of each user created from now on (workspace home folders). */
  onUserCreated(listener: (userName: string) => void): void;
}

export const iamSettings = { ...enforceSetting };

export const iamService = defineService<IamApi, typeof iamSettings>({
  name: 'iam',
  description:
    'SCIM users, groups, service principals; permissions (enforced with MINILAKE_ENFORCE=1); tokens; OAuth M2M',
  settings: iamSettings,
  create(ctx) {
    const store = new IamStore(ctx.state, ctx.clock, ctx.identity, () => ctx.principal());
    const types = new PermissionTypes();
    const access = new Access(types, store.permissions);
    const enforcing = ctx.settings.MINILAKE_ENFORCE;
    return {
      app: iamApp(
        store,
        types,
        ctx.identity,
        () => ctx.principal(),
        (type, id) => {
          if (enforcing) access.checkManage(ctx.principal(), type, id);
        },
      ),
      state: [store],
      api: {
        me: () => JSON.parse(store.directory.meBody()) as Record<string, unknown>,
        permissions: (type, id) => {
          try {
            const o = types.resolve(`${type}/${encodeURIComponent(id)}`);
            return store.permissions.get(o.type, o.id);
          } catch {
            return undefined;
          }
        },
        isIssuedToken: (value) => store.tokens.isIssued(value),
        authenticate: (value) => store.authenticate(value),
        registerObjectType: (definition, hooks) => types.register(definition, hooks),
        enforcing,
        can: (type, id, level) => !enforcing || access.can(ctx.principal(), type, id, level),
        check: (type, id, level) => {
          if (enforcing) access.check(ctx.principal(), type, id, level);
        },
        holdsIn: (acl, order, level) => !enforcing || access.holdsIn(ctx.principal(), acl, order, level),
        dropPermissions: (type, id) => {
          const t = types.get(type);
          if (t) store.permissions.drop(t.request, id);
        },
        setPermissions: (type, id, accessControlList) => {
          const o = types.resolve(`${type}/${encodeURIComponent(id)}`);
          const body = validate(SetObjectPermissions, { access_control_list: accessControlList });
          return store.permissions.set(o.type, o.id, body.access_control_list ?? []);
        },
        mintToken: (principal, opts) => store.tokens.mintToken(principal, opts.lifetimeSeconds, opts.comment),
        revokeToken: (tokenId) => store.tokens.revokeToken(tokenId),
        userNames: () => store.directory.userNames(),
        onUserCreated: (listener) => void store.directory.userCreated.push(listener),
      },
    };
  },
});
