import { qBool, qInt, v } from '@minilake/core';

const str = () => v.string();
const opt = <T extends v.GenericSchema>(s: T) => v.optional(v.nullable(s));
const props = () => v.optional(v.nullable(v.record(v.string(), v.pipe(v.unknown(), v.transform(String)))));

export const ListRequest = v.object({
  max_results: v.optional(qInt()),
  page_token: v.optional(v.string()),
  include_browse: v.optional(qBool()),
});

export const CreateCatalogRequest = v.object({
  name: str(),
  comment: opt(str()),
  properties: props(),
  storage_root: opt(str()),
  provider_name: opt(str()),
  share_name: opt(str()),
  connection_name: opt(str()),
  options: opt(v.record(v.string(), v.string())),
});
export const UpdateCatalogRequest = v.object({
  new_name: opt(str()),
  comment: opt(str()),
  properties: props(),
  owner: opt(str()),
  isolation_mode: opt(v.picklist(['OPEN', 'ISOLATED'], 'isolation_mode must be OPEN or ISOLATED')),
  enable_predictive_optimization: opt(
    v.picklist(
      ['ENABLE', 'DISABLE', 'INHERIT'],
      'enable_predictive_optimization must be ENABLE, DISABLE or INHERIT',
    ),
  ),
});
export const ForceRequest = v.object({ force: v.optional(qBool()) });

export const CreateSchemaRequest = v.object({
  name: str(),
  catalog_name: str(),
  comment: opt(str()),
  properties: props(),
  storage_root: opt(str()),
});
export const ListSchemasRequest = v.object({
  catalog_name: str(),
  max_results: v.optional(qInt()),
  page_token: v.optional(v.string()),
  include_browse: v.optional(qBool()),
});
export const UpdateSchemaRequest = v.object({
  new_name: opt(str()),
  comment: opt(str()),
  properties: props(),
  owner: opt(str()),
  enable_predictive_optimization: opt(
    v.picklist(
      ['ENABLE', 'DISABLE', 'INHERIT'],
      'enable_predictive_optimization must be ENABLE, DISABLE or INHERIT',
    ),
  ),
});

export const ColumnInfo = v.object({
  name: str(),
  type_text: opt(str()),
  type_name: opt(str()),
  type_json: opt(str()),
  type_precision: opt(v.number()),
  type_scale: opt(v.number()),
  position: opt(v.number()),
  nullable: opt(v.boolean()),
  comment: opt(str()),
  partition_index: opt(v.number()),
});
export type ColumnInput = v.InferOutput<typeof ColumnInfo>;

export const CreateTableRequest = v.object({
  name: str(),
  catalog_name: str(),
  schema_name: str(),
  table_type: v.optional(
    v.picklist(['MANAGED', 'EXTERNAL'], 'table_type must be MANAGED or EXTERNAL'),
    'MANAGED',
  ),
  data_source_format: opt(str()),
  storage_location: opt(str()),
  columns: v.optional(v.nullable(v.array(ColumnInfo))),
  comment: opt(str()),
  properties: props(),
});
/** Unity Catalog OSS: a MANAGED table's folder handed out before the table exists. */
export const CreateStagingTableRequest = v.object({
  name: str(),
  catalog_name: str(),
  schema_name: str(),
});
export const ListTablesRequest = v.object({
  catalog_name: str(),
  schema_name: str(),
  max_results: v.optional(qInt()),
  page_token: v.optional(v.string()),
  omit_columns: v.optional(qBool()),
  omit_properties: v.optional(qBool()),
  include_browse: v.optional(qBool()),
});
export const TableSummariesRequest = v.object({
  catalog_name: str(),
  schema_name_pattern: v.optional(str()),
  table_name_pattern: v.optional(str()),
  max_results: v.optional(qInt()),
  page_token: v.optional(v.string()),
});
export const UpdateTableRequest = v.object({ owner: opt(str()), comment: opt(str()) });

export const CreateVolumeRequest = v.object({
  name: str(),
  catalog_name: str(),
  schema_name: str(),
  volume_type: v.optional(
    v.picklist(['MANAGED', 'EXTERNAL'], 'volume_type must be MANAGED or EXTERNAL'),
    'MANAGED',
  ),
  storage_location: opt(str()),
  comment: opt(str()),
});
/** MiniLake's own: may the caller read, write, or take a status of a volume's files (Spark's file systems ask). */
export const VolumeAccessRequest = v.object({ mode: v.picklist(['read', 'write', 'any']) });

export const ListVolumesRequest = v.object({
  catalog_name: str(),
  schema_name: str(),
  max_results: v.optional(qInt()),
  page_token: v.optional(v.string()),
  include_browse: v.optional(qBool()),
});
export const UpdateVolumeRequest = v.object({ new_name: opt(str()), comment: opt(str()), owner: opt(str()) });

export const FunctionParameter = v.object({
  name: str(),
  type_text: str(),
  type_name: opt(str()),
  type_json: opt(str()),
  type_precision: opt(v.number()),
  type_scale: opt(v.number()),
  position: opt(v.number()),
  parameter_mode: opt(str()),
  parameter_type: opt(str()),
  parameter_default: opt(str()),
  comment: opt(str()),
});
export const CreateFunctionRequest = v.object({
  function_info: v.object({
    name: str(),
    catalog_name: str(),
    schema_name: str(),
    input_params: opt(v.object({ parameters: opt(v.array(FunctionParameter)) })),
    return_params: opt(v.object({ parameters: opt(v.array(FunctionParameter)) })),
    data_type: opt(str()),
    full_data_type: opt(str()),
    routine_body: opt(str()),
    routine_definition: opt(str()),
    routine_dependencies: opt(v.unknown()),
    parameter_style: opt(str()),
    is_deterministic: opt(v.boolean()),
    sql_data_access: opt(str()),
    is_null_call: opt(v.boolean()),
    security_type: opt(str()),
    specific_name: opt(str()),
    external_language: opt(str()),
    external_name: opt(str()),
    sql_path: opt(str()),
    comment: opt(str()),
    properties: opt(str()),
  }),
});
export type FunctionInput = v.InferOutput<typeof CreateFunctionRequest>['function_info'];
export const ListFunctionsRequest = ListVolumesRequest;
export const UpdateFunctionRequest = v.object({ owner: opt(str()) });

export const UpdatePermissionsRequest = v.object({
  changes: v.optional(
    v.array(
      v.object({
        principal: str(),
        add: v.optional(v.nullable(v.array(str()))),
        remove: v.optional(v.nullable(v.array(str()))),
      }),
    ),
    [],
  ),
});
export const GetPermissionsRequest = v.object({
  principal: v.optional(str()),
  max_results: v.optional(qInt()),
  page_token: v.optional(v.string()),
});

export const TemporaryTableCredentialsRequest = v.object({ table_id: opt(str()), operation: opt(str()) });
export const TemporaryPathCredentialsRequest = v.object({ url: opt(str()), operation: opt(str()) });
export const GetTableRequest = v.object({
  omit_columns: v.optional(qBool()),
  include_browse: v.optional(qBool()),
  include_delta_metadata: v.optional(qBool()),
  include_manifest_capabilities: v.optional(qBool()),
});
export const PagedPermissionsRequest = v.object({
  principal: v.optional(str()),
  page_size: v.optional(qInt()),
  page_token: v.optional(v.string()),
});
