/**
 * The Docker executor: one sibling container per classic task, running the same command line the subprocess
 * executor runs (the image built by docker/build.sh keeps every file at its host path). The data directory,
 * the task runtime and the per-environment venvs are bind-mounted at the same paths; the network is the
 * host's (dockerd runs without a bridge here, and the task calls the server back on loopback). The container
 * shares the host's PID namespace so the supervisor inside still sees the MiniLake server and ends the task
 * when the server dies, as it does for a subprocess.
 *
 * It returns the same Proc as startProc, so the engine treats both alike: output tail, exit code, kill.
 */
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { TailBuffer, type Proc, type ProcResult } from './proc.js';

export interface ContainerOptions {
  image: string;
  /** argv[0] and the rest: what startProc would spawn. */
  cmd: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  logBytes: number;
  /** Host folders mounted at the same path; `ro` for read-only. */
  mounts: { path: string; ro?: boolean }[];
  /** uid:gid the task runs as (the server's own, so files it writes belong to the same user). */
  user: string;
  name: string;
  labels: Record<string, string>;
}

/** Label on every task container, so leftovers of a server that died can be found and removed. */
export const TASK_LABEL = 'dev.minilake.spark.task';

let client: Promise<Docker> | undefined;

/** Loaded on first use: a server that never runs a Docker task never loads dockerode. */
export function dockerClient(): Promise<Docker> {
  // dockerode finds the daemon as the docker CLI does (DOCKER_HOST, else the default socket).
  client ??= import('dockerode').then((m) => new m.default());
  return client;
}

/** Says why Docker cannot run a task (no daemon, no image), or undefined when it can. */
export async function dockerProblem(image: string): Promise<string | undefined> {
  const docker = await dockerClient();
  try {
    await docker.ping();
  } catch (e) {
    return `no Docker daemon answers (${e instanceof Error ? e.message : String(e)}); start one (docker/dockerd.sh start) or set DOCKER_HOST`;
  }
  try {
    await docker.getImage(image).inspect();
  } catch {
    return `the Spark image ${image} does not exist: build it with \`bash packages/engine-spark/docker/build.sh\``;
  }
  return undefined;
}

export function startContainer(opts: ContainerOptions): Proc {
  const tail = new TailBuffer(opts.logBytes);
  let container: Docker.Container | undefined;
  let killRequested = false;
  let killTimer: NodeJS.Timeout | undefined;
  const signal = (sig: 'SIGTERM' | 'SIGKILL') => {
    // 409/404: already stopped or removed.
    container?.kill({ signal: sig }).catch(() => undefined);
  };
  const kill = (graceMs = 500) => {
    killRequested = true;
    signal('SIGTERM');
    if (!killTimer) {
      killTimer = setTimeout(() => signal('SIGKILL'), graceMs);
      killTimer.unref();
    }
  };
  const done = (async (): Promise<ProcResult> => {
    const docker = await dockerClient();
    const binds = opts.mounts.map((m) => `${m.path}:${m.path}${m.ro ? ':ro' : ''}`);
    try {
      container = await docker.createContainer({
        name: opts.name,
        Image: opts.image,
        Entrypoint: [opts.cmd],
        Cmd: opts.args,
        Env: Object.entries(opts.env).map(([k, v]) => `${k}=${v}`),
        WorkingDir: opts.cwd,
        User: opts.user,
        Labels: { [TASK_LABEL]: '1', ...opts.labels },
        AttachStdout: true,
        AttachStderr: true,
        HostConfig: { Binds: binds, NetworkMode: 'host', PidMode: 'host', Init: false },
      });
    } catch (e) {
      return { exitCode: null, signal: null, output: '', truncated: false, spawnError: message(e) };
    }
    try {
      const stream = await container.attach({ stream: true, stdout: true, stderr: true });
      const out = new PassThrough();
      out.on('data', (b: Buffer) => tail.push(b));
      container.modem.demuxStream(stream, out, out);
      const ended = new Promise<void>((resolve) => {
        stream.once('end', resolve);
        stream.once('close', resolve);
      });
      // A cancel that came while the container was being created: it never starts.
      if (killRequested) return { exitCode: null, signal: 'SIGKILL', output: '', truncated: false };
      await container.start();
      if (killRequested) kill();
      const { StatusCode } = (await container.wait()) as { StatusCode: number };
      // The attach stream ends right after the process; do not wait for it longer than a moment.
      await Promise.race([ended, new Promise((r) => setTimeout(r, 1000).unref())]);
      const { text, truncated } = tail.text();
      // 137 / 143: killed by SIGKILL / SIGTERM (docker reports 128 + the signal).
      const sig = StatusCode === 137 ? 'SIGKILL' : StatusCode === 143 && killRequested ? 'SIGTERM' : null;
      return { exitCode: sig ? null : StatusCode, signal: sig, output: text, truncated };
    } catch (e) {
      const { text, truncated } = tail.text();
      return { exitCode: null, signal: null, output: text, truncated, spawnError: message(e) };
    } finally {
      if (killTimer) clearTimeout(killTimer);
      await container.remove({ force: true }).catch(() => undefined);
    }
  })();
  return { pid: undefined, done, kill };
}

/** Removes task containers a previous server process left behind (it died before their end). */
export async function removeLeftovers(serverPidAlive: (pid: number) => boolean): Promise<void> {
  const docker = await dockerClient();
  const list = await docker.listContainers({ all: true, filters: { label: [TASK_LABEL] } });
  for (const c of list) {
    const pid = Number(c.Labels['dev.minilake.server.pid']);
    if (pid && !serverPidAlive(pid))
      await docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined);
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
