/**
 * How clusters read on the wire: ClusterDetails from a stored record, and clusters/list's filters, sorting
 * and paging.
 */
import { invalidParameter } from '@minilake/core';
import { nodeTypeById } from './catalog.js';
import { decodeOffset, encodeOffset } from './paging.js';
import type { Spec } from './policy.js';
import type { ClusterRecord, ClusterState } from './store.js';

const STATE_ORDER: ClusterState[] = [
  'RUNNING',
  'PENDING',
  'RESIZING',
  'RESTARTING',
  'TERMINATING',
  'ERROR',
  'UNKNOWN',
  'TERMINATED',
];

export interface ListQuery {
  cluster_states: readonly string[];
  cluster_sources: readonly string[];
  is_pinned?: boolean | undefined;
  policy_id?: string | undefined;
  page_size?: number | undefined;
  page_token?: string | undefined;
  sort_field?: 'CLUSTER_NAME' | 'DEFAULT' | undefined;
  sort_direction?: 'ASC' | 'DESC' | undefined;
}

/** The ClusterDetails wire shape. */
export function clusterDetails(c: ClusterRecord): Spec {
  const driverType = nodeTypeById(String(c.attrs.driver_node_type_id ?? c.attrs.node_type_id ?? ''));
  const workerType = nodeTypeById(String(c.attrs.node_type_id ?? ''));
  const running = c.state !== 'TERMINATED' && c.state !== 'PENDING';
  const nodes = running ? 1 + c.current_workers : 0;
  const memory = running
    ? (driverType?.memory_mb ?? 16384) + c.current_workers * (workerType?.memory_mb ?? 16384)
    : 0;
  const cores = running ? (driverType?.num_cores ?? 4) + c.current_workers * (workerType?.num_cores ?? 4) : 0;
  const out: Spec = {
    ...structuredClone(c.attrs),
    cluster_id: c.cluster_id,
    creator_user_name: c.creator_user_name,
    cluster_source: c.cluster_source,
    state: c.state,
    state_message: c.state_message,
    start_time: c.start_time,
    last_state_loss_time: c.last_state_loss_time,
    default_tags: {
      Vendor: 'Databricks',
      Creator: c.creator_user_name,
      ClusterName: String(c.attrs.cluster_name ?? ''),
      ClusterId: c.cluster_id,
    },
    spec: structuredClone(c.submitted),
    jdbc_port: 10000,
    init_scripts_safe_mode: false,
  };
  if (nodes > 0) {
    out.cluster_memory_mb = memory;
    out.cluster_cores = cores;
  }
  if (c.spark_context_id !== undefined) out.spark_context_id = c.spark_context_id;
  if (c.last_restarted_time !== undefined) out.last_restarted_time = c.last_restarted_time;
  if (c.terminated_time !== undefined) out.terminated_time = c.terminated_time;
  if (c.termination_reason) out.termination_reason = c.termination_reason;
  if (c.driver && c.state !== 'TERMINATED') out.driver = c.driver;
  if (c.executors && c.executors.length > 0 && c.state !== 'TERMINATED') out.executors = c.executors;
  return out;
}

export function listClusters(all: ClusterRecord[], q: ListQuery) {
  if (q.page_size !== undefined && q.page_size < 0) throw invalidParameter('page_size must be at least 0');
  const states = new Set(q.cluster_states);
  const sources = new Set(q.cluster_sources);
  const name = (c: ClusterRecord) => String(c.attrs.cluster_name ?? '');
  const dir = q.sort_direction === 'DESC' ? -1 : 1;
  const byName = (a: ClusterRecord, b: ClusterRecord) => name(a).localeCompare(name(b)) || a.seq - b.seq;
  const sorted = [...all]
    .filter(
      (c) =>
        (states.size === 0 || states.has(c.state)) &&
        (sources.size === 0 || sources.has(c.cluster_source)) &&
        (q.is_pinned === undefined || c.pinned === q.is_pinned) &&
        (q.policy_id === undefined || c.attrs.policy_id === q.policy_id),
    )
    .sort((a, b) => {
      if (q.sort_field === 'CLUSTER_NAME') return byName(a, b) * dir;
      // DEFAULT: state (active first), then pinned first, then name.
      return (
        (STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state) ||
          Number(b.pinned) - Number(a.pinned) ||
          byName(a, b)) * dir
      );
    });
  const start = q.page_token ? decodeOffset(q.page_token) : 0;
  const size = q.page_size ? Math.min(q.page_size, 100) : undefined;
  const page = size === undefined ? sorted.slice(start) : sorted.slice(start, start + size);
  const out: { clusters: Spec[]; next_page_token?: string; prev_page_token?: string } = {
    clusters: page.map((c) => clusterDetails(c)),
  };
  if (size !== undefined && start + size < sorted.length) out.next_page_token = encodeOffset(start + size);
  if (size !== undefined && start > 0) out.prev_page_token = encodeOffset(Math.max(0, start - size));
  return out;
}
