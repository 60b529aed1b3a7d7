/** Request schemas, named after the Databricks operations (sdk-go service/pipelines/model.go). */
import { qBool, qInt, v } from '@minilake/core';

// `null` fields are removed before validation (core: null means absent), so optional is enough.
const opt = <S extends v.GenericSchema>(s: S) => v.optional(s);
const strMap = () => v.record(v.string(), v.string());

const PathObject = v.looseObject({ path: opt(v.string()) });
const Library = v.looseObject({
  notebook: opt(PathObject),
  file: opt(PathObject),
  glob: opt(v.looseObject({ include: opt(v.string()) })),
  jar: opt(v.string()),
  whl: opt(v.string()),
  maven: opt(v.looseObject({})),
});

/** The fields of PipelineSpec (and CreatePipeline / EditPipeline) MiniLake reads; the rest are kept as sent. */
export const PipelineSettings = v.looseObject({
  id: opt(v.string()),
  name: opt(v.string()),
  catalog: opt(v.string()),
  schema: opt(v.string()),
  target: opt(v.string()),
  storage: opt(v.string()),
  configuration: opt(strMap()),
  libraries: opt(v.array(Library)),
  root_path: opt(v.string()),
  development: opt(v.boolean()),
  continuous: opt(v.boolean()),
  serverless: opt(v.boolean()),
  photon: opt(v.boolean()),
  channel: opt(v.string()),
  edition: opt(v.string()),
  clusters: opt(v.array(v.looseObject({}))),
  environment: opt(v.looseObject({ dependencies: opt(v.array(v.string())) })),
  allow_duplicate_names: opt(v.boolean()),
  dry_run: opt(v.boolean()),
  expected_last_modified: opt(v.number()),
  parameters: opt(strMap()),
  run_as: opt(v.looseObject({ user_name: opt(v.string()), service_principal_name: opt(v.string()) })),
  tags: opt(strMap()),
});
export type PipelineSettingsInput = v.InferOutput<typeof PipelineSettings>;

export const DeletePipelineRequest = v.looseObject({ cascade: opt(qBool()), force: opt(qBool()) });

export const ListPipelinesRequest = v.looseObject({
  filter: opt(v.string()),
  max_results: opt(qInt()),
  page_token: opt(v.string()),
});

export const StartUpdate = v.looseObject({
  cause: opt(v.string()),
  full_refresh: opt(v.boolean()),
  full_refresh_selection: opt(v.array(v.string())),
  refresh_selection: opt(v.array(v.string())),
  reset_checkpoint_selection: opt(v.array(v.string())),
  replace_where_overrides: opt(v.array(v.looseObject({}))),
  rewind_spec: opt(v.looseObject({})),
  validate_only: opt(v.boolean()),
  parameters: opt(strMap()),
});

export const ListUpdatesRequest = v.looseObject({
  max_results: opt(qInt()),
  page_token: opt(v.string()),
  until_update_id: opt(v.string()),
});

export const ListPipelineEventsRequest = v.looseObject({
  filter: opt(v.string()),
  max_results: opt(qInt()),
  page_token: opt(v.string()),
});

/** What the engine's runner reports for a running update (MiniLake's own route). */
export const Report = v.looseObject({ events: v.array(v.looseObject({ type: v.string() })) });

/** What MiniLake's Spark catalog plugin asks for when Spark creates a pipeline's table. */
export const CreateDatasetTable = v.looseObject({
  catalog_name: v.string(),
  schema_name: v.string(),
  name: v.string(),
  comment: opt(v.string()),
  fields: v.array(v.looseObject({})),
  partition_columns: opt(v.array(v.string())),
  properties: opt(strMap()),
});
