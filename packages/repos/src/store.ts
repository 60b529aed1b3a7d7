/** The repos' records (what Databricks reports of each Git folder); their checkouts live on disk (repos.ts). */
import { CollectionStore, type Collection, type StateDb } from '@minilake/core';

export interface RepoRecord {
  id: number;
  /** As the client named it (`/Repos/me/x` or `/Workspace/Users/me/x`). */
  path: string;
  /** The workspace's form of the path (no `/Workspace` prefix). */
  canonical: string;
  url: string;
  provider: string;
  /** The checked-out branch; absent while a tag is checked out (a detached HEAD). */
  branch?: string;
  tag?: string;
  head_commit_id?: string;
  /** Cone patterns, when the repo was created with a sparse checkout. */
  sparse?: string[];
  creator: string;
}

export class ReposStore extends CollectionStore {
  readonly repos: Collection<RepoRecord>;
  constructor(db: StateDb) {
    super('repos', 1, db);
    this.repos = this.collection('repos');
  }

  get(id: number): RepoRecord | undefined {
    return this.repos.get(String(id));
  }

  byCanonicalPath(p: string): RepoRecord | undefined {
    for (const r of this.repos.values()) if (r.canonical === p) return r;
    return undefined;
  }

  put(r: RepoRecord): void {
    this.repos.set(String(r.id), r);
  }

  remove(id: number): void {
    this.repos.delete(String(id));
  }

  all(): RepoRecord[] {
    return [...this.repos.values()];
  }
}
