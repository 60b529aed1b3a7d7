/**
 * Identity APIs: SCIM (/api/2.0/preview/scim/v2), permissions (/api/2.0/permissions) and tokens
 * (/api/2.0/token, /api/2.0/token-management). Fidelity notes:
 * - SCIM lists are 1-based (`startIndex` always echoed, a page past the end is empty, default count 10000):
 *   the SDK iterators stop only on an empty page and compute the next index from the echoed one.
 * - SCIM errors carry the SCIM body (`detail`, `status` as a string, `scimType`) plus `error_code`/`message`,
 *   so the Python/Go SDKs raise NotFound/ResourceConflict and the TypeScript SDK can parse them too.
 * - /Me is the current user's record in Users, precomputed (it is on every client's hot path), with the
 *   X-Databricks-Org-Id header the Terraform provider reads the workspace id from.
 * - Permissions are stored and reported; with MINILAKE_ENFORCE=1 reading or changing an ACL needs CAN_MANAGE
 *   on the object (admins pass), and the owning services check their operations through IamApi.check. The
 *   object types are the ones their owning packages registered (plus iam's token and password singletons):
 *   an unregistered type is 400 "request_object_type is not recognized", an id the owner does not know 404.
 * - A token value is returned once by create; only its SHA-256 is kept. Without MINILAKE_AUTH=tokens every
 *   bearer token is accepted (the host authenticates, asking this package through IamApi.authenticate).
 * - /Me is the caller (ctx.principal()): a service principal's /Me is a User record whose userName is its
 *   applicationId, as Databricks answers it.
 * - OAuth M2M (oauth.ts): /oidc/v1/token answers RFC 6749 bodies ({error, error_description}), not
 *   Databricks errors, because the SDKs' token sources parse those.
 */
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import { isAdmin, readJson, readQuery, type Identity, type Principal } from '@minilake/core';
import { scimNotAdmin, scimNotFound, spSecretsNotAdmin, tokenManagementNotAdmin } from './errors.js';
import { clientCredentials, OAuthError } from './oauth.js';
import type { ScimKind } from './errors.js';
import type { PermissionType, PermissionTypes } from './permission-types.js';
import * as s from './schemas.js';
import type { IamStore } from './store.js';

const SCIM = '/api/2.0/preview/scim/v2';
const PERMISSIONS = '/api/2.0/permissions';

const SCIM_RESOURCES: { path: string; kind: ScimKind; create: 'user' | 'group' | 'sp' }[] = [
  { path: 'Users', kind: 'User', create: 'user' },
  { path: 'Groups', kind: 'Group', create: 'group' },
  { path: 'ServicePrincipals', kind: 'ServicePrincipal', create: 'sp' },
];

const lifetime = (v: number | string | undefined) => (v === undefined ? undefined : Number(v));

export function iamApp(
  store: IamStore,
  types: PermissionTypes,
  identity: Identity,
  caller: () => Principal = () => ({
    kind: 'user',
    userName: identity.userName,
    id: identity.userId,
    displayName: identity.displayName,
    groups: ['admins'],
  }),
  /** MINILAKE_ENFORCE=1: refuses a caller who may not read or change this object's ACL (access.ts). */
  mayManage: (type: PermissionType, id: string) => void = () => {},
): Hono {
  const { directory, permissions, tokens, secrets } = store;
  const app = new Hono();
  // Writes to the directory and the token-management API are workspace admins' (Databricks answers 403 to
  // anyone else). Without MINILAKE_AUTH=tokens the caller is the configured user, an admin: nothing changes.
  const scimAdmin = () => {
    if (!isAdmin(caller())) throw scimNotAdmin();
  };
  const tokenAdmin = () => {
    if (!isAdmin(caller())) throw tokenManagementNotAdmin();
  };

  app.get(`${SCIM}/Me`, (c) => {
    const p = caller();
    return c.body(p.userName === identity.userName ? directory.meBody() : directory.meBodyOf(p), 200, {
      'content-type': 'application/json',
      'x-databricks-org-id': identity.workspaceId,
    });
  });

  for (const r of SCIM_RESOURCES) {
    const base = `${SCIM}/${r.path}`;
    app.get(base, (c) => c.json(directory.list(r.kind, readQuery(c, s.ListRequest))));
    app.post(base, async (c) => {
      scimAdmin();
      let created;
      if (r.create === 'user') created = directory.createUser(await readJson(c, s.CreateUserRequest));
      else if (r.create === 'group') created = directory.createGroup(await readJson(c, s.CreateGroupRequest));
      else created = directory.createServicePrincipal(await readJson(c, s.CreateServicePrincipalRequest));
      return c.json(created, 201);
    });
    app.get(`${base}/:id`, (c) => {
      const q = readQuery(c, s.GetRequest);
      return c.json(directory.read(r.kind, c.req.param('id'), q.attributes, q.excludedAttributes));
    });
    app.put(`${base}/:id`, async (c) => {
      scimAdmin();
      const body = await readJson(
        c,
        r.create === 'user'
          ? s.CreateUserRequest
          : r.create === 'group'
            ? s.CreateGroupRequest
            : s.CreateServicePrincipalRequest,
      );
      return c.json(directory.replace(r.kind, c.req.param('id'), body));
    });
    app.patch(`${base}/:id`, async (c) => {
      scimAdmin();
      const body = await readJson(c, s.PatchRequest);
      directory.patch(r.kind, c.req.param('id'), body.Operations ?? []);
      // Databricks answers a SCIM PATCH with 204 and no body; the SDKs expect nothing back.
      return c.body(null, 204);
    });
    app.delete(`${base}/:id`, (c) => {
      scimAdmin();
      directory.delete(r.kind, c.req.param('id'));
      return c.body(null, 204);
    });
  }

  // The object, known to exist, whose ACL the caller may manage (permissionLevels is open to everyone).
  const object = (c: Context) => {
    const o = types.resolve(c.req.path.slice(PERMISSIONS.length + 1));
    if (!o.levelsRequest) {
      permissions.assertExists(o.type, o.id);
      mayManage(o.type, o.id);
    }
    return o;
  };
  app.get(`${PERMISSIONS}/*`, (c) => {
    const o = object(c);
    return c.json(o.levelsRequest ? permissions.levels(o.type) : permissions.get(o.type, o.id));
  });
  app.put(`${PERMISSIONS}/*`, async (c) => {
    const o = object(c);
    const body = await readJson(c, s.SetObjectPermissions);
    return c.json(permissions.set(o.type, o.id, body.access_control_list ?? []));
  });
  app.patch(`${PERMISSIONS}/*`, async (c) => {
    const o = object(c);
    const body = await readJson(c, s.SetObjectPermissions);
    return c.json(permissions.update(o.type, o.id, body.access_control_list ?? []));
  });

  app.post('/api/2.0/token/create', async (c) => {
    const body = await readJson(c, s.CreateTokenRequest);
    return c.json(tokens.createToken(lifetime(body.lifetime_seconds), body.comment, body.scopes));
  });
  app.get('/api/2.0/token/list', (c) => c.json(tokens.listOwnTokens()));
  app.post('/api/2.0/token/delete', async (c) => {
    tokens.deleteOwnToken((await readJson(c, s.DeleteTokenRequest)).token_id);
    return c.json({});
  });

  app.patch('/api/2.0/token/:id', async (c) => {
    const body = await readJson(c, s.UpdateTokenRequest);
    tokens.updateToken(c.req.param('id'), true, body.token, body.update_mask);
    return c.json({});
  });

  const TM = '/api/2.0/token-management';
  app.use(`${TM}/*`, async (_c, next) => {
    tokenAdmin();
    await next();
  });
  app.post(`${TM}/on-behalf-of/tokens`, async (c) => {
    const body = await readJson(c, s.CreateOboTokenRequest);
    return c.json(
      tokens.createOboToken(body.application_id, lifetime(body.lifetime_seconds), body.comment, body.scopes),
    );
  });
  app.get(`${TM}/tokens`, (c) => {
    const q = readQuery(c, s.ListTokensRequest);
    return c.json(tokens.listAllTokens(q.created_by_id, q.created_by_username));
  });
  app.get(`${TM}/tokens/:id`, (c) => c.json(tokens.getToken(c.req.param('id'))));
  app.patch(`${TM}/tokens/:id`, async (c) => {
    const body = await readJson(c, s.UpdateTokenRequest);
    return c.json(tokens.updateToken(c.req.param('id'), false, body.token, body.update_mask));
  });
  app.delete(`${TM}/tokens/:id`, (c) => {
    tokens.deleteToken(c.req.param('id'));
    return c.json({});
  });

  // Service principal secrets (the workspace-level proxy of the account API), for OAuth M2M.
  const SECRETS = '/api/2.0/accounts/servicePrincipals/:id/credentials/secrets';
  // Admins' only: a secret is the service principal's identity (whoever holds one acts as it).
  const spOf = (id: string) => {
    if (!isAdmin(caller())) throw spSecretsNotAdmin();
    if (!directory.servicePrincipalById(id)) throw scimNotFound('ServicePrincipal', id);
    return id;
  };
  app.post(SECRETS, async (c) => {
    const body = await readJson(c, CreateSecretRequest);
    return c.json(secrets.create(spOf(c.req.param('id')), body.lifetime));
  });
  app.get(SECRETS, (c) => c.json(secrets.list(spOf(c.req.param('id')))));
  app.delete(`${SECRETS}/:secretId`, (c) => {
    secrets.delete(spOf(c.req.param('id')), c.req.param('secretId'));
    return c.json({});
  });

  // OAuth: the authorization server's metadata (at both places clients look) and the token endpoint.
  const metadata = (c: Context) => {
    const oidc = `${new URL(c.req.url).origin}/oidc`;
    return c.json({
      issuer: oidc,
      authorization_endpoint: `${oidc}/v1/authorize`,
      token_endpoint: `${oidc}/v1/token`,
      jwks_uri: `${oidc}/v1/keys`,
      grant_types_supported: ['client_credentials'],
      response_types_supported: ['code'],
      scopes_supported: ['all-apis', 'sql', 'offline_access'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    });
  };
  app.get('/oidc/.well-known/oauth-authorization-server', metadata);
  app.get('/.well-known/oauth-authorization-server', metadata);
  app.post('/oidc/v1/token', async (c) => {
    try {
      const form: Record<string, string> = {};
      const parsed = await c.req.parseBody().catch(() => ({}));
      for (const [k, val] of Object.entries(parsed)) if (typeof val === 'string') form[k] = val;
      if (form.grant_type !== 'client_credentials')
        throw new OAuthError(
          400,
          'unsupported_grant_type',
          `grant_type ${JSON.stringify(form.grant_type ?? '')} is not supported here; use client_credentials.`,
        );
      const client = clientCredentials(c.req.header('authorization'), form);
      const sp = directory.findServicePrincipal(client.id);
      if (!sp || !sp.active || !secrets.verify(sp.id, client.secret))
        throw new OAuthError(401, 'invalid_client', 'Client authentication failed.');
      const lifetime = 3600;
      const minted = tokens.mintToken({ servicePrincipalName: sp.applicationId }, lifetime, 'OAuth M2M');
      return c.json({
        access_token: minted.value,
        token_type: 'Bearer',
        expires_in: lifetime,
        scope: form.scope ?? 'all-apis',
      });
    } catch (e) {
      if (!(e instanceof OAuthError)) throw e;
      return c.json({ error: e.error, error_description: e.description }, e.status);
    }
  });

  return app;
}

const CreateSecretRequest = v.looseObject({ lifetime: v.optional(v.string()) });
