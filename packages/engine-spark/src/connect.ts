/**
 * The warm Spark Connect server serverless tasks talk to: started on first use from the same PySpark
 * install (its SparkConnectServer class, with Delta configured), bound to a free loopback port, kept
 * running, and restarted if it dies. Each task is a plain Python process with SPARK_REMOTE pointing here,
 * which is how Databricks serverless runs Python: the JVM's start-up cost is paid once.
 */
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { EngineUnavailable, type Logger } from '@minilake/core';
import type { SparkInstall } from './install.js';
import { startProc, type Proc } from './proc.js';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface ConnectOptions {
  dir: string;
  master: string;
  startTimeoutMs: number;
  logger: Logger;
  /** spark-submit arguments every application gets (jars, Delta, log4j). */
  commonArgs(logFile: string, localDir: string): string[];
  env(extra: Record<string, string>): Record<string, string>;
}

export class ConnectServer {
  private proc?: Proc;
  private port?: number;
  private starting?: Promise<number>;
  private closed = false;

  constructor(private readonly opts: ConnectOptions) {}

  /** The port of a running server, starting one if needed. */
  async ensure(inst: SparkInstall): Promise<number> {
    if (this.closed) throw new EngineUnavailable('Spark Connect', 'the engine is closed');
    if (this.proc && this.port !== undefined && (await canConnect(this.port))) return this.port;
    if (!this.starting) {
      this.starting = this.start(inst).finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  url(): string | undefined {
    return this.port === undefined ? undefined : `sc://127.0.0.1:${this.port}`;
  }

  private async start(inst: SparkInstall): Promise<number> {
    this.proc?.kill(0);
    const launched = await launchConnectServer(inst, {
      dir: this.opts.dir,
      name: 'minilake-spark-connect',
      master: this.opts.master,
      startTimeoutMs: this.opts.startTimeoutMs,
      args: (logFile, localDir) => this.opts.commonArgs(logFile, localDir),
      env: this.opts.env({ PYSPARK_PYTHON: inst.python }),
      isClosed: () => this.closed,
    });
    this.proc = launched.proc;
    void launched.proc.done.then((r) => {
      if (this.proc === launched.proc) {
        this.proc = undefined;
        this.port = undefined;
        if (!this.closed) this.opts.logger.warn('Spark Connect server exited', { code: r.exitCode });
      }
    });
    const port = await launched.ready;
    this.port = port;
    this.opts.logger.info('Spark Connect server ready', { port, ms: launched.startMs() });
    return port;
  }

  async stop(): Promise<void> {
    this.closed = true;
    const p = this.proc;
    if (!p) return;
    p.kill(500);
    await p.done;
  }
}

export interface LaunchOptions {
  /** The server's folder: its log, scratch space and warehouse. */
  dir: string;
  /** The Spark application's name. */
  name: string;
  master: string;
  startTimeoutMs: number;
  /** spark-submit arguments every application gets (jars, Delta, log4j, the caller's conf). */
  args(logFile: string, localDir: string): string[];
  env: Record<string, string>;
  /** Stops waiting for the port when the caller is closing. */
  isClosed?: () => boolean;
}

export interface LaunchedServer {
  proc: Proc;
  /** The port once the server listens; rejects (EngineUnavailable) when it exits or does not listen in time. */
  ready: Promise<number>;
  logFile: string;
  /** Milliseconds from the launch to the port answering (0 before). */
  startMs(): number;
}

/**
 * Starts one Spark Connect server (its SparkConnectServer class through spark-submit, under the supervisor)
 * on a free loopback port and waits until the port answers.
 */
export async function launchConnectServer(inst: SparkInstall, o: LaunchOptions): Promise<LaunchedServer> {
  await mkdir(o.dir, { recursive: true });
  const port = await freePort();
  const logFile = path.join(o.dir, 'server.log');
  const args = [
    inst.supervisor,
    inst.sparkSubmit,
    '--class',
    'org.apache.spark.sql.connect.service.SparkConnectServer',
    '--name',
    o.name,
    '--master',
    o.master,
    ...o.args(logFile, path.join(o.dir, 'local')),
    '--conf',
    `spark.connect.grpc.binding.port=${port}`,
    '--conf',
    'spark.connect.grpc.binding.address=127.0.0.1',
    // Errors travel whole in the gRPC status (class, SQLSTATE, parameters, message); without the enriched
    // details round trip a Databricks Connect 16.1 client does not print its query-context log line (JSON on
    // stderr, a PySpark 4.0 client quirk, SPARK-51430) before raising. A session may turn it back on.
    '--conf',
    'spark.sql.connect.enrichError.enabled=false',
    '--conf',
    `spark.sql.warehouse.dir=${path.join(o.dir, 'warehouse')}`,
    'spark-internal',
  ];
  const t0 = Date.now();
  let took = 0;
  const proc = startProc({ cmd: inst.python, args, env: o.env, cwd: o.dir, logBytes: 256 * 1024 });
  let exited = false;
  void proc.done.then(() => {
    exited = true;
  });
  const ready = (async () => {
    while (Date.now() - t0 < o.startTimeoutMs) {
      if (exited || o.isClosed?.()) break;
      if (await canConnect(port)) {
        took = Date.now() - t0;
        return port;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    proc.kill(0);
    const r = await proc.done;
    const tail = r.output.trim().split('\n').slice(-5).join(' | ');
    throw new EngineUnavailable(
      'Spark Connect',
      exited
        ? `the server exited with code ${r.exitCode} while starting (log: ${logFile}): ${tail}`
        : `the server did not listen within ${o.startTimeoutMs / 1000} s (log: ${logFile})`,
    );
  })();
  // A caller that stops before the port answers still gets the rejection through `ready`.
  ready.catch(() => undefined);
  return { proc, ready, logFile, startMs: () => took };
}
