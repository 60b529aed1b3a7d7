/**
 * Compute APIs: clusters (/api/2.1/clusters and the /api/2.0 aliases), cluster policies, policy families,
 * instance pools and libraries. Fidelity notes:
 * - A missing cluster is 400 INVALID_PARAMETER_VALUE "Cluster <id> does not exist" on every clusters endpoint,
 *   clusters/get included: a real-API quirk that the SDKs (error_overrides) and the Terraform provider turn
 *   into not-found. Operations in the wrong state are 400 INVALID_STATE "... is in unexpected state Running.".
 * - No machines exist: states move on the injected clock (MINILAKE_CLUSTER_START_DELAY /
 *   MINILAKE_CLUSTER_TERMINATE_DELAY seconds) and driver/executor nodes are synthetic.
 * - Attributes MiniLake does not interpret (aws_attributes, docker_image, init_scripts, runtime_engine, ...)
 *   are stored as sent and echoed, so Terraform and bundles read back what they wrote.
 * - MINILAKE_ENFORCE=1 (iam's object permissions): start/restart/terminate need CAN_RESTART, edit/update/
 *   resize/permanent-delete/change-owner CAN_MANAGE, libraries CAN_ATTACH_TO; get/list/events stay open to
 *   every user, as on a workspace without cluster view ACLs (`enforceClusterViewAcls` false).
 * - Nested list parameters arrive flattened (filter_by.cluster_states=RUNNING&filter_by.cluster_states=...),
 *   as all three SDKs send them.
 */
import { Hono, type Context } from 'hono';
import { nestedQueryValue, nestedQueryValues, readJson, readQuery, validate } from '@minilake/core';
import { NODE_TYPES, SPARK_VERSIONS, ZONES, DEFAULT_ZONE } from './catalog.js';
import * as s from './schemas.js';
import type { ComputeStore } from './store.js';

const CLUSTER_PREFIXES = ['/api/2.1/clusters', '/api/2.0/clusters'];

function listClustersQuery(c: Context) {
  const one = (k: string) => nestedQueryValue(c.req.url, k);
  const many = (k: string) => nestedQueryValues(c.req.url, k);
  const raw: Record<string, unknown> = {
    cluster_states: many('filter_by.cluster_states'),
    cluster_sources: many('filter_by.cluster_sources'),
    is_pinned: one('filter_by.is_pinned'),
    policy_id: one('filter_by.policy_id'),
    page_size: one('page_size'),
    page_token: one('page_token') || undefined,
    sort_field: one('sort_by.field'),
    sort_direction: one('sort_by.direction'),
  };
  for (const k of Object.keys(raw)) if (raw[k] === undefined) delete raw[k];
  return validate(s.ListClusters, raw);
}

/** A cluster permission level (iam's object permissions), weakest first. */
export type ClusterLevel = 'CAN_ATTACH_TO' | 'CAN_RESTART' | 'CAN_MANAGE';

/**
 * The caller's rights on clusters (iam, MINILAKE_ENFORCE=1) and who creates one now; everything passes and
 * the configured user creates without it.
 */
export interface ClusterAccess {
  check(clusterId: string, level: ClusterLevel): void;
  /** userName of the request's principal: a new cluster's creator_user_name, so its owner. */
  caller(): string | undefined;
}

export function computeApp(store: ComputeStore, access?: ClusterAccess): Hono {
  const app = new Hono();
  // The cluster id, after checking the caller's level on it; an unknown id is left to the store, which
  // answers it as Databricks does ("Cluster <id> does not exist").
  const may = <T extends { cluster_id: string }>(body: T, level: ClusterLevel): T => {
    if (access && store.clusterOwner(body.cluster_id) !== undefined) access.check(body.cluster_id, level);
    return body;
  };

  for (const base of CLUSTER_PREFIXES) {
    app.post(`${base}/create`, async (c) => {
      const body = await readJson(c, s.CreateCluster);
      return c.json({ cluster_id: store.createCluster(body, 'API', access?.caller()) });
    });
    app.post(`${base}/edit`, async (c) => {
      store.editCluster(may(await readJson(c, s.EditCluster), 'CAN_MANAGE'));
      return c.json({});
    });
    app.post(`${base}/update`, async (c) => {
      const body = may(await readJson(c, s.UpdateCluster), 'CAN_MANAGE');
      store.updateCluster(body.cluster_id, body.update_mask, body.cluster);
      return c.json({});
    });
    app.post(`${base}/start`, async (c) => {
      store.startCluster(may(await readJson(c, s.ClusterIdRequest), 'CAN_RESTART').cluster_id);
      return c.json({});
    });
    app.post(`${base}/restart`, async (c) => {
      const body = may(await readJson(c, s.RestartCluster), 'CAN_RESTART');
      store.restartCluster(body.cluster_id, body.restart_user);
      return c.json({});
    });
    app.post(`${base}/resize`, async (c) => {
      const body = may(await readJson(c, s.ResizeCluster), 'CAN_MANAGE');
      store.resizeCluster(body.cluster_id, body);
      return c.json({});
    });
    app.post(`${base}/delete`, async (c) => {
      store.terminateCluster(may(await readJson(c, s.ClusterIdRequest), 'CAN_RESTART').cluster_id);
      return c.json({});
    });
    app.post(`${base}/permanent-delete`, async (c) => {
      store.permanentDeleteCluster(may(await readJson(c, s.ClusterIdRequest), 'CAN_MANAGE').cluster_id);
      return c.json({});
    });
    app.post(`${base}/pin`, async (c) => {
      store.pinCluster((await readJson(c, s.ClusterIdRequest)).cluster_id);
      return c.json({});
    });
    app.post(`${base}/unpin`, async (c) => {
      store.unpinCluster((await readJson(c, s.ClusterIdRequest)).cluster_id);
      return c.json({});
    });
    app.post(`${base}/change-owner`, async (c) => {
      const body = may(await readJson(c, s.ChangeClusterOwner), 'CAN_MANAGE');
      store.changeOwner(body.cluster_id, body.owner_username);
      return c.json({});
    });
    app.get(`${base}/get`, (c) => c.json(store.getCluster(readQuery(c, s.GetCluster).cluster_id)));
    app.get(`${base}/list`, (c) => c.json(store.listClusters(listClustersQuery(c))));
    app.post(`${base}/events`, async (c) => c.json(store.listEvents(await readJson(c, s.GetEvents))));
    app.get(`${base}/list-node-types`, (c) => c.json({ node_types: NODE_TYPES }));
    app.get(`${base}/list-zones`, (c) => c.json({ zones: ZONES, default_zone: DEFAULT_ZONE }));
    app.get(`${base}/spark-versions`, (c) => c.json({ versions: SPARK_VERSIONS }));
  }

  const POLICIES = '/api/2.0/policies/clusters';
  app.post(`${POLICIES}/create`, async (c) => {
    return c.json({ policy_id: store.createPolicy(await readJson(c, s.CreatePolicy)) });
  });
  app.post(`${POLICIES}/edit`, async (c) => {
    store.editPolicy(await readJson(c, s.EditPolicy));
    return c.json({});
  });
  app.post(`${POLICIES}/delete`, async (c) => {
    store.deletePolicy((await readJson(c, s.PolicyIdRequest)).policy_id);
    return c.json({});
  });
  app.get(`${POLICIES}/get`, (c) => c.json(store.getPolicy(readQuery(c, s.PolicyIdRequest).policy_id)));
  app.get(`${POLICIES}/list`, (c) => {
    const q = readQuery(c, s.ListPolicies);
    return c.json({ policies: store.listPolicies(q.sort_column, q.sort_order) });
  });

  app.get('/api/2.0/policy-families', (c) => {
    const q = readQuery(c, s.ListPolicyFamilies);
    return c.json(store.listPolicyFamilies(q.max_results, q.page_token || undefined));
  });
  app.get('/api/2.0/policy-families/:policy_family_id', (c) => {
    readQuery(c, s.GetPolicyFamily);
    return c.json(store.policyFamily(c.req.param('policy_family_id')));
  });

  const POOLS = '/api/2.0/instance-pools';
  app.post(`${POOLS}/create`, async (c) => {
    return c.json({ instance_pool_id: store.createPool(await readJson(c, s.CreateInstancePool)) });
  });
  app.post(`${POOLS}/edit`, async (c) => {
    store.editPool(await readJson(c, s.EditInstancePool));
    return c.json({});
  });
  app.post(`${POOLS}/delete`, async (c) => {
    store.deletePool((await readJson(c, s.InstancePoolIdRequest)).instance_pool_id);
    return c.json({});
  });
  app.get(`${POOLS}/get`, (c) =>
    c.json(store.getPool(readQuery(c, s.InstancePoolIdRequest).instance_pool_id)),
  );
  app.get(`${POOLS}/list`, (c) => c.json({ instance_pools: store.listPools() }));

  const LIBRARIES = '/api/2.0/libraries';
  app.post(`${LIBRARIES}/install`, async (c) => {
    const body = may(await readJson(c, s.InstallLibraries), 'CAN_ATTACH_TO');
    store.installLibraries(body.cluster_id, body.libraries);
    return c.json({});
  });
  app.post(`${LIBRARIES}/uninstall`, async (c) => {
    const body = may(await readJson(c, s.InstallLibraries), 'CAN_ATTACH_TO');
    store.uninstallLibraries(body.cluster_id, body.libraries);
    return c.json({});
  });
  app.get(`${LIBRARIES}/cluster-status`, (c) =>
    c.json(store.libraryStatuses(may(readQuery(c, s.LibrariesClusterStatus), 'CAN_ATTACH_TO').cluster_id)),
  );
  app.get(`${LIBRARIES}/all-cluster-statuses`, (c) => c.json({ statuses: store.allLibraryStatuses() }));

  return app;
}
