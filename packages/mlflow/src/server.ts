/**
 * The real MLflow tracking server as a child process: started on the first request that needs it (never at
 * MiniLake's start: it costs seconds and ~500 MB), with a SQLite backend store in the service's folder, one
 * uvicorn worker listening on a Unix socket (nothing else on the machine can reach it), and `/mlflow` as its
 * static prefix so its web UI works behind MiniLake at the same path. The launcher (launcher.ts) runs it in a
 * process group of its own and takes the group down when MiniLake closes its stdin, which a crash or a SIGKILL of
 * MiniLake does too: no MLflow server outlives the MiniLake that started it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DatabricksError, EngineUnavailable, type Logger } from '@minilake/core';
import { installCommand, type MlflowSettings } from './install.js';
import { LAUNCHER } from './launcher.js';

/** Where the MLflow server mounts everything (REST API, ajax-api, web UI). */
export const UI_PREFIX = '/mlflow';
/** The artifact root every experiment gets: what the `databricks` client maps to the Files API. */
export const ARTIFACT_ROOT = 'dbfs:/databricks/mlflow-tracking';
const DB_FILE = 'mlflow.db';

export interface UpstreamRequest {
  method: string;
  /** Path and query on the MLflow server, static prefix included. */
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: Buffer | Readable | undefined;
}

export interface MlflowServerOptions {
  settings: MlflowSettings;
  /** The service's folder: the SQLite database lives here. */
  dir: string;
  logger: Logger;
}

export class MlflowServer {
  private proc: ChildProcess | undefined;
  private starting: Promise<void> | undefined;
  private socket: string | undefined;
  private agent: http.Agent | undefined;
  private output = '';
  /** Bumped whenever the server stops (a reset, a snapshot restore): what was learned from it may be stale. */
  generation = 0;

  constructor(private readonly o: MlflowServerOptions) {}

  /** The SQLite file (what a snapshot copies with the folder). */
  get dbPath(): string {
    return path.join(this.o.dir, DB_FILE);
  }

  get running(): boolean {
    return this.proc !== undefined;
  }

  private unavailable(reason: string): EngineUnavailable {
    const fix = this.o.settings.derived
      ? `run \`${installCommand()}\` (MLflow, cached under ~/.cache/minilake), then retry`
      : 'point MINILAKE_MLFLOW_PYTHON at a Python that has `mlflow` installed';
    return new EngineUnavailable('MLflow', `${reason}: ${fix}.`);
  }

  /** Starts the server unless it runs; resolves once it answers. */
  ensure(): Promise<void> {
    if (this.proc && !this.starting) return Promise.resolve();
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<void> {
    const { python } = this.o.settings;
    if (!existsSync(python))
      throw this.unavailable(`the MLflow server's Python (${python}) is not installed`);
    await mkdir(this.o.dir, { recursive: true });
    // A Unix socket path is limited to ~100 bytes, which a data dir can exceed: a short name in the temp dir.
    const socket = path.join(os.tmpdir(), `minilake-mlflow-${randomBytes(6).toString('hex')}.sock`);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of Object.keys(env))
      if (k.startsWith('MLFLOW_') || k.startsWith('DATABRICKS_')) delete env[k];
    Object.assign(env, {
      PYTHONUNBUFFERED: '1',
      // No background job runner (a third ~250 MB process) and nothing sent anywhere: MiniLake works offline.
      MLFLOW_SERVER_ENABLE_JOB_EXECUTION: 'false',
      MLFLOW_DISABLE_TELEMETRY: 'true',
      DO_NOT_TRACK: 'true',
    });
    const args = [
      '-c',
      LAUNCHER,
      '--',
      '--backend-store-uri',
      `sqlite:///${this.dbPath}`,
      '--default-artifact-root',
      ARTIFACT_ROOT,
      '--workers',
      '1',
      '--static-prefix',
      UI_PREFIX,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--uvicorn-opts',
      `--uds ${socket}`,
    ];
    const proc = spawn(python, args, {
      cwd: this.o.dir,
      env,
      // Its own process group (the launcher stops the group); stdin is the pipe whose end stops it.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.proc = proc;
    this.socket = socket;
    this.output = '';
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-4000);
    };
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    proc.stdin!.on('error', () => undefined);
    const exited = new Promise<number | null>((resolve) => {
      proc.once('exit', (code) => {
        if (this.proc === proc) {
          this.proc = undefined;
          this.agent?.destroy();
          this.agent = undefined;
        }
        void rm(socket, { force: true });
        resolve(code);
      });
      proc.once('error', () => resolve(null));
    });
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const deadline = Date.now() + this.o.settings.startTimeoutMs;
    while (Date.now() < deadline) {
      if (this.proc !== proc) {
        const code = await exited;
        throw this.startFailed(`the MLflow server exited (code ${code}) before it answered`);
      }
      if (await this.healthy()) {
        this.o.logger.info(`MLflow server started (pid ${proc.pid}, ${UI_PREFIX} on ${socket})`);
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await this.stop();
    throw this.startFailed(
      `the MLflow server did not answer within ${this.o.settings.startTimeoutMs / 1000} s`,
    );
  }

  private startFailed(reason: string): DatabricksError {
    const tail = this.output.trim().split('\n').slice(-6).join('\n');
    this.o.logger.error(`${reason}\n${tail}`);
    return new EngineUnavailable('MLflow', `${reason}. Its last output:\n${tail}`);
  }

  private healthy(): Promise<boolean> {
    return new Promise((resolve) => {
      const req = http.get(
        { socketPath: this.socket, path: `${UI_PREFIX}/health`, headers: { host: 'localhost' } },
        (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        },
      );
      req.once('error', () => resolve(false));
      req.setTimeout(2000, () => req.destroy());
    });
  }

  /** A request to the running server (see ensure); the caller reads or pipes the response. */
  async request(r: UpstreamRequest): Promise<IncomingMessage> {
    await this.ensure();
    const socketPath = this.socket!;
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          socketPath,
          agent: this.agent,
          method: r.method,
          path: r.path,
          // Its host check allows localhost; MiniLake decides who reaches it.
          headers: { ...r.headers, host: 'localhost' },
        },
        resolve,
      );
      req.once('error', (e) =>
        reject(new EngineUnavailable('MLflow', `the MLflow server did not answer (${e.message})`)),
      );
      if (r.body instanceof Readable) r.body.pipe(req);
      else req.end(r.body);
    });
  }

  /**
   * A JSON call to the MLflow REST API (`method` and `api` as in `runs/get`), as MiniLake's own code makes
   * them: an error answer becomes the DatabricksError it describes.
   */
  async call<T>(method: 'GET' | 'POST', api: string, payload: Record<string, unknown> = {}): Promise<T> {
    let p = `${UI_PREFIX}/api/2.0/mlflow/${api}`;
    let body: Buffer | undefined;
    if (method === 'GET') {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(payload)) if (v !== undefined) q.set(k, String(v));
      if ([...q].length) p += `?${q}`;
    } else body = Buffer.from(JSON.stringify(payload));
    const res = await this.request({
      method,
      path: p,
      headers: body ? { 'content-type': 'application/json', 'content-length': body.length } : {},
      body,
    });
    const text = await readAll(res);
    const status = res.statusCode ?? 500;
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      if (status < 400)
        throw new DatabricksError(502, 'INTERNAL_ERROR', `MLflow answered ${api} with no JSON`);
    }
    if (status >= 400) throw upstreamError(status, parsed, text);
    return parsed as T;
  }

  /** Stops the server (and its process group); the next request starts it again. */
  async stop(): Promise<void> {
    this.generation++;
    const p = this.proc;
    this.proc = undefined;
    this.agent?.destroy();
    this.agent = undefined;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        try {
          process.kill(-p.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        resolve();
      }, 10_000);
      p.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      // The launcher stops the whole group when its stdin closes.
      p.stdin!.end();
    });
    if (this.socket) await rm(this.socket, { force: true });
  }
}

export async function readBytes(res: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function readAll(res: Readable): Promise<string> {
  return (await readBytes(res)).toString('utf8');
}

/** An MLflow error answer as a DatabricksError (the body is already Databricks-shaped). */
export function upstreamError(status: number, body: Record<string, unknown>, text: string): DatabricksError {
  const code =
    typeof body.error_code === 'string' ? body.error_code : status === 404 ? 'NOT_FOUND' : 'INTERNAL_ERROR';
  const message = typeof body.message === 'string' ? body.message : text.slice(0, 500);
  return new DatabricksError(status, code, message);
}
