/**
 * Workspace administration APIs. Fidelity notes:
 * - Everything is stored and reported, nothing is enforced: IP access lists do not filter callers, init
 *   scripts never run (no real clusters boot), workspace-conf flags change no behaviour.
 * - workspace-conf values are strings; an unknown key is a 400 and a non-string value is 400 "Values must be
 *   strings", as on Databricks. An empty string reverts a key to its default.
 * - Git credentials: one per git provider per user (400 INVALID_STATE for a second one, the error the
 *   Terraform provider's `force` handles). The personal access token is never stored or returned.
 * - Notification destinations return secrets as `<field>_set: true` only.
 * - Settings (/api/2.0/settings/types/<type>/names/default) use etags: each write returns a new one, a stale
 *   etag is a 409 whose ErrorInfo carries the fresh one; default_namespace_ws and default_warehouse_id are a
 *   404 (with the etag in the ErrorInfo) until set, as the SDK documentation describes.
 * - Repos (/api/2.0/repos) are not built: they fall through to the 501 catch-all.
 */
import { Hono } from 'hono';
import { notImplemented, readJson, readParams, readQuery } from '@minilake/core';
import { SETTING_BY_TYPE } from './catalog.js';
import { confValuesMustBeStrings } from './errors.js';
import * as s from './schemas.js';
import type { WorkspaceAdminStore } from './store.js';

export function workspaceAdminApp(store: WorkspaceAdminStore): Hono {
  const app = new Hono();

  app.get('/api/2.0/workspace-conf', (c) =>
    c.json(store.getConf(readQuery(c, s.GetWorkspaceConfRequest).keys)),
  );
  app.patch('/api/2.0/workspace-conf', async (c) => {
    const text = await c.req.text();
    let body: unknown = {};
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        throw confValuesMustBeStrings();
      }
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw confValuesMustBeStrings();
    store.setConf(body as Record<string, unknown>);
    return c.body(null, 204);
  });

  const IP = '/api/2.0/ip-access-lists';
  app.post(IP, async (c) => {
    const b = await readJson(c, s.CreateIpAccessList);
    return c.json(store.createIpAccessList(b.label, b.list_type, b.ip_addresses));
  });
  app.get(IP, (c) => c.json(store.listIpAccessLists()));
  app.get(`${IP}/:id`, (c) => c.json(store.getIpAccessList(c.req.param('id'))));
  app.put(`${IP}/:id`, async (c) => {
    const b = await readJson(c, s.ReplaceIpAccessList);
    store.getIpAccessList(c.req.param('id'));
    store.updateIpAccessList(c.req.param('id'), b);
    return c.json({});
  });
  app.patch(`${IP}/:id`, async (c) => {
    const b = await readJson(c, s.UpdateIpAccessList);
    const patch: Parameters<WorkspaceAdminStore['updateIpAccessList']>[1] = {};
    if (b.label !== undefined) patch.label = b.label;
    if (b.list_type !== undefined) patch.list_type = b.list_type;
    if (b.enabled !== undefined) patch.enabled = b.enabled;
    if (b.ip_addresses !== undefined) patch.ip_addresses = b.ip_addresses;
    store.updateIpAccessList(c.req.param('id'), patch);
    return c.json({});
  });
  app.delete(`${IP}/:id`, (c) => {
    store.deleteIpAccessList(c.req.param('id'));
    return c.json({});
  });

  const GIT = '/api/2.0/git-credentials';
  app.post(GIT, async (c) => c.json(store.createGitCredential(await readJson(c, s.CreateCredentials))));
  app.get(GIT, (c) => c.json(store.listGitCredentials(readQuery(c, s.PrincipalQuery).principal_id)));
  app.get(`${GIT}/:credential_id`, (c) =>
    c.json(
      store.getGitCredential(
        readParams(c, s.CredentialIdParam).credential_id,
        readQuery(c, s.PrincipalQuery).principal_id,
      ),
    ),
  );
  app.patch(`${GIT}/:credential_id`, async (c) => {
    const { credential_id } = readParams(c, s.CredentialIdParam);
    store.updateGitCredential(credential_id, await readJson(c, s.UpdateCredentials));
    return c.json({});
  });
  app.delete(`${GIT}/:credential_id`, (c) => {
    store.deleteGitCredential(
      readParams(c, s.CredentialIdParam).credential_id,
      readQuery(c, s.PrincipalQuery).principal_id,
    );
    return c.json({});
  });

  const GIS = '/api/2.0/global-init-scripts';
  app.post(GIS, async (c) =>
    c.json(store.createGlobalInitScript(await readJson(c, s.CreateGlobalInitScript))),
  );
  app.get(GIS, (c) => c.json(store.listGlobalInitScripts()));
  app.get(`${GIS}/:id`, (c) => c.json(store.getGlobalInitScript(c.req.param('id'))));
  app.patch(`${GIS}/:id`, async (c) => {
    store.updateGlobalInitScript(c.req.param('id'), await readJson(c, s.UpdateGlobalInitScript));
    return c.json({});
  });
  app.delete(`${GIS}/:id`, (c) => {
    store.deleteGlobalInitScript(c.req.param('id'));
    return c.json({});
  });

  const ND = '/api/2.0/notification-destinations';
  app.post(ND, async (c) => {
    const b = await readJson(c, s.CreateNotificationDestination);
    return c.json(store.createDestination(b.display_name, b.config));
  });
  app.get(ND, (c) => {
    const q = readQuery(c, s.ListNotificationDestinations);
    return c.json(store.listDestinations(q.page_size, q.page_token));
  });
  app.get(`${ND}/:id`, (c) => c.json(store.getDestination(c.req.param('id'))));
  app.patch(`${ND}/:id`, async (c) => {
    const b = await readJson(c, s.UpdateNotificationDestination);
    return c.json(store.updateDestination(c.req.param('id'), b.display_name, b.config));
  });
  app.delete(`${ND}/:id`, (c) => {
    store.deleteDestination(c.req.param('id'));
    return c.json({});
  });

  const SETTING = '/api/2.0/settings/types/:type/names/:name';
  const settingType = (type: string, name: string) => {
    const t = SETTING_BY_TYPE.get(type);
    // Setting types MiniLake does not model answer 501, like any endpoint that is not built.
    if (!t || name !== 'default') throw notImplemented(`Setting ${type}/${name}`);
    return t;
  };
  app.get(SETTING, (c) => {
    const t = settingType(c.req.param('type'), c.req.param('name'));
    readQuery(c, s.GetSettingRequest);
    return c.json(store.getSetting(t));
  });
  app.patch(SETTING, async (c) => {
    const t = settingType(c.req.param('type'), c.req.param('name'));
    return c.json(store.updateSetting(t, await readJson(c, s.UpdateSettingRequest)));
  });
  app.delete(SETTING, (c) => {
    const t = settingType(c.req.param('type'), c.req.param('name'));
    return c.json(store.deleteSetting(t, readQuery(c, s.GetSettingRequest).etag));
  });

  return app;
}
