/**
 * The warm Python beside the Spark Connect server (runtime/minilake_zygote.py): it has imported the Spark
 * Connect client, pandas, pyarrow and the MiniLake runtime once and forks one child per serverless task, so
 * a task skips seconds of imports. A child is a Proc like any other: its own process group (cancel and
 * timeout kill it the same way), its output in a file of the attempt's folder whose tail becomes `logs`,
 * its exit code or signal reported by the zygote. When the zygote is not up the engine starts a plain
 * process instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { open, rm, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Logger } from '@minilake/core';
import type { Proc, ProcResult } from './proc.js';

interface Pending {
  onPid(pid: number): void;
  onExit(exitCode: number | null, signal: NodeJS.Signals | null, error?: string): void;
}

export interface ZygoteOptions {
  python: string;
  script: string;
  cwd: string;
  env: Record<string, string>;
  logger: Logger;
  /** Seconds the imports may take before the zygote is given up on (tasks then run as plain processes). */
  startTimeoutMs: number;
}

export interface ZygoteSpawn {
  env: Record<string, string>;
  cwd: string;
  /** stdout and stderr of the child, appended. */
  logFile: string;
  logBytes: number;
}

const SIGNALS: Record<number, NodeJS.Signals> = {
  9: 'SIGKILL',
  15: 'SIGTERM',
  2: 'SIGINT',
  6: 'SIGABRT',
  11: 'SIGSEGV',
};

/** The last `limit` bytes of a file (a task's output), as the TailBuffer of a plain process keeps them. */
async function tailOf(file: string, limit: number): Promise<{ text: string; truncated: boolean }> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return { text: '', truncated: false };
  }
  const start = Math.max(0, size - limit);
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    let text = buf.toString('utf8');
    if (start > 0) text = text.replace(/^\uFFFD+/, '');
    return { text, truncated: start > 0 };
  } finally {
    await fh.close();
  }
}

export class Zygote {
  private child?: ChildProcess;
  private ready?: Promise<boolean>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: ZygoteOptions) {}

  /** True once the zygote listens; false when it could not start (the caller falls back). */
  ensure(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    this.ready ??= this.start();
    return this.ready;
  }

  /** Up now, without waiting: a task never waits for a zygote that is still importing. */
  async up(): Promise<boolean> {
    if (!this.ready || this.closed) return false;
    return this.ready;
  }

  private start(): Promise<boolean> {
    const { python, script, cwd, env, logger } = this.opts;
    const child = spawn(python, [script], {
      cwd,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    let stderrTail = '';
    child.stderr!.on('data', (b: Buffer) => {
      stderrTail = (stderrTail + b.toString('utf8')).slice(-4096);
    });
    child.stdin!.on('error', () => undefined);
    const t0 = Date.now();
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const settle = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(ok);
      };
      const timer = setTimeout(() => {
        logger.warn('Spark zygote did not start in time; serverless tasks run as plain processes');
        child.kill('SIGKILL');
        settle(false);
      }, this.opts.startTimeoutMs);
      timer.unref();
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        let msg: {
          ready?: boolean;
          id?: number;
          pid?: number;
          exit?: number | null;
          signal?: number | null;
          error?: string;
        };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          return;
        }
        if (msg.ready) {
          logger.info('Spark zygote ready', { ms: Date.now() - t0 });
          settle(true);
          return;
        }
        const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
        if (!p) return;
        if (msg.pid !== undefined) p.onPid(msg.pid);
        else if (msg.error !== undefined) {
          this.pending.delete(msg.id!);
          p.onExit(null, null, msg.error);
        } else if ('exit' in msg) {
          this.pending.delete(msg.id!);
          p.onExit(msg.exit ?? null, msg.signal ? (SIGNALS[msg.signal] ?? 'SIGKILL') : null);
        }
      });
      child.once('exit', (code) => {
        if (this.child === child) {
          this.child = undefined;
          this.ready = undefined; // the next serverless task starts a new one
        }
        if (!this.closed && settled)
          logger.warn('Spark zygote exited', { code, stderr: stderrTail.slice(-500) });
        settle(false);
        // Children of a dead zygote cannot be reaped by it: report them as lost (their groups are killed).
        for (const [id, p] of this.pending) {
          this.pending.delete(id);
          p.onExit(null, 'SIGKILL', 'the warm Python (zygote) exited while the task ran');
        }
      });
      child.once('error', () => settle(false));
    });
  }

  /** Forks a task from the zygote; the Proc behaves as startProc's does. Call only after up() is true. */
  spawn(opts: ZygoteSpawn): Proc {
    const id = this.nextId++;
    let pid: number | undefined;
    let exited = false;
    let killRequested: number | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const signalGroup = (sig: NodeJS.Signals) => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, sig);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const kill = (graceMs = 500) => {
      if (pid === undefined) {
        killRequested = graceMs;
        return;
      }
      if (exited) return;
      signalGroup('SIGTERM');
      if (!killTimer) {
        killTimer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
        killTimer.unref();
      }
    };
    const done = new Promise<ProcResult>((resolve) => {
      this.pending.set(id, {
        onPid: (p) => {
          pid = p;
          if (killRequested !== undefined) kill(killRequested);
        },
        onExit: (exitCode, signal, error) => {
          exited = true;
          if (killTimer) clearTimeout(killTimer);
          // Whatever the child left behind in its group goes with it.
          signalGroup('SIGKILL');
          // The file holds the raw output (a secret the task printed is redacted only in `logs`): its
          // tail is read, then it goes, as a plain process's pipe leaves nothing on disk.
          void tailOf(opts.logFile, opts.logBytes).then(async ({ text, truncated }) => {
            await rm(opts.logFile, { force: true });
            resolve({
              exitCode,
              signal,
              output: text,
              truncated,
              ...(error && pid === undefined ? { spawnError: error } : {}),
              ...(error && pid !== undefined
                ? { output: `${text}${text.endsWith('\n') || !text ? '' : '\n'}${error}\n` }
                : {}),
            });
          });
        },
      });
    });
    const req = { id, env: opts.env, cwd: opts.cwd, log: opts.logFile };
    const child = this.child;
    if (!child?.stdin?.writable) {
      const p = this.pending.get(id)!;
      this.pending.delete(id);
      p.onExit(null, null, 'the warm Python (zygote) is not running');
    } else {
      child.stdin.write(`${JSON.stringify(req)}\n`);
    }
    return {
      get pid() {
        return pid;
      },
      done,
      kill,
    };
  }

  async stop(): Promise<void> {
    this.closed = true;
    const c = this.child;
    if (!c || c.exitCode !== null) return;
    const gone = new Promise<void>((r) => c.once('exit', () => r()));
    c.stdin?.end();
    const t = setTimeout(() => {
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }, 500);
    await gone;
    clearTimeout(t);
  }
}
