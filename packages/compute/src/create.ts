import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { sparkEngine } from '@minilake/engine-spark';
import { filesService } from '@minilake/files';
import { iamService } from '@minilake/iam';
import { computeApp } from './app.js';
import { ComputeStore } from './store.js';
import type { ComputeApi, ComputeSettings } from './index.js';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export async function createCompute(
  ctx: ServiceContext<ComputeSettings>,
): Promise<ServiceInstance<ComputeApi>> {
  const iam = ctx.optionalPeer(iamService);
  // The host's one Spark engine: all-purpose clusters' drivers are Spark Connect servers it starts.
  const engine = ctx.settings.MINILAKE_CLUSTER_RUNTIME === 'spark' ? await sparkEngine(ctx) : undefined;
  const files = ctx.optionalPeer(filesService);
  if (engine && files) engine.useDbfsRoot(files.dbfsRoot);
  const store = new ComputeStore(ctx.state, {
    clock: ctx.clock,
    userName: ctx.identity.userName,
    userId: ctx.identity.userId,
    startDelayMs: Math.round(ctx.settings.MINILAKE_CLUSTER_START_DELAY * 1000),
    terminateDelayMs: Math.round(ctx.settings.MINILAKE_CLUSTER_TERMINATE_DELAY * 1000),
    ...(engine ? { runtime: (spec) => engine.startConnectServer(spec) } : {}),
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
    app: computeApp(
      store,
      iam && {
        check: (id, level) => iam.check('clusters', id, level),
        caller: () => ctx.principal().userName,
      },
    ),
    state: [store],
    api: {
      createCluster: (spec, source, creator) => store.createCluster(spec, source ?? 'API', creator),
      getCluster: (id) => store.findCluster(id),
      startCluster: (id) => store.startCluster(id),
      terminateCluster: (id, reason) => store.terminateCluster(id, reason),
      permanentDeleteCluster: (id) => store.permanentDeleteCluster(id),
      checkAccess: (id, level) => {
        if (iam && store.clusterOwner(id) !== undefined) iam.check('clusters', id, level);
      },
      recordActivity: (id) => store.recordActivity(id),
      sparkPort: (id) => store.sparkPort(id),
      awaitSpark: (id, holdMs) => store.awaitSpark(id, holdMs),
    },
    close: () => store.close(),
  };
}
