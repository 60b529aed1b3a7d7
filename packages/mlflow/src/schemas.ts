/**
 * Request schemas, named after the operations; wire names as Databricks (and mlflow's protos) spell them.
 * Protobuf JSON sends int64 as strings or numbers: both are accepted where that happens.
 */
import { qBool, qInt, v } from '@minilake/core';

const str = () => v.optional(v.string());
const name = v.string('name is required');
const version = v.pipe(
  v.union([v.string(), v.number()], 'version is required'),
  v.transform((x) => String(x)),
);
const tags = v.optional(v.array(v.object({ key: v.string(), value: v.optional(v.string()) })));
export const tagMap = (t: { key: string; value?: string | undefined }[] | undefined) =>
  Object.fromEntries((t ?? []).map((x) => [x.key, x.value ?? '']));

// ---- /api/2.1/unity-catalog/models (databricks-sdk-go service/catalog) ----
export const CreateRegisteredModelRequest = v.object({
  catalog_name: v.string('catalog_name is required'),
  schema_name: v.string('schema_name is required'),
  name: v.string('name is required'),
  comment: str(),
  storage_location: str(),
  tags,
  deployment_job_id: str(),
});
export const ListRegisteredModelsRequest = v.object({
  catalog_name: str(),
  schema_name: str(),
  max_results: v.optional(qInt()),
  page_token: str(),
  include_browse: v.optional(qBool()),
});
export const GetRegisteredModelRequest = v.object({
  include_aliases: v.optional(qBool()),
  include_browse: v.optional(qBool()),
});
export const UpdateRegisteredModelRequest = v.object({
  new_name: str(),
  comment: str(),
  owner: str(),
  deployment_job_id: str(),
});
export const SetRegisteredModelAliasRequest = v.object({
  version_num: v.pipe(qInt(), v.minValue(1, 'version_num must be a positive integer')),
});
export const ListModelVersionsRequest = v.object({
  max_results: v.optional(qInt()),
  page_token: str(),
  include_browse: v.optional(qBool()),
});
export const UpdateModelVersionRequest = v.object({ comment: str() });
export const CreateModelVersionNative = v.object({
  catalog_name: v.string('catalog_name is required'),
  schema_name: v.string('schema_name is required'),
  model_name: v.string('model_name is required'),
  source: str(),
  run_id: str(),
  comment: str(),
  tags,
  model_id: str(),
  run_tracking_server_id: str(),
  model_version_dependencies: v.optional(v.unknown()),
});
export const TemporaryModelVersionCredentialRequest = v.object({
  catalog_name: v.string('catalog_name is required'),
  schema_name: v.string('schema_name is required'),
  model_name: v.string('model_name is required'),
  version: qInt(),
  operation: str(),
});

// ---- /api/2.0/mlflow/unity-catalog (mlflow's databricks_uc_registry_messages.proto) ----
export const UcCreateRegisteredModel = v.object({ name, description: str(), tags, deployment_job_id: str() });
export const UcUpdateRegisteredModel = v.object({
  name,
  new_name: str(),
  description: str(),
  deployment_job_id: str(),
});
export const UcName = v.object({ name });
export const UcSearch = v.object({ max_results: v.optional(qInt()), page_token: str(), filter: str() });
export const UcCreateModelVersion = v.object({
  name,
  source: str(),
  run_id: str(),
  description: str(),
  run_tracking_server_id: str(),
  feature_deps: str(),
  tags,
  model_version_dependencies: v.optional(v.unknown()),
  model_id: str(),
});
export const UcVersion = v.object({ name, version });
export const UcUpdateModelVersion = v.object({ name, version, description: str() });
export const UcAlias = v.object({ name, alias: v.string('alias is required') });
export const UcSetAlias = v.object({ name, alias: v.string('alias is required'), version });
export const UcModelTag = v.object({ name, key: v.string('key is required'), value: str() });
export const UcModelTagKey = v.object({ name, key: v.string('key is required') });
export const UcVersionTag = v.object({ name, version, key: v.string('key is required'), value: str() });
export const UcVersionTagKey = v.object({ name, version, key: v.string('key is required') });

// ---- tracking (intercepted calls) ----
export const CreateExperiment = v.object({
  name: v.string('name is required'),
  artifact_location: str(),
  tags: v.optional(v.array(v.unknown())),
});
export const RunId = v.object({ run_id: v.string('run_id is required') });
export const ExperimentId = v.object({ experiment_id: v.string('experiment_id is required') });
export const UpdateExperiment = v.object({
  experiment_id: v.string('experiment_id is required'),
  new_name: str(),
});
export const GetExperimentByName = v.object({ experiment_name: v.string('experiment_name is required') });
export const ListArtifacts = v.object({
  run_id: str(),
  run_uuid: str(),
  path: str(),
  page_token: str(),
});
export const GetArtifact = v.object({ run_id: str(), run_uuid: str(), path: v.string('path is required') });
export const ArtifactCredentials = v.object({
  run_id: v.string('run_id is required'),
  path: v.optional(v.union([v.string(), v.array(v.string())])),
  page_token: str(),
});
export const LoggedModelCredentials = v.object({
  paths: v.optional(v.union([v.string(), v.array(v.string())])),
  page_token: str(),
});
export const LoggedModelArtifacts = v.object({
  artifact_directory_path: str(),
  page_token: str(),
});
export const LoggedModelFile = v.object({ artifact_file_path: v.string('artifact_file_path is required') });
export const SignedLink = v.object({ expires: qInt(), sig: v.string('sig is required') });
