/**
 * The scheduler: runs a job's task DAG for real. Every state change is driven by an event of the work itself
 * (a process ended, a dependency finished, a user cancelled); the only timers are the ones Databricks has
 * too (job timeouts, retry intervals, triggers), and they run on the injected clock.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Clock, Logger } from '@minilake/core';
import { endJobClusters, executeTask, type ExecDeps, type Outcome } from './tasks.js';
import { normalizeTask, type JobSettings, type Json, type TaskSpec } from './settings.js';
import {
  isActive,
  termination,
  type JobRecord,
  type JobsStore,
  type LifeCycle,
  type RepairItem,
  type RunRecord,
  type TaskRunRecord,
  type Termination,
} from './store.js';

const TERMINAL: readonly LifeCycle[] = ['TERMINATED', 'SKIPPED', 'INTERNAL_ERROR'];
const isTerminal = (l: LifeCycle) => TERMINAL.includes(l);
const SUCCEEDED = ['SUCCESS', 'SUCCESS_WITH_FAILURES', 'EXCLUDED', 'DISABLED'];
const CANCELED = ['CANCELED', 'UPSTREAM_CANCELED'];
const succeeded = (t: TaskRunRecord) => t.result !== undefined && SUCCEEDED.includes(t.result);
const canceled = (t: TaskRunRecord) => t.result !== undefined && CANCELED.includes(t.result);
const failed = (t: TaskRunRecord) => !succeeded(t) && !canceled(t);

export const WORKLOAD_FAILED = 'Workload failed, see run output for details';

export interface RunRequest {
  trigger?: string;
  job_parameters?: Record<string, string>;
  overriding_parameters?: Json;
  parent_task_run_id?: number;
  /** run-now `only`: run just these task keys. */
  only?: string[];
}

/**
 * The tasks a run executes. A legacy single-task job (API 2.0: the task fields at the top of the settings)
 * runs as one task named after the job; `only` keeps the named tasks and drops dependencies on the rest.
 */
export function runTasks(settings: JobSettings, only?: string[]): TaskSpec[] {
  let tasks = settings.tasks ?? [];
  if (tasks.length === 0) {
    const single = SINGLE_TASK_FIELDS.filter((f) => settings[f] !== undefined);
    if (single.some((f) => f.endsWith('_task'))) {
      const t: TaskSpec = {
        task_key: (settings.name ?? 'task').replace(/[^\w.-]/g, '_').slice(0, 100) || 'task',
      };
      const from = settings as Json;
      const to = t as Json;
      for (const f of single) to[f] = from[f];
      for (const f of ['max_retries', 'min_retry_interval_millis', 'retry_on_timeout']) {
        if (from[f] !== undefined) to[f] = from[f];
      }
      tasks = [normalizeTask(t, false)];
    }
  }
  if (only?.length) {
    const keep = new Set(only);
    tasks = tasks
      .filter((t) => keep.has(t.task_key))
      .map((t) => ({ ...t, depends_on: (t.depends_on ?? []).filter((d) => keep.has(d.task_key)) }));
  }
  return tasks;
}

const SINGLE_TASK_FIELDS = [
  'notebook_task',
  'spark_python_task',
  'python_wheel_task',
  'spark_jar_task',
  'spark_submit_task',
  'pipeline_task',
  'existing_cluster_id',
  'new_cluster',
  'libraries',
] as const;

interface Live {
  cancels: Map<number, () => void>;
  reason?: 'USER' | 'TIMEOUT';
  stopTimeout?: () => void;
  timers: Set<() => void>;
}

export interface SchedulerOptions {
  store: JobsStore;
  clock: Clock;
  logger: Logger;
  /** The service's folder: task work files go under `<dir>/runs/`. */
  dir: string;
  userName: string;
  taskConcurrency: number;
  deps: Omit<ExecDeps, 'runJob' | 'store'>;
}

/** A counting semaphore: bounds how many tasks run at once across all runs. */
class Slots {
  private waiting: (() => void)[] = [];
  private used = 0;
  constructor(private readonly size: number) {}
  acquire(): Promise<void> {
    if (this.used < this.size) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used--;
  }
}

export class Scheduler {
  private readonly live = new Map<number, Live>();
  private readonly slots: Slots;
  private readonly finishedListeners = new Map<number, ((r: RunRecord) => void)[]>();
  private readonly anyFinished: ((r: RunRecord) => void)[] = [];
  private closed = false;

  constructor(private readonly o: SchedulerOptions) {
    this.slots = new Slots(Math.max(1, o.taskConcurrency));
  }

  private get store() {
    return this.o.store;
  }
  private now() {
    return this.o.clock.now();
  }

  /**
   * Runs that were active when the previous process died have no process any more: say so, once. A queued
   * run never started anything, so it stays queued and starts after the restart (resumeQueued), as the
   * queue promises; one a run_job_task queued for a parent that died goes with its parent.
   */
  recover(
    message = 'The MiniLake server stopped while this run was active; the run and its task processes did not survive the restart.',
  ): { queued: number } {
    let queued = 0;
    for (const r of this.store.allRuns()) {
      if (!isActive(r.life)) continue;
      if (r.life === 'QUEUED' && r.parent_task_run_id === undefined) {
        queued++;
        continue;
      }
      this.store.updateRun(r.run_id, (run) => {
        run.life = 'INTERNAL_ERROR';
        run.message = message;
        run.end_time = this.now();
        run.termination = { code: 'INTERNAL_ERROR', type: 'INTERNAL_ERROR', message };
        for (const t of run.tasks) {
          if (isTerminal(t.life)) continue;
          t.life = 'INTERNAL_ERROR';
          t.message = message;
          if (t.start_time) t.end_time = this.now();
          t.termination = { code: 'INTERNAL_ERROR', type: 'INTERNAL_ERROR', message };
        }
      });
      endJobClusters({ compute: this.o.deps.compute, store: this.store }, r.run_id);
    }
    return { queued };
  }

  onFinished(listener: (r: RunRecord) => void): void {
    this.anyFinished.push(listener);
  }

  /** Resolves with the run record once the run is no longer active. */
  waitFor(runId: number): Promise<RunRecord> {
    const r = this.store.findRun(runId);
    if (!r || !isActive(r.life)) return Promise.resolve(r!);
    return new Promise((resolve) => {
      const list = this.finishedListeners.get(runId) ?? [];
      list.push(resolve);
      this.finishedListeners.set(runId, list);
    });
  }

  private newTaskRun(spec: TaskSpec, attempt = 0): TaskRunRecord {
    return {
      run_id: this.store.newRunId(),
      task_key: spec.task_key,
      spec,
      attempt_number: attempt,
      life: 'BLOCKED',
      message: '',
      start_time: 0,
      end_time: 0,
    };
  }

  private jobParameters(settings: JobSettings, overrides: Record<string, string> = {}) {
    const out = (settings.parameters ?? []).map((p) => ({
      name: p.name,
      default: p.default ?? '',
      value: overrides[p.name] ?? p.default ?? '',
    }));
    for (const [name, value] of Object.entries(overrides)) {
      if (!out.some((p) => p.name === name)) out.push({ name, default: '', value });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** run-now (and every trigger): a run of a stored job. */
  runJob(job: JobRecord, req: RunRequest = {}): RunRecord {
    const settings = structuredClone(job.settings);
    const run: RunRecord = {
      run_id: this.store.newRunId(),
      job_id: job.job_id,
      run_name: settings.name ?? 'Untitled',
      run_type: 'JOB_RUN',
      trigger: req.trigger ?? 'ONE_TIME',
      creator_user_name: this.o.userName,
      settings,
      start_time: this.now(),
      end_time: 0,
      life: 'PENDING',
      message: '',
      user_cancelled_or_timedout: false,
      tasks: runTasks(settings, req.only).map((t) => this.newTaskRun(t)),
      repair_history: [],
    };
    const params = this.jobParameters(settings, req.job_parameters);
    if (params.length) run.job_parameters = params;
    if (req.overriding_parameters && Object.keys(req.overriding_parameters).length) {
      run.overriding_parameters = req.overriding_parameters;
    }
    if (req.parent_task_run_id !== undefined) run.parent_task_run_id = req.parent_task_run_id;
    run.repair_history.push(originalAttempt(run));
    const active = this.store
      .allRuns()
      .filter((r) => r.job_id === job.job_id && isActive(r.life) && r.life !== 'QUEUED').length;
    const max = settings.max_concurrent_runs ?? 1;
    if (active >= max) {
      if (settings.queue?.enabled) {
        run.life = 'QUEUED';
        run.queue_reason = `Queued due to reaching maximum concurrent runs of ${max}.`;
        run.message = run.queue_reason;
        return this.store.addRun(run);
      }
      const message = `Skipping this run because the limit of ${max} maximum concurrent runs has been reached.`;
      run.life = 'SKIPPED';
      run.message = message;
      run.end_time = run.start_time;
      run.termination = { code: 'MAX_CONCURRENT_RUNS_EXCEEDED', type: 'CLIENT_ERROR', message };
      for (const t of run.tasks) {
        t.life = 'SKIPPED';
        t.message = message;
      }
      this.store.addRun(run);
      this.emitFinished(run);
      return run;
    }
    this.store.addRun(run);
    this.begin(run.run_id);
    return run;
  }

  /** runs/submit: a one-time run of the given tasks, not attached to a job. */
  submit(settings: JobSettings): RunRecord {
    const s = structuredClone(settings);
    s.tasks = runTasks(s); // a legacy single-task submit (API 2.0) carries its task at the top
    for (const t of s.tasks) normalizeTask(t, s.git_source !== undefined);
    const run: RunRecord = {
      run_id: this.store.newRunId(),
      run_name: (s.run_name as string | undefined) ?? 'Untitled',
      run_type: 'SUBMIT_RUN',
      trigger: 'ONE_TIME',
      creator_user_name: this.o.userName,
      settings: s,
      start_time: this.now(),
      end_time: 0,
      life: 'PENDING',
      message: '',
      user_cancelled_or_timedout: false,
      tasks: s.tasks.map((t) => this.newTaskRun(t)),
      repair_history: [],
    };
    run.repair_history.push(originalAttempt(run));
    this.store.addRun(run);
    this.begin(run.run_id);
    return run;
  }

  private begin(runId: number): void {
    const live: Live = { cancels: new Map(), timers: new Set() };
    this.live.set(runId, live);
    const run = this.store.updateRun(runId, (r) => {
      r.life = 'RUNNING';
      r.message = '';
      delete r.queue_reason;
      if (r.start_time === 0) r.start_time = this.now();
    });
    const timeout = run.settings.timeout_seconds ?? 0;
    if (timeout > 0) {
      live.stopTimeout = this.o.clock.setTimeout(
        () => this.guard(() => this.stop(runId, 'TIMEOUT')),
        timeout * 1000,
      );
    }
    queueMicrotask(() => this.guard(() => this.drive(runId)));
  }

  /** The latest attempt of each task key (retries and repairs add attempts). */
  private latest(run: RunRecord): Map<string, TaskRunRecord> {
    const m = new Map<string, TaskRunRecord>();
    for (const t of run.tasks) {
      if (t.superseded) continue;
      const cur = m.get(t.task_key);
      if (!cur || t.attempt_number >= cur.attempt_number) m.set(t.task_key, t);
    }
    return m;
  }

  private decide(t: TaskRunRecord, latest: Map<string, TaskRunRecord>): 'RUN' | 'WAIT' | string {
    const deps = t.spec.depends_on ?? [];
    if (t.spec.disabled) return 'DISABLED';
    if (deps.length === 0) return 'RUN';
    let s = 0;
    let f = 0;
    let c = 0;
    let x = 0;
    for (const d of deps) {
      const dt = latest.get(d.task_key);
      if (!dt || !isTerminal(dt.life)) return 'WAIT';
      if (d.outcome !== undefined && dt.condition && succeeded(dt)) {
        if (dt.condition.outcome === d.outcome) s++;
        else x++;
      } else if (dt.result === 'EXCLUDED') x++;
      else if (succeeded(dt)) s++;
      else if (canceled(dt)) c++;
      else f++;
    }
    const n = deps.length;
    switch (t.spec.run_if ?? 'ALL_SUCCESS') {
      case 'ALL_DONE':
        return 'RUN';
      case 'NONE_FAILED':
        return f > 0 ? 'UPSTREAM_FAILED' : x === n ? 'EXCLUDED' : 'RUN';
      case 'AT_LEAST_ONE_SUCCESS':
        return s > 0 ? 'RUN' : f > 0 ? 'UPSTREAM_FAILED' : c > 0 ? 'UPSTREAM_CANCELED' : 'EXCLUDED';
      case 'ALL_FAILED':
        return f === n ? 'RUN' : 'EXCLUDED';
      case 'AT_LEAST_ONE_FAILED':
        return f > 0 ? 'RUN' : 'EXCLUDED';
      default:
        return f > 0 ? 'UPSTREAM_FAILED' : c > 0 ? 'UPSTREAM_CANCELED' : x > 0 ? 'EXCLUDED' : 'RUN';
    }
  }

  private drive(runId: number): void {
    const live = this.live.get(runId);
    if (!live || this.closed) return;
    let run = this.store.findRun(runId);
    if (!run || !isActive(run.life)) return;
    const toStart: number[] = [];
    let changed = true;
    while (changed) {
      changed = false;
      const latest = this.latest(run);
      for (const t of latest.values()) {
        if (t.life !== 'BLOCKED') continue;
        const d = live.reason ? 'CANCELED' : this.decide(t, latest);
        if (d === 'WAIT') continue;
        changed = true;
        run = this.store.updateRun(runId, (r) => {
          const rt = r.tasks.find((x) => x.run_id === t.run_id)!;
          if (d === 'RUN') {
            rt.life = 'PENDING';
            toStart.push(rt.run_id);
          } else {
            rt.life = 'TERMINATED';
            rt.result = d;
            rt.message =
              d === 'EXCLUDED'
                ? 'This task was excluded: its run_if condition was not met.'
                : d === 'DISABLED'
                  ? 'This task is disabled.'
                  : d === 'CANCELED'
                    ? live.reason === 'TIMEOUT'
                      ? 'The run timed out.'
                      : 'Run cancelled.'
                    : `Upstream task ${d === 'UPSTREAM_FAILED' ? 'failed' : 'was canceled'}.`;
          }
        });
      }
    }
    for (const id of toStart) this.launch(runId, id);
    const latest = [...this.latest(run).values()];
    if (latest.every((t) => isTerminal(t.life))) this.finish(runId);
  }

  /**
   * Work started from a callback (a microtask, a timer, a finished process) has no caller to throw to: a bug
   * there is logged, never allowed to take the server down as an unhandled rejection.
   */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.o.logger.error('the jobs scheduler failed', { error: (e as Error)?.stack ?? String(e) });
    }
  }

  private launch(runId: number, taskRunId: number): void {
    this.startTask(runId, taskRunId).catch((e: unknown) =>
      this.o.logger.error('the jobs scheduler failed', { error: (e as Error)?.stack ?? String(e) }),
    );
  }

  private async startTask(runId: number, taskRunId: number): Promise<void> {
    await this.slots.acquire();
    const live = this.live.get(runId);
    try {
      if (!this.store.findRun(runId)) return;
      if (!live || this.closed) return;
      if (live.reason) {
        this.completeTask(runId, taskRunId, {
          result: live.reason === 'TIMEOUT' ? 'TIMEDOUT' : 'CANCELED',
          message: live.reason === 'TIMEOUT' ? 'The run timed out.' : 'Run cancelled.',
          output: {},
        });
        return;
      }
      const run = this.store.updateRun(runId, (r) => {
        const t = r.tasks.find((x) => x.run_id === taskRunId)!;
        t.life = 'RUNNING';
        t.start_time = this.now();
      });
      const task = run.tasks.find((x) => x.run_id === taskRunId)!;
      const workDir = path.join(this.o.dir, 'runs', String(runId), String(taskRunId));
      await mkdir(workDir, { recursive: true });
      const outcome = await executeTask(
        { ...this.o.deps, store: this.store, runJob: (jobId, req) => this.runChild(jobId, req) },
        { run, task, workDir, register: (fn) => void live.cancels.set(taskRunId, fn) },
      ).catch((e: unknown): Outcome => {
        this.o.logger.error('task failed to run', { error: (e as Error)?.stack ?? String(e) });
        return {
          result: 'FAILED',
          message: `MiniLake could not run this task: ${(e as Error)?.message ?? String(e)}`,
          output: { error: String((e as Error)?.message ?? e) },
        };
      });
      live.cancels.delete(taskRunId);
      // Work stopped because the run was cancelled or timed out ends that way, whatever the work reported.
      if (live.reason && outcome.result !== 'SUCCESS') {
        outcome.result = live.reason === 'TIMEOUT' ? 'TIMEDOUT' : 'CANCELED';
        outcome.message = live.reason === 'TIMEOUT' ? 'The run timed out.' : 'Run cancelled.';
      }
      // After a reset or close the run is gone (or belongs to a new live entry): nothing to record.
      if (this.live.get(runId) !== live) return;
      this.completeTask(runId, taskRunId, outcome);
    } finally {
      this.slots.release();
    }
  }

  private runChild(
    jobId: number,
    req: RunRequest,
  ): { runId: number; done: Promise<RunRecord>; cancel(): void } {
    const job = this.store.getJob(jobId);
    const child = this.runJob(job, { ...req, trigger: 'RUN_JOB_TASK' });
    return { runId: child.run_id, done: this.waitFor(child.run_id), cancel: () => this.cancel(child.run_id) };
  }

  private completeTask(runId: number, taskRunId: number, outcome: Outcome): void {
    if (!this.store.findRun(runId)) return;
    if (outcome.output) this.store.setOutput(taskRunId, outcome.output);
    const live = this.live.get(runId);
    let retry: TaskRunRecord | undefined;
    let retryDelay = 0;
    this.store.updateRun(runId, (r) => {
      const t = r.tasks.find((x) => x.run_id === taskRunId)!;
      t.life = 'TERMINATED';
      t.result = outcome.result;
      t.message = outcome.message;
      t.end_time = this.now();
      if (!t.start_time) t.start_time = t.end_time;
      if (outcome.values && Object.keys(outcome.values).length) t.values = outcome.values;
      if (outcome.condition) t.condition = outcome.condition;
      if (outcome.clusterId) t.cluster_id = outcome.clusterId;
      if (outcome.forEachStats) t.for_each_stats = outcome.forEachStats;
      if (outcome.runJobRunId !== undefined) t.run_job_run_id = outcome.runJobRunId;
      t.termination = termination(outcome.result, outcome.message);
      const max = t.spec.max_retries ?? 0;
      const retriable =
        !live?.reason &&
        (outcome.result === 'FAILED' || (outcome.result === 'TIMEDOUT' && t.spec.retry_on_timeout === true));
      if (retriable && (max === -1 || t.attempt_number < max)) {
        retry = this.newTaskRun(t.spec, t.attempt_number + 1);
        retry.life = 'WAITING_FOR_RETRY';
        retry.message = `Waiting for retry ${t.attempt_number + 1}.`;
        retryDelay = t.spec.min_retry_interval_millis ?? 0;
        r.tasks.push(retry);
      }
    });
    if (retry) {
      const id = retry.run_id;
      const fire = () => {
        live?.timers.delete(stopTimer);
        if (this.live.get(runId) !== live || !this.store.findRun(runId)) return;
        this.store.updateRun(runId, (r) => {
          const t = r.tasks.find((x) => x.run_id === id)!;
          if (t.life === 'WAITING_FOR_RETRY') t.life = 'PENDING';
        });
        this.launch(runId, id);
      };
      // Retries without an interval start at once (a timer of 0 on a manual clock would wait for a step).
      let stopTimer: () => void = () => undefined;
      if (retryDelay > 0) {
        stopTimer = this.o.clock.setTimeout(() => this.guard(fire), retryDelay);
        live?.timers.add(stopTimer);
      } else queueMicrotask(() => this.guard(fire));
      return;
    }
    this.drive(runId);
  }

  private finish(runId: number): void {
    const live = this.live.get(runId);
    if (!live) return;
    this.live.delete(runId);
    live.stopTimeout?.();
    for (const stop of live.timers) stop();
    const run = this.store.updateRun(runId, (r) => {
      const latest = [...this.latest(r).values()];
      const dependedOn = new Set(latest.flatMap((t) => (t.spec.depends_on ?? []).map((d) => d.task_key)));
      const leaves = latest.filter((t) => !dependedOn.has(t.task_key));
      let result: string;
      let term: Termination;
      if (live.reason === 'USER') {
        result = 'CANCELED';
        term = { code: 'USER_CANCELED', type: 'SUCCESS', message: 'Run cancelled.' };
        r.user_cancelled_or_timedout = true;
      } else if (live.reason === 'TIMEOUT') {
        result = 'TIMEDOUT';
        const message = `Run timed out after ${r.settings.timeout_seconds} seconds.`;
        term = { code: 'RUN_EXECUTION_ERROR', type: 'CLIENT_ERROR', message };
        r.user_cancelled_or_timedout = true;
      } else if (latest.every(succeeded)) {
        result = 'SUCCESS';
        term = { code: 'SUCCESS', type: 'SUCCESS', message: '' };
      } else if (leaves.every(succeeded)) {
        result = 'SUCCESS_WITH_FAILURES';
        term = {
          code: 'SUCCESS_WITH_FAILURES',
          type: 'SUCCESS',
          message: 'Some tasks failed, but every leaf task succeeded.',
        };
      } else {
        const bad =
          latest.find((t) => failed(t) && !t.result?.startsWith('UPSTREAM')) ??
          leaves.find((t) => !succeeded(t))!;
        result = latest.some((t) => failed(t))
          ? bad.result === 'TIMEDOUT'
            ? 'TIMEDOUT'
            : 'FAILED'
          : 'CANCELED';
        const message = `Task ${bad.task_key} failed with message: ${bad.message || WORKLOAD_FAILED}.`;
        term = { code: 'RUN_EXECUTION_ERROR', type: 'CLIENT_ERROR', message };
      }
      r.life = 'TERMINATED';
      r.result = result;
      r.message = term.message;
      r.termination = term;
      r.end_time = this.now();
      const last = r.repair_history[r.repair_history.length - 1];
      if (last) last.end_time = r.end_time;
    });
    endJobClusters({ compute: this.o.deps.compute, store: this.store }, runId);
    this.emitFinished(run);
  }

  private emitFinished(run: RunRecord): void {
    const waiters = this.finishedListeners.get(run.run_id) ?? [];
    this.finishedListeners.delete(run.run_id);
    for (const w of waiters) w(run);
    for (const l of this.anyFinished) l(run);
    if (run.job_id !== undefined) this.startQueued(run.job_id);
  }

  /** After recover(), once the server listens (a task calls it back): starts the queued runs that have room. */
  resumeQueued(): void {
    if (this.closed) return;
    const jobs = new Set<number>();
    for (const r of this.store.allRuns())
      if (r.life === 'QUEUED' && r.job_id !== undefined) jobs.add(r.job_id);
    for (const jobId of jobs) this.startQueued(jobId);
  }

  /** Starts queued runs of the job while it has room. */
  private startQueued(jobId: number): void {
    const runs = this.store.allRuns().filter((r) => r.job_id === jobId);
    const queued = runs.filter((r) => r.life === 'QUEUED').sort((a, b) => a.start_time - b.start_time);
    for (const q of queued) {
      const active = this.store
        .allRuns()
        .filter((r) => r.job_id === jobId && isActive(r.life) && r.life !== 'QUEUED').length;
      if (active >= (q.settings.max_concurrent_runs ?? 1)) break;
      this.begin(q.run_id);
    }
  }

  /** Cancels a run: its running processes are killed, tasks not started end CANCELED. */
  cancel(runId: number): void {
    const run = this.store.getRun(runId);
    if (!isActive(run.life)) return;
    if (run.life === 'QUEUED') {
      this.store.updateRun(runId, (r) => {
        r.life = 'TERMINATED';
        r.result = 'CANCELED';
        r.message = 'Run cancelled.';
        r.user_cancelled_or_timedout = true;
        r.end_time = this.now();
        r.termination = { code: 'USER_CANCELED', type: 'SUCCESS', message: 'Run cancelled.' };
        for (const t of r.tasks) {
          t.life = 'TERMINATED';
          t.result = 'CANCELED';
          t.message = 'Run cancelled.';
        }
      });
      this.emitFinished(this.store.getRun(runId));
      return;
    }
    this.stop(runId, 'USER');
  }

  private stop(runId: number, reason: 'USER' | 'TIMEOUT'): void {
    const live = this.live.get(runId);
    if (!live || live.reason) return;
    live.reason = reason;
    const message = reason === 'TIMEOUT' ? 'The run timed out.' : 'Run cancelled.';
    this.store.updateRun(runId, (r) => {
      r.life = 'TERMINATING';
      for (const t of r.tasks) {
        if (t.life === 'WAITING_FOR_RETRY') {
          t.life = 'TERMINATED';
          t.result = reason === 'TIMEOUT' ? 'TIMEDOUT' : 'CANCELED';
          t.message = message;
        }
      }
    });
    for (const stop of live.timers) stop();
    live.timers.clear();
    for (const cancel of live.cancels.values()) cancel();
    this.drive(runId);
  }

  cancelAll(jobId: number | undefined, queuedOnly: boolean): void {
    for (const r of this.store.allRuns()) {
      if (jobId !== undefined && r.job_id !== jobId) continue;
      if (queuedOnly ? r.life === 'QUEUED' : isActive(r.life)) this.cancel(r.run_id);
    }
  }

  /**
   * runs/repair: reruns the named tasks (or every failed one) and, when asked, the tasks that depend on them;
   * the other tasks keep their results and task values.
   */
  repair(
    runId: number,
    body: {
      rerun_tasks?: string[];
      rerun_all_failed_tasks?: boolean;
      rerun_dependent_tasks?: boolean;
      job_parameters?: Record<string, string>;
      overriding?: Json;
    },
  ): number {
    const run = this.store.getRun(runId);
    const latest = this.latest(run);
    const keys = new Set<string>(body.rerun_tasks ?? []);
    for (const k of keys)
      if (!latest.has(k)) throw new RepairError(`Task ${k} does not exist in run ${runId}.`);
    if (body.rerun_all_failed_tasks) for (const t of latest.values()) if (!succeeded(t)) keys.add(t.task_key);
    if (body.rerun_dependent_tasks) {
      let grew = true;
      while (grew) {
        grew = false;
        for (const t of latest.values()) {
          if (keys.has(t.task_key)) continue;
          if ((t.spec.depends_on ?? []).some((d) => keys.has(d.task_key))) {
            keys.add(t.task_key);
            grew = true;
          }
        }
      }
    }
    if (keys.size === 0)
      throw new RepairError('No tasks to repair: name them in rerun_tasks or set rerun_all_failed_tasks.');
    const repairId = this.store.newRunId();
    const fresh: TaskRunRecord[] = [];
    this.store.updateRun(runId, (r) => {
      for (const t of r.tasks) if (keys.has(t.task_key)) t.superseded = true;
      for (const k of keys) {
        const spec = latest.get(k)!.spec;
        const n = this.newTaskRun(spec);
        fresh.push(n);
        r.tasks.push(n);
      }
      if (body.job_parameters && r.job_parameters) {
        for (const p of r.job_parameters)
          if (body.job_parameters[p.name] !== undefined) p.value = body.job_parameters[p.name]!;
      }
      if (body.overriding && Object.keys(body.overriding).length) r.overriding_parameters = body.overriding;
      r.life = 'PENDING';
      delete r.result;
      delete r.termination;
      r.message = '';
      r.user_cancelled_or_timedout = false;
      r.end_time = 0;
      r.repair_history.push({
        id: repairId,
        type: 'REPAIR',
        start_time: this.now(),
        end_time: 0,
        task_run_ids: fresh.map((t) => t.run_id),
      });
    });
    this.begin(runId);
    return repairId;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const live of this.live.values()) {
      live.stopTimeout?.();
      for (const stop of live.timers) stop();
      for (const cancel of live.cancels.values()) cancel();
    }
    this.live.clear();
  }

  /** After a reset: accepts work again. */
  reopen(): void {
    this.closed = false;
  }
}

export class RepairError extends Error {}

/** The first entry of a run's repair history: the attempt it started as (run-now and submit alike). */
function originalAttempt(run: RunRecord): RepairItem {
  return {
    id: run.run_id,
    type: 'ORIGINAL',
    start_time: run.start_time,
    end_time: 0,
    task_run_ids: run.tasks.map((t) => t.run_id),
  };
}
