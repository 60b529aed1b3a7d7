/**
 * The static parts of a workspace's compute offer: runtime versions, node types, zones and the built-in policy
 * families. Shapes follow the real responses; the content is a plausible AWS workspace plus a few Azure node
 * types, so configurations written for either cloud find their node type.
 */

export interface SparkVersion {
  key: string;
  name: string;
}

const v = (key: string, name: string): SparkVersion => ({ key, name });

export const SPARK_VERSIONS: SparkVersion[] = [
  // Through the newest runtime the newest databricks-connect on PyPI targets (19.3): its version check
  // needs a cluster's spark_version at or above its own major.minor.
  v('19.3.x-scala2.13', '19.3 Beta (includes Apache Spark 4.2.0, Scala 2.13)'),
  v('19.2.x-scala2.13', '19.2 Beta (includes Apache Spark 4.2.0, Scala 2.13)'),
  v('19.1.x-scala2.13', '19.1 Beta (includes Apache Spark 4.2.0, Scala 2.13)'),
  v('19.0.x-scala2.13', '19.0 Beta (includes Apache Spark 4.2.0, Scala 2.13)'),
  v('18.2.x-scala2.13', '18.2 (includes Apache Spark 4.1.0, Scala 2.13)'),
  v('18.2.x-photon-scala2.13', '18.2 Photon (includes Apache Spark 4.1.0, Scala 2.13)'),
  v('18.2.x-cpu-ml-scala2.13', '18.2 ML (includes Apache Spark 4.1.0, Scala 2.13)'),
  v('18.1.x-scala2.13', '18.1 (includes Apache Spark 4.1.0, Scala 2.13)'),
  v('18.0.x-scala2.13', '18.0 (includes Apache Spark 4.1.0, Scala 2.13)'),
  v('17.3.x-scala2.13', '17.3 LTS (includes Apache Spark 4.0.0, Scala 2.13)'),
  v('17.3.x-photon-scala2.13', '17.3 LTS Photon (includes Apache Spark 4.0.0, Scala 2.13)'),
  v('17.3.x-cpu-ml-scala2.13', '17.3 LTS ML (includes Apache Spark 4.0.0, Scala 2.13)'),
  v('17.3.x-gpu-ml-scala2.13', '17.3 LTS ML (includes Apache Spark 4.0.0, GPU, Scala 2.13)'),
  v('17.2.x-scala2.13', '17.2 Beta (includes Apache Spark 4.0.0, Scala 2.13)'),
  v('17.1.x-scala2.13', '17.1 (includes Apache Spark 4.0.0, Scala 2.13)'),
  v('17.1.x-photon-scala2.13', '17.1 Photon (includes Apache Spark 4.0.0, Scala 2.13)'),
  v('17.1.x-cpu-ml-scala2.13', '17.1 ML (includes Apache Spark 4.0.0, Scala 2.13)'),
  v('17.0.x-scala2.13', '17.0 (includes Apache Spark 4.0.0, Scala 2.13)'),
  v('16.4.x-scala2.13', '16.4 LTS (includes Apache Spark 3.5.2, Scala 2.13)'),
  v('16.4.x-scala2.12', '16.4 LTS (includes Apache Spark 3.5.2, Scala 2.12)'),
  v('16.4.x-photon-scala2.12', '16.4 LTS Photon (includes Apache Spark 3.5.2, Scala 2.12)'),
  v('16.4.x-aarch64-scala2.12', '16.4 LTS aarch64 (includes Apache Spark 3.5.2, Scala 2.12)'),
  v('16.4.x-cpu-ml-scala2.12', '16.4 LTS ML (includes Apache Spark 3.5.2, Scala 2.12)'),
  v('16.4.x-gpu-ml-scala2.12', '16.4 LTS ML (includes Apache Spark 3.5.2, GPU, Scala 2.12)'),
  v('15.4.x-scala2.12', '15.4 LTS (includes Apache Spark 3.5.0, Scala 2.12)'),
  v('15.4.x-photon-scala2.12', '15.4 LTS Photon (includes Apache Spark 3.5.0, Scala 2.12)'),
  v('15.4.x-aarch64-scala2.12', '15.4 LTS aarch64 (includes Apache Spark 3.5.0, Scala 2.12)'),
  v('15.4.x-cpu-ml-scala2.12', '15.4 LTS ML (includes Apache Spark 3.5.0, Scala 2.12)'),
  v('15.4.x-gpu-ml-scala2.12', '15.4 LTS ML (includes Apache Spark 3.5.0, GPU, Scala 2.12)'),
  v('14.3.x-scala2.12', '14.3 LTS (includes Apache Spark 3.5.0, Scala 2.12)'),
  v('14.3.x-photon-scala2.12', '14.3 LTS Photon (includes Apache Spark 3.5.0, Scala 2.12)'),
  v('14.3.x-cpu-ml-scala2.12', '14.3 LTS ML (includes Apache Spark 3.5.0, Scala 2.12)'),
  v('13.3.x-scala2.12', '13.3 LTS (includes Apache Spark 3.4.1, Scala 2.12)'),
  v('13.3.x-cpu-ml-scala2.12', '13.3 LTS ML (includes Apache Spark 3.4.1, Scala 2.12)'),
  v('12.2.x-scala2.12', '12.2 LTS (includes Apache Spark 3.3.2, Scala 2.12)'),
];

export interface NodeType {
  node_type_id: string;
  memory_mb: number;
  num_cores: number;
  num_gpus: number;
  description: string;
  instance_type_id: string;
  category: string;
  is_deprecated: boolean;
  is_hidden: boolean;
  is_io_cache_enabled: boolean;
  is_graviton: boolean;
  is_encrypted_in_transit: boolean;
  support_ebs_volumes: boolean;
  support_cluster_tags: boolean;
  support_port_forwarding: boolean;
  photon_worker_capable: boolean;
  photon_driver_capable: boolean;
  display_order: number;
  node_instance_type: {
    instance_type_id: string;
    local_disks: number;
    local_disk_size_gb: number;
    local_nvme_disks: number;
    local_nvme_disk_size_gb: number;
  };
  node_info: { status?: string[] };
}

function node(
  id: string,
  cores: number,
  memoryGb: number,
  category: string,
  opts: {
    gpus?: number;
    nvme?: [number, number];
    disks?: [number, number];
    graviton?: boolean;
    azure?: boolean;
  },
): NodeType {
  const [nvmeCount, nvmeSize] = opts.nvme ?? [0, 0];
  const [diskCount, diskSize] = opts.disks ?? [0, 0];
  const localDisk = nvmeCount + diskCount > 0;
  return {
    node_type_id: id,
    memory_mb: memoryGb * 1024,
    num_cores: cores,
    num_gpus: opts.gpus ?? 0,
    description: id,
    instance_type_id: id,
    category,
    is_deprecated: false,
    is_hidden: false,
    is_io_cache_enabled: nvmeCount > 0,
    is_graviton: opts.graviton ?? false,
    is_encrypted_in_transit: false,
    support_ebs_volumes: !opts.azure,
    support_cluster_tags: true,
    support_port_forwarding: true,
    photon_worker_capable: localDisk,
    photon_driver_capable: localDisk,
    display_order: 0,
    node_instance_type: {
      instance_type_id: id,
      local_disks: diskCount,
      local_disk_size_gb: diskSize,
      local_nvme_disks: nvmeCount,
      local_nvme_disk_size_gb: nvmeSize,
    },
    node_info: {},
  };
}

export const NODE_TYPES: NodeType[] = [
  node('m5d.large', 2, 8, 'General Purpose', { nvme: [1, 75] }),
  node('m5d.xlarge', 4, 16, 'General Purpose', { nvme: [1, 150] }),
  node('m5d.2xlarge', 8, 32, 'General Purpose', { nvme: [1, 300] }),
  node('m5d.4xlarge', 16, 64, 'General Purpose', { nvme: [2, 300] }),
  node('m6gd.xlarge', 4, 16, 'General Purpose', { nvme: [1, 237], graviton: true }),
  node('c5d.xlarge', 4, 8, 'Compute Optimized', { nvme: [1, 100] }),
  node('c5d.2xlarge', 8, 16, 'Compute Optimized', { nvme: [1, 200] }),
  node('r5d.xlarge', 4, 32, 'Memory Optimized', { nvme: [1, 150] }),
  node('r5d.2xlarge', 8, 64, 'Memory Optimized', { nvme: [1, 300] }),
  node('i3.xlarge', 4, 30.5, 'Storage Optimized', { nvme: [1, 950] }),
  node('i3.2xlarge', 8, 61, 'Storage Optimized', { nvme: [1, 1900] }),
  node('i3.4xlarge', 16, 122, 'Storage Optimized', { nvme: [2, 1900] }),
  node('g4dn.xlarge', 4, 16, 'GPU Accelerated', { gpus: 1, nvme: [1, 125] }),
  node('g5.xlarge', 4, 16, 'GPU Accelerated', { gpus: 1, nvme: [1, 250] }),
  node('Standard_DS3_v2', 4, 14, 'General Purpose', { disks: [1, 28], azure: true }),
  node('Standard_DS4_v2', 8, 28, 'General Purpose', { disks: [1, 56], azure: true }),
  node('Standard_D4ds_v5', 4, 16, 'General Purpose', { disks: [1, 150], azure: true }),
  node('Standard_E8ds_v4', 8, 64, 'Memory Optimized', { disks: [1, 300], azure: true }),
  node('Standard_L8s_v3', 8, 64, 'Storage Optimized', { nvme: [1, 1788], disks: [1, 80], azure: true }),
  node('Standard_NC4as_T4_v3', 4, 28, 'GPU Accelerated', { gpus: 1, disks: [1, 180], azure: true }),
].map((n, i) => ({ ...n, display_order: i }));

export const nodeTypeById = (id: string | undefined): NodeType | undefined =>
  id === undefined ? undefined : NODE_TYPES.find((n) => n.node_type_id === id);

export const isAzureNodeType = (id: string | undefined): boolean => !!id && id.startsWith('Standard_');

export const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d', 'us-east-1f'];
export const DEFAULT_ZONE = 'us-east-1c';

export interface PolicyFamily {
  policy_family_id: string;
  name: string;
  description: string;
  definition: string;
}

const family = (id: string, name: string, description: string, definition: object): PolicyFamily => ({
  policy_family_id: id,
  name,
  description,
  definition: JSON.stringify(definition),
});

export const POLICY_FAMILIES: PolicyFamily[] = [
  family(
    'personal-vm',
    'Personal Compute',
    'Use with small-to-medium data or libraries like pandas and scikit-learn. Spark runs in local mode.',
    {
      node_type_id: {
        type: 'allowlist',
        values: ['m5d.large', 'm5d.xlarge', 'i3.xlarge', 'Standard_DS3_v2'],
        defaultValue: 'i3.xlarge',
      },
      spark_version: { type: 'unlimited', defaultValue: 'auto:latest-ml' },
      runtime_engine: { type: 'unlimited', defaultValue: 'STANDARD', hidden: true },
      num_workers: { type: 'fixed', value: 0, hidden: true },
      data_security_mode: {
        type: 'allowlist',
        values: ['SINGLE_USER', 'LEGACY_SINGLE_USER', 'LEGACY_SINGLE_USER_STANDARD'],
        defaultValue: 'SINGLE_USER',
        hidden: true,
      },
      driver_instance_pool_id: { type: 'forbidden', hidden: true },
      cluster_type: { type: 'fixed', value: 'all-purpose' },
      instance_pool_id: { type: 'forbidden', hidden: true },
      'azure_attributes.availability': { type: 'fixed', value: 'ON_DEMAND_AZURE', hidden: true },
      'spark_conf.spark.databricks.cluster.profile': { type: 'fixed', value: 'singleNode', hidden: true },
      autotermination_minutes: { type: 'unlimited', defaultValue: 4320, isOptional: true },
    },
  ),
  family(
    'shared-compute',
    'Shared Compute',
    'Use with Unity Catalog-enabled workloads shared by multiple users.',
    {
      data_security_mode: { type: 'fixed', value: 'USER_ISOLATION', hidden: true },
      cluster_type: { type: 'fixed', value: 'all-purpose' },
      autotermination_minutes: { type: 'range', maxValue: 120, defaultValue: 60 },
    },
  ),
  family(
    'power-user',
    'Power User Compute',
    'Use with large data, machine learning, and complex workloads for a single user.',
    {
      data_security_mode: {
        type: 'allowlist',
        values: ['SINGLE_USER', 'USER_ISOLATION'],
        defaultValue: 'SINGLE_USER',
      },
      cluster_type: { type: 'fixed', value: 'all-purpose' },
      'autoscale.max_workers': { type: 'range', maxValue: 10, defaultValue: 4 },
      autotermination_minutes: { type: 'range', maxValue: 240, defaultValue: 120 },
    },
  ),
  family(
    'job-cluster',
    'Job Compute',
    'Use for jobs: clusters are created for a run and terminated when it ends.',
    {
      cluster_type: { type: 'fixed', value: 'job' },
      num_workers: { type: 'unlimited', defaultValue: 4, isOptional: true },
      data_security_mode: {
        type: 'allowlist',
        values: ['SINGLE_USER', 'USER_ISOLATION', 'NONE'],
        defaultValue: 'SINGLE_USER',
      },
    },
  ),
  family(
    'shared-data-science',
    'Legacy Shared Compute',
    'Use for workloads that need legacy table access control, shared by multiple users.',
    {
      'spark_conf.spark.databricks.cluster.profile': { type: 'fixed', value: 'serverless', hidden: true },
      'spark_conf.spark.databricks.repl.allowedLanguages': {
        type: 'fixed',
        value: 'python,sql',
        hidden: true,
      },
      cluster_type: { type: 'fixed', value: 'all-purpose' },
      autotermination_minutes: { type: 'range', maxValue: 120, defaultValue: 60 },
    },
  ),
];
