/**
 * The scheduler: runs a job's task DAG for real. Every state change is driven by an event of the work itself
 * (a process ended, a dependency finished, a user cancelled); the only timers are the ones Databricks has
 * too (job timeouts, retry intervals, triggers), and they run on the injected clock.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Clock, Logger } from '@minilake/core';
import { GitCheckouts } from './tasks/git.js';
import { decide, isTerminal, latest, runResult, skipMessage, succeeded } from './dag.js';
import { jobParameters, newTaskRun, originalAttempt, runTasks } from './plan.js';
import { normalizeTask, type JobSettings, type Json, type TaskSpec } from './settings.js';
import {
  isActive,
  termination,
  type JobRecord,
  type JobsStore,
  type RunRecord,
  type TaskRunRecord,
} from './store.js';
import { endJobClusters, executeTask, type ExecDeps, type Outcome } from './tasks/index.js';
import type { RunTokens } from './tokens.js';

export interface RunRequest {
  trigger?: string;
  job_parameters?: Record<string, string>;
  overriding_parameters?: Json;
  parent_task_run_id?: number;
  /** run-now `only`: run just these task keys. */
  only?: string[];
}

interface Live {
  /** The run's own token (tokens.ts), revoked when the run ends. */
  token: string;
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
  tokens: RunTokens;
  deps: Omit<ExecDeps, 'runJob' | 'store' | 'execute' | 'git'>;
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
  /** Each run's checkout of its job's git_source, shared by the run's tasks. */
  private readonly git: GitCheckouts;

  constructor(private readonly o: SchedulerOptions) {
    this.slots = new Slots(Math.max(1, o.taskConcurrency));
    this.git = new GitCheckouts(o.store);
  }

  private get store() {
    return this.o.store;
  }
  private now() {
    return this.o.clock.now();
  }

  /** Runs kept active by recover() because a lost task has a retry left: resume() starts them again. */
  private resumable: number[] = [];

  /**
   * Runs that were active when the previous process died have no process any more: say so, once. A task that
   * was running lost its process, as a task whose driver is lost on Databricks: it ends INTERNAL_ERROR with
   * result FAILED. Databricks counts that as unsuccessful for `max_retries` ("completes with the FAILED
   * result_state or INTERNAL_ERROR life_cycle_state"), so a lost task with a retry left gets its next attempt
   * and the run goes on once the server listens (resume), as does a run that was waiting for a retry. Any
   * other active run ends INTERNAL_ERROR / FAILED. A queued run never started anything, so it stays queued
   * and starts after the restart (resume), as the queue promises; one a run_job_task queued for a parent that
   * died goes with its parent.
   */
  recover(
    message = 'The MiniLake server stopped while this run was active; the run and its task processes did not survive the restart.',
  ): { queued: number; resumable: number } {
    let queued = 0;
    for (const r of this.store.allRuns()) {
      if (!isActive(r.life)) continue;
      if (r.life === 'QUEUED' && r.parent_task_run_id === undefined) {
        queued++;
        continue;
      }
      // The token of a run that died goes with it (the process that held it is gone); a resumed run gets a
      // new one. Its job clusters went with the process too: a retry creates its own.
      this.o.tokens.revoke(r.token_id);
      const lost: TaskRunRecord['termination'] = { code: 'INTERNAL_ERROR', type: 'INTERNAL_ERROR', message };
      let resume = false;
      const lostTasks: number[] = [];
      this.store.updateRun(r.run_id, (run) => {
        delete run.token_id;
        // A run being cancelled (TERMINATING) is not retried. Nor is a run_job_task or for_each_task: their
        // child runs and iterations are recovered on their own, so their parent task ends with them.
        const retriable = (t: TaskRunRecord) =>
          run.life !== 'TERMINATING' && !t.spec.run_job_task && !t.spec.for_each_task;
        for (const t of latest(run).values()) {
          if (t.life === 'WAITING_FOR_RETRY') {
            if (retriable(t)) resume = true;
            continue;
          }
          if (t.life !== 'RUNNING') continue;
          // Its process is gone: the task failed as one whose driver is lost.
          Object.assign(t, { life: 'INTERNAL_ERROR', result: 'FAILED', message, termination: lost });
          t.end_time = this.now();
          lostTasks.push(t.run_id);
          const max = t.spec.max_retries ?? 0;
          if (!retriable(t) || !(max === -1 || t.attempt_number < max)) continue;
          const retry = this.newTaskRun(t.spec, t.attempt_number + 1);
          retry.life = 'WAITING_FOR_RETRY';
          retry.message = `Waiting for retry ${t.attempt_number + 1}.`;
          run.tasks.push(retry);
          resume = true;
        }
        if (resume) {
          // Tasks that were about to start start again when the run resumes (drive decides them anew).
          for (const t of run.tasks) if (t.life === 'PENDING') t.life = 'BLOCKED';
          return;
        }
        run.life = 'INTERNAL_ERROR';
        run.result = 'FAILED';
        run.message = message;
        run.end_time = this.now();
        run.termination = lost;
        // Tasks that never started end with the run, without a result.
        for (const t of run.tasks) {
          if (isTerminal(t.life)) continue;
          Object.assign(t, { life: 'INTERNAL_ERROR', message, termination: lost });
          if (t.start_time) t.end_time = this.now();
        }
      });
      // runs/get-output of a lost task says why it failed, as for any failed task (its logs went with it).
      for (const id of lostTasks) this.store.setOutput(id, { ...this.store.output(id), error: message });
      endJobClusters({ compute: this.o.deps.compute, store: this.store }, r.run_id);
      if (resume) this.resumable.push(r.run_id);
    }
    return { queued, resumable: this.resumable.length };
  }

  /**
   * After recover(), once the server listens (a task calls it back): the runs with a retry to make go on,
   * their retries start at once (the restart took longer than any min_retry_interval_millis would ask), and
   * the queued runs that have room start.
   */
  resume(): void {
    if (this.closed) return;
    for (const runId of this.resumable.splice(0)) {
      if (!this.store.findRun(runId)) continue;
      this.begin(runId);
      const run = this.store.updateRun(runId, (r) => {
        for (const t of latest(r).values()) if (t.life === 'WAITING_FOR_RETRY') t.life = 'PENDING';
      });
      for (const t of latest(run).values()) if (t.life === 'PENDING') this.launch(runId, t.run_id);
    }
    this.resumeQueued();
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
    return newTaskRun(this.store.newRunId(), spec, attempt);
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
    const params = jobParameters(settings, req.job_parameters);
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
    const token = this.o.tokens.issue(this.store.getRun(runId));
    const live: Live = { token: token.value, cancels: new Map(), timers: new Set() };
    this.live.set(runId, live);
    const run = this.store.updateRun(runId, (r) => {
      if (token.tokenId !== undefined) r.token_id = token.tokenId;
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

  private drive(runId: number): void {
    const live = this.live.get(runId);
    if (!live || this.closed) return;
    let run = this.store.findRun(runId);
    if (!run || !isActive(run.life)) return;
    const toStart: number[] = [];
    let changed = true;
    while (changed) {
      changed = false;
      const byKey = latest(run);
      for (const t of byKey.values()) {
        if (t.life !== 'BLOCKED') continue;
        const d = live.reason ? 'CANCELED' : decide(t, byKey);
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
            rt.message = skipMessage(d, live.reason);
          }
        });
      }
    }
    for (const id of toStart) this.launch(runId, id);
    if ([...latest(run).values()].every((t) => isTerminal(t.life))) this.finish(runId);
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
      const deps: ExecDeps = {
        ...this.o.deps,
        store: this.store,
        git: this.git,
        runJob: (jobId, req) => this.runChild(jobId, req),
        execute: (input) => executeTask(deps, input),
      };
      const outcome = await executeTask(deps, {
        run,
        task,
        workDir,
        token: live.token,
        // A cancel that came while the task was starting (after it turned RUNNING) stops it as it registers.
        register: (fn) => (live.reason ? fn() : void live.cancels.set(taskRunId, fn)),
      }).catch((e: unknown): Outcome => {
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
      if (outcome.serverlessFailure) t.serverless_failure = true;
      else delete t.serverless_failure;
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
    let tokenId: string | undefined;
    const run = this.store.updateRun(runId, (r) => {
      // The run's token ends with the run (tokens.ts).
      tokenId = r.token_id;
      delete r.token_id;
      const { result, termination: term, life } = runResult(r, live.reason);
      if (live.reason) r.user_cancelled_or_timedout = true;
      r.life = life;
      r.result = result;
      r.message = term.message;
      r.termination = term;
      r.end_time = this.now();
      const last = r.repair_history[r.repair_history.length - 1];
      if (last) last.end_time = r.end_time;
    });
    endJobClusters({ compute: this.o.deps.compute, store: this.store }, runId);
    this.git.forget(runId);
    this.o.tokens.revoke(tokenId);
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

  /** `allowed`: the runs the caller may cancel (MINILAKE_ENFORCE=1); every one when absent. */
  cancelAll(jobId: number | undefined, queuedOnly: boolean, allowed?: (r: RunRecord) => boolean): void {
    for (const r of this.store.allRuns()) {
      if (jobId !== undefined && r.job_id !== jobId) continue;
      if (allowed && !allowed(r)) continue;
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
    const byKey = latest(run);
    const keys = new Set<string>(body.rerun_tasks ?? []);
    for (const k of keys)
      if (!byKey.has(k)) throw new RepairError(`Task ${k} does not exist in run ${runId}.`);
    if (body.rerun_all_failed_tasks) for (const t of byKey.values()) if (!succeeded(t)) keys.add(t.task_key);
    if (body.rerun_dependent_tasks) {
      let grew = true;
      while (grew) {
        grew = false;
        for (const t of byKey.values()) {
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
        const spec = byKey.get(k)!.spec;
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
