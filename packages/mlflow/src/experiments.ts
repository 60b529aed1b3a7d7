/**
 * What Databricks adds to MLflow experiments, kept next to the MLflow server's own state: an experiment is
 * named by a workspace path and is a workspace object of type MLFLOW_EXPERIMENT there (listed with the tree,
 * refused where its parent folder is missing or something else is at its path, moved by a rename, deleted
 * with its folder), and it has an ACL in the permissions API (`/api/2.0/permissions/experiments/<id>`).
 *
 * The MLflow server keeps the experiments themselves (SQLite); this module keeps the index iam needs to
 * answer synchronously (id -> path, creator, deleted or not), and owns the server's data for reset and
 * snapshots (the SQLite file and the artifacts are files in the service's folder, which the host copies).
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { CollectionStore, Mutex, parentOf, type Collection, type Logger, type StateDb } from '@minilake/core';
import type { IamApi } from '@minilake/iam';
import type { WorkspaceApi } from '@minilake/workspace';
import { badExperimentName } from './errors.js';
import type { MlflowServer } from './server.js';

export const EXPERIMENT_TYPE = 'MLFLOW_EXPERIMENT';

interface ExperimentRecord {
  path: string;
  creator: string;
  deleted?: boolean;
}

interface ExperimentInfo {
  experiment_id: string;
  name: string;
  lifecycle_stage?: string;
}

export interface ExperimentsOptions {
  server: MlflowServer;
  workspace: WorkspaceApi;
  iam: IamApi | undefined;
  /** The caller (who creates an experiment owns it: Can Manage until its ACL is set). */
  user: () => string;
  /** The service's folder (the server's database and the artifacts live there). */
  dir: string;
  /** Run artifacts and logged models' files (`<dir>/artifacts`). */
  artifactsDir: string;
  logger: Logger;
}

export class Experiments extends CollectionStore {
  private readonly index: Collection<ExperimentRecord>;
  /** Serializes the changes that touch both the MLflow server and the workspace tree. */
  private readonly lock = new Mutex();
  /** Told when experiments were deleted behind the tracking API's back (with their workspace folder). */
  onDeletedByWorkspace?: () => void;

  constructor(
    db: StateDb,
    private readonly o: ExperimentsOptions,
  ) {
    super('mlflow-tracking', 1, db);
    this.index = this.collection('experiments');
    o.workspace.registerObjectType(EXPERIMENT_TYPE, {
      noun: 'an MLflow experiment',
      onDeleted: (objects) => this.workspaceDeleted(objects),
    });
    o.iam?.registerObjectType(
      {
        request: 'experiments',
        objectType: 'mlflowExperiment',
        levels: ['CAN_READ', 'CAN_EDIT', 'CAN_MANAGE'],
        owner: 'CAN_MANAGE',
        admins: 'CAN_MANAGE',
        noun: 'experiment',
      },
      {
        exists: (id) => {
          const r = this.index.get(id);
          return r !== undefined && !r.deleted;
        },
        owner: (id) => this.index.get(id)?.creator,
        // Its workspace folder's grants are inherited (a folder shared with a team shares its experiments).
        parent: (id) => {
          const p = this.pathOf(id);
          if (p === undefined) return undefined;
          const folder = parentOf(p);
          if (folder === '/') return { request: 'directories', id: '0' };
          try {
            const st = o.workspace.getStatus(folder);
            return st.object_type === 'DIRECTORY'
              ? { request: 'directories', id: String(st.object_id) }
              : undefined;
          } catch {
            return undefined;
          }
        },
      },
    );
  }

  /** The workspace path of a live experiment MiniLake created as a workspace object. */
  pathOf(id: string): string | undefined {
    const r = this.index.get(id);
    return r && !r.deleted ? r.path : undefined;
  }

  /** The live experiment at a workspace path (any form of it), if MiniLake keeps one there. */
  idAt(name: string): string | undefined {
    let canonical: string;
    try {
      canonical = this.canonicalName(name);
    } catch {
      return undefined;
    }
    for (const [id, r] of this.index.entries()) if (!r.deleted && r.path === canonical) return id;
    return undefined;
  }

  /** The server's data goes with the records: it is stopped, its database and the artifacts removed. */
  protected override async onReset(): Promise<void> {
    await this.o.server.stop();
    await rm(this.o.server.dbPath, { force: true });
    await rm(`${this.o.server.dbPath}-journal`, { force: true });
    await rm(this.o.artifactsDir, { recursive: true, force: true });
  }

  /** An experiment name as Databricks takes it: an absolute workspace path, without `/Workspace`. */
  canonicalName(name: string): string {
    if (typeof name !== 'string' || !name.startsWith('/')) throw badExperimentName(String(name));
    return this.o.workspace.canonicalPath(name);
  }

  private async info(id: string): Promise<ExperimentInfo> {
    const r = await this.o.server.call<{ experiment: ExperimentInfo }>('GET', 'experiments/get', {
      experiment_id: id,
    });
    return r.experiment;
  }

  /**
   * experiments/create: the path is checked in the workspace first (parent folder, nothing there), then the
   * MLflow server creates the experiment, then its workspace object is recorded. `forward` sends the request
   * (with the canonical name) and returns the new id.
   */
  create(name: string, forward: (canonical: string) => Promise<string>): Promise<string> {
    const canonical = this.canonicalName(name);
    return this.lock.run(async () => {
      // The server first: without it (not installed, cannot start) nothing else is worth checking.
      await this.o.server.ensure();
      // The caller must be allowed to create in the folder (another user's home folder is refused) before
      // anything about what is there is told.
      this.o.workspace.checkCanCreate(canonical);
      this.o.workspace.checkFree(canonical);
      const id = await forward(canonical);
      try {
        await this.o.workspace.addObject(canonical, EXPERIMENT_TYPE, id);
      } catch (e) {
        // Something took the path in between (a file import): the experiment does not stay without it.
        await this.o.server.call('POST', 'experiments/delete', { experiment_id: id }).catch(() => undefined);
        throw e;
      }
      this.index.set(id, { path: canonical, creator: this.o.user() });
      return id;
    });
  }

  /** experiments/update with a new name: the workspace object moves with it. */
  rename(id: string, newName: string, forward: (canonical: string) => Promise<void>): Promise<void> {
    const canonical = this.canonicalName(newName);
    return this.lock.run(async () => {
      this.o.workspace.checkCanCreate(canonical);
      const { name: old } = await this.info(id);
      const tracked = old.startsWith('/') && this.o.workspace.objectAt(old, EXPERIMENT_TYPE) !== undefined;
      if (tracked) await this.o.workspace.moveObject(old, canonical);
      else this.o.workspace.checkFree(canonical);
      try {
        await forward(canonical);
      } catch (e) {
        if (tracked) await this.o.workspace.moveObject(canonical, old).catch(() => undefined);
        throw e;
      }
      if (!tracked) await this.o.workspace.addObject(canonical, EXPERIMENT_TYPE, id);
      this.index.set(id, {
        ...this.index.get(id),
        creator: this.index.get(id)?.creator ?? this.o.user(),
        path: canonical,
      });
    });
  }

  /** experiments/delete: the workspace object goes (Databricks moves it to the trash). */
  delete(id: string, forward: () => Promise<void>): Promise<void> {
    return this.lock.run(async () => {
      const { name } = await this.info(id);
      await forward();
      if (name.startsWith('/')) await this.o.workspace.removeObject(name, id);
      this.index.update(id, (r) => void (r.deleted = true));
    });
  }

  /** experiments/restore: the object comes back at its path, which must be free again. */
  restoreExperiment(id: string, forward: () => Promise<void>): Promise<void> {
    return this.lock.run(async () => {
      const { name } = await this.info(id);
      const atPath = name.startsWith('/');
      if (atPath) this.o.workspace.checkFree(name);
      await forward();
      if (atPath) await this.o.workspace.addObject(name, EXPERIMENT_TYPE, id);
      const r = this.index.get(id);
      this.index.set(id, { path: name, creator: r?.creator ?? this.o.user() });
    });
  }

  /** A folder (or the object) was deleted in the workspace: its experiments are deleted in MLflow too. */
  private async workspaceDeleted(objects: { path: string; resourceId: string }[]): Promise<void> {
    for (const { resourceId } of objects) {
      try {
        await this.o.server.call('POST', 'experiments/delete', { experiment_id: resourceId });
      } catch (e) {
        // Already deleted, or the server cannot start: the workspace delete stands either way.
        this.o.logger.warn(
          `deleting experiment ${resourceId} with its workspace folder: ${(e as Error).message}`,
        );
      }
      this.index.update(resourceId, (r) => void (r.deleted = true));
    }
    this.onDeletedByWorkspace?.();
  }

  /** Where the artifacts of `dbfs:/databricks/mlflow-tracking/<rest>` are on disk. */
  artifactDir(rest: string): string {
    return path.join(this.o.artifactsDir, rest);
  }
}
