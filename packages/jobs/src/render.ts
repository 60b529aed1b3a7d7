/** Wire shapes of jobs and runs (sdk-go service/jobs/model.go: Job, BaseJob, Run, RunTask, RunOutput). */
import { invalidParameter } from '@minilake/core';
import type { Json } from './settings.js';
import type { JobRecord, LifeCycle, RunRecord, TaskOutput, TaskRunRecord, Termination } from './store.js';

/** jobs/get and runs/get return at most this many tasks per response. */
export const TASK_PAGE = 100;

function pageOffset(token: string | undefined, total: number): number {
  if (!token) return 0;
  const n = /^\d{1,9}$/.test(token) ? Number(token) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > total) throw invalidParameter(`Invalid page_token: ${token}`);
  return n;
}

export function renderJob(job: JobRecord, pageToken?: string): Json {
  const settings: Json = { ...job.settings };
  const tasks = job.settings.tasks ?? [];
  const out: Json = {
    job_id: job.job_id,
    creator_user_name: job.creator_user_name,
    run_as_user_name: job.run_as_user_name,
    created_time: job.created_time,
    settings,
  };
  if (tasks.length > TASK_PAGE || pageToken) {
    const start = pageOffset(pageToken, tasks.length);
    settings.tasks = tasks.slice(start, start + TASK_PAGE);
    if (start > 0) {
      delete settings.job_clusters;
      delete settings.environments;
      delete settings.parameters;
    }
    if (start + TASK_PAGE < tasks.length) {
      out.has_more = true;
      out.next_page_token = String(start + TASK_PAGE);
    }
  }
  return out;
}

/** jobs/list entry (BaseJob): settings without tasks and job_clusters unless expand_tasks. */
export function renderBaseJob(job: JobRecord, expandTasks: boolean): Json {
  const settings: Json = { ...job.settings };
  const out: Json = {
    job_id: job.job_id,
    creator_user_name: job.creator_user_name,
    created_time: job.created_time,
    settings,
  };
  if (!expandTasks) {
    delete settings.tasks;
    delete settings.job_clusters;
  } else if ((job.settings.tasks?.length ?? 0) > TASK_PAGE) {
    settings.tasks = job.settings.tasks!.slice(0, TASK_PAGE);
    out.has_more = true;
  }
  return out;
}

const STATUS_STATE: Record<LifeCycle, string> = {
  QUEUED: 'QUEUED',
  PENDING: 'PENDING',
  RUNNING: 'RUNNING',
  TERMINATING: 'TERMINATING',
  TERMINATED: 'TERMINATED',
  SKIPPED: 'TERMINATED',
  INTERNAL_ERROR: 'TERMINATED',
  BLOCKED: 'BLOCKED',
  WAITING_FOR_RETRY: 'WAITING',
};

function stateOf(x: {
  life: LifeCycle;
  result?: string;
  message: string;
  user_cancelled_or_timedout?: boolean;
  queue_reason?: string;
}): Json {
  const s: Json = {
    life_cycle_state: x.life,
    state_message: x.message,
    user_cancelled_or_timedout: x.user_cancelled_or_timedout ?? false,
  };
  if (x.result) s.result_state = x.result;
  if (x.queue_reason) s.queue_reason = x.queue_reason;
  return s;
}

function statusOf(x: { life: LifeCycle; termination?: Termination; queue_reason?: string }): Json {
  const s: Json = { state: STATUS_STATE[x.life] };
  if (x.termination) s.termination_details = x.termination;
  if (x.life === 'QUEUED' && x.queue_reason) {
    s.queue_details = { code: 'ACTIVE_RUNS_LIMIT_REACHED', message: x.queue_reason };
  }
  return s;
}

function durations(start: number, end: number, now: number): Json {
  const run = start ? (end || now) - start : 0;
  return {
    start_time: start,
    end_time: end,
    setup_duration: 0,
    execution_duration: end ? run : 0,
    cleanup_duration: 0,
    run_duration: run,
  };
}

export function renderTask(run: RunRecord, t: TaskRunRecord, now: number, links: RunLinks): Json {
  const spec: Json = { ...t.spec };
  const out: Json = {
    ...spec,
    run_id: t.run_id,
    task_key: t.task_key,
    attempt_number: t.attempt_number,
    state: stateOf({ ...t, user_cancelled_or_timedout: t.result === 'CANCELED' || t.result === 'TIMEDOUT' }),
    status: statusOf(t),
    ...durations(t.start_time, t.end_time, now),
    run_page_url: runPageUrl(links, run.job_id, t.run_id),
  };
  if (t.cluster_id) out.cluster_instance = { cluster_id: t.cluster_id };
  if (t.condition && spec.condition_task)
    out.condition_task = { ...(spec.condition_task as Json), ...t.condition };
  if (t.for_each_stats && spec.for_each_task) {
    out.for_each_task = { ...(spec.for_each_task as Json), stats: t.for_each_stats };
  }
  return out;
}

/** Where run pages are: the server's address and the workspace id Databricks puts in its links (`?o=`). */
export interface RunLinks {
  base: string;
  workspaceId: string;
}

/**
 * A run's page, as Databricks links it (`<host>/jobs/<job>/runs/<run>?o=<workspace id>`, what the CLI prints):
 * the server sends that address on to the web UI's page for the run. A one-time run (runs/submit) has no job.
 */
export function runPageUrl(links: RunLinks, jobId: number | undefined, runId: number): string {
  const o = `?o=${links.workspaceId}`;
  return jobId === undefined
    ? `${links.base}/jobs/runs/${runId}${o}`
    : `${links.base}/jobs/${jobId}/runs/${runId}${o}`;
}

export function renderRun(
  run: RunRecord,
  opts: { now: number; links: RunLinks; includeHistory?: boolean; pageToken?: string; expandTasks?: boolean },
): Json {
  const visible = run.tasks.filter((t) => opts.includeHistory || !t.superseded);
  const out: Json = {
    job_id: run.job_id,
    run_id: run.run_id,
    number_in_job: run.run_id,
    original_attempt_run_id: run.run_id,
    creator_user_name: run.creator_user_name,
    run_name: run.run_name,
    run_type: run.run_type,
    trigger: run.trigger,
    format: 'MULTI_TASK',
    attempt_number: 0,
    state: stateOf(run),
    status: statusOf(run),
    ...durations(run.start_time, run.end_time, opts.now),
    run_page_url: runPageUrl(opts.links, run.job_id, run.run_id),
  };
  if (run.job_id === undefined) delete out.job_id;
  if (run.settings.job_clusters) out.job_clusters = run.settings.job_clusters;
  if (run.job_parameters?.length) out.job_parameters = run.job_parameters;
  if (run.overriding_parameters) out.overriding_parameters = run.overriding_parameters;
  if (run.settings.schedule && run.trigger === 'PERIODIC') out.schedule = run.settings.schedule;
  if (run.repair_history.length > 1) {
    out.repair_history = run.repair_history.map((h) => ({
      ...h,
      state: stateOf(run),
      status: statusOf(run),
    }));
  }
  if (opts.expandTasks === false) return out;
  const start = pageOffset(opts.pageToken, visible.length);
  out.tasks = visible.slice(start, start + TASK_PAGE).map((t) => renderTask(run, t, opts.now, opts.links));
  if (start + TASK_PAGE < visible.length) {
    out.has_more = true;
    out.next_page_token = String(start + TASK_PAGE);
  }
  return out;
}

export function renderOutput(
  run: RunRecord,
  t: TaskRunRecord,
  o: TaskOutput,
  now: number,
  links: RunLinks,
): Json {
  const out: Json = {
    metadata: {
      ...renderTask(run, t, now, links),
      job_id: run.job_id,
      run_name: run.run_name,
      run_type: run.run_type,
      creator_user_name: run.creator_user_name,
      format: 'MULTI_TASK',
    },
  };
  if (o.logs !== undefined) {
    out.logs = o.logs;
    out.logs_truncated = o.logs_truncated ?? false;
  }
  if (o.error) out.error = o.error;
  if (o.error_trace) out.error_trace = o.error_trace;
  if (t.spec.notebook_task && !t.life.startsWith('RUN') && t.end_time) {
    out.notebook_output =
      o.notebook_result === undefined ? {} : { result: o.notebook_result, truncated: false };
  }
  if (t.run_job_run_id !== undefined) out.run_job_output = { run_id: t.run_job_run_id };
  return out;
}

/**
 * runs/get of a task run's id: the run's fields with the task run's id, state and times, the task itself in
 * `tasks` and, for a for-each task, its `iterations` (each a task run with its own id, state and output).
 */
export function renderTaskRun(run: RunRecord, t: TaskRunRecord, now: number, links: RunLinks): Json {
  const out = renderRun(run, { now, links, expandTasks: false });
  const task = renderTask(run, t, now, links);
  Object.assign(out, {
    run_id: t.run_id,
    original_attempt_run_id: t.run_id,
    attempt_number: t.attempt_number,
    state: task.state,
    status: task.status,
    ...durations(t.start_time, t.end_time, now),
    run_page_url: task.run_page_url,
    tasks: [task],
  });
  if (t.iterations) out.iterations = t.iterations.map((it) => renderTask(run, it, now, links));
  return out;
}
