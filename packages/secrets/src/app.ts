/**
 * Secrets API (/api/2.0/secrets). Fidelity notes:
 * - `get` returns `{key, value}` (value base64) as Databricks does for a caller with READ on the scope; with
 *   ACLs not enforced every caller has READ. `writeOnly` (MINILAKE_SECRETS_WRITE_ONLY=1) makes it answer 403
 *   instead, so values are readable only by jobs through the store's resolver. `list` never has values.
 * - ACLs are stored and reported, not enforced: every caller acts as the workspace admin.
 * - Only the DATABRICKS backend exists; AZURE_KEYVAULT scopes are refused.
 */
import { Hono } from 'hono';
import { invalidParameter, readJson, readQuery } from '@minilake/core';
import { secretReadForbidden } from './errors.js';
import * as s from './schemas.js';
import { secretValue, type SecretsStore } from './store.js';

const BASE = '/api/2.0/secrets';

export interface SecretsAppOptions {
  /** `GET secrets/get` answers 403 instead of the value (values reach jobs only). */
  writeOnly?: boolean;
}

export function secretsApp(store: SecretsStore, opts: SecretsAppOptions = {}): Hono {
  const app = new Hono();

  app.post(`${BASE}/scopes/create`, async (c) => {
    const body = await readJson(c, s.CreateScopeRequest);
    if (body.scope_backend_type === 'AZURE_KEYVAULT') {
      throw invalidParameter('Azure Key Vault-backed scopes are not supported in MiniLake.');
    }
    store.createScope(body.scope, body.initial_manage_principal);
    return c.json({});
  });
  app.post(`${BASE}/scopes/delete`, async (c) => {
    store.deleteScope((await readJson(c, s.DeleteScopeRequest)).scope);
    return c.json({});
  });
  app.get(`${BASE}/scopes/list`, (c) => c.json({ scopes: store.listScopes() }));

  app.post(`${BASE}/put`, async (c) => {
    const body = await readJson(c, s.PutSecretRequest);
    store.putSecret(body.scope, body.key, secretValue(body));
    return c.json({});
  });
  app.post(`${BASE}/delete`, async (c) => {
    const body = await readJson(c, s.DeleteSecretRequest);
    store.deleteSecret(body.scope, body.key);
    return c.json({});
  });
  app.get(`${BASE}/list`, (c) =>
    c.json({ secrets: store.listSecrets(readQuery(c, s.ListSecretsRequest).scope) }),
  );
  app.get(`${BASE}/get`, (c) => {
    const q = readQuery(c, s.GetSecretRequest);
    if (opts.writeOnly) {
      store.listSecrets(q.scope); // a missing scope is still a 404
      throw secretReadForbidden();
    }
    // The value goes only into this response body: never into a log line, an error or the journal.
    return c.json({ key: q.key, value: store.readSecret(q.scope, q.key).toString('base64') });
  });

  app.post(`${BASE}/acls/put`, async (c) => {
    const body = await readJson(c, s.PutAclRequest);
    store.putAcl(body.scope, body.principal, body.permission);
    return c.json({});
  });
  app.post(`${BASE}/acls/delete`, async (c) => {
    const body = await readJson(c, s.DeleteAclRequest);
    store.deleteAcl(body.scope, body.principal);
    return c.json({});
  });
  app.get(`${BASE}/acls/get`, (c) => {
    const q = readQuery(c, s.GetAclRequest);
    return c.json(store.getAcl(q.scope, q.principal));
  });
  app.get(`${BASE}/acls/list`, (c) =>
    c.json({ items: store.listAcls(readQuery(c, s.ListAclsRequest).scope) }),
  );

  return app;
}
