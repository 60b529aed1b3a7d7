/**
 * Git folders for real: a repo is a `git clone` of its URL (anything this machine's git reaches: a local
 * path, `file://`, a git server) kept under the service's folder, and a workspace folder of type REPO holding
 * its files, which the workspace API, jobs and bundles read like any other. `update` fetches and checks out a
 * branch or a tag (a detached HEAD, as on Databricks), or changes the cone patterns of a sparse checkout.
 * git runs with no prompt and a bound on its time (MINILAKE_REPOS_GIT_TIMEOUT), so a URL nobody answers is
 * an error, never a hang.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { git, GitError, invalidParameter, keysetPage, Mutex, numericId, type Page } from '@minilake/core';
import type { WorkspaceApi } from '@minilake/workspace';
import {
  badRepoPath,
  checkoutFailed,
  cloneFailed,
  invalidProvider,
  repoNotFound,
  repoPathExists,
  sparseNotEnabled,
} from './errors.js';
import type { RepoRecord, ReposStore } from './store.js';

const PROVIDERS = [
  'gitHub',
  'bitbucketCloud',
  'gitLab',
  'azureDevOpsServices',
  'gitHubEnterprise',
  'bitbucketServer',
  'gitLabEnterpriseEdition',
  'awsCodeCommit',
];

/** The provider as Databricks spells it (the field is case-insensitive). */
function canonicalProvider(p: string): string {
  const found = PROVIDERS.find((x) => x.toLowerCase() === p.toLowerCase());
  if (!found) throw invalidProvider(p);
  return found;
}

/** The provider a well-known host implies (what the CLI and Terraform infer when none is given). */
function providerFromUrl(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  if (host === 'github.com') return 'gitHub';
  if (host === 'gitlab.com') return 'gitLab';
  if (host === 'bitbucket.org') return 'bitbucketCloud';
  if (host === 'dev.azure.com' || host.endsWith('.visualstudio.com')) return 'azureDevOpsServices';
  if (/^git-codecommit\.[^.]+\.amazonaws\.com$/.test(host)) return 'awsCodeCommit';
  return undefined;
}

/** The repository's name from its URL (`.../x.git` is x), for a repo created without a path. */
function nameFromUrl(url: string): string {
  const last =
    url
      .replace(/[/\\]+$/, '')
      .split(/[/\\:]/)
      .pop() ?? 'repo';
  return last.replace(/\.git$/i, '') || 'repo';
}

export interface RepoInfo {
  id: number;
  path: string;
  url: string;
  provider: string;
  branch?: string;
  head_commit_id?: string;
  sparse_checkout?: { patterns: string[] };
}

export interface ReposOptions {
  store: ReposStore;
  workspace: WorkspaceApi;
  /** The service's folder: each repo's checkout is `<dir>/<id>`. */
  dir: string;
  userName: string;
  gitTimeoutMs: number;
  onDeleted?: (id: number) => void;
}

export class Repos {
  private readonly lock = new Mutex();
  constructor(private readonly o: ReposOptions) {
    o.workspace.onRepoDeleted((id) => void this.forget(id));
  }

  private tree(id: number): string {
    return path.join(this.o.dir, String(id));
  }

  private git(args: string[], cwd?: string) {
    return git(args, { timeoutMs: this.o.gitTimeoutMs, ...(cwd ? { cwd } : {}) });
  }

  info(r: RepoRecord): RepoInfo {
    const out: RepoInfo = { id: r.id, path: r.path, url: r.url, provider: r.provider };
    if (r.branch !== undefined) out.branch = r.branch;
    if (r.head_commit_id !== undefined) out.head_commit_id = r.head_commit_id;
    if (r.sparse) out.sparse_checkout = { patterns: r.sparse };
    return out;
  }

  get(id: number): RepoInfo {
    const r = this.o.store.get(id);
    if (!r) throw repoNotFound();
    return this.info(r);
  }

  has(id: string): boolean {
    return /^\d+$/.test(id) && this.o.store.get(Number(id)) !== undefined;
  }

  creator(id: string): string | undefined {
    return this.o.store.get(Number(id))?.creator;
  }

  /**
   * Repos whose path starts with a prefix, by path, 20 a page. As Databricks documents it, the prefix is a
   * string prefix (`/Repos/me/pro` finds `/Repos/me/project`), with or without `/Workspace`; none, `/` or
   * `/Workspace` lists the /Repos tree.
   */
  list(prefix: string | undefined, token: string | undefined): Page<RepoInfo> {
    const p = prefix === undefined || prefix === '' ? '/' : this.o.workspace.canonicalPath(prefix);
    // canonicalPath drops a trailing slash, which narrows a string prefix to a folder: keep it.
    const under = p === '/' ? '/Repos/' : prefix?.endsWith('/') ? `${p}/` : p;
    const match = (c: string) => c.startsWith(under);
    const sorted = this.o.store
      .all()
      .filter((r) => match(r.canonical))
      .sort((a, b) => (a.canonical < b.canonical ? -1 : a.canonical > b.canonical ? 1 : 0));
    const page = keysetPage(sorted, (r) => r.canonical, 20, token);
    return {
      items: page.items.map((r) => this.info(r)),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    };
  }

  /** Where a repo may live: /Repos/<folder>/<name>, or a folder of the workspace outside /Repos. */
  private place(given: string | undefined, url: string): { path: string; canonical: string } {
    const p = given ?? `/Repos/${this.o.userName}/${nameFromUrl(url)}`;
    const canonical = this.o.workspace.canonicalPath(p);
    const parts = canonical.split('/').filter(Boolean);
    if (parts[0] === 'Repos' ? parts.length !== 3 : parts.length < 2) throw badRepoPath(p);
    return { path: p.replace(/\/+$/, ''), canonical };
  }

  private taken(canonical: string): boolean {
    try {
      this.o.workspace.getStatus(canonical);
      return true;
    } catch {
      return false;
    }
  }

  async create(req: {
    url: string;
    provider?: string | undefined;
    path?: string | undefined;
    sparse?: string[] | undefined;
  }): Promise<RepoInfo> {
    const given = req.provider ?? providerFromUrl(req.url);
    if (!given) throw invalidParameter('Missing required field: provider');
    const provider = canonicalProvider(given);
    const where = this.place(req.path, req.url);
    return this.lock.run(async () => {
      if (this.o.store.byCanonicalPath(where.canonical) || this.taken(where.canonical))
        throw repoPathExists(where.path);
      const id = numericId();
      const tmp = path.join(this.o.dir, `.clone-${randomBytes(6).toString('hex')}`);
      await mkdir(this.o.dir, { recursive: true });
      try {
        await this.clone(req.url, tmp, req.sparse);
        const head = await this.head(tmp);
        await rename(tmp, this.tree(id));
        const record: RepoRecord = {
          id,
          path: where.path,
          canonical: where.canonical,
          url: req.url,
          provider,
          ...head,
          ...(req.sparse ? { sparse: req.sparse } : {}),
          creator: this.o.userName,
        };
        this.o.store.put(record);
        try {
          await this.o.workspace.mountRepo(where.canonical, id, this.tree(id));
        } catch (e) {
          this.o.store.remove(id);
          await rm(this.tree(id), { recursive: true, force: true });
          throw e;
        }
        return this.info(record);
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    });
  }

  private async clone(url: string, dir: string, sparse: string[] | undefined): Promise<void> {
    try {
      await this.git(['clone', '--quiet', ...(sparse ? ['--no-checkout'] : []), '--', url, dir]);
      if (sparse) {
        await this.git(['sparse-checkout', 'set', '--cone', '--', ...sparse], dir);
        if (await this.hasCommit(dir)) await this.git(['checkout', '--quiet'], dir);
      }
    } catch (e) {
      if (e instanceof GitError) throw cloneFailed(url, e.reason);
      throw e;
    }
  }

  private async hasCommit(dir: string): Promise<boolean> {
    return this.git(['rev-parse', '--verify', '--quiet', 'HEAD'], dir).then(
      () => true,
      () => false,
    );
  }

  /** The checked-out branch (none on a detached HEAD) and commit (none in an empty repository). */
  private async head(dir: string): Promise<{ branch?: string; head_commit_id?: string }> {
    const branch = (
      await this.git(['symbolic-ref', '--quiet', '--short', 'HEAD'], dir).catch(() => '')
    ).trim();
    const commit = (await this.git(['rev-parse', '--verify', '--quiet', 'HEAD'], dir).catch(() => '')).trim();
    return { ...(branch ? { branch } : {}), ...(commit ? { head_commit_id: commit } : {}) };
  }

  async update(
    id: number,
    req: {
      branch?: string | undefined;
      tag?: string | undefined;
      sparse?: string[] | undefined;
      path?: string | undefined;
    },
  ): Promise<RepoInfo> {
    if (req.branch !== undefined && req.tag !== undefined)
      throw invalidParameter('Only one of branch and tag can be given.');
    return this.lock.run(async () => {
      const r = this.o.store.get(id);
      if (!r) throw repoNotFound();
      const dir = this.tree(id);
      const next: RepoRecord = structuredClone(r);
      try {
        if (req.sparse !== undefined) {
          if (!r.sparse) throw sparseNotEnabled();
          await this.git(
            ['sparse-checkout', 'set', '--cone', '--', ...(req.sparse.length ? req.sparse : [])],
            dir,
          );
          next.sparse = req.sparse;
        }
        if (req.branch !== undefined) {
          await this.git(['fetch', '--quiet', '--prune', 'origin'], dir);
          const remote = `refs/remotes/origin/${req.branch}`;
          const sha = await this.resolve(dir, remote).catch(() => {
            throw checkoutFailed(`branch ${req.branch}`, `it does not exist in ${r.url}`);
          });
          await this.git(['checkout', '--quiet', '--force', '-B', req.branch, sha], dir);
          next.branch = req.branch;
          delete next.tag;
        } else if (req.tag !== undefined) {
          await this.git(['fetch', '--quiet', '--tags', '--force', 'origin'], dir);
          const sha = await this.resolve(dir, `refs/tags/${req.tag}`).catch(() => {
            throw checkoutFailed(`tag ${req.tag}`, `it does not exist in ${r.url}`);
          });
          await this.git(['checkout', '--quiet', '--force', '--detach', sha], dir);
          next.tag = req.tag;
          delete next.branch;
        }
      } catch (e) {
        if (e instanceof GitError) throw checkoutFailed(r.url, e.reason);
        throw e;
      }
      const head = await this.head(dir);
      if (head.head_commit_id) next.head_commit_id = head.head_commit_id;
      if (req.path !== undefined) {
        const where = this.place(req.path, r.url);
        if (where.canonical !== r.canonical) {
          if (this.o.store.byCanonicalPath(where.canonical) || this.taken(where.canonical))
            throw repoPathExists(where.path);
          await this.o.workspace.mountRepo(where.canonical, id, dir);
          await this.o.workspace.unmountRepo(r.canonical, id);
        }
        next.path = where.path;
        next.canonical = where.canonical;
      }
      await this.o.workspace.mountRepo(next.canonical, id, dir);
      this.o.store.put(next);
      return this.info(next);
    });
  }

  /** A ref's commit: `--end-of-options` so no branch or tag name can pass for an option. */
  private async resolve(dir: string, ref: string): Promise<string> {
    return (
      await this.git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], dir)
    ).trim();
  }

  async delete(id: number): Promise<void> {
    await this.lock.run(async () => {
      const r = this.o.store.get(id);
      if (!r) throw repoNotFound();
      await this.o.workspace.unmountRepo(r.canonical, id);
      await this.drop(id);
    });
  }

  /** The Git folder was deleted through the workspace API: the repo goes with it. */
  private async forget(id: number): Promise<void> {
    await this.lock.run(() => this.drop(id));
  }

  private async drop(id: number): Promise<void> {
    if (!this.o.store.get(id)) return;
    this.o.store.remove(id);
    this.o.onDeleted?.(id);
    await rm(this.tree(id), { recursive: true, force: true });
  }

  /** After a reset: no repo is left, so no checkout either. */
  async clear(): Promise<void> {
    if (existsSync(this.o.dir)) await rm(this.o.dir, { recursive: true, force: true });
  }
}
