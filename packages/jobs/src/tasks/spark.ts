/**
 * The code tasks (spark_python_task, notebook_task, python_wheel_task): each prepares what to run (a file, a
 * notebook, a wheel's entry point, with their parameters and `{{...}}` references resolved); the common part
 * finds the compute, launches it on the Spark engine with the run's token, and reports the process's end.
 */
import { v } from '@minilake/core';
import { WORKLOAD_FAILED } from '../dag.js';
import type { SparkEngine, SparkTask, SparkTaskResult } from '../engine.js';
import { resolveAll, resolveRefs, type RefContext } from '../refs.js';
import type { Json } from '../settings.js';
import type { TaskOutput } from '../store.js';
import { computeFor, endJobClusters, type Compute } from './compute.js';
import { redact } from './context.js';
import { fromGit, inCheckout, notebookInCheckout } from './git.js';
import { libraryDependencies, wheelFiles } from './libraries.js';
import {
  defineTask,
  fail,
  TaskFileError,
  texts,
  textMap,
  type ExecDeps,
  type ExecInput,
  type Outcome,
  type TaskExecutor,
} from './types.js';

/** What one kind of code task runs; an Outcome instead when its settings cannot run. */
export interface Program {
  kind: SparkTask['kind'];
  file: string;
  args: string[];
  /** Widgets (notebook parameters) on top of the job parameters. */
  widgets?: Record<string, string>;
  wheel?: SparkTask['wheel'];
  jar?: SparkTask['jar'];
  dbt?: SparkTask['dbt'];
  submitArgs?: string[];
  source?: string;
  sourcePath?: string;
  dependencies?: string[] | undefined;
}

type Prepare<S extends v.GenericSchema> = (
  d: ExecDeps,
  input: ExecInput,
  settings: v.InferOutput<S>,
  refs: RefContext,
  compute: Compute,
) => Promise<Program | Outcome>;

/** `python_params` / `notebook_params` / `python_named_params` of run-now, when the run has them. */
export const overriding = (input: ExecInput): Json => input.run.overriding_parameters ?? {};
export function overridden<T>(
  value: unknown,
  schema: v.GenericSchema<unknown, T>,
  name: string,
): T | undefined {
  if (value === undefined) return undefined;
  const r = v.safeParse(schema, value);
  if (!r.success) throw new TaskFileError(`Invalid ${name} in the run's parameters: ${r.issues[0].message}`);
  return r.output;
}

export function codeTask<S extends v.GenericSchema>(
  field: string,
  settings: S,
  prepare: Prepare<S>,
): TaskExecutor<S> {
  return defineTask({
    field,
    settings,
    async run(d, input, s, refs) {
      try {
        return await launch(d, input, refs, (compute) => prepare(d, input, s, refs, compute));
      } finally {
        // A task's own new_cluster lives as long as the task (the run's end sweeps the rest).
        if (input.task.spec.new_cluster) endJobClusters(d, input.run.run_id, `task:${input.task.run_id}`);
      }
    },
  });
}

export const sparkPythonTask = codeTask(
  'spark_python_task',
  v.looseObject({
    python_file: v.optional(v.string()),
    parameters: v.optional(texts),
    source: v.optional(v.string()),
  }),
  async (d, input, t, refs) => {
    if (!t.python_file) return fail('spark_python_task.python_file is required.');
    const pyPath = resolveRefs(t.python_file, refs);
    // An absolute path names the workspace, DBFS or a volume; a relative one the job's git_source.
    const git = fromGit(input, t.source) && !pyPath.startsWith('/') && !pyPath.includes(':/');
    const file = git
      ? inCheckout(await d.git.checkout(input), pyPath)
      : await d.files.localFile(pyPath, input.workDir);
    const params = overridden(overriding(input).python_params, texts, 'python_params') ?? t.parameters ?? [];
    return {
      kind: 'python',
      file,
      args: resolveAll(params, refs),
      ...(!git && d.files.isWorkspacePath(pyPath) ? { sourcePath: pyPath } : {}),
    };
  },
);

export const notebookTask = codeTask(
  'notebook_task',
  v.looseObject({
    notebook_path: v.optional(v.string()),
    base_parameters: v.optional(textMap),
    source: v.optional(v.string()),
  }),
  async (d, input, t, refs) => {
    if (!t.notebook_path) return fail('notebook_task.notebook_path is required.');
    const nb =
      t.source === 'GIT'
        ? await d.files.localNotebook(
            notebookInCheckout(await d.git.checkout(input), t.notebook_path),
            input.workDir,
          )
        : await d.files.notebook(t.notebook_path, input.workDir);
    return {
      kind: 'notebook',
      file: nb.file,
      args: [],
      source: nb.source,
      sourcePath: t.notebook_path,
      widgets: {
        ...resolveAll(t.base_parameters ?? {}, refs),
        ...resolveAll(overridden(overriding(input).notebook_params, textMap, 'notebook_params') ?? {}, refs),
      },
    };
  },
);

export const pythonWheelTask = codeTask(
  'python_wheel_task',
  v.looseObject({
    package_name: v.optional(v.string()),
    entry_point: v.optional(v.string()),
    parameters: v.optional(texts),
    named_parameters: v.optional(textMap),
  }),
  async (d, input, t, refs, compute) => {
    if (!t.package_name || !t.entry_point)
      return fail('python_wheel_task needs package_name and entry_point.');
    const deps = compute.dependencies ?? [];
    const wheels = [
      ...(input.task.spec.libraries ?? [])
        .map((l) => l.whl)
        .filter((x): x is string => typeof x === 'string'),
      ...deps.filter((x) => x.endsWith('.whl')),
    ];
    if (wheels.length === 0)
      return fail('python_wheel_task needs a wheel in libraries (whl) or in its environment dependencies.');
    const local = await wheelFiles(d, input, compute, wheels);
    const pypi = (input.task.spec.libraries ?? [])
      .map((l) => (l.pypi as { package?: unknown } | undefined)?.package)
      .filter((x): x is string => typeof x === 'string' && x !== '');
    const over = overriding(input);
    const params = overridden(over.python_params, texts, 'python_params') ?? t.parameters ?? [];
    const named =
      overridden(over.python_named_params, textMap, 'python_named_params') ?? t.named_parameters ?? {};
    return {
      kind: 'wheel',
      file: local[0]!,
      args: resolveAll(params, refs),
      dependencies: [...local.slice(1), ...pypi, ...deps.filter((x) => !x.endsWith('.whl'))],
      wheel: {
        packageName: t.package_name,
        entryPoint: t.entry_point,
        namedParameters: resolveAll(named, refs),
      },
    };
  },
);

async function launch(
  d: ExecDeps,
  input: ExecInput,
  refs: RefContext,
  prepare: (compute: Compute) => Promise<Program | Outcome>,
): Promise<Outcome> {
  const { run, task, workDir } = input;
  const spec = task.spec;
  const signal = { canceled: false };
  let current: { cancel(): void } | undefined;
  input.register(() => {
    signal.canceled = true;
    current?.cancel();
  });
  const secrets = new Set<string>();
  const compute = await computeFor(d, input, spec, secrets, signal);
  const program = await prepare(compute);
  if ('result' in program) return program;
  const widgets: Record<string, string> = {};
  for (const p of run.job_parameters ?? []) widgets[p.name] = p.value;
  Object.assign(widgets, program.widgets);
  // A wheel task's libraries are its program; other code tasks get theirs as dependencies on classic compute
  // (serverless installs its environment's).
  const dependencies =
    program.kind === 'wheel'
      ? program.dependencies
      : compute.compute === 'classic'
        ? await libraryDependencies(d, input, compute)
        : compute.dependencies;
  const upstream: Record<string, Record<string, unknown>> = {};
  for (const [k, t] of Object.entries(refs.tasks)) upstream[k] = t.values;
  const timeout = spec.timeout_seconds ?? 0;
  const sparkTask: SparkTask = {
    id: String(task.run_id),
    kind: program.kind,
    file: program.file,
    args: program.args,
    widgets,
    env: compute.env,
    sparkConf: compute.conf,
    compute: compute.compute,
    taskValues: upstream,
    context: {
      ...(run.job_id !== undefined ? { jobId: run.job_id } : {}),
      runId: run.run_id,
      taskRunId: task.run_id,
      taskKey: task.task_key,
    },
    workDir,
    token: input.token,
    ...(program.wheel ? { wheel: program.wheel } : {}),
    ...(program.jar ? { jar: program.jar } : {}),
    ...(program.dbt ? { dbt: program.dbt } : {}),
    ...(program.submitArgs ? { submitArgs: program.submitArgs } : {}),
    ...(dependencies?.length ? { dependencies } : {}),
    ...(timeout > 0 ? { timeoutMs: timeout * 1000 } : {}),
    ...(secrets.size ? { redact: [...secrets] } : {}),
    ...(program.sourcePath ? { sourcePath: program.sourcePath } : {}),
    ...(compute.image && !compute.remote ? { executor: 'docker' as const, image: compute.image } : {}),
    ...(compute.remote ? { remote: compute.remote } : {}),
  };
  if (signal.canceled) return { result: 'CANCELED', message: 'Run cancelled.', output: {} };
  let engine: SparkEngine;
  try {
    engine = await d.engine();
  } catch (e) {
    return fail((e as Error).message);
  }
  const handle = engine.launch(sparkTask);
  current = handle;
  if (signal.canceled) handle.cancel();
  let r: SparkTaskResult;
  try {
    r = await handle.result;
  } catch (e) {
    return fail((e as Error).message);
  }
  const output: TaskOutput = {
    logs: redact(r.logs, secrets),
    logs_truncated: r.logsTruncated,
    ...(r.error ? { error: redact(r.error, secrets) } : {}),
    ...(r.errorTrace ? { error_trace: redact(r.errorTrace, secrets) } : {}),
    ...(r.notebookResult !== undefined ? { notebook_result: r.notebookResult } : {}),
    ...(program.source !== undefined ? { source: program.source } : {}),
  };
  // A serverless environment's failed workload is reported as Databricks does: the generic message on the
  // task (the exception is in runs/get-output), and the run ends INTERNAL_ERROR (see dag.ts).
  const serverlessFailure =
    r.outcome === 'FAILED' && compute.compute === 'serverless' && spec.environment_key !== undefined;
  const message =
    r.outcome === 'SUCCESS'
      ? ''
      : r.outcome === 'TIMEDOUT'
        ? `Task timed out after ${timeout} seconds.`
        : r.outcome === 'CANCELED'
          ? 'Run cancelled.'
          : serverlessFailure
            ? WORKLOAD_FAILED
            : (output.error ?? WORKLOAD_FAILED);
  return {
    result: r.outcome,
    message,
    output,
    values: r.taskValues,
    ...(compute.clusterId ? { clusterId: compute.clusterId } : {}),
    ...(serverlessFailure ? { serverlessFailure } : {}),
  };
}
