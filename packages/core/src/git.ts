/**
 * git as a child process, for the services that clone (Repos, jobs' git_source): never a prompt (a URL that
 * wants credentials fails at once instead of waiting on a terminal), a bound on the time a command may take
 * (an unreachable host is an error, not a hang), only the transports a Git folder can name (no `ext::`,
 * which runs commands), and `--` before every user-given URL or ref so none can pass for an option.
 */
import { execFile } from 'node:child_process';

export class GitError extends Error {
  constructor(
    message: string,
    /** git's own output (stderr), for the caller's message. */
    readonly output: string,
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'GitError';
  }

  /** git's first `fatal:`/`error:` line, else its last line: the reason a user can act on. */
  get reason(): string {
    const lines = this.output
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return (
      lines.find((l) => /^(fatal|error):/.test(l))?.replace(/^(fatal|error):\s*/, '') ??
      lines[lines.length - 1] ??
      this.message
    );
  }
}

export interface GitOptions {
  cwd?: string;
  /** Default 60 s. */
  timeoutMs?: number;
}

export function git(args: string[], opts: GitOptions = {}): Promise<string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, {
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'true',
    SSH_ASKPASS: 'true',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=10',
    GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh',
    GIT_CONFIG_NOSYSTEM: '1',
    LC_ALL: 'C',
  });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const full = [
    // A stalled transfer fails after 20 s below 1 KB/s, well within the command's own bound.
    '-c',
    'http.lowSpeedLimit=1000',
    '-c',
    'http.lowSpeedTime=20',
    '-c',
    'core.hooksPath=/dev/null',
    ...args,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      full,
      { cwd: opts.cwd, env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
        if (e.code === 'ENOENT') return reject(new GitError('git is not installed on this machine', ''));
        const timedOut = e.killed === true || e.signal === 'SIGKILL';
        reject(
          new GitError(
            timedOut
              ? `git ${args[0]} did not finish within ${Math.round(timeoutMs / 1000)} s`
              : `git ${args[0]} failed`,
            String(stderr || stdout || ''),
            timedOut,
          ),
        );
      },
    );
  });
}
