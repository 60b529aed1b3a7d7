/**
 * One child process in its own process group (spark-submit starts a JVM that starts Python, which may start
 * more), with its output's tail kept in memory and a kill that reaches the whole group.
 */
import { spawn } from 'node:child_process';

export interface ProcOptions {
  cmd: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Bytes of output kept (the tail). */
  logBytes: number;
}

export interface ProcResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  truncated: boolean;
  /** The process could not be started at all (ENOENT...). */
  spawnError?: string;
}

export interface Proc {
  readonly pid: number | undefined;
  readonly done: Promise<ProcResult>;
  /** SIGTERM to the group, SIGKILL after `graceMs`: the group is gone within about a second. */
  kill(graceMs?: number): void;
}

/** Keeps the last `limit` bytes of a stream without holding more than about twice that. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  total = 0;
  constructor(private readonly limit: number) {}

  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    this.total += b.length;
    if (this.size > this.limit * 2) this.compact();
  }

  private compact(): void {
    const all = Buffer.concat(this.chunks);
    const keep = all.subarray(Math.max(0, all.length - this.limit));
    this.chunks = [Buffer.from(keep)];
    this.size = keep.length;
  }

  text(): { text: string; truncated: boolean } {
    this.compact();
    let t = (this.chunks[0] ?? Buffer.alloc(0)).toString('utf8');
    const truncated = this.total > this.limit;
    // A cut in the middle of a multi-byte character decodes to U+FFFD: drop it.
    if (truncated) t = t.replace(/^\uFFFD+/, '');
    return { text: t, truncated };
  }
}

export function startProc(opts: ProcOptions): Proc {
  const tail = new TailBuffer(opts.logBytes);
  // detached: the child leads a new process group, so one kill(-pid) reaches the JVM, Python and workers.
  const child = spawn(opts.cmd, opts.args, {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (b: Buffer) => tail.push(b));
  child.stderr!.on('data', (b: Buffer) => tail.push(b));
  let killTimer: NodeJS.Timeout | undefined;
  const signalGroup = (sig: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  const done = new Promise<ProcResult>((resolve) => {
    let settled = false;
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: string) => {
      if (settled) return;
      settled = true;
      if (killTimer) clearTimeout(killTimer);
      // Whatever the leader left behind in its group goes with it.
      signalGroup('SIGKILL');
      const { text, truncated } = tail.text();
      resolve({ exitCode, signal, output: text, truncated, ...(spawnError ? { spawnError } : {}) });
    };
    child.once('error', (e) => finish(null, null, e.message));
    child.once('exit', (code, signal) => {
      // 'close' follows once the pipes drain; a grandchild that escaped the group could hold them open,
      // so do not wait for it longer than a moment.
      const t = setTimeout(() => finish(code, signal), 1000);
      child.once('close', () => {
        clearTimeout(t);
        finish(code, signal);
      });
    });
  });
  return {
    pid: child.pid,
    done,
    kill(graceMs = 500) {
      signalGroup('SIGTERM');
      if (!killTimer) {
        killTimer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
        killTimer.unref();
      }
    },
  };
}
