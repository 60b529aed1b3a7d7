import { defineService } from '@minilake/core';
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
  /** The Spark Connect port of a RUNNING all-purpose cluster's driver (undefined otherwise). */
  sparkPort(clusterId: string): number | undefined;
  /**
   * Waits (up to holdMs) for a cluster's driver to serve Spark Connect, starting a TERMINATED cluster as
   * Databricks does; a problem otherwise, with whether the caller should retry.
   */
  awaitSpark(
    clusterId: string,
    holdMs: number,
  ): Promise<{ port: number } | { problem: string; retry: boolean }>;
}

export const computeService = defineService<ComputeApi>({
  name: 'compute',
  // With iam the permissions API answers 404 for a cluster, policy or pool that does not exist, names the
  // cluster's creator as its default owner, and forgets an ACL when its object is deleted.
  optionalUses: ['iam'],
  description:
    'Clusters whose Spark really runs (a Spark Connect server per all-purpose cluster), cluster policies and families, instance pools, libraries',
  configDefaults: {
    MINILAKE_CLUSTER_START_DELAY: '2',
    MINILAKE_CLUSTER_TERMINATE_DELAY: '1',
    // spark: an all-purpose cluster's RUNNING is a Spark Connect server of its own; none: states only.
    MINILAKE_CLUSTER_RUNTIME: 'spark',
  },
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
