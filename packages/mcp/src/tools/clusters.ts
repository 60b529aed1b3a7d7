import * as z from 'zod';
import { compact } from '../rest.js';
import {
  anyList,
  anyObject,
  CREATE,
  DESTROY,
  DESTROY_ONCE,
  READ,
  tool,
  UPDATE,
  type ToolEnv,
} from './define.js';

const C = '/api/2.1/clusters';
const clusterId = { cluster_id: z.string().describe('cluster id') };
const clusterOut = { cluster: anyObject.describe('ClusterDetails') };
const getCluster = async (env: ToolEnv, cluster_id: string) => ({
  cluster: await env.rest.get(`${C}/get`, { cluster_id }),
});

export const clusterTools = [
  tool({
    name: 'create_cluster',
    title: 'Create cluster',
    description:
      'Creates an all-purpose cluster (a state machine: PENDING -> RUNNING, then TERMINATED after autotermination). Defaults: the newest listed Spark version and node type, no workers.',
    needs: ['compute'],
    input: {
      cluster_name: z.string().min(1).describe('cluster name'),
      spark_version: z
        .string()
        .optional()
        .describe('runtime key, e.g. 15.4.x-scala2.12 (default: the first listed)'),
      node_type_id: z.string().optional().describe('node type (default: the first listed)'),
      num_workers: z.number().int().min(0).optional().describe('workers (default 0: single node)'),
      autotermination_minutes: z.number().int().min(0).optional().describe('idle minutes before it stops'),
      spark_conf: z.record(z.string(), z.string()).optional().describe('Spark configuration'),
    },
    output: { cluster_id: z.string(), ...clusterOut },
    hints: CREATE,
    async run(a, env) {
      let { spark_version, node_type_id } = a;
      if (!spark_version) {
        const v = await env.rest.get<{ versions?: { key: string }[] }>(`${C}/spark-versions`);
        spark_version = v.versions?.[0]?.key;
      }
      if (!node_type_id) {
        const n = await env.rest.get<{ node_types?: { node_type_id: string }[] }>(`${C}/list-node-types`);
        node_type_id = n.node_types?.[0]?.node_type_id;
      }
      const { cluster_id } = await env.rest.post<{ cluster_id: string }>(
        `${C}/create`,
        compact({ num_workers: 0, ...a, spark_version, node_type_id }),
      );
      return { cluster_id, ...(await getCluster(env, cluster_id)) };
    },
  }),
  tool({
    name: 'list_clusters',
    title: 'List clusters',
    description: 'Every cluster with its state.',
    needs: ['compute'],
    input: {},
    output: { clusters: anyList('ClusterDetails records') },
    hints: READ,
    async run(_a, { rest }) {
      const r = await rest.get<{ clusters?: unknown[] }>(`${C}/list`);
      return { clusters: r.clusters ?? [] };
    },
  }),
  tool({
    name: 'get_cluster',
    title: 'Get cluster',
    description: 'One cluster: state, state message, configuration.',
    needs: ['compute'],
    input: clusterId,
    output: clusterOut,
    hints: READ,
    run: ({ cluster_id }, env) => getCluster(env, cluster_id),
  }),
  tool({
    name: 'start_cluster',
    title: 'Start cluster',
    description: 'Starts a terminated cluster (TERMINATED -> PENDING -> RUNNING).',
    needs: ['compute'],
    input: clusterId,
    output: clusterOut,
    hints: UPDATE,
    async run({ cluster_id }, env) {
      await env.rest.post(`${C}/start`, { cluster_id });
      return getCluster(env, cluster_id);
    },
  }),
  tool({
    name: 'restart_cluster',
    title: 'Restart cluster',
    description: 'Restarts a running cluster (RUNNING -> RESTARTING -> RUNNING).',
    needs: ['compute'],
    input: clusterId,
    output: clusterOut,
    hints: DESTROY_ONCE,
    async run({ cluster_id }, env) {
      await env.rest.post(`${C}/restart`, { cluster_id });
      return getCluster(env, cluster_id);
    },
  }),
  tool({
    name: 'terminate_cluster',
    title: 'Terminate cluster',
    description:
      'Terminates a cluster (clusters/delete: it stays listed as TERMINATED and can be started again).',
    needs: ['compute'],
    input: clusterId,
    output: clusterOut,
    hints: DESTROY,
    async run({ cluster_id }, env) {
      await env.rest.post(`${C}/delete`, { cluster_id });
      return getCluster(env, cluster_id);
    },
  }),
  tool({
    name: 'list_spark_versions',
    title: 'List Spark versions',
    description: 'The runtime versions create_cluster accepts, and the node types.',
    needs: ['compute'],
    input: {},
    output: { versions: anyList('{key, name}'), node_types: anyList('NodeType records') },
    hints: READ,
    async run(_a, { rest }) {
      const v = await rest.get<{ versions?: unknown[] }>(`${C}/spark-versions`);
      const n = await rest.get<{ node_types?: unknown[] }>(`${C}/list-node-types`);
      return { versions: v.versions ?? [], node_types: n.node_types ?? [] };
    },
  }),
];
