import { qBool, qInt, v } from '@minilake/core';

const clusterSize = v.picklist(
  [
    '2X-Small',
    'X-Small',
    'Small',
    'Medium',
    'Large',
    'X-Large',
    '2X-Large',
    '3X-Large',
    '4X-Large',
    '5X-Large',
  ],
  'cluster_size must be one of 2X-Small, X-Small, Small, Medium, Large, X-Large, 2X-Large, 3X-Large, 4X-Large, 5X-Large',
);
const channel = v.object({
  name: v.optional(
    v.picklist([
      'CHANNEL_NAME_CURRENT',
      'CHANNEL_NAME_PREVIEW',
      'CHANNEL_NAME_PREVIOUS',
      'CHANNEL_NAME_CUSTOM',
    ]),
  ),
  dbsql_version: v.optional(v.string()),
});
const tags = v.object({
  custom_tags: v.optional(v.array(v.object({ key: v.string(), value: v.optional(v.string()) }))),
});
const int = () => v.pipe(v.number(), v.integer('must be an integer'));

const warehouseFields = {
  name: v.optional(v.pipe(v.string(), v.maxLength(100, 'name must be less than 100 characters'))),
  cluster_size: v.optional(clusterSize),
  auto_stop_mins: v.optional(int()),
  channel: v.optional(channel),
  creator_name: v.optional(v.string()),
  enable_photon: v.optional(v.boolean()),
  enable_serverless_compute: v.optional(v.boolean()),
  instance_profile_arn: v.optional(v.string()),
  max_num_clusters: v.optional(int()),
  min_num_clusters: v.optional(int()),
  spot_instance_policy: v.optional(
    v.picklist(['COST_OPTIMIZED', 'RELIABILITY_OPTIMIZED', 'POLICY_UNSPECIFIED']),
  ),
  tags: v.optional(tags),
  warehouse_type: v.optional(v.picklist(['CLASSIC', 'PRO', 'TYPE_UNSPECIFIED'])),
};

export const CreateWarehouseRequest = v.object(warehouseFields);
export const EditWarehouseRequest = v.object(warehouseFields);
export type WarehouseFields = v.InferOutput<typeof CreateWarehouseRequest>;

export const ListWarehousesRequest = v.object({
  page_size: v.optional(qInt()),
  page_token: v.optional(v.string()),
  run_as_user_id: v.optional(v.string()),
});

const parameter = v.object({
  name: v.pipe(v.string(), v.minLength(1, 'parameter name must not be empty')),
  value: v.optional(v.nullable(v.string())),
  type: v.optional(v.string()),
});

export const ExecuteStatementRequest = v.object({
  statement: v.pipe(
    v.string('statement is required'),
    v.maxLength(16 * 1024 * 1024, 'statement must be at most 16 MiB'),
  ),
  warehouse_id: v.pipe(v.string('warehouse_id is required'), v.minLength(1, 'warehouse_id is required')),
  catalog: v.optional(v.string()),
  schema: v.optional(v.string()),
  parameters: v.optional(v.array(parameter)),
  row_limit: v.optional(v.pipe(int(), v.minValue(0, 'row_limit must not be negative'))),
  byte_limit: v.optional(v.pipe(int(), v.minValue(0, 'byte_limit must not be negative'))),
  disposition: v.optional(
    v.picklist(['INLINE', 'EXTERNAL_LINKS'], 'disposition must be INLINE or EXTERNAL_LINKS'),
  ),
  format: v.optional(
    v.picklist(['JSON_ARRAY', 'ARROW_STREAM', 'CSV'], 'format must be JSON_ARRAY, ARROW_STREAM or CSV'),
  ),
  wait_timeout: v.optional(v.string()),
  on_wait_timeout: v.optional(
    v.picklist(['CONTINUE', 'CANCEL'], 'on_wait_timeout must be CONTINUE or CANCEL'),
  ),
  query_tags: v.optional(v.array(v.object({ key: v.string(), value: v.optional(v.nullable(v.string())) }))),
});
export type ExecuteStatementInput = v.InferOutput<typeof ExecuteStatementRequest>;

export const ListQueryHistoryRequest = v.object({
  max_results: v.optional(qInt()),
  page_token: v.optional(v.string()),
  include_metrics: v.optional(qBool()),
});

const confPairs = v.object({
  configuration_pairs: v.optional(
    v.array(v.object({ key: v.optional(v.string()), value: v.optional(v.string()) })),
  ),
});
export const SetWorkspaceWarehouseConfigRequest = v.object({
  channel: v.optional(channel),
  config_param: v.optional(confPairs),
  data_access_config: v.optional(
    v.array(v.object({ key: v.optional(v.string()), value: v.optional(v.string()) })),
  ),
  enable_serverless_compute: v.optional(v.boolean()),
  enabled_warehouse_types: v.optional(
    v.array(
      v.object({
        enabled: v.optional(v.boolean()),
        warehouse_type: v.optional(v.picklist(['CLASSIC', 'PRO', 'TYPE_UNSPECIFIED'])),
      }),
    ),
  ),
  global_param: v.optional(confPairs),
  google_service_account: v.optional(v.string()),
  instance_profile_arn: v.optional(v.string()),
  security_policy: v.optional(
    v.picklist(
      ['NONE', 'DATA_ACCESS_CONTROL', 'PASSTHROUGH'],
      'security_policy must be NONE, DATA_ACCESS_CONTROL or PASSTHROUGH',
    ),
  ),
  sql_configuration_parameters: v.optional(confPairs),
});
export type WorkspaceWarehouseConfig = v.InferOutput<typeof SetWorkspaceWarehouseConfigRequest>;
