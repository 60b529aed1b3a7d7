import { choiceSetting, defineService, numberSetting, type SettingsOf } from '@minilake/core';
import { sparkSettings } from '@minilake/engine-spark';
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
  /**
   * Throws Databricks' refusal (403 PERMISSION_DENIED, the wording the clusters API answers with) when the
   * request's principal lacks `level` on the cluster; passes without MINILAKE_ENFORCE=1 or iam, and for a
   * cluster that does not exist (left to the caller's not-found).
   */
  checkAccess(clusterId: string, level: 'CAN_ATTACH_TO' | 'CAN_RESTART' | 'CAN_MANAGE'): void;
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

export const computeSettings = {
  MINILAKE_CLUSTER_START_DELAY: numberSetting({ doc: 'Seconds a cluster spends PENDING.', default: 2 }),
  MINILAKE_CLUSTER_TERMINATE_DELAY: numberSetting({
    doc: 'Seconds a cluster spends TERMINATING.',
    default: 1,
  }),
  // spark: an all-purpose cluster's RUNNING is a Spark Connect server of its own; none: states only.
  MINILAKE_CLUSTER_RUNTIME: choiceSetting({
    doc:
      "`spark`: an all-purpose cluster's RUNNING is a real Spark Connect server with its `spark_conf`, " +
      'environment and libraries (needs the Spark install); `none`: cluster states move on the clock alone.',
    choices: ['spark', 'none'],
    default: 'spark',
  }),
  // The Spark engine's, read when clusters run Spark.
  ...sparkSettings,
};
export type ComputeSettings = SettingsOf<typeof computeSettings>;

export const computeService = defineService<ComputeApi, typeof computeSettings>({
  name: 'compute',
  // With iam the permissions API answers 404 for a cluster, policy or pool that does not exist, names the
  // cluster's creator as its default owner, and forgets an ACL when its object is deleted. With files, a
  // cluster's Spark sees dbfs:/.
  optionalUses: ['iam', 'files'],
  description:
    'Clusters whose Spark really runs (a Spark Connect server per all-purpose cluster), cluster policies and families, instance pools, libraries',
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
