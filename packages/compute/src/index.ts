import { defineService, type ServiceContext } from '@minilake/core';
import type { IamApi } from '@minilake/iam';
import { computeApp } from './app.js';
import { ComputeStore, type ClusterSource } from './store.js';

export { ComputeStore } from './store.js';
export type { ClusterState, ClusterSource, ClusterEvent, ComputeOptions } from './store.js';
export { computeApp } from './app.js';
export { NODE_TYPES, SPARK_VERSIONS, POLICY_FAMILIES } from './catalog.js';

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

/** A delay setting in seconds (the host already checked it is a non-negative number). */
function delayMs(ctx: ServiceContext, key: string, fallback: number): number {
  const n = Number(ctx.config[key]);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : fallback * 1000;
}

export const computeService = defineService<ComputeApi>({
  name: 'compute',
  // With iam the permissions API answers 404 for a cluster, policy or pool that does not exist, names the
  // cluster's creator as its default owner, and forgets an ACL when its object is deleted.
  optionalUses: ['iam'],
  description:
    'Clusters on a clock-driven state machine, cluster policies and families, instance pools, libraries',
  configDefaults: {
    MINILAKE_CLUSTER_START_DELAY: '2',
    MINILAKE_CLUSTER_TERMINATE_DELAY: '1',
  },
  create(ctx) {
    const iam = ctx.optionalPeer<IamApi>('iam');
    const store = new ComputeStore(ctx.state, {
      clock: ctx.clock,
      userName: ctx.identity.userName,
      userId: ctx.identity.userId,
      startDelayMs: delayMs(ctx, 'MINILAKE_CLUSTER_START_DELAY', 2),
      terminateDelayMs: delayMs(ctx, 'MINILAKE_CLUSTER_TERMINATE_DELAY', 1),
      onDeleted: (type, id) => iam?.dropPermissions(type, id),
    });
    // The permission object types as Databricks has them (levels, the creator's and the admins' level).
    iam?.registerObjectType(
      {
        request: 'clusters',
        objectType: 'cluster',
        levels: ['CAN_ATTACH_TO', 'CAN_RESTART', 'CAN_MANAGE'],
        owner: 'CAN_MANAGE',
        admins: 'CAN_MANAGE',
      },
      { exists: (id) => store.clusterOwner(id) !== undefined, owner: (id) => store.clusterOwner(id) },
    );
    iam?.registerObjectType(
      { request: 'cluster-policies', objectType: 'cluster-policy', levels: ['CAN_USE'], admins: 'CAN_USE' },
      { exists: (id) => store.policyExists(id) },
    );
    iam?.registerObjectType(
      {
        request: 'instance-pools',
        objectType: 'instance-pool',
        levels: ['CAN_ATTACH_TO', 'CAN_MANAGE'],
        owner: 'CAN_MANAGE',
        admins: 'CAN_MANAGE',
      },
      { exists: (id) => store.poolExists(id) },
    );
    return {
      app: computeApp(store),
      state: [store],
      api: {
        createCluster: (spec, source, creator) => store.createCluster(spec, source ?? 'API', creator),
        getCluster: (id) => store.findCluster(id),
        startCluster: (id) => store.startCluster(id),
        terminateCluster: (id, reason) => store.terminateCluster(id, reason),
        permanentDeleteCluster: (id) => store.permanentDeleteCluster(id),
        recordActivity: (id) => store.recordActivity(id),
      },
      close: () => store.close(),
    };
  },
});
