/**
 * SQL warehouses: stored records with a clock-driven state machine (STARTING -> RUNNING, STOPPING ->
 * STOPPED, DELETED). All warehouses share the one DuckDB engine; the state only gates statements.
 *
 * The starter warehouse: a new Databricks workspace comes with a "Serverless Starter Warehouse", and the
 * seeds' first example (`{"warehouse_id": "dev", ...}` on a fresh server) relies on one. MiniLake's has the
 * memorable id `dev` instead of a random one, so examples can name it. A new workspace lists it from the
 * start (STOPPED, as a fresh Databricks workspace shows its starter warehouse); it is stored (and starts)
 * when the first statement or command uses it, and a deleted one is gone for good. `strict` turns it off:
 * `dev` is then an unknown id like any other (404), exactly as on Databricks.
 */
import {
  CollectionStore,
  hexId,
  invalidParameter,
  keysetPage,
  type Clock,
  type Collection,
  type StateDb,
} from '@minilake/core';
import { warehouseDeleted, warehouseNotFound } from './errors.js';
import type { WarehouseFields, WorkspaceWarehouseConfig } from './schemas.js';

export type WarehouseState = 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED' | 'DELETING' | 'DELETED';

export interface WarehouseRecord {
  id: string;
  name: string;
  cluster_size: string;
  auto_stop_mins: number;
  channel: { name?: string; dbsql_version?: string };
  creator_name: string;
  enable_photon: boolean;
  enable_serverless_compute: boolean;
  instance_profile_arn?: string;
  max_num_clusters: number;
  min_num_clusters: number;
  spot_instance_policy: string;
  tags?: { custom_tags?: { key: string; value?: string }[] };
  warehouse_type: string;
  state: WarehouseState;
  num_clusters: number;
  /** Creation time (ms). */
  created_at: number;
  /** Creation order: list order. */
  seq: number;
  /** When the current STARTING/STOPPING transition completes (ms of the clock). */
  transition_at?: number;
  data_source_id: string;
}

/** The id of the workspace's starter warehouse (see the file comment). */
export const STARTER_WAREHOUSE_ID = 'dev';
export const STARTER_WAREHOUSE_NAME = 'Serverless Starter Warehouse';

export interface WarehouseStoreOptions {
  db: StateDb;
  clock: Clock;
  /** creator_name of warehouses created without one (the workspace user). */
  creator: string;
  /**
   * Who creates a warehouse now (the request's principal, MINILAKE_AUTH=tokens): its creator_name, and so
   * its owner; `creator` when absent. The starter warehouse is always the workspace user's.
   */
  caller?: () => string;
  /** STARTING -> RUNNING and STOPPING -> STOPPED delay, in ms. */
  transitionMs: number;
  /** No starter warehouse: every id must name a created warehouse, as on Databricks. */
  strict?: boolean;
  /**
   * Called when a warehouse begins STARTING, and when a restart finds one running or starting: a statement
   * is likely soon (the service warms up, warm.ts).
   */
  onStarting?: () => void;
}

export interface Origin {
  hostname: string;
  port: number;
  protocol: string;
}

export class WarehouseStore extends CollectionStore {
  private readonly warehouses: Collection<WarehouseRecord>;
  private readonly config: Collection<WorkspaceWarehouseConfig>;
  private readonly timers = new Map<string, () => void>();
  private readonly waiters = new Map<string, (() => void)[]>();
  /** Auto-stop timers of idle RUNNING warehouses, and the statements running on each warehouse. */
  private readonly idleTimers = new Map<string, () => void>();
  private readonly active = new Map<string, number>();
  private nextSeq = 1;
  private readonly clock: Clock;
  private readonly creator: string;
  private readonly caller: () => string;
  private readonly transitionMs: number;
  readonly strict: boolean;
  private readonly onStarting: (() => void) | undefined;

  constructor(opts: WarehouseStoreOptions) {
    super('sql-warehouses', 1, opts.db);
    this.clock = opts.clock;
    this.creator = opts.creator;
    this.caller = opts.caller ?? (() => opts.creator);
    this.transitionMs = opts.transitionMs;
    this.strict = opts.strict ?? false;
    this.onStarting = opts.onStarting;
    this.warehouses = this.collection('warehouses');
    this.config = this.collection('config');
    this.rearm();
  }

  /**
   * A restart (or a restored snapshot) resumes transitions that were under way. A warehouse found running or
   * starting counts as started in this process too (onStarting): its clients' next statement comes from
   * whichever front end (REST, Thrift, MCP), none of which starts it again.
   */
  private rearm(): void {
    let started = false;
    for (const w of this.warehouses.values()) {
      this.nextSeq = Math.max(this.nextSeq, (w.seq ?? 0) + 1);
      if (w.transition_at !== undefined) this.arm(w);
      else if (w.state === 'RUNNING') this.armIdle(w);
      if (w.state === 'RUNNING' || w.state === 'STARTING') started = true;
    }
    if (started) this.onStarting?.();
  }

  override restore(snapshot: unknown): void {
    this.close();
    super.restore(snapshot);
    this.rearm();
  }

  private validate(f: WarehouseFields, current?: WarehouseRecord): void {
    if (f.auto_stop_mins !== undefined && f.auto_stop_mins !== 0 && f.auto_stop_mins < 10)
      throw invalidParameter('auto_stop_mins must be 0 (no autostop) or at least 10 minutes.');
    const min = f.min_num_clusters ?? current?.min_num_clusters ?? 1;
    const max = f.max_num_clusters ?? current?.max_num_clusters ?? Math.max(1, min);
    if (min < 1) throw invalidParameter('min_num_clusters must be greater than 0.');
    if (max > 40) throw invalidParameter('max_num_clusters must be less than or equal to 40.');
    if (max < min)
      throw invalidParameter('max_num_clusters must be greater than or equal to min_num_clusters.');
    if (f.enable_serverless_compute && f.warehouse_type === 'CLASSIC')
      throw invalidParameter('Serverless compute requires warehouse_type PRO.');
  }

  create(f: WarehouseFields): WarehouseRecord {
    return this.insert(hexId(16), f);
  }

  private insert(id: string, f: WarehouseFields): WarehouseRecord {
    this.validate(f);
    const min = f.min_num_clusters ?? 1;
    const rec: WarehouseRecord = {
      id,
      name: f.name || id,
      cluster_size: f.cluster_size ?? 'Small',
      auto_stop_mins: f.auto_stop_mins ?? 120,
      channel: f.channel ?? { name: 'CHANNEL_NAME_CURRENT' },
      creator_name: f.creator_name || (id === STARTER_WAREHOUSE_ID ? this.creator : this.caller()),
      enable_photon: f.enable_photon ?? true,
      enable_serverless_compute: f.enable_serverless_compute ?? false,
      max_num_clusters: f.max_num_clusters ?? Math.max(1, min),
      min_num_clusters: min,
      spot_instance_policy: f.spot_instance_policy ?? 'COST_OPTIMIZED',
      warehouse_type: f.warehouse_type ?? (f.enable_serverless_compute ? 'PRO' : 'CLASSIC'),
      state: 'STARTING',
      num_clusters: 0,
      created_at: this.clock.now(),
      seq: this.nextSeq++,
      // The starter warehouse keeps the data source id it was listed with before its first use.
      data_source_id: id === STARTER_WAREHOUSE_ID ? STARTER_WAREHOUSE_ID : crypto.randomUUID(),
    };
    if (f.instance_profile_arn) rec.instance_profile_arn = f.instance_profile_arn;
    if (f.tags) rec.tags = f.tags;
    this.begin(rec, 'STARTING');
    return rec;
  }

  /** The starter warehouse's fields, as a new Databricks workspace's: serverless, Small, 10 minutes auto-stop. */
  private static readonly STARTER: WarehouseFields = {
    name: STARTER_WAREHOUSE_NAME,
    cluster_size: 'Small',
    auto_stop_mins: 10,
    enable_photon: true,
    enable_serverless_compute: true,
    warehouse_type: 'PRO',
    min_num_clusters: 1,
    max_num_clusters: 1,
  };

  private isStarter(id: string): boolean {
    return !this.strict && id === STARTER_WAREHOUSE_ID;
  }

  /** The stored record; the starter warehouse is stored (and starts) the first time something uses it. */
  private lookup(id: string, provision: boolean): WarehouseRecord | undefined {
    const w = this.warehouses.get(id);
    if (w || !this.isStarter(id)) return w;
    if (!provision) return this.starterPreview();
    return this.insert(id, WarehouseStore.STARTER);
  }

  /** The starter warehouse before its first use, as GET shows it (STOPPED; nothing is stored). */
  private starterPreview(): WarehouseRecord {
    const f = WarehouseStore.STARTER;
    return {
      id: STARTER_WAREHOUSE_ID,
      name: f.name!,
      cluster_size: f.cluster_size!,
      auto_stop_mins: f.auto_stop_mins!,
      channel: { name: 'CHANNEL_NAME_CURRENT' },
      creator_name: this.creator,
      enable_photon: true,
      enable_serverless_compute: true,
      max_num_clusters: 1,
      min_num_clusters: 1,
      spot_instance_policy: 'COST_OPTIMIZED',
      warehouse_type: 'PRO',
      state: 'STOPPED',
      num_clusters: 0,
      created_at: this.clock.now(),
      seq: 0,
      data_source_id: STARTER_WAREHOUSE_ID,
    };
  }

  /** The record, including a DELETED one (GET still answers for it, as the real service does). */
  get(id: string): WarehouseRecord {
    const w = this.lookup(id, false);
    if (!w) throw warehouseNotFound(id);
    return w;
  }

  /** A warehouse a statement may use: a missing or deleted one fails as missing. */
  usable(id: string): WarehouseRecord {
    const w = this.lookup(id, true);
    if (!w || w.state === 'DELETED' || w.state === 'DELETING') throw warehouseNotFound(id);
    return w;
  }

  /** Whether a statement may use the warehouse, without provisioning the starter warehouse. */
  exists(id: string): boolean {
    const w = this.lookup(id, false);
    return !!w && w.state !== 'DELETED' && w.state !== 'DELETING';
  }

  private live(id: string): WarehouseRecord {
    const w = this.lookup(id, true);
    if (!w) throw warehouseNotFound(id);
    if (w.state === 'DELETED' || w.state === 'DELETING') throw warehouseDeleted(id);
    return w;
  }

  /** `visible`: the warehouses the caller may see (MINILAKE_ENFORCE=1), filtered before paging. */
  list(
    pageSize?: number,
    pageToken?: string,
    visible?: (w: WarehouseRecord) => boolean,
  ): { items: WarehouseRecord[]; nextPageToken?: string } {
    let all = [...this.warehouses.values()]
      .filter((w) => w.state !== 'DELETED')
      .sort((a, b) => a.seq - b.seq);
    // The starter warehouse before its first use (seq 0: first, as the workspace's oldest).
    if (!this.strict && !this.warehouses.has(STARTER_WAREHOUSE_ID)) all.unshift(this.starterPreview());
    if (visible) all = all.filter(visible);
    const key = (w: WarehouseRecord) => String(w.seq).padStart(12, '0');
    return keysetPage(all, key, pageSize && pageSize > 0 ? pageSize : undefined, pageToken || undefined);
  }

  edit(id: string, f: WarehouseFields): void {
    const w = this.live(id);
    this.validate(f, w);
    for (const [k, val] of Object.entries(f)) {
      if (val === undefined) continue;
      if (k === 'name' && val === '') continue;
      (w as unknown as Record<string, unknown>)[k] = val;
    }
    this.warehouses.set(id, w);
    if (f.auto_stop_mins !== undefined) this.armIdle(w);
  }

  start(id: string): void {
    const w = this.live(id);
    if (w.state === 'RUNNING' || w.state === 'STARTING') return;
    this.begin(w, 'STARTING');
  }

  stop(id: string): void {
    const w = this.live(id);
    if (w.state === 'STOPPED' || w.state === 'STOPPING') return;
    this.begin(w, 'STOPPING');
  }

  delete(id: string): void {
    const w = this.lookup(id, true);
    if (!w) throw warehouseNotFound(id);
    if (w.state === 'DELETED') throw warehouseNotFound(id);
    this.timers.get(id)?.();
    this.timers.delete(id);
    this.cancelIdle(id);
    w.state = 'DELETED';
    w.num_clusters = 0;
    delete w.transition_at;
    this.warehouses.set(id, w);
    this.notify(id);
  }

  /** A statement started running on the warehouse: it is not idle. */
  statementStarted(id: string): void {
    this.active.set(id, (this.active.get(id) ?? 0) + 1);
    this.cancelIdle(id);
  }

  /** A statement ended: the auto-stop countdown starts when none is left. */
  statementEnded(id: string): void {
    const n = Math.max(0, (this.active.get(id) ?? 1) - 1);
    if (n > 0) {
      this.active.set(id, n);
      return;
    }
    this.active.delete(id);
    const w = this.warehouses.get(id);
    if (w) this.armIdle(w);
  }

  /** Resolves when the warehouse is RUNNING, starting a stopped one on demand (as a statement does). */
  async ensureRunning(id: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const w = this.live(id);
      if (w.state === 'RUNNING') return;
      if (w.state === 'STOPPED') this.begin(w, 'STARTING');
      await new Promise<void>((resolve) => {
        const list = this.waiters.get(id) ?? [];
        list.push(resolve);
        this.waiters.set(id, list);
      });
    }
  }

  /** The workspace-wide warehouse settings (stored and echoed; they change nothing in the engine). */
  workspaceConfig(): WorkspaceWarehouseConfig {
    return (
      this.config.get('workspace') ?? {
        security_policy: 'NONE',
        channel: { name: 'CHANNEL_NAME_CURRENT' },
        enabled_warehouse_types: [
          { warehouse_type: 'CLASSIC', enabled: true },
          { warehouse_type: 'PRO', enabled: true },
        ],
      }
    );
  }

  /** PUT replaces the whole configuration, as on Databricks. */
  setWorkspaceConfig(cfg: WorkspaceWarehouseConfig): void {
    this.config.set('workspace', { security_policy: 'NONE', ...cfg });
  }

  dataSources(): WarehouseRecord[] {
    return this.list().items;
  }

  /** auto_stop_mins of idleness (no running statement) stops a RUNNING warehouse; 0 disables it. */
  private armIdle(w: WarehouseRecord): void {
    this.cancelIdle(w.id);
    if (w.state !== 'RUNNING' || w.auto_stop_mins <= 0 || this.active.get(w.id)) return;
    const cancel = this.clock.setTimeout(() => {
      this.idleTimers.delete(w.id);
      const cur = this.warehouses.get(w.id);
      if (cur?.state === 'RUNNING' && !this.active.get(w.id)) this.begin(cur, 'STOPPING');
    }, w.auto_stop_mins * 60_000);
    this.idleTimers.set(w.id, cancel);
  }

  private cancelIdle(id: string): void {
    this.idleTimers.get(id)?.();
    this.idleTimers.delete(id);
  }

  private begin(w: WarehouseRecord, state: 'STARTING' | 'STOPPING'): void {
    this.timers.get(w.id)?.();
    this.cancelIdle(w.id);
    w.state = state;
    w.transition_at = this.clock.now() + this.transitionMs;
    this.warehouses.set(w.id, w);
    this.arm(w);
    this.notify(w.id);
    if (state === 'STARTING') this.onStarting?.();
  }

  private arm(w: WarehouseRecord): void {
    const delay = Math.max(0, (w.transition_at ?? 0) - this.clock.now());
    const cancel = this.clock.setTimeout(() => this.complete(w.id), delay);
    this.timers.set(w.id, cancel);
  }

  private complete(id: string): void {
    this.timers.delete(id);
    const w = this.warehouses.get(id);
    if (!w) return;
    if (w.state === 'STARTING') {
      w.state = 'RUNNING';
      w.num_clusters = w.min_num_clusters;
    } else if (w.state === 'STOPPING') {
      w.state = 'STOPPED';
      w.num_clusters = 0;
    }
    delete w.transition_at;
    this.warehouses.set(id, w);
    this.armIdle(w);
    this.notify(id);
  }

  private notify(id: string): void {
    const list = this.waiters.get(id);
    if (!list) return;
    this.waiters.delete(id);
    for (const resolve of list) resolve();
  }

  protected override onReset(): void {
    this.close();
    this.active.clear();
    const waiting = [...this.waiters.keys()];
    for (const id of waiting) this.notify(id);
  }

  close(): void {
    for (const cancel of [...this.timers.values(), ...this.idleTimers.values()]) cancel();
    this.timers.clear();
    this.idleTimers.clear();
  }

  /** The wire shape (GetWarehouseResponse / EndpointInfo); num_active_sessions counts running statements. */
  toWire(w: WarehouseRecord, origin: Origin): Record<string, unknown> {
    const httpPath = `/sql/1.0/warehouses/${w.id}`;
    const out: Record<string, unknown> = {
      id: w.id,
      name: w.name,
      cluster_size: w.cluster_size,
      auto_stop_mins: w.auto_stop_mins,
      channel: w.channel,
      creator_name: w.creator_name,
      enable_photon: w.enable_photon,
      enable_serverless_compute: w.enable_serverless_compute,
      max_num_clusters: w.max_num_clusters,
      min_num_clusters: w.min_num_clusters,
      spot_instance_policy: w.spot_instance_policy,
      warehouse_type: w.warehouse_type,
      state: w.state,
      num_clusters: w.num_clusters,
      num_active_sessions: this.active.get(w.id) ?? 0,
      jdbc_url:
        `jdbc:databricks://${origin.hostname}:${origin.port}/default;transportMode=http;` +
        `ssl=${origin.protocol === 'https' ? 1 : 0};AuthMech=3;httpPath=${httpPath};`,
      odbc_params: {
        hostname: origin.hostname,
        path: httpPath,
        port: origin.port,
        protocol: origin.protocol,
      },
      health:
        w.state === 'RUNNING'
          ? { status: 'HEALTHY', summary: '' }
          : { status: 'HEALTHY', summary: `The warehouse is ${w.state.toLowerCase()}.` },
    };
    if (w.instance_profile_arn) out.instance_profile_arn = w.instance_profile_arn;
    out.tags = w.tags ?? {};
    return out;
  }
}
