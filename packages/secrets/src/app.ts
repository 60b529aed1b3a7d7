/**
 * Secrets API (/api/2.0/secrets). Fidelity notes:
 * - `get` returns `{key, value}` (value base64) as Databricks does for a caller with READ on the scope; with
 *   ACLs not enforced every caller has READ. `writeOnly` (MINILAKE_SECRETS_WRITE_ONLY=1) makes it answer 403
 *   instead, so values are readable only by jobs through the store's resolver. `list` never has values.
 * - ACLs are stored and reported; with MINILAKE_ENFORCE=1 (iam) enforced: READ to list or get secrets, WRITE
 *   to put or delete them, MANAGE for ACLs and deleting the scope (admins pass; scopes/list stays open).
 *   The creator of a scope gets MANAGE (`initial_manage_principal` names another).
 * - Only the DATABRICKS backend exists; AZURE_KEYVAULT scopes are refused.
 */
import { Hono } from 'hono';
import { invalidParameter, readJson, readQuery } from '@minilake/core';
import { secretReadForbidden } from './errors.js';
import * as s from './schemas.js';
import { secretValue, type AclPermission, type SecretsStore } from './store.js';

const BASE = '/api/2.0/secrets';

export interface SecretsAppOptions {
  /** `GET secrets/get` answers 403 instead of the value (values reach jobs only). */
  writeOnly?: boolean;
  /**
   * The scope ACLs enforced (iam, MINILAKE_ENFORCE=1): throws 403 unless the caller holds `level` on the
   * scope (known to exist); and who creates a scope now (its first MANAGE entry).
   */
  access?: {
    check(scope: string, level: AclPermission): void;
    caller(): string;
  };
}

export function secretsApp(store: SecretsStore, opts: SecretsAppOptions = {}): Hono {
  const app = new Hono();
  // The scope, after its existence (404 first, as Databricks answers) and the caller's level on it.
  const may = (scope: string, level: AclPermission) => {
    store.listAcls(scope);
    opts.access?.check(scope, level);
    return scope;
  };

  app.post(`${BASE}/scopes/create`, async (c) => {
    const body = await readJson(c, s.CreateScopeRequest);
    if (body.scope_backend_type === 'AZURE_KEYVAULT') {
      throw invalidParameter('Azure Key Vault-backed scopes are not supported in MiniLake.');
    }
    store.createScope(body.scope, body.initial_manage_principal ?? opts.access?.caller());
    return c.json({});
  });
  app.post(`${BASE}/scopes/delete`, async (c) => {
    store.deleteScope(may((await readJson(c, s.DeleteScopeRequest)).scope, 'MANAGE'));
    return c.json({});
  });
  app.get(`${BASE}/scopes/list`, (c) => c.json({ scopes: store.listScopes() }));

  app.post(`${BASE}/put`, async (c) => {
    const body = await readJson(c, s.PutSecretRequest);
    store.putSecret(may(body.scope, 'WRITE'), body.key, secretValue(body));
    return c.json({});
  });
  app.post(`${BASE}/delete`, async (c) => {
    const body = await readJson(c, s.DeleteSecretRequest);
    store.deleteSecret(may(body.scope, 'WRITE'), body.key);
    return c.json({});
  });
  app.get(`${BASE}/list`, (c) =>
    c.json({ secrets: store.listSecrets(may(readQuery(c, s.ListSecretsRequest).scope, 'READ')) }),
  );
  app.get(`${BASE}/get`, (c) => {
    const q = readQuery(c, s.GetSecretRequest);
    if (opts.writeOnly) {
      store.listSecrets(q.scope); // a missing scope is still a 404
      throw secretReadForbidden();
    }
    may(q.scope, 'READ');
    // The value goes only into this response body: never into a log line, an error or the journal.
    return c.json({ key: q.key, value: store.readSecret(q.scope, q.key).toString('base64') });
  });

  app.post(`${BASE}/acls/put`, async (c) => {
    const body = await readJson(c, s.PutAclRequest);
    store.putAcl(may(body.scope, 'MANAGE'), body.principal, body.permission);
    return c.json({});
  });
  app.post(`${BASE}/acls/delete`, async (c) => {
    const body = await readJson(c, s.DeleteAclRequest);
    store.deleteAcl(may(body.scope, 'MANAGE'), body.principal);
    return c.json({});
  });
  app.get(`${BASE}/acls/get`, (c) => {
    const q = readQuery(c, s.GetAclRequest);
    return c.json(store.getAcl(may(q.scope, 'MANAGE'), q.principal));
  });
  app.get(`${BASE}/acls/list`, (c) =>
    c.json({ items: store.listAcls(may(readQuery(c, s.ListAclsRequest).scope, 'MANAGE')) }),
  );

  return app;
}
