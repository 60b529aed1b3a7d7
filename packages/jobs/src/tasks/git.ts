/**
 * A job's `git_source`: each run checks the repository out once, at the branch, tag or commit it names, and
 * every task of the run that reads from it (`source: GIT`, or no source while the job has a git_source)
 * reads that one snapshot, as on Databricks. Any URL this machine's git reaches works (a local path,
 * `file://`, a git server); the commit used is recorded on the run (`git_source.git_snapshot.used_commit`).
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { git, GitError } from '@minilake/core';
import type { Json } from '../settings.js';
import type { JobsStore } from '../store.js';
import { TaskFileError, type ExecInput } from './types.js';

export class GitCheckouts {
  private readonly pending = new Map<number, Promise<string>>();
  constructor(private readonly store: JobsStore) {}

  /** The run's checkout (made on first use). */
  checkout(input: ExecInput): Promise<string> {
    const { run } = input;
    let p = this.pending.get(run.run_id);
    if (!p) {
      // <dir>/runs/<run>/<task run>: the run's checkout sits beside its tasks' folders.
      const dir = path.join(path.dirname(input.workDir), 'git');
      p = this.clone(run.run_id, run.settings.git_source, dir);
      this.pending.set(run.run_id, p);
      p.catch(() => this.pending.delete(run.run_id));
    }
    return p;
  }

  /** Forgets a finished run's checkout (its files go with the run's folder). */
  forget(runId: number): void {
    this.pending.delete(runId);
  }

  private async clone(runId: number, source: Json | undefined, dir: string): Promise<string> {
    if (!source) throw new TaskFileError('The task reads from git, but the job has no git_source.');
    const url = source.git_url;
    if (typeof url !== 'string' || url === '') throw new TaskFileError('git_source.git_url is required.');
    // A repair reads the commit its run used first.
    const used = (source.git_snapshot as { used_commit?: unknown } | undefined)?.used_commit;
    const ref =
      typeof used === 'string'
        ? used
        : typeof source.git_commit === 'string'
          ? source.git_commit
          : typeof source.git_tag === 'string'
            ? `refs/tags/${source.git_tag}`
            : typeof source.git_branch === 'string'
              ? `origin/${source.git_branch}`
              : undefined;
    await rm(dir, { recursive: true, force: true });
    await mkdir(path.dirname(dir), { recursive: true });
    try {
      await git(['clone', '--quiet', '--no-checkout', '--', url, dir]);
      let commit: string;
      try {
        commit = (
          await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref ?? 'HEAD'}^{commit}`], {
            cwd: dir,
          })
        ).trim();
      } catch (e) {
        if (!(e instanceof GitError)) throw e;
        const what = source.git_commit ?? source.git_tag ?? source.git_branch ?? 'HEAD';
        throw new TaskFileError(
          `Failed to checkout Git repository: ${String(what)} was not found in ${url}.`,
        );
      }
      await git(['checkout', '--quiet', '--detach', commit], { cwd: dir });
      if (this.store.findRun(runId))
        this.store.updateRun(runId, (r) => {
          const gs = r.settings.git_source as Json | undefined;
          if (gs) gs.git_snapshot = { used_commit: commit };
        });
    } catch (e) {
      if (e instanceof GitError) throw new TaskFileError(`Failed to checkout Git repository: ${e.reason}`);
      throw e;
    }
    return dir;
  }
}

/** Whether a task's file comes from the job's git_source (its `source`, or none while the job has one). */
export function fromGit(input: ExecInput, source: string | undefined): boolean {
  return source === 'GIT' || (source === undefined && input.run.settings.git_source !== undefined);
}

/** A repository-relative path inside a checkout (no way out of it). */
export function inCheckout(root: string, rel: string): string {
  const parts = rel.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.includes('..')) throw new TaskFileError(`Invalid path in the Git repository: ${rel}`);
  return path.join(root, ...parts);
}

/** A notebook path in a repository names a file with its extension left out (`src/nb` is src/nb.py ...). */
export function notebookInCheckout(root: string, rel: string): string {
  const base = inCheckout(root, rel);
  for (const ext of ['', '.py', '.ipynb', '.sql', '.scala', '.r', '.R'])
    if (existsSync(base + ext)) return base + ext;
  throw new TaskFileError(`Notebook ${rel} is not in the Git repository.`);
}

/** Copies a folder of the checkout (a dbt project) for a task to work in. */
export async function copyFromCheckout(from: string, to: string): Promise<void> {
  if (!existsSync(from)) throw new TaskFileError(`${path.basename(from)} is not in the Git repository.`);
  await cp(from, to, { recursive: true, filter: (src) => path.basename(src) !== '.git' });
}
