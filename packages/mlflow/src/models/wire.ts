/**
 * The two wire shapes of one registered model and model version: Unity Catalog's (`RegisteredModelInfo`,
 * `ModelVersionInfo` of /api/2.1/unity-catalog, as databricks-sdk-go spells them) and the mlflow client's
 * (`RegisteredModel`, `ModelVersion` of /api/2.0/mlflow/unity-catalog, mlflow's databricks_uc_registry
 * protos: string versions, `*_timestamp`, `user_id`, `description`).
 */
import type { ModelRecord, ModelStore, VersionRecord } from './store.js';

export interface WireContext {
  store: ModelStore;
  metastoreId: string;
  workspaceId: string;
}

const fileUrl = (dir: string) => `file://${dir}`;

function aliasInfos(w: WireContext, r: ModelRecord, version?: number) {
  return Object.entries(r.aliases)
    .filter(([, v]) => version === undefined || v === version)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([alias_name, version_num]) => ({
      alias_name,
      version_num,
      catalog_name: r.catalog_name,
      schema_name: r.schema_name,
      model_name: r.name,
      id: `${r.id}/${alias_name}`,
    }));
}

/** RegisteredModelInfo; aliases only when asked for (include_aliases), as Databricks answers. */
export function nativeModel(w: WireContext, r: ModelRecord, opts: { aliases?: boolean } = {}) {
  return {
    name: r.name,
    catalog_name: r.catalog_name,
    schema_name: r.schema_name,
    full_name: w.store.fullName(r),
    ...(r.comment ? { comment: r.comment } : {}),
    storage_location: fileUrl(w.store.modelDir(r)),
    owner: r.owner,
    id: r.id,
    metastore_id: w.metastoreId,
    created_at: r.created_at,
    created_by: r.created_by,
    updated_at: r.updated_at,
    updated_by: r.updated_by,
    ...(opts.aliases && Object.keys(r.aliases).length ? { aliases: aliasInfos(w, r) } : {}),
  };
}

export function nativeVersion(
  w: WireContext,
  r: ModelRecord,
  v: VersionRecord,
  opts: { aliases?: boolean } = {},
) {
  const aliases = aliasInfos(w, r, v.version);
  return {
    model_name: r.name,
    catalog_name: r.catalog_name,
    schema_name: r.schema_name,
    version: v.version,
    id: v.id,
    ...(v.source ? { source: v.source } : {}),
    ...(v.run_id ? { run_id: v.run_id } : {}),
    ...(v.run_workspace_id ? { run_workspace_id: v.run_workspace_id } : {}),
    ...(v.comment ? { comment: v.comment } : {}),
    status: v.status,
    storage_location: fileUrl(w.store.versionDir(r, v.version)),
    metastore_id: w.metastoreId,
    created_at: v.created_at,
    created_by: v.created_by,
    updated_at: v.updated_at,
    updated_by: v.updated_by,
    ...(v.logged_model_id ? { model_id: v.logged_model_id } : {}),
    ...(v.dependencies !== undefined ? { model_version_dependencies: v.dependencies } : {}),
    ...(opts.aliases !== false && aliases.length ? { aliases } : {}),
  };
}

const tagList = (tags: Record<string, string>) =>
  Object.entries(tags)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, value]) => ({ key, value }));

/** The mlflow client's RegisteredModel. */
export function mlflowModel(w: WireContext, r: ModelRecord) {
  return {
    name: w.store.fullName(r),
    creation_timestamp: r.created_at,
    last_updated_timestamp: r.updated_at,
    user_id: r.created_by,
    ...(r.comment ? { description: r.comment } : {}),
    aliases: Object.entries(r.aliases)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([alias, version]) => ({ alias, version: String(version) })),
    tags: tagList(r.tags),
    ...(r.deployment_job_id ? { deployment_job_id: r.deployment_job_id } : {}),
  };
}

/** The mlflow client's ModelVersion. */
export function mlflowVersion(w: WireContext, r: ModelRecord, v: VersionRecord) {
  return {
    name: w.store.fullName(r),
    version: String(v.version),
    creation_timestamp: v.created_at,
    last_updated_timestamp: v.updated_at,
    user_id: v.created_by,
    ...(v.comment ? { description: v.comment } : {}),
    ...(v.source ? { source: v.source } : {}),
    ...(v.run_id ? { run_id: v.run_id } : {}),
    ...(v.run_workspace_id ? { run_tracking_server_id: String(v.run_workspace_id) } : {}),
    status: v.status,
    storage_location: fileUrl(w.store.versionDir(r, v.version)),
    aliases: w.store.aliasesOf(r, v.version).map((alias) => ({ alias, version: String(v.version) })),
    tags: tagList(v.tags),
    ...(v.logged_model_id ? { model_id: v.logged_model_id } : {}),
  };
}
