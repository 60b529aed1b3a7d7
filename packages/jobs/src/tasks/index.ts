/**
 * The task types MiniLake runs, one executor each, and how a task is run: find the executor of the type its
 * settings name, resolve and validate that field's settings, run. A type Databricks has but no executor
 * here fails with a message saying MiniLake does not support it, never a pretend success.
 *
 * Adding a task type: a file in this folder exporting `defineTask({ field, settings, run })`, and its line
 * in EXECUTORS.
 */
import { v } from '@minilake/core';
import { resolveAll } from '../refs.js';
import type { TaskSpec } from '../settings.js';
import { conditionTask } from './condition.js';
import { refContext } from './context.js';
import { forEachTask } from './for-each.js';
import { pipelineTask } from './pipeline.js';
import { runJobTask } from './run-job.js';
import { dbtTask } from './dbt.js';
import { sparkJarTask, sparkSubmitTask } from './jvm.js';
import { notebookTask, pythonWheelTask, sparkPythonTask } from './spark.js';
import { sqlTask } from './sql.js';
import { dashboardTask } from './dashboard.js';
import {
  fail,
  TaskFileError,
  type ExecDeps,
  type ExecInput,
  type Outcome,
  type TaskExecutor,
} from './types.js';

export { endJobClusters, JOB_FINISHED } from './compute.js';
export type { ExecDeps, ExecInput, Outcome, TaskExecutor } from './types.js';

const EXECUTORS: TaskExecutor[] = [
  notebookTask,
  sparkPythonTask,
  pythonWheelTask,
  conditionTask,
  runJobTask,
  forEachTask,
  sqlTask,
  dashboardTask,
  sparkJarTask,
  sparkSubmitTask,
  dbtTask,
  pipelineTask,
];

/** Every task type Databricks has (the settings field naming it), in the order a task's type is looked for. */
const TASK_FIELDS = [
  'notebook_task',
  'spark_python_task',
  'python_wheel_task',
  'condition_task',
  'run_job_task',
  'for_each_task',
  'sql_task',
  'spark_jar_task',
  'spark_submit_task',
  'pipeline_task',
  'dbt_task',
  'dbt_cloud_task',
  'dbt_platform_task',
  'dashboard_task',
  'power_bi_task',
  'clean_rooms_notebook_task',
  'gen_ai_compute_task',
  'alert_task',
  'ai_runtime_task',
  'python_operator_task',
];

const byField = new Map(EXECUTORS.map((e) => [e.field, e]));

export function taskType(spec: TaskSpec): string | undefined {
  return (
    TASK_FIELDS.find((t) => spec[t] !== undefined) ??
    EXECUTORS.find((e) => spec[e.field] !== undefined)?.field
  );
}

export async function executeTask(d: ExecDeps, input: ExecInput): Promise<Outcome> {
  const spec = input.task.spec;
  const type = taskType(spec);
  if (!type) return fail(`Task ${spec.task_key} has no task type MiniLake knows.`);
  const executor = byField.get(type);
  if (!executor) return fail(`${type} is not supported by MiniLake.`);
  // /_minilake/faults: the task fails as its code would, so the job's max_retries apply.
  const injected = d.fault?.(spec.task_key);
  if (injected) return fail(injected.message);
  const refs = refContext(d, input);
  const raw = executor.resolveRefs ? resolveAll(spec[type], refs) : spec[type];
  const parsed = v.safeParse(executor.settings, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = v.getDotPath(issue);
    return fail(`Invalid ${type}${where ? `.${where}` : ''}: ${issue.message}`);
  }
  try {
    return await executor.run(d, input, parsed.output, refs);
  } catch (e) {
    if (e instanceof TaskFileError) return fail(e.message);
    throw e;
  }
}
