/**
 * Phase 3 of the host: the services. Which are enabled and in what order (from their declared `uses`), which
 * start at once and which on their first request, each one's context (settings, peers, folders), and the
 * lifecycle every instance goes through: created (peers first), told where the host listens, reset, restored,
 * closed. Routing (routing.ts) and the admin routes (admin.ts) drive it; nothing here knows HTTP paths.
 */
import type { Hono } from 'hono';
import {
  contextFor,
  invalidParameter,
  startOrder,
  type Clock,
  type ContextOptions,
  type Identity,
  type Logger,
  type ServiceDefinition,
  type ServiceInstance,
  type SharedResource,
  type StateDb,
} from '@minilake/core';
import { registry } from '../registry.js';

/** How long after the server listens the services not started yet start in the background. */
const WARM_UP_DELAY_MS = 100;

export interface ServiceHostOptions {
  /** The enabled services (MinilakeConfig.services). */
  enabled: readonly string[];
  /** The definitions to draw from (the server's registry; tests give their own). */
  registry?: ReadonlyMap<string, ServiceDefinition>;
  /** With persistence every service starts before ready (recovery needs timers, schedules, engines). */
  persist: boolean;
  dataDir: string;
  clock: Clock;
  logger: Logger;
  state: StateDb;
  identity: Identity;
  /** ServiceContext.hostToken: what the host's own child processes call it back with. */
  hostToken?: string;
  /** ServiceContext.fault: the host's injected faults for work inside services (tasks, statements). */
  fault?: ContextOptions['fault'];
  /** Every service setting's parsed value, by variable name; each service gets those it declares. */
  settings: Readonly<Record<string, unknown>>;
  /** The host's app, for ServiceContext.request (MCP). */
  hostApp: () => Hono;
}

export class ServiceHost {
  /** Start order: every service after the ones it uses (required, or optional and enabled). */
  readonly order: string[];
  /**
   * Services started on the first request to their `paths` (or when a service that uses them starts) rather
   * than before ready: those that declare paths, when there is nothing to recover (persistence off), and that
   * no eagerly started service uses.
   */
  readonly lazy: Set<string>;
  readonly instances = new Map<string, ServiceInstance>();
  readonly sharedResources = new Map<string, Promise<SharedResource>>();
  private readonly peers = new Map<string, unknown>();
  private readonly creating = new Map<string, Promise<ServiceInstance>>();
  private url: string | undefined;
  private warming: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly defs: ReadonlyMap<string, ServiceDefinition>;

  constructor(private readonly o: ServiceHostOptions) {
    this.defs = o.registry ?? registry;
    this.order = startOrder(this.defs, o.enabled);
    this.lazy = new Set(o.persist ? [] : this.order.filter((n) => this.def(n).paths?.length));
    for (const name of [...this.order].reverse()) {
      if (this.lazy.has(name)) continue;
      for (const dep of this.peersOf(name)) this.lazy.delete(dep);
    }
  }

  def(name: string): ServiceDefinition {
    return this.defs.get(name)!;
  }

  /** Where the host listens, once it does. */
  selfUrl = (): string | undefined => this.url;

  /** Creates a service once (its peers first, so ctx.peer finds them); later calls get the same instance. */
  create(name: string): Promise<ServiceInstance> {
    let started = this.creating.get(name);
    if (started) return started;
    const def = this.def(name);
    started = (async () => {
      for (const dep of this.peersOf(name)) await this.create(dep);
      const settings: Record<string, unknown> = {};
      for (const key of Object.keys(def.settings ?? {})) settings[key] = this.o.settings[key];
      const ctx = contextFor(def, {
        dataDir: this.o.dataDir,
        clock: this.o.clock,
        logger: this.o.logger.child(def.name),
        state: this.o.state,
        identity: this.o.identity,
        ...(this.o.hostToken !== undefined ? { hostToken: this.o.hostToken } : {}),
        ...(this.o.fault ? { fault: this.o.fault } : {}),
        settings,
        peers: this.peers,
        sharedResources: this.sharedResources,
        selfUrl: this.selfUrl,
        hostApp: this.o.hostApp,
      });
      const instance = await def.create(ctx);
      this.instances.set(def.name, instance);
      if (instance.api !== undefined) this.peers.set(def.name, instance.api);
      // Created after the host listens (a lazy service): it learns the URL at once.
      if (this.url !== undefined) this.tellListening(name, instance, this.url);
      return instance;
    })();
    this.creating.set(name, started);
    return started;
  }

  /** Every enabled service created: what snapshots need, which copy and restore every service's state. */
  async createAll(): Promise<void> {
    for (const name of this.order) await this.create(name);
  }

  /** The services that start before ready, in start order. */
  eager(): string[] {
    return this.order.filter((n) => !this.lazy.has(n));
  }

  /**
   * The host listens at `url`: every created service's onListening, and, once the first requests after a
   * start (ready polls) had their turn, the lazy services not started yet start in the background, one at a
   * time with the event loop free in between, so a request is held up by one service's load at most and the
   * first request to a group rarely pays for its code.
   */
  listening(url: string): void {
    this.url = url;
    for (const [name, instance] of this.instances) this.tellListening(name, instance, url);
    if (this.lazy.size && !this.warming)
      this.warming = setTimeout(() => void this.warmUp(), WARM_UP_DELAY_MS).unref();
  }

  /**
   * `POST /_minilake/reset`: empties the named services (all by default) in reverse start order, so a
   * service is emptied before the ones it uses (its beforeReset, then its state modules), and for a full
   * reset the shared engines; then, in start order, each one's afterReset lays down what a new workspace
   * has. One not created yet has nothing to empty.
   */
  async reset(names?: string[]): Promise<void> {
    const selected = names ?? this.order;
    for (const name of selected) {
      if (!this.order.includes(name))
        throw invalidParameter(`Service '${name}' is not enabled. Enabled: ${this.order.join(', ')}`);
    }
    await this.empty(selected, !names);
    for (const name of this.order)
      if (selected.includes(name)) await this.instances.get(name)?.afterReset?.();
    await this.o.state.flush();
  }

  /** Before a snapshot restore: every service and shared engine emptied (afterRestore follows, not afterReset). */
  async emptyForRestore(): Promise<void> {
    await this.empty(this.order, true);
  }

  private async empty(selected: readonly string[], engines: boolean): Promise<void> {
    for (const name of [...this.order].reverse().filter((n) => selected.includes(n))) {
      const instance = this.instances.get(name);
      if (!instance) continue;
      await instance.beforeReset?.();
      for (const module of instance.state) await module.reset();
    }
    if (engines) for (const r of this.sharedResources.values()) await (await r).reset?.();
    await this.o.state.flush();
  }

  /** Every state module holds a restored snapshot: each service's afterRestore, in start order. */
  async restored(): Promise<void> {
    for (const name of this.order) await this.instances.get(name)?.afterRestore?.();
  }

  /** Each enabled service's ready check ('ok' or the error); one not created yet is ready (its first request creates it). */
  async ready(): Promise<Record<string, string>> {
    const checks: Record<string, string> = {};
    for (const name of this.order) {
      try {
        await this.instances.get(name)?.ready?.();
        checks[name] = 'ok';
      } catch (e) {
        checks[name] = (e as Error).message;
      }
    }
    return checks;
  }

  /** Closes every service (reverse start order), then the shared engines; waits for creations under way. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.warming);
    await Promise.allSettled(this.creating.values());
    for (const name of [...this.order].reverse()) await this.instances.get(name)?.close?.();
    for (const r of this.sharedResources.values()) await (await r).close?.();
  }

  private peersOf(name: string): string[] {
    const def = this.def(name);
    return [...(def.uses ?? []), ...(def.optionalUses ?? [])].filter((d) => this.order.includes(d));
  }

  private tellListening(name: string, instance: ServiceInstance, url: string): void {
    try {
      instance.onListening?.(url);
    } catch (e) {
      this.o.logger.error(`service ${name}: onListening failed`, { error: String(e) });
    }
  }

  private async warmUp(): Promise<void> {
    for (const name of this.order) {
      if (this.closed) return;
      // A failure is reported by the service's requests, which get the same rejected creation.
      if (this.lazy.has(name)) await this.create(name).catch(() => undefined);
      await new Promise((r) => setImmediate(r));
    }
  }
}
