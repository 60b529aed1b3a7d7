/**
 * All-purpose clusters that really run Spark: a RUNNING cluster is a Spark Connect server of its own (its
 * driver, started by the Spark engine) with the cluster's spark_conf, spark_env_vars and libraries, so
 * Databricks Connect sessions, command execution and `existing_cluster_id` job tasks on one cluster share
 * one Spark application (its cache, its global temp views) as on Databricks. The store's state machine
 * asks for a start when a cluster starts or restarts, and waits for the server before RUNNING; a
 * terminate stops the process and TERMINATED waits until it is gone; a server that exits on its own ends
 * its cluster (DRIVER_UNAVAILABLE, then TERMINATED with DRIVER_UNREACHABLE), and one that cannot start ends
 * it with SPARK_STARTUP_FAILURE and the reason.
 *
 * Job clusters (cluster_source JOB, PIPELINE) get none: a job cluster's Spark is its task's own Spark
 * application (spark-submit), started by the Jobs service.
 */
import type { ConnectServerExit, ConnectServerHandle, ConnectServerSpec } from '@minilake/engine-spark';
import type { Spec } from './policy.js';

/** Starts a cluster's Spark (the Spark engine's startConnectServer). */
export type ClusterRuntime = (spec: ConnectServerSpec) => ConnectServerHandle;

export interface SparkHooks {
  /** The server listens: the cluster may become RUNNING. */
  ready(clusterId: string): void;
  /** It could not start (the message says why). */
  failed(clusterId: string, message: string): void;
  /** It exited on its own after it was ready. */
  lost(clusterId: string, exit: ConnectServerExit): void;
  /** A stopped server is gone (a terminating cluster may become TERMINATED). */
  gone(clusterId: string): void;
}

interface Entry {
  handle: ConnectServerHandle;
  port?: number;
  stopping?: Promise<void>;
}

const strings = (x: unknown): Record<string, string> =>
  x && typeof x === 'object' && !Array.isArray(x)
    ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, String(v)]))
    : {};

/** PyPI requirements and local jar files among a cluster's libraries (others are not installed here). */
export function libraryParts(libraries: Spec[]): { dependencies: string[]; jars: string[] } {
  const dependencies: string[] = [];
  const jars: string[] = [];
  for (const lib of libraries) {
    const pypi = lib.pypi as { package?: unknown } | undefined;
    if (pypi && typeof pypi.package === 'string') dependencies.push(pypi.package);
    if (typeof lib.jar === 'string') {
      const p = lib.jar.startsWith('file:') ? new URL(lib.jar).pathname : lib.jar;
      if (p.startsWith('/') && !p.startsWith('/Volumes/')) jars.push(p);
    }
  }
  return { dependencies, jars };
}

export class ClusterSparks {
  private readonly entries = new Map<string, Entry>();
  /** Servers being stopped whose cluster has moved on (a restart): kept until gone. */
  private readonly leaving = new Map<string, Promise<void>>();

  constructor(
    private readonly runtime: ClusterRuntime,
    private readonly hooks: SparkHooks,
  ) {}

  /** Starts (or restarts) a cluster's Spark with its current attributes and libraries. */
  launch(clusterId: string, attrs: Spec, libraries: Spec[]): void {
    const old = this.entries.get(clusterId);
    if (old) this.retire(clusterId, old);
    const { dependencies, jars } = libraryParts(libraries);
    const handle = this.runtime({
      id: clusterId,
      sparkConf: strings(attrs.spark_conf),
      env: strings(attrs.spark_env_vars),
      ...(dependencies.length ? { dependencies } : {}),
      ...(jars.length ? { jars } : {}),
    });
    const entry: Entry = { handle };
    this.entries.set(clusterId, entry);
    handle.ready.then(
      (port) => {
        if (this.entries.get(clusterId) !== entry || entry.stopping) return;
        entry.port = port;
        this.hooks.ready(clusterId);
      },
      (e: unknown) => {
        if (this.entries.get(clusterId) !== entry || entry.stopping) return;
        this.entries.delete(clusterId);
        this.hooks.failed(clusterId, (e as Error).message ?? String(e));
      },
    );
    void handle.exited.then((exit) => {
      if (this.entries.get(clusterId) !== entry || entry.stopping || entry.port === undefined) return;
      this.entries.delete(clusterId);
      this.hooks.lost(clusterId, exit);
    });
  }

  private retire(clusterId: string, e: Entry): Promise<void> {
    if (this.entries.get(clusterId) === e) this.entries.delete(clusterId);
    const stopping = (e.stopping ??= e.handle.stop());
    const p = stopping.finally(() => {
      if (this.leaving.get(clusterId) === p) {
        this.leaving.delete(clusterId);
        this.hooks.gone(clusterId);
      }
    });
    this.leaving.set(clusterId, p);
    return p;
  }

  /** Stops a cluster's Spark; `gone` follows once the process has exited. */
  stop(clusterId: string): void {
    const e = this.entries.get(clusterId);
    if (e) void this.retire(clusterId, e);
  }

  /** Whether a process of this cluster is still alive (running, starting or stopping). */
  alive(clusterId: string): boolean {
    return this.entries.has(clusterId) || this.leaving.has(clusterId);
  }

  /** The Spark Connect port of a cluster whose server listens. */
  port(clusterId: string): number | undefined {
    const e = this.entries.get(clusterId);
    return e && !e.stopping ? e.port : undefined;
  }

  /** The log file and pid of a cluster's current server (for events and the driver's log). */
  process(clusterId: string): { pid: number | undefined; logFile: string } | undefined {
    const e = this.entries.get(clusterId);
    return e ? { pid: e.handle.pid(), logFile: e.handle.logFile } : undefined;
  }

  /** Stops every server and waits until all are gone. */
  async stopAll(): Promise<void> {
    for (const [id, e] of this.entries) void this.retire(id, e);
    await Promise.all(this.leaving.values());
  }
}
