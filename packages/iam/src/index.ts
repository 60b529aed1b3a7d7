import { defineService } from '@minilake/core';
import { iamApp } from './app.js';
import { resolveObject } from './permission-types.js';
import { IamStore, type ObjectHooks } from './store.js';

export { IamStore, type ObjectHooks } from './store.js';
export { iamApp } from './app.js';
export { ScimError } from './errors.js';
export { parseFilter, matches, project } from './scim.js';

/** What other services may use: the current user's SCIM record and the stored ACL of an object. */
export interface IamApi {
  /** The current user's SCIM record (the same JSON as GET /Me). */
  me(): Record<string, unknown>;
  /** The ACL of `/<requestObjectType>/<id>` as GET /api/2.0/permissions returns it. */
  permissions(requestObjectType: string, id: string): unknown;
  /** True when the value is a live token issued through /api/2.0/token/create or on-behalf-of. */
  isIssuedToken(value: string): boolean;
  /**
   * Lets the service that owns an object type (`clusters`, `jobs`, ...) make the permissions API answer 404
   * for ids it does not know and name the real creator as the default owner. Call it from create().
   */
  registerObjectType(requestObjectType: string, hooks: ObjectHooks): void;
  /** Forgets the stored ACL of a deleted object. */
  dropPermissions(requestObjectType: string, id: string): void;
}

export const iamService = defineService<IamApi>({
  name: 'iam',
  description: 'SCIM users, groups, service principals; permissions (stored, not enforced); tokens',
  create(ctx) {
    const store = new IamStore(ctx.state, ctx.clock, ctx.identity);
    return {
      app: iamApp(store, ctx.identity),
      state: [store],
      api: {
        me: () => JSON.parse(store.meBody()) as Record<string, unknown>,
        permissions: (type, id) => {
          const o = resolveObject(`${type}/${id}`);
          return o ? store.getPermissions(o.type, o.id) : undefined;
        },
        isIssuedToken: (value) => store.isIssuedToken(value),
        registerObjectType: (type, hooks) => {
          const o = resolveObject(`${type}/x`);
          if (!o) throw new Error(`Unknown permissions object type ${type}`);
          store.registerObjectType(o.type.request, hooks);
        },
        dropPermissions: (type, id) => {
          const o = resolveObject(`${type}/${id}`);
          if (o) store.dropPermissions(o.type.request, o.id);
        },
      },
    };
  },
});
