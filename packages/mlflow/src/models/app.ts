/**
 * Registered models in Unity Catalog, over one store (store.ts), in both wire families. Fidelity notes:
 * - /api/2.1/unity-catalog/models: RegisteredModelInfo and ModelVersionInfo as databricks-sdk-go spells
 *   them (flat answers, integer versions); lists page like the rest of Unity Catalog (max_results absent:
 *   everything; the last page has no next_page_token). Create and finalize of versions use the shapes the
 *   mlflow client's native mode sends (MLFLOW_ENABLE_UC_NATIVE_MODEL_REGISTRY).
 * - /api/2.0/mlflow/unity-catalog/*: what the mlflow client (registry URI `databricks-uc`) calls by default:
 *   wrapped answers (`registered_model`, `model_version`), string versions. It is told that the Databricks
 *   SDK models artifact repository is on, so version files go through the Files API at
 *   /Models/<catalog>/<schema>/<model>/<version>/..., which the files service serves from this store.
 * - Temporary credentials answer an expiry and no cloud credential: the files are local.
 * - Deleting a model deletes its versions and files; a version's files are read-only once it is READY.
 */
import { Hono, type Context } from 'hono';
import { invalidParameter, readJson, readQuery, readQueryOrBody, ucPage, type v } from '@minilake/core';
import * as s from '../schemas.js';
import type { ModelStore } from './store.js';
import { mlflowModel, mlflowVersion, nativeModel, nativeVersion, type WireContext } from './wire.js';

const UC = '/api/2.1/unity-catalog';
const ML_BASES = ['/api/2.0/mlflow/unity-catalog', '/api/2.0/preview/mlflow/unity-catalog'];

// Hono has already percent-decoded path parameters.
const param = (c: Context, k: string) => {
  const x = c.req.param(k) ?? '';
  if (x.includes('\0')) throw invalidParameter('Names must not contain NUL bytes');
  return x;
};

const expiry = () => ({ expiration_time: Date.now() + 3600_000 });

export function modelsApp(store: ModelStore, wire: () => WireContext): Hono {
  const app = new Hono();

  // ---- /api/2.1/unity-catalog/models ----
  app.post(`${UC}/models`, async (c) => {
    const b = await readJson(c, s.CreateRegisteredModelRequest);
    if (b.storage_location)
      throw invalidParameter(
        'storage_location cannot be set: MiniLake keeps model files in its data dir (the model answers its own).',
      );
    const r = await store.createModel({ ...b, tags: s.tagMap(b.tags) });
    return c.json(nativeModel(wire(), r));
  });
  app.get(`${UC}/models`, (c) => {
    const q = readQuery(c, s.ListRegisteredModelsRequest);
    if (q.schema_name && !q.catalog_name)
      throw invalidParameter('catalog_name is required when schema_name is given.');
    const w = wire();
    const page = ucPage(store.listModels(q.catalog_name, q.schema_name), (r) => store.fullName(r), q, {
      serverDefault: 100,
    });
    return c.json({
      registered_models: page.items.map((r) => nativeModel(w, r)),
      ...(page.nextPageToken ? { next_page_token: page.nextPageToken } : {}),
    });
  });
  // Create a version (the mlflow client's native mode): before /models/:full_name, which it would match.
  app.post(`${UC}/models/versions`, async (c) => {
    const b = await readJson(c, s.CreateModelVersionNative);
    const full = `${b.catalog_name}.${b.schema_name}.${b.model_name}`;
    const { model, version } = await store.createVersion(full, {
      source: b.source,
      run_id: b.run_id,
      run_workspace_id: workspaceNumber(b.run_tracking_server_id),
      comment: b.comment,
      tags: s.tagMap(b.tags),
      logged_model_id: b.model_id,
      dependencies: b.model_version_dependencies,
    });
    return c.json(nativeVersion(wire(), model, version));
  });
  app.get(`${UC}/models/:full_name`, (c) => {
    const q = readQuery(c, s.GetRegisteredModelRequest);
    return c.json(
      nativeModel(wire(), store.getModel(param(c, 'full_name')), { aliases: q.include_aliases ?? false }),
    );
  });
  app.patch(`${UC}/models/:full_name`, async (c) => {
    const b = await readJson(c, s.UpdateRegisteredModelRequest);
    return c.json(nativeModel(wire(), store.updateModel(param(c, 'full_name'), b), { aliases: true }));
  });
  app.delete(`${UC}/models/:full_name`, async (c) => {
    await store.deleteModel(param(c, 'full_name'));
    return c.json({});
  });
  app.put(`${UC}/models/:full_name/aliases/:alias`, async (c) => {
    const b = await readJson(c, s.SetRegisteredModelAliasRequest);
    const { model, alias } = store.setAlias(param(c, 'full_name'), param(c, 'alias'), b.version_num);
    return c.json({
      alias_name: alias,
      version_num: b.version_num,
      catalog_name: model.catalog_name,
      schema_name: model.schema_name,
      model_name: model.name,
      id: `${model.id}/${alias}`,
    });
  });
  app.delete(`${UC}/models/:full_name/aliases/:alias`, (c) => {
    store.deleteAlias(param(c, 'full_name'), param(c, 'alias'));
    return c.json({});
  });
  app.get(`${UC}/models/:full_name/aliases/:alias`, (c) => {
    const { model, version } = store.versionByAlias(param(c, 'full_name'), param(c, 'alias'));
    return c.json(nativeVersion(wire(), model, version));
  });
  app.get(`${UC}/models/:full_name/versions`, (c) => {
    const q = readQuery(c, s.ListModelVersionsRequest);
    const { model, versions } = store.listVersions(param(c, 'full_name'));
    const w = wire();
    // Newest first; the page token is the zero-padded version number, so it sorts as text.
    const keyed = versions.map((v) => ({ v, key: String(1e12 - v.version).padStart(13, '0') }));
    const page = ucPage(keyed, (x) => x.key, q, { serverDefault: 100 });
    return c.json({
      model_versions: page.items.map((x) => nativeVersion(w, model, x.v)),
      ...(page.nextPageToken ? { next_page_token: page.nextPageToken } : {}),
    });
  });
  app.get(`${UC}/models/:full_name/versions/:version`, (c) => {
    const { model, version } = store.getVersion(param(c, 'full_name'), param(c, 'version'));
    return c.json(nativeVersion(wire(), model, version));
  });
  app.patch(`${UC}/models/:full_name/versions/:version`, async (c) => {
    const b = await readJson(c, s.UpdateModelVersionRequest);
    const full = param(c, 'full_name');
    const v = store.updateVersion(full, param(c, 'version'), b);
    return c.json(nativeVersion(wire(), store.getModel(full), v));
  });
  app.delete(`${UC}/models/:full_name/versions/:version`, async (c) => {
    await store.deleteVersion(param(c, 'full_name'), param(c, 'version'));
    return c.json({});
  });
  app.patch(`${UC}/models/:full_name/versions/:version/finalize`, (c) => {
    const { model, version } = store.finalizeVersion(param(c, 'full_name'), param(c, 'version'));
    return c.json(nativeVersion(wire(), model, version));
  });
  app.post(`${UC}/temporary-model-version-credentials`, async (c) => {
    const b = await readJson(c, s.TemporaryModelVersionCredentialRequest);
    store.getVersion(`${b.catalog_name}.${b.schema_name}.${b.model_name}`, b.version);
    return c.json(expiry());
  });

  // ---- /api/2.0/mlflow/unity-catalog (the mlflow client) ----
  for (const base of ML_BASES) mlflowRoutes(app, base, store, wire);
  return app;
}

function workspaceNumber(id: string | undefined): number | undefined {
  return id && /^\d{1,18}$/.test(id) ? Number(id) : undefined;
}

/** Reads a request's fields from the query (GET) or the JSON body (the others, DELETE included). */
const fields = <S extends v.GenericSchema>(c: Context, schema: S) => readQueryOrBody(c, schema);

function mlflowRoutes(app: Hono, base: string, store: ModelStore, wire: () => WireContext): void {
  const RM = `${base}/registered-models`;
  const MV = `${base}/model-versions`;

  app.get(`${RM}:is-databricks-sdk-models-artifact-repository-enabled`, (c) =>
    c.json({ is_databricks_sdk_models_artifact_repository_enabled: true }),
  );
  app.post(`${RM}/create`, async (c) => {
    const b = await fields(c, s.UcCreateRegisteredModel);
    const [catalog_name, schema_name, name] = store.parseName(b.name);
    const r = await store.createModel({
      catalog_name,
      schema_name,
      name,
      comment: b.description,
      tags: s.tagMap(b.tags),
      deployment_job_id: b.deployment_job_id,
    });
    return c.json({ registered_model: mlflowModel(wire(), r) });
  });
  app.patch(`${RM}/update`, async (c) => {
    const b = await fields(c, s.UcUpdateRegisteredModel);
    const r = store.updateModel(b.name, {
      new_name: b.new_name,
      comment: b.description,
      deployment_job_id: b.deployment_job_id,
    });
    return c.json({ registered_model: mlflowModel(wire(), r) });
  });
  app.delete(`${RM}/delete`, async (c) => {
    await store.deleteModel((await fields(c, s.UcName)).name);
    return c.json({});
  });
  app.get(`${RM}/get`, async (c) =>
    c.json({ registered_model: mlflowModel(wire(), store.getModel((await fields(c, s.UcName)).name)) }),
  );
  app.get(`${RM}/search`, async (c) => {
    const q = await fields(c, s.UcSearch);
    const w = wire();
    const page = ucPage(store.listModels(), (r) => store.fullName(r), {
      ...q,
      max_results: q.max_results ?? 100,
    });
    return c.json({
      registered_models: page.items.map((r) => mlflowModel(w, r)),
      ...(page.nextPageToken ? { next_page_token: page.nextPageToken } : {}),
    });
  });
  app.post(`${RM}/alias`, async (c) => {
    const b = await fields(c, s.UcSetAlias);
    store.setAlias(b.name, b.alias, Number(b.version));
    return c.json({});
  });
  app.delete(`${RM}/alias`, async (c) => {
    const b = await fields(c, s.UcAlias);
    store.deleteAlias(b.name, b.alias);
    return c.json({});
  });
  app.get(`${RM}/alias`, async (c) => {
    const b = await fields(c, s.UcAlias);
    const { model, version } = store.versionByAlias(b.name, b.alias);
    return c.json({ model_version: mlflowVersion(wire(), model, version) });
  });
  app.post(`${RM}/set-tag`, async (c) => {
    const b = await fields(c, s.UcModelTag);
    store.setModelTag(b.name, b.key, b.value ?? '');
    return c.json({});
  });
  app.delete(`${RM}/delete-tag`, async (c) => {
    const b = await fields(c, s.UcModelTagKey);
    store.deleteModelTag(b.name, b.key);
    return c.json({});
  });

  app.post(`${MV}/create`, async (c) => {
    const b = await fields(c, s.UcCreateModelVersion);
    const { model, version } = await store.createVersion(b.name, {
      source: b.source,
      run_id: b.run_id,
      run_workspace_id: workspaceNumber(b.run_tracking_server_id),
      comment: b.description,
      tags: s.tagMap(b.tags),
      logged_model_id: b.model_id,
      dependencies: b.model_version_dependencies,
    });
    return c.json({ model_version: mlflowVersion(wire(), model, version) });
  });
  app.patch(`${MV}/update`, async (c) => {
    const b = await fields(c, s.UcUpdateModelVersion);
    const v = store.updateVersion(b.name, b.version, { comment: b.description });
    return c.json({ model_version: mlflowVersion(wire(), store.getModel(b.name), v) });
  });
  app.delete(`${MV}/delete`, async (c) => {
    const b = await fields(c, s.UcVersion);
    await store.deleteVersion(b.name, b.version);
    return c.json({});
  });
  app.get(`${MV}/get`, async (c) => {
    const b = await fields(c, s.UcVersion);
    const { model, version } = store.getVersion(b.name, b.version);
    return c.json({ model_version: mlflowVersion(wire(), model, version) });
  });
  app.get(`${MV}/search`, async (c) => {
    const q = await fields(c, s.UcSearch);
    const w = wire();
    const found = searchVersions(store, q.filter);
    const page = ucPage(
      found,
      (x) => x.key,
      { ...q, max_results: q.max_results ?? 10_000 },
      { serverMax: 10_000 },
    );
    return c.json({
      model_versions: page.items.map((x) => mlflowVersion(w, x.model, x.version)),
      ...(page.nextPageToken ? { next_page_token: page.nextPageToken } : {}),
    });
  });
  app.post(`${MV}/finalize`, async (c) => {
    const b = await fields(c, s.UcVersion);
    const { model, version } = store.finalizeVersion(b.name, b.version);
    return c.json({ model_version: mlflowVersion(wire(), model, version) });
  });
  app.post(`${MV}/generate-temporary-credentials`, async (c) => {
    const b = await fields(c, s.UcVersion);
    store.getVersion(b.name, b.version);
    return c.json({ credentials: expiry() });
  });
  app.get(`${MV}/get-download-uri`, async (c) => {
    const b = await fields(c, s.UcVersion);
    const { model, version } = store.getVersion(b.name, b.version);
    return c.json({ artifact_uri: `file://${store.versionDir(model, version.version)}` });
  });
  app.post(`${MV}/set-tag`, async (c) => {
    const b = await fields(c, s.UcVersionTag);
    store.setVersionTag(b.name, b.version, b.key, b.value ?? '');
    return c.json({});
  });
  app.delete(`${MV}/delete-tag`, async (c) => {
    const b = await fields(c, s.UcVersionTagKey);
    store.deleteVersionTag(b.name, b.version, b.key);
    return c.json({});
  });
  // Lineage is recorded by Databricks' lineage service, which MiniLake does not have: accepted, kept nowhere.
  app.post(`${MV}/emit-lineage`, async (c) => {
    await fields(c, s.UcVersion);
    return c.json({});
  });
}

/**
 * search_model_versions filters: `name = '<full name>'`, `run_id = '<id>'`, and ANDs of the two (what the
 * mlflow client sends); anything else is refused rather than answered wrong.
 */
function searchVersions(store: ModelStore, filter: string | undefined) {
  const want: Record<string, string> = {};
  for (const part of (filter ?? '').split(/\s+AND\s+/i).filter((x) => x.trim())) {
    const m = /^\s*(name|run_id)\s*=\s*(['"])(.*)\2\s*$/i.exec(part);
    if (!m)
      throw invalidParameter(`Unsupported filter '${filter}': use name = '<name>' and/or run_id = '<id>'.`);
    want[m[1]!.toLowerCase()] = m[3]!;
  }
  const models = want.name ? [store.getModel(want.name)] : store.listModels();
  const out = [];
  for (const model of models)
    for (const version of store.versionsOf(model))
      if (!want.run_id || version.run_id === want.run_id)
        out.push({
          model,
          version,
          key: `${store.fullName(model)}/${String(1e12 - version.version).padStart(13, '0')}`,
        });
  return out.sort((a, b) => (a.key < b.key ? -1 : 1));
}
