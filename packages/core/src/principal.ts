/**
 * Who a request acts as. The host authenticates the bearer token (MINILAKE_AUTH=tokens; iam resolves tokens)
 * and runs the rest of the request inside `runAsPrincipal`; any code on that request's async path (a handler,
 * a store it calls, a lazily created service's app) reads it with `ctx.principal()` (or `requestPrincipal()`)
 * without a Hono context being threaded through. Without authentication (the default, "any token is the
 * default user") nothing is set and `ctx.principal()` is the configured identity, so behaviour is unchanged.
 *
 * The scope is an AsyncLocalStorage: one per process by nature (it follows async calls, not objects), and it
 * holds nothing between requests, so it is no module-level store of state.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Identity } from './service.js';

export interface Principal {
  kind: 'user' | 'service_principal';
  /** A user's userName, a service principal's applicationId: what /Me's userName, grants and ACLs name. */
  userName: string;
  /** The SCIM id. */
  id: string;
  displayName: string;
  /** Names of the groups it belongs to (directly or through nested groups); `admins` makes it an admin. */
  groups: readonly string[];
}

/** What resolves a bearer token to its principal (iam, for tokens it issued); undefined: not a live token. */
export type TokenAuthenticator = (token: string) => Principal | undefined;

const scope = new AsyncLocalStorage<Principal>();

/** Runs `fn` (the rest of a request) as `principal`. */
export function runAsPrincipal<T>(principal: Principal, fn: () => T): T {
  return scope.run(principal, fn);
}

/** The principal of the request being served, when the host authenticated one. */
export function requestPrincipal(): Principal | undefined {
  return scope.getStore();
}

/** The configured identity as a principal: the default user, a workspace admin. */
export function identityPrincipal(identity: Identity): Principal {
  return {
    kind: 'user',
    userName: identity.userName,
    id: identity.userId,
    displayName: identity.displayName,
    groups: ['admins', 'users'],
  };
}

export const isAdmin = (p: Principal) => p.groups.includes('admins');

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header or none. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}
