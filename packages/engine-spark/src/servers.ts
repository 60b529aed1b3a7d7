/**
 * Spark Connect servers of their own: an all-purpose cluster's driver. Each is one Spark application in its
 * own process group (spark-submit of SparkConnectServer under the supervisor, like the warm serverless
 * server), with the engine's conf (Delta, Unity Catalog, dbfs:/ and /Volumes) under the cluster's
 * spark_conf, the cluster's environment variables, its PyPI libraries in a cached venv for the Python
 * workers and its jars on the class path. Its folder is `<dataDir>/spark/servers/<id>`: the JVM's log, the
 * scratch space, the session-local warehouse.
 */
import path from 'node:path';
import type { Logger } from '@minilake/core';
import { launchConnectServer, type LaunchedServer } from './connect.js';
import type { SparkInstall } from './install.js';
import type { ConnectServerExit, ConnectServerHandle, ConnectServerSpec } from './types.js';

export interface ServerDeps {
  dir: string;
  master: string;
  startTimeoutMs: number;
  logger: Logger;
  locate(): Promise<SparkInstall>;
  prepare(): Promise<unknown>;
  python(inst: SparkInstall, dependencies: string[]): Promise<string>;
  /** The engine's spark-submit arguments with this conf on top, and these jars added. */
  args(
    inst: SparkInstall,
    logFile: string,
    localDir: string,
    conf: Record<string, string>,
    jars: string[],
  ): string[];
  conf(inst: SparkInstall): Promise<Record<string, string>>;
  env(extra: Record<string, string>): Record<string, string>;
  /** Registers the server so the engine's close() stops it; returns the unregister function. */
  track(stop: () => Promise<void>): () => void;
}

/** Ids become folder and application names. */
const safeId = (id: string) => id.replace(/[^A-Za-z0-9_.-]/g, '_');

export function startServer(d: ServerDeps, spec: ConnectServerSpec): ConnectServerHandle {
  const dir = path.join(d.dir, 'servers', safeId(spec.id));
  const logFile = path.join(dir, 'server.log');
  let launched: LaunchedServer | undefined;
  let stopping = false;
  let settleExit!: (e: ConnectServerExit) => void;
  const exited = new Promise<ConnectServerExit>((r) => (settleExit = r));
  const ready = (async () => {
    const inst = await d.locate();
    await d.prepare();
    const python = await d.python(inst, spec.dependencies ?? []);
    const conf = { ...(await d.conf(inst)), ...spec.sparkConf };
    if (stopping) throw new Error('The server was stopped before it started');
    launched = await launchConnectServer(inst, {
      dir,
      name: `minilake-cluster-${safeId(spec.id)}`,
      master: spec.master ?? d.master,
      startTimeoutMs: d.startTimeoutMs,
      args: (log, local) => d.args(inst, log, local, conf, spec.jars ?? []),
      // The engine's Python for the workers unless the cluster names its own (PYSPARK_PYTHON in
      // spark_env_vars, as on Databricks: a Python matching a newer client's, for its UDFs).
      env: d.env({ PYSPARK_PYTHON: python, SPARK_LOCAL_IP: '127.0.0.1', ...spec.env }),
      isClosed: () => stopping,
    });
    const untrack = d.track(() => handle.stop());
    void launched.proc.done.then((r) => {
      untrack();
      settleExit({ exitCode: r.exitCode, signal: r.signal, output: r.output });
    });
    const port = await launched.ready;
    d.logger.info('cluster Spark Connect server ready', { id: spec.id, port, ms: launched.startMs() });
    return port;
  })();
  // A server that never got a process has exited too.
  ready.catch((e: unknown) => {
    if (!launched) settleExit({ exitCode: null, signal: null, output: (e as Error).message ?? String(e) });
  });
  const handle: ConnectServerHandle = {
    ready,
    exited,
    logFile,
    pid: () => launched?.proc.pid,
    async stop(graceMs = 2000) {
      stopping = true;
      if (!launched) {
        await ready.catch(() => undefined);
        if (!launched) return;
      }
      launched.proc.kill(graceMs);
      await exited;
    },
  };
  return handle;
}
