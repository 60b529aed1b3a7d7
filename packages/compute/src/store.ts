/**
 * Clusters and their event log on one clock; cluster policies (policies.ts), instance pools (pools.ts) and
 * libraries (libraries.ts) are parts of the same state module ('compute', one persisted format), each in its
 * own class, reached from here.
 *
 * The cluster state machine: every transient state (PENDING, RESTARTING, RESIZING, TERMINATING) is stored
 * with the state it moves to and when (`transition`), and a cancellable timer on the injected clock performs
 * the move. Timers are not persisted: when the store is built from persisted state (or restored) the timers
 * are re-armed from `transition`, so a cluster that was starting when the server stopped finishes starting
 * (at once if its time has passed) and one deleted while PENDING still ends TERMINATED.
 */
import { randomInt } from 'node:crypto';
import {
  CollectionStore,
  invalidParameter,
  numericId,
  clusterId as newClusterId,
  type Collection,
  type StateDb,
  type Clock,
} from '@minilake/core';
import { isAzureNodeType, type PolicyFamily } from './catalog.js';
import {
  clusterNotFound,
  invalidPolicyId,
  missingField,
  pinnedCluster,
  tooManyPinned,
  unexpectedState,
} from './errors.js';
import { clusterDetails, listClusters, type ListQuery } from './cluster-view.js';
import { ClusterEventLog, type EventsQuery } from './events.js';
import { ClusterLibraries } from './libraries.js';
import { hex } from './paging.js';
import { ClusterPolicies, type PolicyInput } from './policies.js';
import { ClusterSparks, type ClusterRuntime } from './spark-clusters.js';
import { applyPolicy, type Spec } from './policy.js';
import { InstancePools } from './pools.js';

export type ClusterState =
  'PENDING' | 'RUNNING' | 'RESTARTING' | 'RESIZING' | 'TERMINATING' | 'TERMINATED' | 'ERROR' | 'UNKNOWN';

export type ClusterSource = 'API' | 'UI' | 'JOB' | 'MODELS' | 'PIPELINE' | 'PIPELINE_MAINTENANCE' | 'SQL';

export interface SparkNode {
  private_ip: string;
  public_dns: string;
  node_id: string;
  instance_id: string;
  start_timestamp: number;
  host_private_ip: string;
  node_aws_attributes?: { is_spot: boolean };
}

export interface TerminationReason {
  code: string;
  type: string;
  parameters: Record<string, string>;
}

export interface ClusterRecord {
  cluster_id: string;
  /** The effective attributes: what was sent, with policy values and server defaults applied. */
  attrs: Spec;
  /** What the client sent, returned under `spec` as Databricks does. */
  submitted: Spec;
  state: ClusterState;
  state_message: string;
  creator_user_name: string;
  cluster_source: ClusterSource;
  start_time: number;
  terminated_time?: number;
  last_restarted_time?: number;
  last_state_loss_time: number;
  termination_reason?: TerminationReason;
  spark_context_id?: number;
  driver?: SparkNode;
  executors?: SparkNode[];
  /** Workers actually up (the target is in attrs). */
  current_workers: number;
  pinned: boolean;
  /** `idle`: the auto-termination of a RUNNING cluster after autotermination_minutes without activity. */
  transition?: { to: 'RUNNING' | 'TERMINATED'; at: number; idle?: boolean };
  /** Creation order, for stable listings. */
  seq: number;
}

export interface ComputeOptions {
  clock: Clock;
  /** The identity every request acts as. */
  userName: string;
  userId: string;
  startDelayMs: number;
  terminateDelayMs: number;
  /**
   * Starts an all-purpose cluster's Spark (spark-clusters.ts): RUNNING then means a real Spark Connect
   * server. Without it states move on the clock alone and nothing runs (MINILAKE_CLUSTER_RUNTIME=none).
   */
  runtime?: ClusterRuntime;
  /** Called when a cluster is permanently deleted or a policy or pool deleted: its ACL goes with it. */
  onDeleted?: (requestObjectType: 'clusters' | 'cluster-policies' | 'instance-pools', id: string) => void;
}

const MAX_PINNED = 100;
/** Attributes that are request options, never echoed at the top level of ClusterDetails. */
const NOT_ECHOED = ['cluster_id', 'apply_policy_default_values', 'clone_from'];

const STATE_MESSAGES: Record<ClusterState, string> = {
  PENDING: 'Finding instances for new nodes, acquiring more instances if necessary',
  RUNNING: '',
  RESTARTING: 'Restarting the Spark driver and workers',
  RESIZING: 'Resizing the cluster to the requested number of workers',
  TERMINATING: 'Terminating the cluster',
  TERMINATED: '',
  ERROR: '',
  UNKNOWN: '',
};

const isActive = (s: ClusterState) => s !== 'TERMINATED' && s !== 'TERMINATING';
const privateIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
export class ComputeStore extends CollectionStore {
  private readonly clusters: Collection<ClusterRecord>;
  private readonly eventLog: ClusterEventLog;
  private readonly policySet: ClusterPolicies;
  private readonly poolSet: InstancePools;
  private readonly librarySet: ClusterLibraries;
  private readonly timers = new Map<string, () => void>();
  private readonly sparks: ClusterSparks | undefined;
  private seq = 0;

  constructor(
    db: StateDb,
    private readonly opts: ComputeOptions,
  ) {
    super('compute', 1, db);
    this.clusters = this.collection('clusters');
    this.eventLog = new ClusterEventLog(this.collection('events'), opts.clock);
    this.policySet = new ClusterPolicies(this.collection('policies'), {
      clock: opts.clock,
      userName: opts.userName,
      onDeleted: opts.onDeleted,
    });
    this.poolSet = new InstancePools(this.collection('pools'), {
      userId: opts.userId,
      onDeleted: opts.onDeleted,
      usedInstances: (poolId) => this.usedInstances(poolId),
    });
    this.librarySet = new ClusterLibraries(this.collection('libraries'), {
      cluster: (id) => this.cluster(id),
      hasCluster: (id) => this.clusters.has(id),
    });
    this.sparks = opts.runtime
      ? new ClusterSparks(opts.runtime, {
          ready: (id) => this.settle(id, 'RUNNING'),
          gone: (id) => this.settle(id, 'TERMINATED'),
          failed: (id, message) =>
            this.terminateCluster(
              id,
              {
                code: 'SPARK_STARTUP_FAILURE',
                type: 'SERVICE_FAULT',
                parameters: { databricks_error_message: message },
              },
              null,
            ),
          lost: (id, exit) => {
            const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.exitCode}`;
            this.addEvent(id, 'DRIVER_UNAVAILABLE', {
              reason: { code: 'DRIVER_UNREACHABLE', parameters: {} },
            });
            this.terminateCluster(
              id,
              {
                code: 'DRIVER_UNREACHABLE',
                type: 'SERVICE_FAULT',
                parameters: { databricks_error_message: `The Spark driver ${how}.` },
              },
              null,
            );
          },
        })
      : undefined;
    this.rearmAll();
  }

  private get now(): number {
    return this.opts.clock.now();
  }

  // ---------------------------------------------------------------- timers

  private rearmAll(): void {
    for (const c of this.clusters.values()) {
      this.seq = Math.max(this.seq, c.seq);
      // A cluster whose Spark ran in an earlier process (the server restarted) starts it again.
      if (this.runsSpark(c) && (c.state === 'RUNNING' || c.state === 'RESIZING')) {
        this.addEvent(c.cluster_id, 'RESTARTING', {});
        this.transition(c, 'RESTARTING', 'RUNNING', this.opts.startDelayMs);
      } else if (this.runsSpark(c) && c.transition?.to === 'RUNNING') {
        this.sparks!.launch(c.cluster_id, c.attrs, this.librarySet.active(c.cluster_id));
        this.arm(c);
      } else this.arm(c);
    }
  }

  /** Whether this cluster's RUNNING is a Spark server of its own (all-purpose clusters with a runtime). */
  private runsSpark(c: ClusterRecord): boolean {
    return (
      this.sparks !== undefined && c.cluster_source !== 'JOB' && !c.cluster_source.startsWith('PIPELINE')
    );
  }

  /** The Spark side caught up (server ready, or gone): finish a transition whose time has already come. */
  private settle(id: string, to: 'RUNNING' | 'TERMINATED'): void {
    const c = this.clusters.get(id);
    if (c?.transition?.to === to && !c.transition.idle && !this.timers.has(id)) this.complete(id);
  }

  private cancel(id: string): void {
    this.timers.get(id)?.();
    this.timers.delete(id);
  }

  private arm(c: ClusterRecord): void {
    this.cancel(c.cluster_id);
    if (!c.transition) return;
    const id = c.cluster_id;
    const cancel = this.opts.clock.setTimeout(
      () => {
        this.timers.delete(id);
        this.complete(id);
      },
      Math.max(0, c.transition.at - this.now),
    );
    this.timers.set(id, cancel);
  }

  /** Moves a cluster into a transient state that ends in `to` after `delayMs`. */
  private transition(
    c: ClusterRecord,
    state: ClusterState,
    to: 'RUNNING' | 'TERMINATED',
    delayMs: number,
  ): void {
    c.state = state;
    c.state_message = STATE_MESSAGES[state];
    c.transition = { to, at: this.now + delayMs };
    this.clusters.set(c.cluster_id, c);
    if (this.runsSpark(c)) {
      if (to === 'TERMINATED') this.sparks!.stop(c.cluster_id);
      else if (state !== 'RESIZING')
        this.sparks!.launch(c.cluster_id, c.attrs, this.librarySet.active(c.cluster_id));
    }
    this.arm(c);
  }

  /** A timer fired: finish the pending transition. */
  private complete(id: string): void {
    const c = this.clusters.get(id);
    if (!c?.transition) return;
    const to = c.transition.to;
    const from = c.state;
    if (c.transition.idle) {
      c.transition = undefined;
      const minutes = String(c.attrs.autotermination_minutes);
      this.terminateCluster(
        id,
        { code: 'INACTIVITY', type: 'SUCCESS', parameters: { inactivity_duration_min: minutes } },
        null,
      );
      return;
    }
    // RUNNING waits for the cluster's Spark to serve, TERMINATED for its process to be gone (settle()).
    if (this.runsSpark(c)) {
      if (to === 'RUNNING' && from !== 'RESIZING' && this.sparks!.port(id) === undefined) return;
      if (to === 'TERMINATED' && this.sparks!.alive(id)) return;
    }
    c.transition = undefined;
    if (to === 'TERMINATED') {
      c.state = 'TERMINATED';
      c.state_message =
        c.termination_reason?.code === 'INACTIVITY'
          ? `Inactive cluster terminated (inactive for ${c.termination_reason.parameters.inactivity_duration_min} minutes).`
          : '';
      c.terminated_time = this.now;
      c.driver = undefined;
      c.executors = undefined;
      c.current_workers = 0;
      this.clusters.set(id, c);
      this.librarySet.dropUninstalledLibraries(id);
      return;
    }
    const target = this.targetWorkers(c.attrs);
    const previous = c.current_workers;
    c.state = 'RUNNING';
    c.state_message = '';
    if (from === 'RESIZING') {
      c.executors = this.resizeExecutors(c.executors ?? [], target, c);
      c.current_workers = target;
      this.clusters.set(id, c);
      if (target > previous)
        this.addEvent(id, 'UPSIZE_COMPLETED', { current_num_workers: target, target_num_workers: target });
      this.armIdle(c);
      return;
    }
    // A fresh Spark context: after create, start, restart or a restarting edit.
    c.driver = this.sparkNode(c);
    c.executors = this.resizeExecutors([], target, c);
    c.current_workers = target;
    c.spark_context_id = numericId();
    c.last_restarted_time = this.now;
    this.clusters.set(id, c);
    this.addEvent(id, 'RUNNING', { current_num_workers: target, target_num_workers: target });
    this.addEvent(id, 'DRIVER_HEALTHY', {});
    this.armIdle(c);
  }

  /**
   * A RUNNING cluster with autotermination_minutes terminates (reason INACTIVITY) once it has been idle that
   * long. Activity is what other services report (recordActivity): job tasks, Spark Connect calls, commands.
   */
  private armIdle(c: ClusterRecord): void {
    const minutes = c.attrs.autotermination_minutes;
    if (c.state !== 'RUNNING' || typeof minutes !== 'number' || minutes <= 0) return;
    c.transition = { to: 'TERMINATED', at: this.now + minutes * 60_000, idle: true };
    this.clusters.set(c.cluster_id, c);
    this.arm(c);
  }

  /** Work ran on the cluster: its inactivity timer starts again. */
  recordActivity(id: string): void {
    const c = this.clusters.get(id);
    if (c?.state === 'RUNNING' && c.transition?.idle) this.armIdle(c);
  }

  private sparkNode(c: ClusterRecord): SparkNode {
    const ip = privateIp();
    const node: SparkNode = {
      private_ip: ip,
      public_dns: '',
      node_id: hex(32),
      instance_id: isAzureNodeType(String(c.attrs.node_type_id ?? '')) ? hex(32) : `i-0${hex(16)}`,
      start_timestamp: this.now,
      host_private_ip: privateIp(),
    };
    if (!isAzureNodeType(String(c.attrs.node_type_id ?? ''))) node.node_aws_attributes = { is_spot: false };
    return node;
  }

  private resizeExecutors(current: SparkNode[], target: number, c: ClusterRecord): SparkNode[] {
    const out = current.slice(0, target);
    while (out.length < target) out.push(this.sparkNode(c));
    return out;
  }

  private targetWorkers(attrs: Spec): number {
    const auto = attrs.autoscale as { min_workers?: number } | undefined;
    if (auto) return auto.min_workers ?? 0;
    return typeof attrs.num_workers === 'number' ? attrs.num_workers : 0;
  }

  // ---------------------------------------------------------------- events (events.ts)

  private addEvent(clusterId: string, type: string, details: Record<string, unknown>): void {
    this.eventLog.add(clusterId, type, details);
  }

  listEvents(q: EventsQuery) {
    this.cluster(q.cluster_id);
    return this.eventLog.list(q);
  }

  // ---------------------------------------------------------------- clusters

  private cluster(id: string): ClusterRecord {
    const c = this.clusters.get(id);
    if (!c) throw clusterNotFound(id);
    return c;
  }

  hasCluster(id: string): boolean {
    return this.clusters.has(id);
  }

  /** Validates a requested spec and returns the effective attributes (policy applied, server defaults set). */
  private effectiveAttributes(sent: Spec, creator: string): Spec {
    let attrs: Spec = structuredClone(sent);
    for (const k of NOT_ECHOED) delete attrs[k];
    if (typeof sent.policy_id === 'string' && sent.policy_id !== '') {
      const policy = this.policySet.get(sent.policy_id);
      if (!policy) throw invalidPolicyId(sent.policy_id);
      attrs = applyPolicy(attrs, policy.definition, sent.apply_policy_default_values === true);
    }
    if (typeof attrs.spark_version !== 'string' || attrs.spark_version === '')
      throw missingField('spark_version');
    const auto = attrs.autoscale as { min_workers?: number; max_workers?: number } | undefined;
    if (auto) {
      if (auto.max_workers === undefined) throw invalidParameter('autoscale.max_workers is required');
      if ((auto.min_workers ?? 0) > auto.max_workers)
        throw invalidParameter(
          `autoscale.min_workers (${auto.min_workers}) must not exceed autoscale.max_workers (${auto.max_workers})`,
        );
    } else if (attrs.num_workers === undefined) {
      // Databricks refuses a cluster of no size (a single-node cluster says num_workers: 0).
      throw missingField('size');
    }
    const auto_mins = attrs.autotermination_minutes;
    if (typeof auto_mins === 'number' && auto_mins !== 0 && (auto_mins < 10 || auto_mins > 10000))
      throw invalidParameter('autotermination_minutes must be 0 or between 10 and 10000');
    if (typeof attrs.instance_pool_id === 'string' && attrs.instance_pool_id !== '') {
      const pool = this.poolSet.usable(attrs.instance_pool_id);
      attrs.node_type_id ??= pool.attrs.node_type_id;
      attrs.driver_instance_pool_id ??= attrs.instance_pool_id;
    }
    if (typeof attrs.driver_instance_pool_id === 'string' && attrs.driver_instance_pool_id !== '') {
      const driverPool = this.poolSet.usable(attrs.driver_instance_pool_id);
      attrs.driver_node_type_id ??= driverPool.attrs.node_type_id;
    }
    if (attrs.node_type_id !== undefined) attrs.driver_node_type_id ??= attrs.node_type_id;
    const usesPool = attrs.instance_pool_id !== undefined;
    if (!usesPool && !attrs.aws_attributes && !attrs.azure_attributes && !attrs.gcp_attributes) {
      if (isAzureNodeType(attrs.node_type_id as string | undefined)) {
        attrs.azure_attributes = {
          first_on_demand: 1,
          availability: 'ON_DEMAND_AZURE',
          spot_bid_max_price: -1,
        };
      } else {
        attrs.aws_attributes = {
          first_on_demand: 1,
          availability: 'SPOT_WITH_FALLBACK',
          zone_id: 'us-east-1c',
          spot_bid_price_percent: 100,
        };
      }
    }
    attrs.enable_elastic_disk ??= false;
    attrs.enable_local_disk_encryption ??= false;
    if (attrs.data_security_mode === 'SINGLE_USER' && !attrs.single_user_name)
      attrs.single_user_name = creator;
    return attrs;
  }

  /** Nodes of live clusters drawing on a pool (a pool's used_count). */
  private usedInstances(poolId: string): number {
    let used = 0;
    for (const c of this.clusters.values()) {
      if (c.state === 'TERMINATED') continue;
      if (c.attrs.instance_pool_id === poolId) used += c.current_workers;
      if (c.attrs.driver_instance_pool_id === poolId && c.driver) used += 1;
    }
    return used;
  }

  createCluster(sent: Spec, source: ClusterSource = 'API', creator = this.opts.userName): string {
    const attrs = this.effectiveAttributes(sent, creator);
    const id = newClusterId();
    const submitted = structuredClone(sent);
    delete submitted.cluster_id;
    const c: ClusterRecord = {
      cluster_id: id,
      attrs,
      submitted,
      state: 'PENDING',
      state_message: STATE_MESSAGES.PENDING,
      creator_user_name: creator,
      cluster_source: source,
      start_time: this.now,
      last_state_loss_time: 0,
      current_workers: 0,
      pinned: false,
      seq: ++this.seq,
    };
    this.clusters.set(id, c);
    this.addEvent(id, 'CREATING', { user: creator, attributes: attrs });
    this.transition(c, 'PENDING', 'RUNNING', this.opts.startDelayMs);
    return id;
  }

  /** Edit replaces every attribute. A RUNNING cluster restarts to apply them; a TERMINATED one stays down. */
  editCluster(sent: Spec & { cluster_id: string }): void {
    const c = this.cluster(sent.cluster_id);
    if (c.state !== 'RUNNING' && c.state !== 'TERMINATED') throw unexpectedState(c.cluster_id, c.state);
    this.applyEdit(c, sent);
  }

  /** Update changes only the attributes named in update_mask (comma-separated); absent ones are cleared. */
  updateCluster(clusterId: string, updateMask: string, cluster: Spec | undefined): void {
    const c = this.cluster(clusterId);
    if (c.state !== 'RUNNING' && c.state !== 'TERMINATED') throw unexpectedState(c.cluster_id, c.state);
    const fields = updateMask
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean);
    if (fields.length === 0) throw invalidParameter('update_mask must name at least one field');
    const next: Spec = { ...structuredClone(c.submitted) };
    for (const f of fields) {
      if (f === '*') {
        Object.assign(next, structuredClone(cluster ?? {}));
        continue;
      }
      const top = f.split('.')[0]!;
      if (cluster && top in cluster) next[top] = structuredClone(cluster[top]);
      else delete next[top];
    }
    this.applyEdit(c, { ...next, cluster_id: clusterId });
  }

  private applyEdit(c: ClusterRecord, sent: Spec): void {
    const attrs = this.effectiveAttributes(sent, c.creator_user_name);
    const previous = c.attrs;
    c.attrs = attrs;
    c.submitted = structuredClone(sent);
    delete c.submitted.cluster_id;
    this.clusters.set(c.cluster_id, c);
    this.addEvent(c.cluster_id, 'EDITED', {
      user: this.opts.userName,
      previous_attributes: previous,
      attributes: attrs,
    });
    if (c.state === 'RUNNING') {
      this.addEvent(c.cluster_id, 'RESTARTING', { user: this.opts.userName });
      this.restartNow(c);
    }
  }

  private restartNow(c: ClusterRecord): void {
    c.last_state_loss_time = this.now;
    this.librarySet.dropUninstalledLibraries(c.cluster_id);
    this.transition(c, 'RESTARTING', 'RUNNING', this.opts.startDelayMs);
  }

  startCluster(id: string): void {
    const c = this.cluster(id);
    if (c.state !== 'TERMINATED') throw unexpectedState(id, c.state);
    c.start_time = this.now;
    c.terminated_time = undefined;
    c.termination_reason = undefined;
    c.last_state_loss_time = this.now;
    this.addEvent(id, 'STARTING', { user: this.opts.userName });
    this.transition(c, 'PENDING', 'RUNNING', this.opts.startDelayMs);
  }

  restartCluster(id: string, user = this.opts.userName): void {
    const c = this.cluster(id);
    if (c.state !== 'RUNNING') throw unexpectedState(id, c.state);
    this.addEvent(id, 'RESTARTING', { user });
    this.restartNow(c);
  }

  resizeCluster(id: string, size: { num_workers?: number | undefined; autoscale?: Spec | undefined }): void {
    const c = this.cluster(id);
    if (size.num_workers === undefined && size.autoscale === undefined)
      throw invalidParameter('Either num_workers or autoscale must be set');
    if (c.state !== 'RUNNING') throw unexpectedState(id, c.state);
    const auto = size.autoscale as { min_workers?: number; max_workers?: number } | undefined;
    if (auto && (auto.max_workers === undefined || (auto.min_workers ?? 0) > auto.max_workers))
      throw invalidParameter('autoscale.min_workers must not exceed autoscale.max_workers');
    const previous = auto ? undefined : { num_workers: c.current_workers };
    if (auto) {
      c.attrs.autoscale = auto;
      delete c.attrs.num_workers;
    } else {
      c.attrs.num_workers = size.num_workers;
      delete c.attrs.autoscale;
    }
    const target = this.targetWorkers(c.attrs);
    this.addEvent(id, 'RESIZING', {
      current_num_workers: c.current_workers,
      target_num_workers: target,
      user: this.opts.userName,
      ...(previous ? { previous_cluster_size: previous } : {}),
      cluster_size: auto ? { autoscale: auto } : { num_workers: target },
    });
    this.transition(c, 'RESIZING', 'RUNNING', this.opts.startDelayMs);
  }

  /** clusters/delete: terminate. A no-op on a cluster already TERMINATING or TERMINATED. */
  terminateCluster(id: string, reason?: TerminationReason, user: string | null = this.opts.userName): void {
    const c = this.cluster(id);
    if (!isActive(c.state)) return;
    c.termination_reason = reason ?? {
      code: 'USER_REQUEST',
      type: 'SUCCESS',
      parameters: { username: user ?? this.opts.userName },
    };
    this.addEvent(id, 'TERMINATING', { reason: c.termination_reason, ...(user ? { user } : {}) });
    this.transition(c, 'TERMINATING', 'TERMINATED', this.opts.terminateDelayMs);
  }

  permanentDeleteCluster(id: string): void {
    const c = this.cluster(id);
    if (c.pinned) throw pinnedCluster(id);
    this.cancel(id);
    this.sparks?.stop(id);
    this.clusters.delete(id);
    this.eventLog.forget(id);
    this.librarySet.forget(id);
    this.opts.onDeleted?.('clusters', id);
  }

  pinCluster(id: string): void {
    const c = this.cluster(id);
    if (c.pinned) return;
    const pinned = [...this.clusters.values()].filter((x) => x.pinned).length;
    if (pinned >= MAX_PINNED) throw tooManyPinned(MAX_PINNED);
    c.pinned = true;
    this.clusters.set(id, c);
    this.addEvent(id, 'PINNED', { user: this.opts.userName });
  }

  unpinCluster(id: string): void {
    const c = this.cluster(id);
    if (!c.pinned) return;
    c.pinned = false;
    this.clusters.set(id, c);
    this.addEvent(id, 'UNPINNED', { user: this.opts.userName });
  }

  /** Databricks only changes the owner of a terminated cluster. */
  changeOwner(id: string, owner: string): void {
    const c = this.cluster(id);
    if (c.state !== 'TERMINATED') throw unexpectedState(id, c.state);
    c.creator_user_name = owner;
    if (c.attrs.data_security_mode === 'SINGLE_USER' && c.submitted.single_user_name === undefined)
      c.attrs.single_user_name = owner;
    this.clusters.set(id, c);
  }

  getCluster(id: string): Spec {
    return this.details(this.cluster(id));
  }

  /** The creator of a known (not permanently deleted) cluster: its default owner in the permissions API. */
  clusterOwner(id: string): string | undefined {
    return this.clusters.get(id)?.creator_user_name;
  }

  policyExists(id: string): boolean {
    return this.policySet.has(id);
  }

  /** A deleted pool stays readable with state DELETED, but has no permissions any more. */
  poolExists(id: string): boolean {
    return this.poolSet.exists(id);
  }

  findCluster(id: string): Spec | undefined {
    const c = this.clusters.get(id);
    return c ? this.details(c) : undefined;
  }

  /** The ClusterDetails wire shape. */
  private details(c: ClusterRecord): Spec {
    return clusterDetails(c);
  }

  listClusters(q: ListQuery) {
    return listClusters([...this.clusters.values()], q);
  }

  // ---------------------------------------------------------------- policies
  // ------------------------------------------ policies, pools, libraries (policies.ts, pools.ts, libraries.ts)

  createPolicy(body: PolicyInput): string {
    return this.policySet.createPolicy(body);
  }
  editPolicy(body: PolicyInput & { policy_id: string }): void {
    this.policySet.editPolicy(body);
  }
  deletePolicy(id: string): void {
    this.policySet.deletePolicy(id);
  }
  getPolicy(id: string) {
    return this.policySet.getPolicy(id);
  }
  listPolicies(sortColumn?: 'POLICY_CREATION_TIME' | 'POLICY_NAME', sortOrder?: 'ASC' | 'DESC') {
    return this.policySet.listPolicies(sortColumn, sortOrder);
  }
  policyFamily(id: string): PolicyFamily {
    return this.policySet.policyFamily(id);
  }
  listPolicyFamilies(maxResults: number | undefined, pageToken: string | undefined) {
    return this.policySet.listPolicyFamilies(maxResults, pageToken);
  }

  createPool(sent: Spec): string {
    return this.poolSet.createPool(sent);
  }
  editPool(sent: Spec & { instance_pool_id: string }): void {
    this.poolSet.editPool(sent);
  }
  deletePool(id: string): void {
    this.poolSet.deletePool(id);
  }
  getPool(id: string) {
    return this.poolSet.getPool(id);
  }
  listPools() {
    return this.poolSet.listPools();
  }

  installLibraries(clusterId: string, libraries: Spec[]): void {
    this.librarySet.installLibraries(clusterId, libraries);
  }
  uninstallLibraries(clusterId: string, libraries: Spec[]): void {
    this.librarySet.uninstallLibraries(clusterId, libraries);
  }
  libraryStatuses(clusterId: string) {
    return this.librarySet.libraryStatuses(clusterId);
  }
  allLibraryStatuses() {
    return this.librarySet.allLibraryStatuses();
  }

  // ---------------------------------------------------------------- lifecycle

  protected override onReset(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    void this.sparks?.stopAll();
    this.seq = 0;
  }

  override restore(snapshot: unknown): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    void this.sparks?.stopAll();
    super.restore(snapshot);
    this.rearmAll();
  }

  async close(): Promise<void> {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    await this.sparks?.stopAll();
  }

  // ---------------------------------------------------------------- Spark (spark-clusters.ts)

  /** The Spark Connect port of a RUNNING cluster's driver, when it runs Spark. */
  sparkPort(id: string): number | undefined {
    const c = this.clusters.get(id);
    return c?.state === 'RUNNING' || c?.state === 'RESIZING' ? this.sparks?.port(id) : undefined;
  }

  /**
   * Where a Databricks Connect call to this cluster goes: its driver's port once RUNNING. A TERMINATED
   * cluster is started, as Databricks does; one still starting is waited for up to `holdMs`, then the
   * answer says to retry.
   */
  async awaitSpark(
    id: string,
    holdMs: number,
  ): Promise<{ port: number } | { problem: string; retry: boolean }> {
    const first = this.clusters.get(id);
    if (!first) return { problem: `Cluster ${id} does not exist`, retry: false };
    if (!this.runsSpark(first))
      return {
        problem: this.sparks
          ? `Cluster ${id} is a job cluster: Spark Connect sessions need an all-purpose cluster`
          : `Cluster ${id} runs no Spark here (MINILAKE_CLUSTER_RUNTIME=none)`,
        retry: false,
      };
    if (first.state === 'TERMINATED') this.startCluster(id);
    const until = Date.now() + holdMs;
    for (;;) {
      const c = this.clusters.get(id);
      if (!c) return { problem: `Cluster ${id} does not exist`, retry: false };
      const port = this.sparkPort(id);
      if (port !== undefined) return { port };
      if (c.state === 'TERMINATED' && c.termination_reason?.code === 'SPARK_STARTUP_FAILURE')
        return {
          problem: `Cluster ${id} could not start: ${c.termination_reason.parameters.databricks_error_message ?? ''}`,
          retry: false,
        };
      if (Date.now() >= until)
        return {
          problem: `Cluster ${id} is ${c.state.toLowerCase()}; retry when it is running`,
          retry: true,
        };
      // The wait is on a real process starting, not on the injected clock.
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export type { ClusterEvent } from './events.js';
