import { qBool, qInt, v } from '@minilake/core';

const id = (what: string) =>
  v.pipe(v.string(`${what} must be a string`), v.minLength(1, `${what} must not be empty`));
const int = () => v.pipe(v.number('must be a number'), v.integer('must be an integer'));
const stringMap = () => v.record(v.string(), v.string('values must be strings'));

export const CLUSTER_STATES = [
  'PENDING',
  'RUNNING',
  'RESTARTING',
  'RESIZING',
  'TERMINATING',
  'TERMINATED',
  'ERROR',
  'UNKNOWN',
] as const;
export const CLUSTER_SOURCES = [
  'API',
  'UI',
  'JOB',
  'MODELS',
  'PIPELINE',
  'PIPELINE_MAINTENANCE',
  'SQL',
] as const;

/**
 * The cluster attributes MiniLake looks at. Every other attribute (aws_attributes, docker_image, init_scripts,
 * runtime_engine, ...) is kept as sent and echoed back, so the schema is loose.
 */
const clusterAttributes = {
  cluster_name: v.optional(v.string()),
  spark_version: v.optional(v.string()),
  node_type_id: v.optional(v.string()),
  driver_node_type_id: v.optional(v.string()),
  num_workers: v.optional(v.pipe(int(), v.minValue(0, 'num_workers must be at least 0'))),
  autoscale: v.optional(
    v.looseObject({
      min_workers: v.optional(v.pipe(int(), v.minValue(0, 'min_workers must be at least 0'))),
      max_workers: v.optional(v.pipe(int(), v.minValue(1, 'max_workers must be at least 1'))),
    }),
  ),
  autotermination_minutes: v.optional(int()),
  policy_id: v.optional(v.string()),
  instance_pool_id: v.optional(v.string()),
  driver_instance_pool_id: v.optional(v.string()),
  apply_policy_default_values: v.optional(v.boolean()),
  custom_tags: v.optional(stringMap()),
  spark_conf: v.optional(stringMap()),
  spark_env_vars: v.optional(stringMap()),
  data_security_mode: v.optional(v.string()),
  single_user_name: v.optional(v.string()),
};

export const CreateCluster = v.looseObject(clusterAttributes);
export const EditCluster = v.looseObject({ ...clusterAttributes, cluster_id: id('cluster_id') });
export const UpdateCluster = v.object({
  cluster_id: id('cluster_id'),
  update_mask: v.string('update_mask must be a string'),
  cluster: v.optional(v.looseObject(clusterAttributes)),
});
export const ClusterIdRequest = v.object({ cluster_id: id('cluster_id') });
export const RestartCluster = v.object({
  cluster_id: id('cluster_id'),
  restart_user: v.optional(v.string()),
});
export const ResizeCluster = v.object({
  cluster_id: id('cluster_id'),
  num_workers: clusterAttributes.num_workers,
  autoscale: clusterAttributes.autoscale,
});
export const ChangeClusterOwner = v.object({
  cluster_id: id('cluster_id'),
  owner_username: id('owner_username'),
});
export const GetCluster = v.object({ cluster_id: id('cluster_id') });

/** clusters/list: nested query parameters arrive flattened (filter_by.cluster_states=RUNNING, repeated). */
export const ListClusters = v.object({
  cluster_states: v.array(v.picklist(CLUSTER_STATES, 'filter_by.cluster_states has an invalid state')),
  cluster_sources: v.array(v.picklist(CLUSTER_SOURCES, 'filter_by.cluster_sources has an invalid source')),
  is_pinned: v.optional(qBool()),
  policy_id: v.optional(v.string()),
  page_size: v.optional(qInt()),
  page_token: v.optional(v.string()),
  sort_field: v.optional(
    v.picklist(['CLUSTER_NAME', 'DEFAULT'], 'sort_by.field must be CLUSTER_NAME or DEFAULT'),
  ),
  sort_direction: v.optional(v.picklist(['ASC', 'DESC'], 'sort_by.direction must be ASC or DESC')),
});

export const EVENT_TYPES = [
  'ADD_NODES_FAILED',
  'AUTOMATIC_CLUSTER_UPDATE',
  'AUTOSCALING_BACKOFF',
  'AUTOSCALING_FAILED',
  'AUTOSCALING_STATS_REPORT',
  'CLUSTER_MIGRATED',
  'CREATING',
  'DBFS_DOWN',
  'DECOMMISSION_ENDED',
  'DECOMMISSION_STARTED',
  'DID_NOT_EXPAND_DISK',
  'DRIVER_HEALTHY',
  'DRIVER_NOT_RESPONDING',
  'DRIVER_UNAVAILABLE',
  'EDITED',
  'EXPANDED_DISK',
  'FAILED_TO_EXPAND_DISK',
  'INIT_SCRIPTS_FINISHED',
  'INIT_SCRIPTS_STARTED',
  'METASTORE_DOWN',
  'NODES_LOST',
  'NODE_BLACKLISTED',
  'NODE_EXCLUDED_DECOMMISSIONED',
  'PINNED',
  'RESIZING',
  'RESTARTING',
  'RUNNING',
  'SPARK_EXCEPTION',
  'STARTING',
  'TERMINATING',
  'UNPINNED',
  'UPSIZE_COMPLETED',
] as const;

export const GetEvents = v.object({
  cluster_id: id('cluster_id'),
  start_time: v.optional(int()),
  end_time: v.optional(int()),
  order: v.optional(v.picklist(['ASC', 'DESC'], 'order must be ASC or DESC')),
  event_types: v.optional(v.array(v.picklist(EVENT_TYPES, 'event_types has an invalid event type'))),
  offset: v.optional(v.pipe(int(), v.minValue(0, 'offset must be at least 0'))),
  limit: v.optional(
    v.pipe(int(), v.minValue(1, 'limit must be at least 1'), v.maxValue(500, 'limit must be at most 500')),
  ),
  page_size: v.optional(int()),
  page_token: v.optional(v.string()),
});

const policyFields = {
  name: v.optional(v.pipe(v.string(), v.maxLength(100, 'name must be at most 100 characters'))),
  definition: v.optional(v.string('definition must be a JSON string')),
  description: v.optional(v.string()),
  max_clusters_per_user: v.optional(v.pipe(int(), v.minValue(0, 'max_clusters_per_user must be at least 0'))),
  policy_family_id: v.optional(v.string()),
  policy_family_definition_overrides: v.optional(v.string()),
  libraries: v.optional(v.array(v.record(v.string(), v.unknown()))),
};
export const CreatePolicy = v.object(policyFields);
export const EditPolicy = v.object({ ...policyFields, policy_id: id('policy_id') });
export const PolicyIdRequest = v.object({ policy_id: id('policy_id') });
export const ListPolicies = v.object({
  sort_column: v.optional(v.picklist(['POLICY_CREATION_TIME', 'POLICY_NAME'])),
  sort_order: v.optional(v.picklist(['ASC', 'DESC'])),
});
export const ListPolicyFamilies = v.object({
  max_results: v.optional(qInt()),
  page_token: v.optional(v.string()),
});
export const GetPolicyFamily = v.object({ version: v.optional(qInt()) });

const poolFields = {
  instance_pool_name: id('instance_pool_name'),
  node_type_id: id('node_type_id'),
  min_idle_instances: v.optional(v.pipe(int(), v.minValue(0, 'min_idle_instances must be at least 0'))),
  max_capacity: v.optional(v.pipe(int(), v.minValue(1, 'max_capacity must be at least 1'))),
  idle_instance_autotermination_minutes: v.optional(v.pipe(int(), v.minValue(0))),
  custom_tags: v.optional(stringMap()),
};
export const CreateInstancePool = v.looseObject(poolFields);
export const EditInstancePool = v.looseObject({ ...poolFields, instance_pool_id: id('instance_pool_id') });
export const InstancePoolIdRequest = v.object({ instance_pool_id: id('instance_pool_id') });

export const Library = v.looseObject({
  jar: v.optional(v.string()),
  egg: v.optional(v.string()),
  whl: v.optional(v.string()),
  requirements: v.optional(v.string()),
  pypi: v.optional(v.looseObject({ package: id('pypi.package'), repo: v.optional(v.string()) })),
  maven: v.optional(
    v.looseObject({
      coordinates: id('maven.coordinates'),
      repo: v.optional(v.string()),
      exclusions: v.optional(v.array(v.string())),
    }),
  ),
  cran: v.optional(v.looseObject({ package: id('cran.package'), repo: v.optional(v.string()) })),
});
export const InstallLibraries = v.object({ cluster_id: id('cluster_id'), libraries: v.array(Library) });
export const LibrariesClusterStatus = v.object({ cluster_id: id('cluster_id') });
