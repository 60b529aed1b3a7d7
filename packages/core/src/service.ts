/**
 * The contract between a service package and whatever hosts it (apps/server, or another tool that imports
 * one package). A package exports one ServiceDefinition; nothing runs at import time.
 */
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Hono } from 'hono';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { Principal } from './principal.js';
import type { Setting, SettingsOf, SettingsSchema } from './settings.js';
import type { StateDb, StateModule } from './state.js';

/** The identity every request acts as: any token is accepted, and it maps to this user. */
export interface Identity {
  userName: string;
  userId: string;
  displayName: string;
  workspaceId: string;
}

/** Something a service shares with others (an engine): created once, reset and closed by the host. */
export interface SharedResource {
  reset?(): Promise<void> | void;
  /** Writes everything through to its files, so a copy of its folder is a consistent copy (snapshots). */
  checkpoint?(): Promise<void> | void;
  close?(): Promise<void> | void;
}

/** Where a fault can be injected inside a service (ServiceContext.fault). */
export type FaultPoint = 'task' | 'statement';

/** The error an injected fault fails the work with. */
export interface InjectedFault {
  error_code: string;
  message: string;
}

export interface ServiceContext<S extends object = Readonly<Record<string, unknown>>> {
  /**
   * This service's settings, typed: the values of the variables its definition declares in `settings`,
   * parsed once by the host (defaults applied, bad values refused at start-up).
   */
  readonly settings: S;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Absolute data directory; engines keep their files under `<dataDir>/<engine>/`. */
  readonly dataDir: string;
  /**
   * This service's own folder, `<dataDir>/<service name>` (created on first use by the service). A service
   * keeps its files there and never computes another service's folder.
   */
  readonly dir: string;
  /**
   * The absolute path of a folder the service declares in ServiceDefinition.folders (`<dataDir>/<name>`):
   * where older data already lives, or a shared engine's folder. Throws for an undeclared name.
   */
  folder(name: string): string;
  /** The persistence backing the stores (journaled when MINILAKE_PERSIST=1, in memory otherwise). */
  readonly state: StateDb;
  readonly identity: Identity;
  /**
   * Who the request being served acts as (see principal.ts): the authenticated caller with
   * MINILAKE_AUTH=tokens, the configured identity otherwise and outside any request (timers, recovery).
   */
  principal(): Principal;
  /** One instance per host of a shared resource (an engine), created by the first service that asks. */
  shared<T extends SharedResource>(key: string, create: () => T | Promise<T>): Promise<T>;
  /**
   * The public `api` of a service this one declares in `uses`, looked up by its definition (imported from the
   * providing package), so the name and the Api type cannot disagree: `ctx.peer(sqlService)` is a `SqlApi`.
   * The host creates it first; a service not declared in `uses`, or a required peer the host did not provide,
   * throws with a message saying what to declare or enable.
   */
  peer<A>(def: ServiceDefinition<A, any>): A;
  /** Like peer, for a service declared in `optionalUses` (or `uses`): undefined when it is not enabled. */
  optionalPeer<A>(def: ServiceDefinition<A, any>): A | undefined;
  /**
   * The host's own bearer token (random per process), for the server's own child processes that call it back
   * as the configured user when no principal's token fits (a cluster's Spark driver, the Spark Connect
   * server's Unity Catalog connector). With MINILAKE_AUTH=tokens the host accepts it as that user; a job
   * run's tasks use the run's own token instead.
   */
  readonly hostToken: string;
  /**
   * A fault injected into work inside a service (`/_minilake/faults` with `target` `task` or `statement`):
   * a job task about to run (`subject`: its task key) or a SQL statement about to execute (`subject`: its
   * text). Answers the error to fail that work with (counted as used), or undefined: the work goes on.
   */
  fault(point: FaultPoint, subject: string): InjectedFault | undefined;
  /**
   * The URL the host listens on (`http://127.0.0.1:8000`), once it listens; undefined before that and for an
   * embedder that never listens. Child processes a service starts (Spark tasks) call back through it. A
   * service that must act once the URL is known implements ServiceInstance.onListening instead of polling.
   */
  selfUrl(): string | undefined;
  /**
   * Sends a request through the host's whole app in process (every route, middleware, error renderer and the
   * persistence barrier), exactly as a client's request would go. For MCP only: an MCP tool is a REST client
   * by design. Services call each other through peer Apis (`peer` / `optionalPeer`), never through this.
   * `path` starts with `/`. Rejects when the host has no app yet.
   */
  request(path: string, init?: RequestInit): Promise<Response>;
}

export interface GrpcSpliceTarget {
  port: number;
  call(headers: IncomingHttpHeaders): boolean;
}

export interface ServiceInstance<Api = unknown> {
  /** Routes use full Databricks paths; the host mounts the app at the root. */
  app: Hono;
  /** Everything `POST /_minilake/reset` must bring back to empty. */
  state: StateModule[];
  /** What other services may call (through ctx.peer). */
  api?: Api;
  /** Ready check: throws (or rejects) when a dependency is not usable. */
  ready?(): Promise<void> | void;
  /**
   * Serves one gRPC call (an HTTP/2 stream whose path names one of the definition's `grpcServices`), on
   * whichever port the host received it. The handler owns the stream: it responds, ends it, or resets it.
   */
  grpc?(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void;
  /**
   * May a whole connection whose first gRPC call has these headers go straight to one server? Only when
   * nothing has to be checked, rewritten or answered per call: the host then pipes the connection's bytes to
   * `port` and shows the target each later call's headers (`call` false closes the connection).
   */
  grpcSplice?(headers: IncomingHttpHeaders): GrpcSpliceTarget | undefined;
  /**
   * Lifecycle hooks, called by the host (none is required). Every beforeReset is followed by exactly one
   * afterReset (a reset) or afterRestore (a snapshot restore).
   *
   * - onListening: the host listens at `url` (the same as ctx.selfUrl() from now on): work that needs to be
   *   reachable (recovered job runs whose tasks call back) starts here. A service created after the host
   *   listens gets it right after it is created.
   * - beforeReset: its state modules are about to be emptied (`POST /_minilake/reset`, or a snapshot restore,
   *   which empties everything first): stop timers, cancel live work.
   * - afterReset: after `POST /_minilake/reset` emptied the services (and, for a full reset, the shared
   *   engines), in start order: lay down what a new workspace has (Unity Catalog's built-in catalogs,
   *   users' home folders) and accept work again.
   * - afterRestore: every service's state modules hold a restored snapshot (in start order): re-arm
   *   schedules, recover runs, accept work again. The snapshot brings its own built-ins.
   */
  onListening?(url: string): void;
  beforeReset?(): Promise<void> | void;
  afterReset?(): Promise<void> | void;
  afterRestore?(): Promise<void> | void;
  close?(): Promise<void> | void;
}

export interface ServiceDefinition<Api = unknown, S extends SettingsSchema = SettingsSchema> {
  /** The name used in MINILAKE_SERVICES. */
  readonly name: string;
  readonly description: string;
  /**
   * Services this one cannot work without. The host creates them first (start order is derived from these
   * declarations) and MINILAKE_SERVICES pulls them in; read them with ctx.peer(definition).
   */
  readonly uses?: readonly string[];
  /**
   * Services this one uses when they are enabled (created first when they are; never pulled in). Read them
   * with ctx.optionalPeer(definition), which is undefined when the peer is off.
   */
  readonly optionalUses?: readonly string[];
  /**
   * Folders under the data dir this service owns besides its own `<dataDir>/<name>` (ctx.dir), named where
   * they already hold persisted data (moving them would orphan it), plus those of the shared engines it
   * opens. The host derives the non-persistent clean-up from these declarations.
   */
  readonly folders?: readonly string[];
  /**
   * The MINILAKE_* variables this service reads (its own and those of the engines it opens, spread in from
   * the engine's package), each a schema with its default and doc (see settings.ts). The host parses them
   * once and passes the values as ctx.settings; the README's configuration table is generated from them.
   * A definition that declares settings names their type: `defineService<Api, typeof mySettings>`.
   */
  readonly settings?: S;
  /**
   * The path prefixes every route of this service starts with (`/api/2.0/secrets/`). A service that declares
   * them may be created on the first request to one of them instead of at start-up (the host does so when
   * there is no persisted state to recover), so `create` should import its implementation then (a dynamic
   * `import()`), not at module load. Routes outside them would not be reached before it is created.
   */
  readonly paths?: readonly string[];
  /**
   * gRPC services this one serves (`spark.connect.SparkConnectService`): the host hands it every HTTP/2 call
   * whose path is `/<service>/<method>`, creating it on the first one as it does for `paths`.
   */
  readonly grpcServices?: readonly string[];
  create(ctx: ServiceContext<SettingsOf<S>>): Promise<ServiceInstance<Api>> | ServiceInstance<Api>;
}

/**
 * What `POST /_minilake/reset` does to one service on its own: its beforeReset hook, every state module's
 * reset, its afterReset hook (the host resets the shared engines between the two for a full reset). Tests
 * call this rather than resetting the modules themselves.
 */
export async function resetInstance(instance: ServiceInstance<unknown>): Promise<void> {
  await instance.beforeReset?.();
  for (const module of instance.state) await module.reset();
  await instance.afterReset?.();
}

/** A definition, typed; without settings its ctx.settings is empty. */
export function defineService<Api, S extends SettingsSchema = Record<never, Setting>>(
  def: ServiceDefinition<Api, S>,
): ServiceDefinition<Api, S> {
  return def;
}
