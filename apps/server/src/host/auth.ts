/**
 * Authentication (MINILAKE_AUTH=tokens): every request but the open ones carries a bearer token that the host
 * resolves to a principal (the bootstrap MINILAKE_ADMIN_TOKEN here, every issued token through iam's
 * IamApi.authenticate), then serves the rest of the request as that principal (core's runAsPrincipal, read
 * by services with ctx.principal()). Without it (MINILAKE_AUTH=any, the default) nothing is installed: any
 * token is the configured user, as before.
 *
 * Refusals follow Databricks: 401 with a string error_code (the Go SDK cannot parse the numeric one older
 * workspaces sent) and the reason also in X-Databricks-Reason-Phrase, which the SDKs log.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Context, Hono } from 'hono';
import {
  bearerToken,
  DatabricksError,
  identityPrincipal,
  requestPrincipal,
  runAsPrincipal,
  type Identity,
  type Principal,
  type TokenAuthenticator,
} from '@minilake/core';

/** Paths any client may reach without a token: probes, discovery, the OAuth exchange, the UI's files. */
export function isOpenPath(path: string): boolean {
  return (
    path === '/' ||
    path === '/_minilake/health' ||
    path === '/_minilake/ready' ||
    path.startsWith('/.well-known/') ||
    path.startsWith('/oidc/') ||
    path === '/ui' ||
    path.startsWith('/ui/') ||
    path === '/favicon.ico'
  );
}

export const unauthenticated = (message: string) => new DatabricksError(401, '401', message);

export interface AuthOptions {
  identity: Identity;
  adminToken: string | undefined;
  /** ServiceContext.hostToken: the server's own child processes, acting as the configured user. */
  hostToken?: string;
  /** Resolves issued tokens (iam); created on first use, since iam may start lazily. */
  authenticator: () => Promise<TokenAuthenticator>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A bearer `authorization` header resolved: its principal, or Databricks' reason for refusing it. */
export type BearerResolver = (
  authorization: string | undefined,
) => Promise<{ principal: Principal } | { refusal: string }>;

/**
 * The one token check, shared by REST (installAuth) and Spark Connect's gRPC calls (their `authorization`
 * metadata): the bootstrap admin token and the host's own act as the configured user, any other token is
 * iam's to resolve.
 */
export function bearerResolver(o: AuthOptions): BearerResolver {
  const admin = identityPrincipal(o.identity);
  const adminDigest = o.adminToken !== undefined ? digest(o.adminToken) : undefined;
  const hostDigest = o.hostToken !== undefined ? digest(o.hostToken) : undefined;
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (!token) return { refusal: 'Credential was not sent or was of an unsupported type for this API.' };
    let principal: Principal | undefined;
    const d = digest(token);
    if (adminDigest && timingSafeEqual(d, adminDigest)) principal = admin;
    else if (hostDigest && timingSafeEqual(d, hostDigest)) principal = admin;
    else principal = (await o.authenticator())(token);
    return principal ? { principal } : { refusal: 'Invalid access token.' };
  };
}

export function installAuth(app: Hono, o: AuthOptions | BearerResolver): void {
  const resolve = typeof o === 'function' ? o : bearerResolver(o);
  const refuse = (c: Context, message: string) => {
    c.header('X-Databricks-Reason-Phrase', message);
    return c.json(unauthenticated(message).toBody(), 401);
  };
  app.use(async (c, next) => {
    if (isOpenPath(c.req.path)) return next();
    // A request a service sends through the host in process while serving an authenticated one (MCP's
    // tools, ServiceContext.request) acts as that caller: the async scope can only have been set by this
    // middleware, never by a client.
    if (requestPrincipal()) return next();
    const r = await resolve(c.req.header('authorization'));
    if ('refusal' in r) return refuse(c, r.refusal);
    return runAsPrincipal(r.principal, () => next());
  });
}
