/** What a run executes: its task runs as the scheduler creates them from the job's settings. */
import { normalizeTask, type JobSettings, type TaskSpec } from './settings.js';
import type { RepairItem, RunRecord, TaskRunRecord } from './store.js';

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
      const from = settings as Record<string, unknown>;
      const to = t as Record<string, unknown>;
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

/** The first entry of a run's repair history: the attempt it started as (run-now and submit alike). */
export function originalAttempt(run: RunRecord): RepairItem {
  return {
    id: run.run_id,
    type: 'ORIGINAL',
    start_time: run.start_time,
    end_time: 0,
    task_run_ids: run.tasks.map((t) => t.run_id),
  };
}

/** A task run not started yet (BLOCKED until the scheduler decides it may run). */
export function newTaskRun(runId: number, spec: TaskSpec, attempt = 0): TaskRunRecord {
  return {
    run_id: runId,
    task_key: spec.task_key,
    spec,
    attempt_number: attempt,
    life: 'BLOCKED',
    message: '',
    start_time: 0,
    end_time: 0,
  };
}

/** The parameters a run shows: the job's with their defaults, the run's overrides, and any extra, by name. */
export function jobParameters(settings: JobSettings, overrides: Record<string, string> = {}) {
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
