/**
 * Unity Catalog API (/api/2.1/unity-catalog). Fidelity notes:
 * - Every catalog is a real DuckDB database file: schemas, tables, views and SQL functions exist in the
 *   engine, and what SQL creates or drops appears in (or disappears from) these answers at once.
 * - Lists page like Databricks: max_results absent returns everything, 0 means the server page size,
 *   negative is a 400, and the last page carries no next_page_token.
 * - Grants are stored and reported (with inheritance). With MINILAKE_ENFORCE=1 they are enforced for the
 *   request's principal: the store refuses changes (403 PERMISSION_DENIED, "User does not have CREATE TABLE on
 *   Schema 'c.s'."), a GET of a securable the caller may not see is refused the same way, and lists show only
 *   what the caller may see, as Databricks filters them. Without it every caller acts as the admin.
 * - Temporary credentials answer an empty credential set with an expiry: MiniLake storage is local files.
 */
import { Hono } from 'hono';
import { invalidParameter, keysetPage, readJson, readQuery, readQueryOrBody, ucPage } from '@minilake/core';
import * as s from './schemas.js';
import type { UnityCatalogStore } from './store.js';

const BASE = '/api/2.1/unity-catalog';

function paged<T>(
  key: string,
  items: T[],
  keyOf: (x: T) => string,
  q: { max_results?: number; page_token?: string },
) {
  const page = ucPage(items, keyOf, q);
  return page.nextPageToken
    ? { [key]: page.items, next_page_token: page.nextPageToken }
    : { [key]: page.items };
}

// Hono has already percent-decoded path parameters; decoding again would let `%252E` become a dot.
const decode = (x: string) => {
  if (x.includes('\0')) throw invalidParameter('Names must not contain NUL bytes');
  return x;
};

export function unityCatalogApp(store: UnityCatalogStore): Hono {
  const app = new Hono();
  const listBodies = new WeakMap<object, Buffer>();
  const name = (c: { req: { param(k: string): string | undefined } }, k = 'name') =>
    decode(c.req.param(k) ?? '');

  // ---- metastores ----
  app.get(`${BASE}/metastore_summary`, (c) => c.json(store.metastoreInfo()));
  app.get(`${BASE}/current-metastore-assignment`, (c) => c.json(store.currentAssignment()));
  app.get(`${BASE}/metastores`, (c) => c.json({ metastores: [store.metastoreInfo()] }));
  app.get(`${BASE}/metastores/:id`, (c) => c.json(store.getMetastore(name(c, 'id'))));

  // ---- catalogs ----
  app.post(`${BASE}/catalogs`, async (c) =>
    c.json(await store.createCatalog(await readJson(c, s.CreateCatalogRequest))),
  );
  app.get(`${BASE}/catalogs`, (c) => {
    const q = readQuery(c, s.ListRequest);
    const items = store.visible('catalog', store.listCatalogs(), (x) => x.name);
    return c.json(paged('catalogs', items, (x) => x.name, q));
  });
  app.get(`${BASE}/catalogs/:name`, (c) => {
    const info = store.getCatalog(name(c));
    store.checkVisible('catalog', info.name);
    return c.json(info);
  });
  app.patch(`${BASE}/catalogs/:name`, async (c) =>
    c.json(await store.updateCatalog(name(c), await readJson(c, s.UpdateCatalogRequest))),
  );
  app.delete(`${BASE}/catalogs/:name`, async (c) => {
    await store.deleteCatalog(name(c), readQuery(c, s.ForceRequest).force ?? false);
    return c.json({});
  });

  // ---- schemas ----
  app.post(`${BASE}/schemas`, async (c) =>
    c.json(await store.createSchema(await readJson(c, s.CreateSchemaRequest))),
  );
  app.get(`${BASE}/schemas`, async (c) => {
    const q = await readQueryOrBody(c, s.ListSchemasRequest);
    const items = store.visible('schema', await store.listSchemas(q.catalog_name), (x) => x.full_name);
    return c.json(paged('schemas', items, (x) => x.name, q));
  });
  app.get(`${BASE}/schemas/:full_name`, async (c) => {
    const info = await store.getSchema(name(c, 'full_name'));
    store.checkVisible('schema', info.full_name);
    return c.json(info);
  });
  app.patch(`${BASE}/schemas/:full_name`, async (c) =>
    c.json(await store.updateSchema(name(c, 'full_name'), await readJson(c, s.UpdateSchemaRequest))),
  );
  app.delete(`${BASE}/schemas/:full_name`, async (c) => {
    await store.deleteSchema(name(c, 'full_name'), readQuery(c, s.ForceRequest).force ?? false);
    return c.json({});
  });

  // ---- tables ----
  app.post(`${BASE}/tables`, async (c) =>
    c.json(await store.createTable(await readJson(c, s.CreateTableRequest))),
  );
  app.post(`${BASE}/staging-tables`, async (c) =>
    c.json(await store.createStagingTable(await readJson(c, s.CreateStagingTableRequest))),
  );
  app.get(`${BASE}/tables`, async (c) => {
    const q = await readQueryOrBody(c, s.ListTablesRequest);
    const rows = store.visible(
      'table',
      await store.listTables(q.catalog_name, q.schema_name, {
        columns: q.omit_columns ?? false,
        properties: q.omit_properties ?? false,
      }),
      (x) => `${q.catalog_name}.${q.schema_name}.${x.key}`,
    );
    // Rows arrive serialized (cached per table, and the list itself while nothing changed): the page is
    // joined, not stringified again, and a whole unchanged list answers with the same bytes.
    const page = ucPage(rows, (x) => x.key, q);
    const whole = page.items.length === rows.length && !page.nextPageToken;
    let body = whole ? listBodies.get(rows) : undefined;
    if (!body) {
      const token = page.nextPageToken ? `,"next_page_token":${JSON.stringify(page.nextPageToken)}` : '';
      body = Buffer.from(`{"tables":[${page.items.map((x) => x.json).join(',')}]${token}}`);
      if (whole) listBodies.set(rows, body);
    }
    return c.body(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), 200, {
      'content-type': 'application/json',
    });
  });
  app.get(`${BASE}/table-summaries`, async (c) => {
    const q = readQuery(c, s.TableSummariesRequest);
    const items = store.visible(
      'table',
      await store.tableSummaries(q.catalog_name, q.schema_name_pattern, q.table_name_pattern),
      (x) => x.full_name,
    );
    return c.json(paged('tables', items, (x) => x.full_name, q));
  });
  app.get(`${BASE}/tables/:full_name/exists`, async (c) =>
    c.json({ table_exists: await store.tableExists(name(c, 'full_name')) }),
  );
  app.get(`${BASE}/tables/:full_name`, async (c) => {
    const info = await store.getTable(name(c, 'full_name'), {
      columns: readQuery(c, s.GetTableRequest).omit_columns ?? false,
    });
    store.checkVisible('table', String(info.full_name));
    return c.json(info);
  });
  app.patch(`${BASE}/tables/:full_name`, async (c) => {
    await store.updateTable(name(c, 'full_name'), await readJson(c, s.UpdateTableRequest));
    return c.json({});
  });
  app.delete(`${BASE}/tables/:full_name`, async (c) => {
    await store.deleteTable(name(c, 'full_name'));
    return c.json({});
  });

  // ---- volumes ----
  app.post(`${BASE}/volumes`, async (c) =>
    c.json(await store.createVolume(await readJson(c, s.CreateVolumeRequest))),
  );
  app.get(`${BASE}/volumes`, async (c) => {
    const q = readQuery(c, s.ListVolumesRequest);
    const items = store.visible(
      'volume',
      await store.listVolumes(q.catalog_name, q.schema_name),
      (x) => x.full_name,
    );
    return c.json(paged('volumes', items, (x) => x.name, q));
  });
  app.get(`${BASE}/volumes/:name`, (c) => {
    const info = store.getVolume(name(c));
    store.checkVisible('volume', info.full_name);
    return c.json(info);
  });
  // Spark's file systems (packages/engine-spark fs/src) ask before they touch a volume's files for a session's
  // caller: the same check the Files API makes, answered the same way.
  app.get('/_minilake/unity-catalog/volumes/:name/access', async (c) => {
    const { mode } = readQuery(c, s.VolumeAccessRequest);
    const [catalog, schema, volume, ...more] = name(c).split('.');
    if (!catalog || !schema || !volume || more.length)
      throw invalidParameter(`'${name(c)}' is not a volume's full name (catalog.schema.volume)`);
    await store.volumeDirectory(catalog, schema, volume, mode);
    return c.json({});
  });
  app.patch(`${BASE}/volumes/:name`, async (c) =>
    c.json(await store.updateVolume(name(c), await readJson(c, s.UpdateVolumeRequest))),
  );
  app.delete(`${BASE}/volumes/:name`, async (c) => {
    await store.deleteVolume(name(c));
    return c.json({});
  });

  // ---- functions ----
  app.post(`${BASE}/functions`, async (c) =>
    c.json(await store.createFunction((await readJson(c, s.CreateFunctionRequest)).function_info)),
  );
  app.get(`${BASE}/functions`, async (c) => {
    const q = readQuery(c, s.ListFunctionsRequest);
    const items = store.visible(
      'function',
      await store.listFunctions(q.catalog_name, q.schema_name),
      (x) => x.full_name,
    );
    return c.json(paged('functions', items, (x) => x.name, q));
  });
  app.get(`${BASE}/functions/:name`, (c) => {
    const info = store.getFunction(name(c));
    store.checkVisible('function', info.full_name);
    return c.json(info);
  });
  app.patch(`${BASE}/functions/:name`, async (c) =>
    c.json(store.updateFunction(name(c), await readJson(c, s.UpdateFunctionRequest))),
  );
  app.delete(`${BASE}/functions/:name`, async (c) => {
    await store.deleteFunction(name(c));
    return c.json({});
  });

  // ---- grants ----
  app.get(`${BASE}/permissions/:type/:full_name`, async (c) =>
    c.json(
      await store.getPermissions(
        name(c, 'type'),
        name(c, 'full_name'),
        readQuery(c, s.GetPermissionsRequest).principal,
      ),
    ),
  );
  app.patch(`${BASE}/permissions/:type/:full_name`, async (c) =>
    c.json(
      await store.updatePermissionsChecked(
        name(c, 'type'),
        name(c, 'full_name'),
        (await readJson(c, s.UpdatePermissionsRequest)).changes,
      ),
    ),
  );
  app.get(`${BASE}/effective-permissions/:type/:full_name`, async (c) =>
    c.json(
      await store.getEffectivePermissions(
        name(c, 'type'),
        name(c, 'full_name'),
        readQuery(c, s.GetPermissionsRequest).principal,
      ),
    ),
  );

  // The newer paged variants the Python SDK's grants.list / list_effective call: the same assignments as
  // above, paged by principal, under their own response key.
  const pagedAssignments = (
    path: string,
    key: string,
    read: (
      type: string,
      fullName: string,
      principal?: string,
    ) => Promise<{ privilege_assignments: { principal: string }[] }>,
  ) =>
    app.get(`${BASE}/${path}/:type/:full_name`, async (c) => {
      const q = readQuery(c, s.PagedPermissionsRequest);
      const all = await read(name(c, 'type'), name(c, 'full_name'), q.principal);
      const page = keysetPage(
        all.privilege_assignments,
        (x) => x.principal,
        q.page_size || undefined,
        q.page_token || undefined,
      );
      return c.json({
        [key]: page.items,
        ...(page.nextPageToken ? { next_page_token: page.nextPageToken } : {}),
      });
    });
  pagedAssignments('privilege-assignments', 'privilege_assignments', (t, f, p) =>
    store.getPermissions(t, f, p),
  );
  pagedAssignments('effective-privilege-assignments', 'effective_privilege_assignments', (t, f, p) =>
    store.getEffectivePermissions(t, f, p),
  );

  // ---- temporary credentials (the Spark connector asks even for file: locations) ----
  const expiry = () => ({ expiration_time: Date.now() + 3600_000 });
  // The SDKs call these under /api/2.0, the Spark connector under /api/2.1.
  for (const base of [BASE, '/api/2.0/unity-catalog']) {
    app.post(`${base}/temporary-table-credentials`, async (c) => {
      const body = await readJson(c, s.TemporaryTableCredentialsRequest);
      await store.tableCredentials(body.table_id, body.operation);
      return c.json(expiry());
    });
    app.post(`${base}/temporary-path-credentials`, async (c) => {
      const body = await readJson(c, s.TemporaryPathCredentialsRequest);
      store.pathCredentials(body.url, body.operation);
      return c.json({ ...expiry(), ...(body.url ? { url: body.url } : {}) });
    });
  }

  return app;
}
