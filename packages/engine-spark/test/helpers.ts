import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createContext, type ServiceContext } from '@minilake/core';
import {
  createSparkEngine,
  defaultInstallDir,
  installCommand,
  sparkSettings,
  type SparkTask,
} from '../src/index.js';

export const cacheDir = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache', 'minilake');
export const installed = existsSync(path.join(defaultInstallDir(cacheDir), '.complete'));
/** The reason a Spark test is skipped: the install is absent (CI runs the install step first). */
export const skipReason = `Spark is not installed: run \`${installCommand()}\``;

export function tmp(prefix = 'spark-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function write(dir: string, name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

export function engineFor(opts: { config?: Record<string, string>; selfUrl?: string } = {}): {
  engine: ReturnType<typeof createSparkEngine>;
  ctx: ServiceContext;
  dir: string;
} {
  const dir = tmp();
  const ctx = createContext({
    dataDir: path.join(dir, 'data'),
    settingsSchema: sparkSettings,
    config: { MINILAKE_CACHE: cacheDir, ...opts.config },
    selfUrl: () => opts.selfUrl,
  });
  return { engine: createSparkEngine(ctx), ctx, dir };
}

let n = 0;
export function task(dir: string, t: Partial<SparkTask> & Pick<SparkTask, 'file'>): SparkTask {
  n += 1;
  return {
    id: `t${n}-${Date.now()}`,
    kind: 'python',
    args: [],
    widgets: {},
    env: {},
    sparkConf: {},
    compute: 'classic',
    taskValues: {},
    context: { runId: 100 + n, taskRunId: 200 + n, taskKey: `task${n}` },
    workDir: path.join(dir, `attempt-${n}`),
    ...t,
  };
}

/** True while a process (or, for a negative number, a process group) exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (pid < 0) return true;
  try {
    // A killed process that nobody reaped yet is a zombie: dead for our purpose.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 1).trim()[0] !== 'Z';
  } catch {
    return !existsSync('/proc/self');
  }
}

/** The live (non-zombie) processes of a process group, read from /proc. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const [state, , pgrp] = stat
        .slice(stat.lastIndexOf(')') + 1)
        .trim()
        .split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') out.push(Number(d));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Polls `check` until it holds or `ms` pass; returns whether it held. */
export async function within(ms: number, check: () => boolean): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}
