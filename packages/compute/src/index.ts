import { defineService, numberSetting, type SettingsOf } from '@minilake/core';
import type { ClusterSource } from './store.js';

export type { ClusterState, ClusterSource, ClusterEvent, ComputeOptions } from './store.js';

/** What other services (jobs, pipelines) may use: job clusters live in the same store and state machine. */
export interface ComputeApi {
  /** Creates a cluster (cluster_source JOB for job clusters) and returns its id; it starts on its own. */
  createCluster(spec: Record<string, unknown>, source?: ClusterSource, creator?: string): string;
  /** The ClusterDetails wire shape, or undefined when there is no such cluster. */
  getCluster(clusterId: string): Record<string, unknown> | undefined;
  startCluster(clusterId: string): void;
  terminateCluster(
    clusterId: string,
    reason?: { code: string; type: string; parameters: Record<string, string> },
  ): void;
  permanentDeleteCluster(clusterId: string): void;
  /** Work ran on the cluster (a job task): restarts its autotermination_minutes inactivity countdown. */
  recordActivity(clusterId: string): void;
}

export const computeSettings = {
  MINILAKE_CLUSTER_START_DELAY: numberSetting({ doc: 'Seconds a cluster spends PENDING.', default: 2 }),
  MINILAKE_CLUSTER_TERMINATE_DELAY: numberSetting({
    doc: 'Seconds a cluster spends TERMINATING.',
    default: 1,
  }),
};
export type ComputeSettings = SettingsOf<typeof computeSettings>;

export const computeService = defineService<ComputeApi, typeof computeSettings>({
  name: 'compute',
  // With iam the permissions API answers 404 for a cluster, policy or pool that does not exist, names the
  // cluster's creator as its default owner, and forgets an ACL when its object is deleted.
  optionalUses: ['iam'],
  description:
    'Clusters on a clock-driven state machine, cluster policies and families, instance pools, libraries',
  settings: computeSettings,
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: [
    '/api/2.1/clusters',
    '/api/2.0/clusters',
    '/api/2.0/policies',
    '/api/2.0/policy-families',
    '/api/2.0/instance-pools',
    '/api/2.0/libraries',
    '/api/2.0/permissions/clusters',
    '/api/2.0/permissions/cluster-policies',
    '/api/2.0/permissions/instance-pools',
  ],
  async create(ctx) {
    return (await import('./create.js')).createCompute(ctx);
  },
});
