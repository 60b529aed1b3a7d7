/**
 * Jobs, runs and task outputs, kept in journaled collections. The store knows nothing of HTTP; the scheduler
 * changes runs only through `updateRun`, so every state change reaches the journal.
 */
import {
  CollectionStore,
  invalidParameter,
  jobsPage,
  numericId,
  type Clock,
  type Collection,
  type StateDb,
} from '@minilake/core';
import { jobNotFound, runActive, runNotFound } from './errors.js';
import type { JobSettings, Json, TaskSpec } from './settings.js';

export type LifeCycle =
  | 'QUEUED'
  | 'PENDING'
  | 'RUNNING'
  | 'TERMINATING'
  | 'TERMINATED'
  | 'SKIPPED'
  | 'INTERNAL_ERROR'
  | 'BLOCKED'
  | 'WAITING_FOR_RETRY';

export const ACTIVE: readonly LifeCycle[] = [
  'QUEUED',
  'PENDING',
  'RUNNING',
  'TERMINATING',
  'BLOCKED',
  'WAITING_FOR_RETRY',
];
export const isActive = (l: LifeCycle) => ACTIVE.includes(l);

export interface Termination {
  code: string;
  type: string;
  message: string;
}

export interface JobRecord {
  job_id: number;
  /** Creation order (ids are random; several jobs can share a millisecond). */
  seq?: number;
  creator_user_name: string;
  run_as_user_name: string;
  created_time: number;
  settings: JobSettings;
}

export interface TaskRunRecord {
  run_id: number;
  task_key: string;
  spec: TaskSpec;
  attempt_number: number;
  life: LifeCycle;
  result?: string;
  message: string;
  start_time: number;
  end_time: number;
  termination?: Termination;
  cluster_id?: string;
  condition?: { left: string; right: string; op: string; outcome: 'true' | 'false' };
  values?: Record<string, unknown>;
  for_each_stats?: Json;
  /** A for-each task's iterations, each a task run of its own (runs/get of the for-each task's run id). */
  iterations?: TaskRunRecord[];
  run_job_run_id?: number;
  /**
   * The workload of a serverless environment failed: Databricks reports the run that fails on it as
   * INTERNAL_ERROR (the deprecated life_cycle_state), its tasks TERMINATED.
   */
  serverless_failure?: boolean;
  /** Replaced by a later attempt or a repair: shown only with include_history. */
  superseded?: boolean;
}

export interface RepairItem {
  id: number;
  type: 'ORIGINAL' | 'REPAIR';
  start_time: number;
  end_time: number;
  task_run_ids: number[];
}

export interface RunRecord {
  run_id: number;
  /** Creation order, for runs/list (several runs can share a millisecond). */
  seq?: number;
  job_id?: number;
  run_name: string;
  run_type: 'JOB_RUN' | 'SUBMIT_RUN' | 'WORKFLOW_RUN';
  trigger: string;
  creator_user_name: string;
  /** The settings this run executes (a snapshot: editing the job later does not change a running run). */
  settings: JobSettings;
  job_parameters?: { name: string; default?: string; value: string }[];
  overriding_parameters?: Json;
  start_time: number;
  end_time: number;
  life: LifeCycle;
  result?: string;
  message: string;
  termination?: Termination;
  queue_reason?: string;
  user_cancelled_or_timedout: boolean;
  tasks: TaskRunRecord[];
  repair_history: RepairItem[];
  /** The run_job_task that started this run, if any. */
  parent_task_run_id?: number;
  /** Job clusters created for this run in the compute service: job_cluster_key (or `task:<id>`) -> id. */
  job_cluster_ids?: Record<string, string>;
  /** token_id of the run's own token while it is active (tokens.ts); never rendered. */
  token_id?: string;
}

export interface TaskOutput {
  logs?: string;
  logs_truncated?: boolean;
  error?: string;
  error_trace?: string;
  notebook_result?: string;
  /** The notebook or script source, for runs/export. */
  source?: string;
  /** dashboard_task: each page's widget errors (`page_snapshots`), as runs/get-output reports them. */
  dashboard_output?: {
    page_snapshots: { page_display_name: string; widget_error_details: { message: string }[] }[];
  };
}

const pad = (n: number) => String(n).padStart(16, '0');

export class JobsStore extends CollectionStore {
  private readonly jobs: Collection<JobRecord>;
  private readonly runs: Collection<RunRecord>;
  private readonly outputs: Collection<TaskOutput>;
  private readonly tokens: Collection<number>;
  /** Task run id to its run id (derived, rebuilt from the runs). */
  private readonly taskIndex = new Map<number, number>();

  constructor(
    db: StateDb,
    private readonly clock: Clock,
  ) {
    super('jobs', 1, db);
    this.jobs = this.collection('jobs');
    this.runs = this.collection('runs');
    this.outputs = this.collection('outputs');
    this.tokens = this.collection('idempotency');
    this.reindex();
  }

  private seq = 0;

  private reindex(): void {
    this.taskIndex.clear();
    for (const j of this.jobs.values()) this.seq = Math.max(this.seq, j.seq ?? 0);
    for (const r of this.runs.values()) this.seq = Math.max(this.seq, r.seq ?? 0);
    for (const r of this.runs.values()) this.index(r);
  }

  override restore(snapshot: unknown): void {
    super.restore(snapshot);
    this.reindex();
  }

  protected override onReset(): void {
    this.taskIndex.clear();
  }

  // ---- jobs

  createJob(settings: JobSettings, user: string): JobRecord {
    const job: JobRecord = {
      job_id: numericId(),
      seq: ++this.seq,
      creator_user_name: user,
      run_as_user_name: user,
      created_time: this.clock.now(),
      settings,
    };
    return this.jobs.set(String(job.job_id), job);
  }

  getJob(id: number): JobRecord {
    const j = this.jobs.get(String(id));
    if (!j) throw jobNotFound(id);
    return j;
  }

  hasJob(id: string): boolean {
    return this.jobs.has(id);
  }

  jobOwner(id: string): string | undefined {
    return this.jobs.get(id)?.creator_user_name;
  }

  setSettings(id: number, settings: JobSettings): JobRecord {
    this.getJob(id);
    return this.jobs.update(String(id), (j) => {
      j.settings = settings;
    })!;
  }

  deleteJob(id: number): void {
    this.getJob(id);
    this.jobs.delete(String(id));
  }

  allJobs(): JobRecord[] {
    return [...this.jobs.values()];
  }

  /** `visible`: the jobs the caller may see (MINILAKE_ENFORCE=1), filtered before paging. */
  listJobs(q: { limit?: number; page_token?: string; name?: string }, visible?: (j: JobRecord) => boolean) {
    let all = [...this.jobs.values()];
    if (visible) all = all.filter(visible);
    if (q.name) {
      const n = q.name.toLowerCase();
      all = all.filter((j) => (j.settings.name ?? '').toLowerCase() === n);
    }
    all.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0) || a.job_id - b.job_id);
    return jobsPage(all, (j) => `${pad(j.seq ?? 0)}:${pad(j.job_id)}`, q, {
      defaultLimit: 20,
      maxLimit: 100,
    });
  }

  // ---- runs

  newRunId(): number {
    return numericId();
  }

  addRun(run: RunRecord): RunRecord {
    run.seq = ++this.seq;
    this.index(run);
    return this.runs.set(String(run.run_id), run);
  }

  findRun(id: number): RunRecord | undefined {
    return this.runs.get(String(id));
  }

  getRun(id: number): RunRecord {
    const r = this.runs.get(String(id));
    if (!r) throw runNotFound(id);
    return r;
  }

  /** Task runs (and for-each iterations) by id, to the run holding them. */
  private index(r: RunRecord): void {
    for (const t of r.tasks) {
      this.taskIndex.set(t.run_id, r.run_id);
      for (const it of t.iterations ?? []) this.taskIndex.set(it.run_id, r.run_id);
    }
  }

  /** The task run (or for-each iteration) `id` and the for-each task holding it, if it is an iteration. */
  findTaskRun(run: RunRecord, id: number): { task: TaskRunRecord; parent?: TaskRunRecord } | undefined {
    for (const t of run.tasks) {
      if (t.run_id === id) return { task: t };
      const it = t.iterations?.find((x) => x.run_id === id);
      if (it) return { task: it, parent: t };
    }
    return undefined;
  }

  /** The run holding task run `id`, or undefined. */
  runOfTask(id: number): RunRecord | undefined {
    const runId = this.taskIndex.get(id);
    return runId === undefined ? undefined : this.runs.get(String(runId));
  }

  updateRun(id: number, change: (r: RunRecord) => void): RunRecord {
    const r = this.runs.update(String(id), change);
    if (!r) throw runNotFound(id);
    this.index(r);
    return r;
  }

  deleteRun(id: number): void {
    const r = this.getRun(id);
    if (isActive(r.life)) throw runActive(id);
    for (const t of r.tasks.flatMap((x) => [x, ...(x.iterations ?? [])])) {
      this.taskIndex.delete(t.run_id);
      this.outputs.delete(String(t.run_id));
    }
    this.runs.delete(String(id));
  }

  allRuns(): RunRecord[] {
    return [...this.runs.values()];
  }

  listRuns(
    q: {
      job_id?: number;
      active_only?: boolean;
      completed_only?: boolean;
      run_type?: string;
      start_time_from?: number;
      start_time_to?: number;
      limit?: number;
      page_token?: string;
      offset?: number;
    },
    visible?: (r: RunRecord) => boolean,
  ) {
    if (q.active_only && q.completed_only) {
      throw invalidParameter('active_only and completed_only cannot both be true.');
    }
    let all = [...this.runs.values()];
    if (visible) all = all.filter(visible);
    if (q.job_id !== undefined) all = all.filter((r) => r.job_id === q.job_id);
    if (q.active_only) all = all.filter((r) => isActive(r.life));
    if (q.completed_only) all = all.filter((r) => !isActive(r.life));
    if (q.run_type) all = all.filter((r) => r.run_type === q.run_type);
    if (q.start_time_from) all = all.filter((r) => r.start_time >= q.start_time_from!);
    if (q.start_time_to) all = all.filter((r) => r.start_time <= q.start_time_to!);
    // Newest first, as the real service lists them.
    all.sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0));
    if (q.offset) all = all.slice(q.offset);
    const limit = q.limit === 0 ? 25 : q.limit;
    return jobsPage(
      all,
      (r) => pad(Number.MAX_SAFE_INTEGER - (r.seq ?? 0)),
      { limit, page_token: q.page_token },
      { defaultLimit: 20, maxLimit: 25 },
    );
  }

  claimIdempotencyToken(token: string, runId: number): number | undefined {
    const existing = this.tokens.get(token);
    if (existing !== undefined && this.runs.has(String(existing))) return existing;
    this.tokens.set(token, runId);
    return undefined;
  }

  // ---- outputs

  setOutput(taskRunId: number, out: TaskOutput): void {
    this.outputs.set(String(taskRunId), out);
  }

  output(taskRunId: number): TaskOutput {
    return this.outputs.get(String(taskRunId)) ?? {};
  }
}

/** A task run's `termination_details`, from its result, as Databricks reports them. */
export function termination(result: string, message: string): Termination {
  switch (result) {
    case 'SUCCESS':
      return { code: 'SUCCESS', type: 'SUCCESS', message: '' };
    case 'CANCELED':
      return { code: 'USER_CANCELED', type: 'SUCCESS', message };
    case 'EXCLUDED':
    case 'DISABLED':
      return { code: 'SKIPPED', type: 'SUCCESS', message };
    case 'UPSTREAM_FAILED':
    case 'UPSTREAM_CANCELED':
      return { code: 'SKIPPED', type: 'CLIENT_ERROR', message };
    default:
      return { code: 'RUN_EXECUTION_ERROR', type: 'CLIENT_ERROR', message };
  }
}
