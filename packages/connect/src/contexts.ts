/**
 * /api/1.2 command execution: execution contexts on a cluster, each a Python REPL process
 * (engine-spark's runtime/minilake_repl.py) whose `spark` is a Spark Connect session on the cluster's
 * driver, and the commands run in them one at a time, in order. Contexts and commands live in memory, as
 * on Databricks (a restart of the cluster or of MiniLake ends them). A context's REPL is started when the
 * context is created (status Pending, then Running once its session is up; Error when it cannot start) and
 * killed when it is destroyed, when its cluster stops, or on reset.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import {
  DatabricksError,
  invalidParameter,
  notFound,
  numericId,
  requestPrincipal,
  uuid,
  type Logger,
  type Principal,
} from '@minilake/core';
import type { ComputeApi } from '@minilake/compute';
import type { SparkEngine } from '@minilake/engine-spark';
import type { Upstreams } from './proxy.js';
import { lengthDelimited } from './protobuf.js';
import { configureSession } from './session-identity.js';

export type Language = 'python' | 'sql' | 'scala' | 'r';
type ContextStatus = 'Pending' | 'Running' | 'Error';
type CommandStatus = 'Queued' | 'Running' | 'Cancelling' | 'Finished' | 'Cancelled' | 'Error';

export interface Results {
  resultType: 'text' | 'table' | 'error' | 'image' | 'images';
  data?: unknown;
  schema?: unknown[];
  truncated?: boolean;
  isJsonSchema?: boolean;
  summary?: string;
  cause?: string;
}

interface Command {
  id: string;
  language: Language;
  command: string;
  status: CommandStatus;
  results?: Results;
  /** MINILAKE_AUTH=tokens: the bearer its caller sent, which the context acts with from this command on. */
  token?: string;
}

interface Context {
  id: string;
  clusterId: string;
  language: Language;
  status: ContextStatus;
  proc?: ChildProcess;
  stdin?: Writable;
  /** Why it is in Error. */
  error?: string;
  commands: Map<string, Command>;
  queue: Command[];
  running?: Command;
  /**
   * MINILAKE_AUTH=tokens: whose context it is (`kind:userName`) and the bearer its creator sent, which its
   * Spark session reads Unity Catalog with and its code calls the server back with (DATABRICKS_TOKEN).
   */
  owner?: string;
  token?: string;
  /** Where its Spark session was configured with `token` (start), to configure it again with a newer one. */
  session?: { port: number; id: string; userContext: Buffer };
}

export interface ContextsDeps {
  compute: ComputeApi;
  spark: SparkEngine;
  logger: Logger;
  /** How long a new context waits for its cluster's driver (a starting cluster). */
  holdMs: number;
  /** The connections to Spark Connect servers (the router's): where a context's session is configured. */
  upstreams: Upstreams;
  /** Puts a caller's token into a session's conf (session-identity.ts; a test replaces it). */
  configure?: typeof configureSession;
}

const ownerOf = (p: Principal) => `${p.kind}:${p.userName}`;

const notRunning = (id: string, state: string) =>
  new DatabricksError(400, 'INVALID_STATE', `Cluster ${id} is not running (its state is ${state}).`);

export class Contexts {
  private readonly contexts = new Map<string, Context>();

  private readonly configure: typeof configureSession;

  constructor(private readonly d: ContextsDeps) {
    this.configure = d.configure ?? configureSession;
  }

  private cluster(clusterId: string): Record<string, unknown> {
    const c = this.d.compute.getCluster(clusterId);
    if (!c) throw invalidParameter(`Cluster ${clusterId} does not exist`);
    // Running commands on a cluster is attaching to it (MINILAKE_ENFORCE=1), as over Spark Connect.
    this.d.compute.checkAccess(clusterId, 'CAN_ATTACH_TO');
    return c;
  }

  private context(clusterId: string, contextId: string): Context {
    this.cluster(clusterId);
    const ctx = this.contexts.get(contextId);
    if (!ctx || ctx.clusterId !== clusterId)
      throw notFound(
        `Context ${contextId} does not exist on cluster ${clusterId}.`,
        'RESOURCE_DOES_NOT_EXIST',
      );
    // A context holds its creator's credentials (its Spark session reads Unity Catalog with them): nobody
    // else may run code in it, look at it or end it, admins included (that would be acting as the creator).
    const caller = requestPrincipal();
    if (ctx.owner !== undefined && (!caller || ownerOf(caller) !== ctx.owner))
      throw new DatabricksError(
        403,
        'PERMISSION_DENIED',
        `Context ${contextId} belongs to another user: only the user who created it can use it.`,
      );
    // A context outlives neither its cluster's driver nor its REPL.
    if (ctx.status === 'Running' && this.d.compute.sparkPort(clusterId) === undefined)
      this.fail(ctx, `Cluster ${clusterId} is no longer running.`);
    return ctx;
  }

  /**
   * `token`: the caller's bearer when the host authenticated the request (MINILAKE_AUTH=tokens): the context
   * then acts as the caller (see `start`); without authentication it acts as the engine, as before.
   */
  create(clusterId: string, language: Language, token?: string): string {
    const c = this.cluster(clusterId);
    if (language === 'scala' || language === 'r')
      throw new DatabricksError(
        501,
        'NOT_IMPLEMENTED',
        `MiniLake runs python and sql commands, not ${language}.`,
      );
    if (c.state !== 'RUNNING' && c.state !== 'PENDING' && c.state !== 'RESTARTING' && c.state !== 'RESIZING')
      throw notRunning(clusterId, String(c.state));
    const ctx: Context = {
      id: String(numericId()),
      clusterId,
      language,
      status: 'Pending',
      commands: new Map(),
      queue: [],
    };
    const caller = requestPrincipal();
    if (caller) {
      if (!token) throw new DatabricksError(401, 'UNAUTHENTICATED', 'A bearer token is required.');
      ctx.owner = ownerOf(caller);
      ctx.token = token;
    }
    this.contexts.set(ctx.id, ctx);
    void this.start(ctx).catch((e: unknown) => this.fail(ctx, (e as Error).message ?? String(e)));
    return ctx.id;
  }

  private async start(ctx: Context): Promise<void> {
    const target = await this.d.compute.awaitSpark(ctx.clusterId, this.d.holdMs);
    if ('problem' in target) throw new Error(target.problem);
    const rt = await this.d.spark.pythonRuntime();
    if (ctx.status !== 'Pending') return; // destroyed meanwhile
    let remote = `sc://127.0.0.1:${target.port}/;x-databricks-cluster-id=${ctx.clusterId}`;
    const own: Record<string, string> = {};
    if (ctx.token !== undefined) {
      // The REPL's session is made here first, under a session id and user id the REPL then connects with,
      // and its Unity Catalog tokens are replaced by the creator's before any code of the context runs: the
      // same step Databricks Connect sessions get from the router (session-identity.ts). The REPL process never
      // holds the engine's token: its SDK and dbutils call the server back as the creator too.
      const sessionId = randomUUID();
      const userId = `minilake-context-${ctx.id}`;
      const userContext = lengthDelimited(2, lengthDelimited(1, Buffer.from(userId, 'utf8')));
      await this.configure(this.d.upstreams.get(target.port), sessionId, userContext, ctx.token);
      if (ctx.status !== 'Pending') return;
      ctx.session = { port: target.port, id: sessionId, userContext };
      remote += `;session_id=${sessionId};user_id=${userId}`;
      own.DATABRICKS_TOKEN = ctx.token;
    }
    // A notebook's Python on Databricks runs on the driver, with the cluster's spark_env_vars.
    const clusterEnv: Record<string, string> = {};
    const vars = this.d.compute.getCluster(ctx.clusterId)?.spark_env_vars;
    if (vars && typeof vars === 'object')
      for (const [k, v] of Object.entries(vars as Record<string, unknown>)) clusterEnv[k] = String(v);
    // Not under the supervisor: SIGINT must reach the REPL (a cancel), which ends itself with the server.
    const proc = spawn(rt.python, [path.join(rt.runtimeDir, 'minilake_repl.py')], {
      env: rt.env({
        ...clusterEnv,
        ...own,
        SPARK_REMOTE: remote,
        PYTHONUNBUFFERED: '1',
        MINILAKE_SERVER_PID: String(process.pid),
      }),
      stdio: ['pipe', 'ignore', 'pipe', 'pipe'],
      detached: true,
    });
    ctx.proc = proc;
    ctx.stdin = proc.stdin!;
    proc.stdin!.on('error', () => undefined);
    let stderr = '';
    proc.stderr!.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString('utf8')).slice(-4000);
    });
    const answers = createInterface({ input: proc.stdio[3] as NodeJS.ReadableStream });
    answers.on('line', (line) => this.answer(ctx, line));
    proc.once('exit', (code, signal) => {
      ctx.proc = undefined;
      if (ctx.status !== 'Error')
        this.fail(
          ctx,
          `The execution context ended (${signal ?? `exit code ${code}`}). ${lastLine(stderr)}`.trim(),
        );
    });
  }

  private answer(ctx: Context, line: string): void {
    let msg: { ready?: boolean; error?: string; id?: string; status?: CommandStatus; results?: Results };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      return;
    }
    if (msg.ready !== undefined) {
      if (!msg.ready) return this.fail(ctx, msg.error ?? 'The execution context could not start.');
      ctx.status = 'Running';
      this.next(ctx);
      return;
    }
    const cmd = ctx.running;
    if (!cmd || cmd.id !== msg.id) return;
    ctx.running = undefined;
    // A command the user's code failed in has finished, with an error result (as Databricks reports it).
    cmd.status = msg.status === 'Cancelled' || cmd.status === 'Cancelling' ? 'Cancelled' : 'Finished';
    if (msg.results) cmd.results = msg.results;
    this.d.compute.recordActivity(ctx.clusterId);
    this.next(ctx);
  }

  private next(ctx: Context): void {
    if (ctx.status !== 'Running' || ctx.running) return;
    const cmd = ctx.queue.shift();
    if (!cmd) return;
    ctx.running = cmd;
    cmd.status = 'Running';
    this.actAs(ctx, cmd.token).then(
      (token) => {
        if (ctx.running !== cmd || ctx.status !== 'Running') return;
        const { id, language, command } = cmd;
        ctx.stdin!.write(`${JSON.stringify({ id, language, command, ...(token ? { token } : {}) })}\n`);
      },
      (e: unknown) => {
        if (ctx.running !== cmd) return;
        ctx.running = undefined;
        const why = `Could not give the context's Spark session the caller's new token: ${(e as Error).message}`;
        cmd.status = 'Error';
        cmd.results = { resultType: 'error', summary: why, cause: why };
        this.next(ctx);
      },
    );
  }

  /**
   * Before a command of a context's creator that came with a bearer other than the one the context acts with
   * (their OAuth token refreshed, a new PAT): the context's Spark session takes it, as a Databricks Connect
   * session does (session-identity.ts), and the REPL is handed it for its calls back to the server. So a
   * context outlives the token it was created with. Resolves to the token the REPL should switch to, if any.
   */
  private async actAs(ctx: Context, token: string | undefined): Promise<string | undefined> {
    if (token === undefined || token === ctx.token || !ctx.session) return undefined;
    const { port, id, userContext } = ctx.session;
    await this.configure(this.d.upstreams.get(port), id, userContext, token);
    ctx.token = token;
    return token;
  }

  private fail(ctx: Context, error: string): void {
    ctx.status = 'Error';
    ctx.error = error;
    for (const cmd of [...(ctx.running ? [ctx.running] : []), ...ctx.queue]) {
      cmd.status = 'Error';
      cmd.results = { resultType: 'error', summary: error, cause: error };
    }
    ctx.running = undefined;
    ctx.queue = [];
    this.kill(ctx);
  }

  private kill(ctx: Context): void {
    const pid = ctx.proc?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // gone
    }
    const t = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }, 1000);
    t.unref();
  }

  status(clusterId: string, contextId: string): { id: string; status: ContextStatus } {
    const ctx = this.context(clusterId, contextId);
    return { id: ctx.id, status: ctx.status };
  }

  destroy(clusterId: string, contextId: string): void {
    const ctx = this.context(clusterId, contextId);
    this.contexts.delete(ctx.id);
    ctx.status = 'Error';
    this.kill(ctx);
  }

  /** `token`: the caller's bearer under MINILAKE_AUTH=tokens (see `actAs`). */
  execute(
    clusterId: string,
    contextId: string,
    language: Language | undefined,
    command: string,
    token?: string,
  ): string {
    const ctx = this.context(clusterId, contextId);
    const lang = language ?? ctx.language;
    if (lang === 'scala' || lang === 'r')
      throw new DatabricksError(
        501,
        'NOT_IMPLEMENTED',
        `MiniLake runs python and sql commands, not ${lang}.`,
      );
    if (ctx.status === 'Error')
      throw new DatabricksError(
        400,
        'INVALID_STATE',
        `Context ${contextId} is in an error state: ${ctx.error ?? ''}`,
      );
    const cmd: Command = { id: uuid().replace(/-/g, ''), language: lang, command, status: 'Queued' };
    if (ctx.owner !== undefined && token !== undefined) cmd.token = token;
    ctx.commands.set(cmd.id, cmd);
    ctx.queue.push(cmd);
    this.next(ctx);
    return cmd.id;
  }

  commandStatus(clusterId: string, contextId: string, commandId: string) {
    const ctx = this.context(clusterId, contextId);
    const cmd = ctx.commands.get(commandId);
    if (!cmd)
      throw notFound(
        `Command ${commandId} does not exist in context ${contextId}.`,
        'RESOURCE_DOES_NOT_EXIST',
      );
    return { id: cmd.id, status: cmd.status, ...(cmd.results ? { results: cmd.results } : {}) };
  }

  cancel(clusterId: string, contextId: string, commandId: string): void {
    const ctx = this.context(clusterId, contextId);
    const cmd = ctx.commands.get(commandId);
    if (!cmd)
      throw notFound(
        `Command ${commandId} does not exist in context ${contextId}.`,
        'RESOURCE_DOES_NOT_EXIST',
      );
    if (cmd.status === 'Queued') {
      ctx.queue = ctx.queue.filter((x) => x !== cmd);
      cmd.status = 'Cancelled';
    } else if (cmd.status === 'Running') {
      cmd.status = 'Cancelling';
      // The REPL turns SIGINT into KeyboardInterrupt in the command (and interrupts its Spark jobs). An idle
      // REPL ignores SIGINT, and one that has not read the command off its stdin yet is idle: the signal is
      // sent again until the command has ended, so a cancel right after execute is not lost.
      const pid = ctx.proc?.pid;
      if (pid === undefined) return;
      const interrupt = () => {
        if (cmd.status !== 'Cancelling') return clearInterval(again);
        try {
          process.kill(pid, 'SIGINT');
        } catch {
          clearInterval(again); // gone
        }
      };
      const again = setInterval(interrupt, 250);
      again.unref();
      interrupt();
    }
  }

  /** Ends every context (reset, close). */
  clear(): void {
    for (const ctx of this.contexts.values()) {
      ctx.status = 'Error';
      this.kill(ctx);
    }
    this.contexts.clear();
  }
}

function lastLine(s: string): string {
  return (
    s
      .trim()
      .split('\n')
      .filter((l) => l.trim())
      .pop() ?? ''
  );
}
