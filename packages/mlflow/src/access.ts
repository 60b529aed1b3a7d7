/**
 * Experiment permissions (MINILAKE_ENFORCE=1) on the tracking API, after Databricks' experiment ACL table:
 * CAN_READ to see an experiment and its runs (get, get-by-name, runs/get, runs/search, metric history,
 * artifact listing and read links), CAN_EDIT to log to it (runs/create, every runs/log-* and tag call,
 * runs/update, runs/delete and restore, artifact write links, experiment tags, experiments/update without a
 * new name), CAN_MANAGE to delete, restore or rename it (and for its ACL, which iam checks).
 *
 * The levels, grants, groups, admins and the inheritance from the experiment's workspace folder are iam's
 * (the experiments type's `parent` hook); the workspace adds what its tree grants by default (`/Shared` is
 * everyone's). A run is mapped to its experiment through the MLflow server (runs/get), remembered: a run never
 * changes experiment. experiments/search answers only what the caller may read; a runs/search naming an
 * experiment the caller may not read is refused. Experiments MiniLake did not create as workspace objects
 * (MLflow's Default experiment) and operations not listed here pass unchecked.
 */
import type { IamApi } from '@minilake/iam';
import { parentOf } from '@minilake/core';
import type { WorkspaceApi } from '@minilake/workspace';
import type { Experiments } from './experiments.js';
import type { MlflowServer } from './server.js';

type Level = 'CAN_READ' | 'CAN_EDIT' | 'CAN_MANAGE';
type Json = Record<string, unknown>;

/** Operations naming a run (`run_id`, or the older `run_uuid`), and the level each needs. */
const BY_RUN: Record<string, Level> = {
  'runs/get': 'CAN_READ',
  'metrics/get-history': 'CAN_READ',
  'metrics/get-history-bulk-interval': 'CAN_READ',
  'artifacts/list': 'CAN_READ',
  'artifacts/credentials-for-read': 'CAN_READ',
  'artifacts/credentials-for-write': 'CAN_EDIT',
  'runs/update': 'CAN_EDIT',
  'runs/delete': 'CAN_EDIT',
  'runs/restore': 'CAN_EDIT',
  'runs/log-metric': 'CAN_EDIT',
  'runs/log-parameter': 'CAN_EDIT',
  'runs/log-batch': 'CAN_EDIT',
  'runs/log-model': 'CAN_EDIT',
  'runs/log-inputs': 'CAN_EDIT',
  'runs/log-outputs': 'CAN_EDIT',
  'runs/set-tag': 'CAN_EDIT',
  'runs/delete-tag': 'CAN_EDIT',
};
/** Operations naming an experiment (`experiment_id`). */
const BY_EXPERIMENT: Record<string, Level> = {
  'experiments/get': 'CAN_READ',
  'runs/create': 'CAN_EDIT',
  'experiments/set-experiment-tag': 'CAN_EDIT',
  'experiments/delete-experiment-tag': 'CAN_EDIT',
  'experiments/delete': 'CAN_MANAGE',
  'experiments/restore': 'CAN_MANAGE',
};

/** Whether `authorize` checks the operation (its arguments are then read before it is forwarded). */
export const guarded = (op: string): boolean =>
  op in BY_RUN ||
  op in BY_EXPERIMENT ||
  op === 'experiments/update' ||
  op === 'experiments/get-by-name' ||
  op === 'runs/search' ||
  op === 'experiments/search';

export class ExperimentAccess {
  private readonly runs = new Map<string, string>();

  constructor(
    private readonly o: {
      iam: IamApi | undefined;
      workspace: WorkspaceApi;
      experiments: Experiments;
      server: MlflowServer;
    },
  ) {}

  get enforcing(): boolean {
    return this.o.iam?.enforcing === true;
  }

  /** Whether the caller holds `level` on the experiment (true for one that is no workspace object). */
  can(id: string, level: Level): boolean {
    const iam = this.o.iam;
    if (!iam?.enforcing) return true;
    const path = this.o.experiments.pathOf(id);
    if (path === undefined) return true;
    return iam.can('experiments', id, level) || this.o.workspace.holds(parentOf(path), level);
  }

  /** Throws Databricks' 403 PERMISSION_DENIED unless the caller holds `level` on the experiment. */
  check(id: string, level: Level): void {
    if (!this.can(id, level)) this.o.iam!.check('experiments', id, level);
  }

  /** The experiment a run belongs to, asked of the MLflow server once (its 404 for an unknown run). */
  async experimentOfRun(runId: string): Promise<string> {
    let id = this.runs.get(runId);
    if (id === undefined) {
      const r = await this.o.server.call<{ run: { info: { experiment_id: string } } }>('GET', 'runs/get', {
        run_id: runId,
      });
      id = String(r.run.info.experiment_id);
      this.runs.set(runId, id);
    }
    return id;
  }

  /**
   * The check for one tracking operation, from its query (GET) or JSON body (POST); no-op for operations
   * not listed. experiments/search is filtered afterwards (filterExperiments).
   */
  async authorize(op: string, args: Json): Promise<void> {
    if (!this.enforcing) return;
    const str = (k: string) =>
      typeof args[k] === 'string' && args[k] !== '' ? (args[k] as string) : undefined;
    const byRun = BY_RUN[op];
    if (byRun) {
      const run = str('run_id') ?? str('run_uuid');
      if (run) this.check(await this.experimentOfRun(run), byRun);
      return;
    }
    let level = BY_EXPERIMENT[op];
    if (op === 'experiments/update') level = str('new_name') ? 'CAN_MANAGE' : 'CAN_EDIT';
    if (level) {
      const id = str('experiment_id');
      if (id) this.check(id, level);
      return;
    }
    if (op === 'experiments/get-by-name') {
      const name = str('experiment_name');
      const id = name?.startsWith('/') ? this.o.experiments.idAt(name) : undefined;
      if (id) this.check(id, 'CAN_READ');
      return;
    }
    if (op === 'runs/search') {
      const ids = Array.isArray(args.experiment_ids) ? args.experiment_ids : [];
      for (const id of ids)
        if (typeof id === 'string' || typeof id === 'number') this.check(String(id), 'CAN_READ');
    }
  }

  /** experiments/search's answer with only the experiments the caller may read. */
  filterExperiments(answer: Json): Json {
    if (!this.enforcing || !Array.isArray(answer.experiments)) return answer;
    const experiments = (answer.experiments as { experiment_id?: unknown }[]).filter((e) =>
      this.can(String(e.experiment_id), 'CAN_READ'),
    );
    return { ...answer, experiments };
  }
}
