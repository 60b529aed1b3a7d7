/**
 * Who the caller is. Any token is accepted and maps to the configured user; the Terraform provider reads the
 * workspace id from the X-Databricks-Org-Id header of /Me, newer SDKs and the CLI from the well-known config.
 * When the iam service is enabled it serves /Me from its user store instead (it is mounted first).
 */
import { Hono } from 'hono';
import type { Identity } from '@minilake/core';

export function scimUser(identity: Identity) {
  const [given = identity.displayName, ...rest] = identity.displayName.split(' ');
  return {
    schemas: [
      'urn:ietf:params:scim:schemas:core:2.0:User',
      'urn:ietf:params:scim:schemas:extension:workspace:2.0:User',
    ],
    id: identity.userId,
    userName: identity.userName,
    displayName: identity.displayName,
    active: true,
    name: { givenName: given, familyName: rest.join(' ') },
    emails: [{ value: identity.userName, type: 'work', primary: true }],
    groups: [{ display: 'admins', type: 'direct', value: 'admins', $ref: 'Groups/admins' }],
    entitlements: [
      { value: 'allow-cluster-create' },
      { value: 'databricks-sql-access' },
      { value: 'workspace-access' },
    ],
  };
}

export function identityApp(identity: Identity): Hono {
  const app = new Hono();
  app.get('/.well-known/databricks-config', (c) => {
    const origin = new URL(c.req.url).origin;
    return c.json({ workspace_id: identity.workspaceId, oidc_endpoint: `${origin}/oidc` });
  });
  // The identity never changes while the process runs: render /Me once.
  const me = JSON.stringify(scimUser(identity));
  app.get('/api/2.0/preview/scim/v2/Me', (c) => {
    c.header('X-Databricks-Org-Id', identity.workspaceId);
    c.header('Content-Type', 'application/json');
    return c.body(me);
  });
  // The CLI uploads usage logs here after each command and retries a 5xx three times; MiniLake keeps no
  // telemetry, so it counts the logs as accepted and drops them.
  app.post('/telemetry-ext', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { protoLogs?: unknown };
    const n = Array.isArray(body?.protoLogs) ? body.protoLogs.length : 0;
    return c.json({ errors: [], numProtoSuccess: n });
  });
  return app;
}
