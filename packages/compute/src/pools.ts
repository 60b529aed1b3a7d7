/**
 * Instance pools: stored specs with server defaults; no instances exist, so a pool's stats count the nodes
 * of the clusters that use it (asked of the clusters part of ComputeStore).
 */
import { clusterId as newClusterId, invalidParameter, type Collection } from '@minilake/core';
import { isAzureNodeType } from './catalog.js';
import { poolDeleted, poolNotFound } from './errors.js';
import { hex } from './paging.js';
import type { Spec } from './policy.js';

export interface PoolRecord {
  attrs: Spec;
  instance_pool_id: string;
  state: 'ACTIVE' | 'DELETED';
  creator_user_id: string;
}

export class InstancePools {
  constructor(
    private readonly records: Collection<PoolRecord>,
    private readonly opts: {
      userId: string;
      onDeleted?: ((requestObjectType: 'instance-pools', id: string) => void) | undefined;
      /** Nodes of live clusters drawing on the pool (workers and drivers). */
      usedInstances(poolId: string): number;
    },
  ) {}

  /** An ACTIVE pool a cluster may use; 404 when unknown, 400 when deleted. */
  usable(id: string): PoolRecord {
    const pool = this.records.get(id);
    if (!pool) throw poolNotFound(id);
    if (pool.state === 'DELETED') throw poolDeleted(id);
    return pool;
  }

  exists(id: string): boolean {
    return this.records.get(id)?.state === 'ACTIVE';
  }

  pool(id: string): PoolRecord {
    const p = this.records.get(id);
    if (!p) throw poolNotFound(id);
    return p;
  }

  createPool(sent: Spec): string {
    const attrs = structuredClone(sent);
    delete attrs.instance_pool_id;
    const id = `${newClusterId().replace(/-[a-z]+$/, '')}-${hex(6)}-pool-${hex(8)}`;
    attrs.idle_instance_autotermination_minutes ??= 60;
    attrs.min_idle_instances ??= 0;
    attrs.enable_elastic_disk ??= false;
    if (!attrs.aws_attributes && !attrs.azure_attributes && !attrs.gcp_attributes) {
      if (isAzureNodeType(attrs.node_type_id as string))
        attrs.azure_attributes = { availability: 'ON_DEMAND_AZURE' };
      else
        attrs.aws_attributes = { availability: 'SPOT', zone_id: 'us-east-1c', spot_bid_price_percent: 100 };
    }
    this.checkPoolSize(attrs);
    this.records.set(id, { attrs, instance_pool_id: id, state: 'ACTIVE', creator_user_id: this.opts.userId });
    return id;
  }

  private checkPoolSize(attrs: Spec): void {
    const min = attrs.min_idle_instances as number | undefined;
    const max = attrs.max_capacity as number | undefined;
    if (min !== undefined && max !== undefined && min > max)
      throw invalidParameter(`min_idle_instances (${min}) must not exceed max_capacity (${max})`);
  }

  /** Edit replaces the editable fields; the rest (cloud attributes, disk spec, preloaded images) is kept. */
  editPool(sent: Spec & { instance_pool_id: string }): void {
    const p = this.pool(sent.instance_pool_id);
    if (p.state === 'DELETED') throw poolDeleted(p.instance_pool_id);
    if (sent.node_type_id !== p.attrs.node_type_id)
      throw invalidParameter('node_type_id cannot be changed on an existing instance pool');
    const editable = [
      'instance_pool_name',
      'min_idle_instances',
      'max_capacity',
      'idle_instance_autotermination_minutes',
      'custom_tags',
      'remote_disk_throughput',
      'total_initial_remote_disk_size',
      'node_type_flexibility',
    ];
    const next = structuredClone(p.attrs);
    for (const k of editable) {
      if (k in sent) next[k] = structuredClone(sent[k]);
      else if (k !== 'instance_pool_name') delete next[k];
    }
    next.min_idle_instances ??= 0;
    next.idle_instance_autotermination_minutes ??= 60;
    this.checkPoolSize(next);
    p.attrs = next;
    this.records.set(p.instance_pool_id, p);
  }

  deletePool(id: string): void {
    const p = this.pool(id);
    p.state = 'DELETED';
    this.records.set(id, p);
    this.opts.onDeleted?.('instance-pools', id);
  }

  getPool(id: string) {
    return this.poolWire(this.pool(id));
  }

  listPools() {
    return [...this.records.values()]
      .filter((p) => p.state !== 'DELETED')
      .sort((a, b) => String(a.attrs.instance_pool_name).localeCompare(String(b.attrs.instance_pool_name)))
      .map((p) => this.poolWire(p));
  }

  private poolWire(p: PoolRecord) {
    const used = p.state === 'ACTIVE' ? this.opts.usedInstances(p.instance_pool_id) : 0;
    const idle = p.state === 'ACTIVE' ? ((p.attrs.min_idle_instances as number | undefined) ?? 0) : 0;
    return {
      ...structuredClone(p.attrs),
      instance_pool_id: p.instance_pool_id,
      default_tags: {
        Vendor: 'Databricks',
        DatabricksInstancePoolCreatorId: p.creator_user_id,
        DatabricksInstancePoolId: p.instance_pool_id,
      },
      state: p.state,
      stats: { used_count: used, idle_count: idle, pending_used_count: 0, pending_idle_count: 0 },
      status: {},
    };
  }
}
