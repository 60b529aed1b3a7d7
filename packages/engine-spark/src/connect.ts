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
    const { dir } = this.opts;
    await mkdir(dir, { recursive: true });
    const port = await freePort();
    const logFile = path.join(dir, 'server.log');
    const args = [
      inst.supervisor,
      inst.sparkSubmit,
      '--class',
      'org.apache.spark.sql.connect.service.SparkConnectServer',
      '--name',
      'minilake-spark-connect',
      '--master',
      this.opts.master,
      ...this.opts.commonArgs(logFile, path.join(dir, 'local')),
      '--conf',
      `spark.connect.grpc.binding.port=${port}`,
      '--conf',
      'spark.connect.grpc.binding.address=127.0.0.1',
      '--conf',
      `spark.sql.warehouse.dir=${path.join(dir, 'warehouse')}`,
      'spark-internal',
    ];
    const t0 = Date.now();
    const proc = startProc({
      cmd: inst.python,
      args,
      env: this.opts.env({ PYSPARK_PYTHON: inst.python }),
      cwd: dir,
      logBytes: 256 * 1024,
    });
    this.proc = proc;
    let exited = false;
    void proc.done.then((r) => {
      exited = true;
      if (this.proc === proc) {
        this.proc = undefined;
        this.port = undefined;
        if (!this.closed) this.opts.logger.warn('Spark Connect server exited', { code: r.exitCode });
      }
    });
    while (Date.now() - t0 < this.opts.startTimeoutMs) {
      if (exited || this.closed) break;
      if (await canConnect(port)) {
        this.port = port;
        this.opts.logger.info('Spark Connect server ready', { port, ms: Date.now() - t0 });
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
        : `the server did not listen within ${this.opts.startTimeoutMs / 1000} s (log: ${logFile})`,
    );
  }

  async stop(): Promise<void> {
    this.closed = true;
    const p = this.proc;
    if (!p) return;
    p.kill(500);
    await p.done;
  }
}
