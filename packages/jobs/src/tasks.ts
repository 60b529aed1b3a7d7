/**
 * What each task type does. Code tasks (spark_python_task, notebook_task, python_wheel_task) run on the Spark
 * engine; condition, run_job and for_each tasks are evaluated here; sql_task files go to the SQL service.
 * Anything else fails with a message saying MiniLake does not support it, never a pretend success.
 */
import type { ServiceContext } from '@minilake/core';
import type { SparkEngine, SparkTask, SparkTaskResult } from './engine.js';
import { resolveAll, resolveRefs, type RefContext } from './refs.js';
import { FileResolver, TaskFileError } from './resolve.js';
import type { Json, TaskSpec } from './settings.js';
import { runAlert, runSavedQuery, runSqlFile } from './sql.js';
import { termination, type JobsStore, type RunRecord, type TaskOutput, type TaskRunRecord } from './store.js';
import type { ComputeApi } from '@minilake/compute';
import type { SecretsApi } from '@minilake/secrets';

export interface Outcome {
  result: 'SUCCESS' | 'FAILED' | 'TIMEDOUT' | 'CANCELED';
  message: string;
  output: TaskOutput;
  values?: Record<string, unknown>;
  condition?: { left: string; right: string; op: string; outcome: 'true' | 'false' };
  clusterId?: string;
  forEachStats?: Json;
  runJobRunId?: number;
}

// The peers' APIs, as their packages export them (type-only: the services themselves are optional).
export type SecretsPeer = Pick<SecretsApi, 'readSecret'>;
export type ComputePeer = Pick<
  ComputeApi,
  'getCluster' | 'startCluster' | 'recordActivity' | 'createCluster' | 'terminateCluster' | 'sparkPort'
>;

export interface ExecDeps {
  store: JobsStore;
  engine: () => Promise<SparkEngine>;
  files: FileResolver;
  secrets?: SecretsPeer | undefined;
  compute?: ComputePeer | undefined;
  ctx: Pick<ServiceContext, 'request' | 'clock' | 'identity' | 'selfUrl'>;
  runJob(
    jobId: number,
    req: { job_parameters?: Record<string, string>; parent_task_run_id?: number },
  ): { runId: number; done: Promise<RunRecord>; cancel(): void };
}

export interface ExecInput {
  run: RunRecord;
  task: TaskRunRecord;
  workDir: string;
  /** Registers how to stop the task's work (a process, a child run). */
  register(cancel: () => void): void;
  /** The for_each input of an iteration. */
  input?: string;
}

const TYPES = [
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

export const fail = (message: string, output: TaskOutput = { error: message }): Outcome => ({
  result: 'FAILED',
  message,
  output,
});

export function taskType(spec: TaskSpec): string | undefined {
  return TYPES.find((t) => spec[t] !== undefined);
}

function refContext(d: ExecDeps, input: ExecInput): RefContext {
  const { run, task } = input;
  const params: Record<string, string> = {};
  for (const p of run.job_parameters ?? []) params[p.name] = p.value;
  const tasks: RefContext['tasks'] = {};
  for (const t of run.tasks) {
    if (t.superseded) continue;
    const cur = tasks[t.task_key];
    if (cur && cur.executionCount > t.attempt_number) continue;
    tasks[t.task_key] = {
      runId: t.run_id,
      resultState: t.result,
      executionCount: t.attempt_number + 1,
      values: t.values ?? {},
    };
  }
  const nb = task.spec.notebook_task as { notebook_path?: string } | undefined;
  return {
    jobId: run.job_id,
    jobName: run.run_name,
    runId: run.run_id,
    repairCount: Math.max(0, run.repair_history.length - 1),
    startTime: run.start_time,
    triggerType: run.trigger === 'ONE_TIME' ? 'one_time' : run.trigger.toLowerCase(),
    parameters: params,
    task: {
      name: task.task_key,
      runId: task.run_id,
      executionCount: task.attempt_number + 1,
      ...(nb?.notebook_path ? { notebookPath: nb.notebook_path } : {}),
    },
    tasks,
    workspaceId: d.ctx.identity.workspaceId,
    workspaceUrl: d.ctx.selfUrl() ?? '',
    ...(input.input !== undefined ? { input: input.input } : {}),
  };
}

/** `{{secrets/scope/key}}` in a value, resolved through the secrets service; the values are returned for redaction. */
function resolveSecrets(d: ExecDeps, where: string, values: Record<string, string>, found: Set<string>) {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    out[k] = String(v).replace(
      /\{\{\s*secrets\/([^/}\s]+)\/([^}\s]+)\s*\}\}/g,
      (_m, scope: string, key: string) => {
        if (!d.secrets)
          throw new TaskFileError(
            `${where} ${k} references a secret, but the secrets service is not enabled.`,
          );
        let value: string;
        try {
          value = d.secrets.readSecret(scope, key).toString('utf8');
        } catch {
          throw new TaskFileError(`${where} ${k} references secret ${scope}/${key}, which does not exist.`);
        }
        if (value) found.add(value);
        return value;
      },
    );
  }
  return out;
}

function redact(text: string, secrets: Set<string>): string {
  let out = text;
  for (const s of secrets) if (s.length >= 1) out = out.split(s).join('[REDACTED]');
  return out;
}

interface Compute {
  compute: 'classic' | 'serverless';
  env: Record<string, string>;
  conf: Record<string, string>;
  clusterId?: string;
  dependencies?: string[];
  /** `docker_image.url` of the cluster spec: the task runs in a container of that image. */
  image?: string;
  /** The Spark Connect URL of the all-purpose cluster's driver the task runs on (existing_cluster_id). */
  remote?: string;
}

/** Terminates the run's job clusters (or the one in `slot`): the work they were made for is done. */
export function endJobClusters(d: Pick<ExecDeps, 'compute' | 'store'>, runId: number, slot?: string): void {
  const run = d.store.findRun(runId);
  if (!d.compute || !run?.job_cluster_ids) return;
  const ended: string[] = [];
  for (const [k, id] of Object.entries(run.job_cluster_ids)) {
    if (slot !== undefined && k !== slot) continue;
    ended.push(k);
    try {
      d.compute.terminateCluster(id, JOB_FINISHED);
    } catch {
      // deleted through the Clusters API meanwhile: nothing to end
    }
  }
  if (ended.length === 0) return;
  // A repair of the run later gets fresh clusters, as on Databricks.
  d.store.updateRun(runId, (r) => {
    for (const k of ended) delete r.job_cluster_ids?.[k];
  });
}

/** How Databricks ends a job cluster once its work is done. */
export const JOB_FINISHED = { code: 'JOB_FINISHED', type: 'SUCCESS', parameters: {} };

/**
 * The cluster record of a job cluster in the compute service (cluster_source JOB), named as Databricks
 * names them. A `job_cluster_key` cluster is shared by the run's tasks that name it and ends with the run;
 * a task's `new_cluster` is its own and ends with the task. The ids are kept on the run record, so a server
 * that restarts can end what the dead process left.
 */
function jobCluster(d: ExecDeps, input: ExecInput, spec: Json, key: string | undefined): string | undefined {
  // A for-each iteration's new_cluster is not recorded: iterations share the task run (no own record yet).
  if (!d.compute || (key === undefined && input.input !== undefined)) return undefined;
  const { run, task } = input;
  const slot = key ?? `task:${task.run_id}`;
  const existing = run.job_cluster_ids?.[slot];
  if (existing) return existing;
  const name = `job-${run.job_id ?? 'submit'}-run-${run.run_id}${key ? `-${key}` : ''}`;
  const id = d.compute.createCluster(
    { ...structuredClone(spec), cluster_name: name },
    'JOB',
    run.creator_user_name,
  );
  d.store.updateRun(run.run_id, (r) => {
    r.job_cluster_ids = { ...r.job_cluster_ids, [slot]: id };
  });
  run.job_cluster_ids = { ...run.job_cluster_ids, [slot]: id };
  return id;
}

async function waitForCluster(
  d: ExecDeps,
  id: string,
  signal: { canceled: boolean },
): Promise<Record<string, unknown>> {
  for (let i = 0; ; i++) {
    const c = d.compute!.getCluster(id);
    if (!c) throw new TaskFileError(`Cluster ${id} does not exist.`);
    const state = String(c.state);
    if (state === 'RUNNING') return c;
    if (signal.canceled) throw new TaskFileError('Run cancelled.');
    if (state === 'TERMINATED' || state === 'ERROR') d.compute!.startCluster(id);
    if (i > 12_000) throw new TaskFileError(`Cluster ${id} did not reach RUNNING.`);
    // A lookup in memory: polling often costs nothing and a job cluster's task starts as soon as it can.
    await new Promise<void>((resolve) => d.ctx.clock.setTimeout(resolve, 50));
  }
}

async function computeFor(
  d: ExecDeps,
  input: ExecInput,
  spec: TaskSpec,
  secrets: Set<string>,
  signal: { canceled: boolean },
): Promise<Compute> {
  const { run } = input;
  let cluster: Json | undefined;
  let clusterId: string | undefined;
  if (spec.existing_cluster_id) {
    if (!d.compute)
      throw new TaskFileError('existing_cluster_id needs the compute service, which is not enabled.');
    clusterId = spec.existing_cluster_id;
    cluster = await waitForCluster(d, clusterId, signal);
    d.compute.recordActivity(clusterId);
    // A cluster whose Spark really runs: the task is a session on its driver, as on Databricks, where the
    // tasks and notebooks attached to one cluster share its Spark application.
    const port = d.compute.sparkPort(clusterId);
    if (port !== undefined) {
      // The driver's Python sees the cluster's spark_env_vars (its spark_conf is the server's already).
      const env = resolveSecrets(
        d,
        'spark_env_vars',
        (cluster.spark_env_vars as Record<string, string>) ?? {},
        secrets,
      );
      return { compute: 'classic', env, conf: {}, clusterId, remote: `sc://127.0.0.1:${port}` };
    }
  } else if (spec.new_cluster) {
    cluster = spec.new_cluster;
    clusterId = jobCluster(d, input, cluster, undefined);
  } else if (spec.job_cluster_key) {
    const jc = (run.settings.job_clusters ?? []).find((c) => c.job_cluster_key === spec.job_cluster_key);
    if (!jc) throw new TaskFileError(`Job cluster ${spec.job_cluster_key} is not defined in job_clusters.`);
    cluster = jc.new_cluster ?? {};
    clusterId = jobCluster(d, input, cluster, spec.job_cluster_key);
  }
  if (clusterId && !spec.existing_cluster_id) {
    // The task shows its cluster while it waits for it (PENDING) and runs on it, as on Databricks.
    d.store.updateRun(run.run_id, (r) => {
      const t = r.tasks.find((x) => x.run_id === input.task.run_id);
      if (t) t.cluster_id = clusterId;
    });
    await waitForCluster(d, clusterId, signal);
  }
  if (!cluster) {
    const env = spec.environment_key
      ? (run.settings.environments ?? []).find((e) => e.environment_key === spec.environment_key)
      : undefined;
    if (spec.environment_key && !env)
      throw new TaskFileError(`Environment ${spec.environment_key} is not defined in environments.`);
    const deps = env?.spec?.dependencies;
    return { compute: 'serverless', env: {}, conf: {}, ...(deps?.length ? { dependencies: deps } : {}) };
  }
  const env = resolveSecrets(
    d,
    'spark_env_vars',
    (cluster.spark_env_vars as Record<string, string>) ?? {},
    secrets,
  );
  const conf = resolveSecrets(d, 'spark_conf', (cluster.spark_conf as Record<string, string>) ?? {}, secrets);
  const image = (cluster.docker_image as { url?: unknown } | undefined)?.url;
  return {
    compute: 'classic',
    env,
    conf,
    ...(clusterId ? { clusterId } : {}),
    ...(typeof image === 'string' && image ? { image } : {}),
  };
}

const asStrings = (x: unknown): string[] => (Array.isArray(x) ? x.map(String) : []);
const asRecord = (x: unknown): Record<string, string> =>
  x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, String(v)])) : {};

export async function executeTask(d: ExecDeps, input: ExecInput): Promise<Outcome> {
  const spec = input.task.spec;
  const type = taskType(spec);
  if (!type) return fail(`Task ${spec.task_key} has no task type MiniLake knows.`);
  const refs = refContext(d, input);
  try {
    switch (type) {
      case 'condition_task':
        return condition(resolveAll(spec.condition_task as Json, refs));
      case 'run_job_task':
        return await runJobTask(d, input, resolveAll(spec.run_job_task as Json, refs));
      case 'for_each_task':
        return await forEach(d, input, refs);
      case 'sql_task':
        return await sqlTask(d, input, spec.sql_task as Json, refs);
      case 'spark_python_task':
      case 'notebook_task':
      case 'python_wheel_task':
        try {
          return await sparkTask(d, input, type, refs);
        } finally {
          // A task's own new_cluster lives as long as the task (the run's end sweeps the rest).
          if (input.task.spec.new_cluster) endJobClusters(d, input.run.run_id, `task:${input.task.run_id}`);
        }
      default:
        return fail(`${type} is not supported by MiniLake.`);
    }
  } catch (e) {
    if (e instanceof TaskFileError) return fail(e.message);
    throw e;
  }
}

function condition(c: Json): Outcome {
  const left = String(c.left ?? '');
  const right = String(c.right ?? '');
  const op = String(c.op ?? '');
  const ln = Number(left);
  const rn = Number(right);
  const numeric = left.trim() !== '' && right.trim() !== '' && Number.isFinite(ln) && Number.isFinite(rn);
  let value: boolean;
  switch (op) {
    case 'EQUAL_TO':
      value = numeric ? ln === rn : left === right;
      break;
    case 'NOT_EQUAL':
      value = numeric ? ln !== rn : left !== right;
      break;
    case 'GREATER_THAN':
    case 'GREATER_THAN_OR_EQUAL':
    case 'LESS_THAN':
    case 'LESS_THAN_OR_EQUAL': {
      if (!numeric)
        return fail(`condition_task: ${op} needs numeric operands, got '${left}' and '${right}'.`);
      value =
        op === 'GREATER_THAN'
          ? ln > rn
          : op === 'GREATER_THAN_OR_EQUAL'
            ? ln >= rn
            : op === 'LESS_THAN'
              ? ln < rn
              : ln <= rn;
      break;
    }
    default:
      return fail(`condition_task: unknown op '${op}'.`);
  }
  const outcome = value ? 'true' : 'false';
  return { result: 'SUCCESS', message: '', output: {}, condition: { left, right, op, outcome } };
}

async function runJobTask(d: ExecDeps, input: ExecInput, rj: Json): Promise<Outcome> {
  const jobId = Number(rj.job_id);
  if (!Number.isInteger(jobId)) return fail('run_job_task.job_id is required.');
  let child;
  try {
    child = d.runJob(jobId, {
      ...(rj.job_parameters ? { job_parameters: asRecord(rj.job_parameters) } : {}),
      parent_task_run_id: input.task.run_id,
    });
  } catch (e) {
    return fail((e as Error).message);
  }
  input.register(() => child.cancel());
  const done = await child.done;
  const ok = done.result === 'SUCCESS' || done.result === 'SUCCESS_WITH_FAILURES' || done.life === 'SKIPPED';
  const result = ok
    ? 'SUCCESS'
    : done.result === 'CANCELED'
      ? 'CANCELED'
      : done.result === 'TIMEDOUT'
        ? 'TIMEDOUT'
        : 'FAILED';
  return {
    result,
    message: ok ? '' : `The triggered run ${child.runId} ended ${done.result ?? done.life}.`,
    output: {},
    runJobRunId: child.runId,
  };
}

async function forEach(d: ExecDeps, input: ExecInput, refs: RefContext): Promise<Outcome> {
  const fe = input.task.spec.for_each_task as { inputs?: unknown; concurrency?: number; task?: TaskSpec };
  if (!fe.task) return fail('for_each_task.task is required.');
  let items: unknown[];
  try {
    const raw = typeof fe.inputs === 'string' ? JSON.parse(resolveRefs(fe.inputs, refs)) : fe.inputs;
    if (!Array.isArray(raw)) throw new Error('not an array');
    items = raw;
  } catch {
    return fail('for_each_task.inputs must be a JSON array (or a reference that resolves to one).');
  }
  const concurrency = Math.max(1, Math.min(100, fe.concurrency ?? 1));
  const stats = { total: items.length, succeeded: 0, failed: 0, completed: 0 };
  const cancels = new Set<() => void>();
  let canceled = false;
  input.register(() => {
    canceled = true;
    for (const c of cancels) c();
  });
  const logs: string[] = [];
  let active = 0;
  const statsNow = () => ({
    task_run_stats: {
      total_iterations: stats.total,
      completed_iterations: stats.completed,
      succeeded_iterations: stats.succeeded,
      failed_iterations: stats.failed,
      active_iterations: active,
      scheduled_iterations: stats.total,
    },
  });
  // Every iteration is a task run of its own, as on Databricks: its own run_id, state and output, listed
  // as `iterations` by runs/get of the for-each task's run id; all are scheduled (PENDING) up front.
  const iterations: TaskRunRecord[] = items.map(() => ({
    run_id: d.store.newRunId(),
    task_key: fe.task!.task_key,
    spec: { ...fe.task! },
    attempt_number: 0,
    life: 'PENDING',
    message: '',
    start_time: 0,
    end_time: 0,
  }));
  const update = (i: number, change: (it: TaskRunRecord) => void) =>
    d.store.updateRun(input.run.run_id, (r) => {
      const parent = r.tasks.find((t) => t.run_id === input.task.run_id);
      if (!parent) return;
      if (i >= 0) {
        const it = parent.iterations?.find((x) => x.run_id === iterations[i]!.run_id);
        if (it) change(it);
      }
      parent.for_each_stats = statsNow();
    });
  d.store.updateRun(input.run.run_id, (r) => {
    const parent = r.tasks.find((t) => t.run_id === input.task.run_id);
    if (parent) {
      parent.iterations = iterations.map((x) => ({ ...x }));
      parent.for_each_stats = statsNow();
    }
  });
  let next = 0;
  const worker = async () => {
    while (next < items.length && !canceled) {
      const i = next++;
      const item = items[i];
      const iterInput = typeof item === 'string' ? item : JSON.stringify(item);
      const start = d.ctx.clock.now();
      active++;
      update(i, (it) => {
        it.life = 'RUNNING';
        it.start_time = start;
      });
      const out = await executeTask(d, {
        ...input,
        task: { ...iterations[i]!, life: 'RUNNING', start_time: start },
        input: iterInput,
        workDir: `${input.workDir}/iteration-${i}`,
        register: (c) => cancels.add(c),
      });
      active--;
      stats.completed++;
      if (out.result === 'SUCCESS') stats.succeeded++;
      else stats.failed++;
      if (out.output.logs) logs.push(out.output.logs);
      d.store.setOutput(iterations[i]!.run_id, out.output);
      update(i, (it) => {
        it.life = 'TERMINATED';
        it.result = out.result;
        it.message = out.message;
        it.end_time = d.ctx.clock.now();
        it.termination = termination(out.result, out.message);
        if (out.values && Object.keys(out.values).length) it.values = out.values;
        if (out.condition) it.condition = out.condition;
        if (out.clusterId) it.cluster_id = out.clusterId;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  // Iterations never started (a cancel) end as the run does.
  if (canceled) {
    for (let i = next; i < items.length; i++) {
      update(i, (it) => {
        it.life = 'TERMINATED';
        it.result = 'CANCELED';
        it.message = 'Run cancelled.';
        it.termination = termination('CANCELED', 'Run cancelled.');
      });
    }
  }
  const forEachStats = statsNow();
  if (canceled) return { result: 'CANCELED', message: 'Run cancelled.', output: {}, forEachStats };
  if (stats.failed > 0) {
    return { ...fail(`${stats.failed} of ${stats.total} iterations failed.`), forEachStats };
  }
  return {
    result: 'SUCCESS',
    message: '',
    output: { logs: logs.join(''), logs_truncated: false },
    forEachStats,
  };
}

async function sqlTask(d: ExecDeps, input: ExecInput, sql: Json, refs: RefContext): Promise<Outcome> {
  const file = sql.file as { path?: string; source?: string } | undefined;
  const saved = await savedSqlTask(d, sql, refs);
  if (saved) return saved;
  if (!file?.path)
    return fail(
      'Only sql_task with a file, a query or an alert is supported by MiniLake (dashboard is not).',
    );
  if (file.source === 'GIT') return fail('sql_task files from git_source are not supported by MiniLake.');
  const warehouse = String(sql.warehouse_id ?? '');
  const text = await d.files.localFileText(file.path, input.workDir);
  const params = resolveAll(asRecord(sql.parameters), refs);
  const r = await runSqlFile(d.ctx, { statement: text, warehouseId: warehouse, parameters: params });
  if (r.ok) return { result: 'SUCCESS', message: '', output: { logs: r.summary, logs_truncated: false } };
  return fail(r.error, { error: r.error });
}

/** sql_task `query` / `alert` (saved Databricks SQL objects, run by the sql-objects service); undefined otherwise. */
async function savedSqlTask(d: ExecDeps, sql: Json, refs: RefContext): Promise<Outcome | undefined> {
  const query = sql.query as { query_id?: string } | undefined;
  const alert = sql.alert as
    { alert_id?: string; subscriptions?: unknown[]; pause_subscriptions?: boolean } | undefined;
  let r;
  if (query?.query_id) {
    const parameters = resolveAll(asRecord(sql.parameters), refs);
    r = await runSavedQuery(d.ctx, { queryId: query.query_id, parameters });
  } else if (alert?.alert_id) {
    r = await runAlert(d.ctx, {
      alertId: alert.alert_id,
      subscriptions: alert.subscriptions ?? [],
      pauseSubscriptions: alert.pause_subscriptions === true,
    });
  } else return undefined;
  if (r.ok) return { result: 'SUCCESS', message: '', output: { logs: r.summary, logs_truncated: false } };
  return fail(r.error, { error: r.error });
}

async function sparkTask(d: ExecDeps, input: ExecInput, type: string, refs: RefContext): Promise<Outcome> {
  const { run, task, workDir } = input;
  const spec = task.spec;
  const over = run.overriding_parameters ?? {};
  const signal = { canceled: false };
  let current: { cancel(): void } | undefined;
  input.register(() => {
    signal.canceled = true;
    current?.cancel();
  });
  const secrets = new Set<string>();
  const compute = await computeFor(d, input, spec, secrets, signal);
  const widgets: Record<string, string> = {};
  for (const p of run.job_parameters ?? []) widgets[p.name] = p.value;
  let kind: SparkTask['kind'];
  let file: string;
  let args: string[] = [];
  let wheel: SparkTask['wheel'];
  let source: string | undefined;
  let sourcePath: string | undefined;
  let dependencies = compute.dependencies;
  if (type === 'spark_python_task') {
    const t = spec.spark_python_task as { python_file?: string; parameters?: string[]; source?: string };
    if (!t.python_file) return fail('spark_python_task.python_file is required.');
    if (t.source === 'GIT') return fail('Tasks from git_source are not supported by MiniLake.');
    kind = 'python';
    const pyPath = resolveRefs(t.python_file, refs);
    file = await d.files.localFile(pyPath, workDir);
    if (d.files.isWorkspacePath(pyPath)) sourcePath = pyPath;
    args = resolveAll(
      over.python_params !== undefined ? asStrings(over.python_params) : asStrings(t.parameters),
      refs,
    );
  } else if (type === 'notebook_task') {
    const t = spec.notebook_task as {
      notebook_path?: string;
      base_parameters?: Record<string, string>;
      source?: string;
    };
    if (!t.notebook_path) return fail('notebook_task.notebook_path is required.');
    if (t.source === 'GIT') return fail('Notebooks from git_source are not supported by MiniLake.');
    kind = 'notebook';
    const nb = await d.files.notebook(t.notebook_path, workDir);
    file = nb.file;
    source = nb.source;
    sourcePath = t.notebook_path;
    Object.assign(
      widgets,
      resolveAll(asRecord(t.base_parameters), refs),
      resolveAll(asRecord(over.notebook_params), refs),
    );
  } else {
    const t = spec.python_wheel_task as {
      package_name?: string;
      entry_point?: string;
      parameters?: string[];
      named_parameters?: Record<string, string>;
    };
    if (!t.package_name || !t.entry_point)
      return fail('python_wheel_task needs package_name and entry_point.');
    const wheels = [
      ...(spec.libraries ?? []).map((l) => l.whl).filter((x): x is string => typeof x === 'string'),
      ...(dependencies ?? []).filter((x) => x.endsWith('.whl')),
    ];
    if (wheels.length === 0)
      return fail('python_wheel_task needs a wheel in libraries (whl) or in its environment dependencies.');
    const local = await Promise.all(wheels.map((w) => d.files.localFile(w, workDir)));
    kind = 'wheel';
    file = local[0]!;
    dependencies = [...local.slice(1), ...(dependencies ?? []).filter((x) => !x.endsWith('.whl'))];
    args = resolveAll(
      over.python_params !== undefined ? asStrings(over.python_params) : asStrings(t.parameters),
      refs,
    );
    const named =
      over.python_named_params !== undefined
        ? asRecord(over.python_named_params)
        : asRecord(t.named_parameters);
    wheel = {
      packageName: t.package_name,
      entryPoint: t.entry_point,
      namedParameters: resolveAll(named, refs),
    };
  }
  const upstream: Record<string, Record<string, unknown>> = {};
  for (const [k, v] of Object.entries(refs.tasks)) upstream[k] = v.values;
  const timeout = spec.timeout_seconds ?? 0;
  const sparkTask: SparkTask = {
    id: String(task.run_id),
    kind,
    file,
    args,
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
    ...(wheel ? { wheel } : {}),
    ...(dependencies?.length ? { dependencies } : {}),
    ...(timeout > 0 ? { timeoutMs: timeout * 1000 } : {}),
    ...(secrets.size ? { redact: [...secrets] } : {}),
    ...(sourcePath ? { sourcePath } : {}),
    ...(compute.image && !compute.remote ? { executor: 'docker' as const, image: compute.image } : {}),
    ...(compute.remote ? { remote: compute.remote } : {}),
    ...(d.files.dbfsRoot ? { dbfsRoot: d.files.dbfsRoot } : {}),
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
    ...(source !== undefined ? { source } : {}),
  };
  const message =
    r.outcome === 'SUCCESS'
      ? ''
      : r.outcome === 'TIMEDOUT'
        ? `Task timed out after ${timeout} seconds.`
        : r.outcome === 'CANCELED'
          ? 'Run cancelled.'
          : (output.error ?? 'Workload failed, see run output for details');
  return {
    result: r.outcome,
    message,
    output,
    values: r.taskValues,
    ...(compute.clusterId ? { clusterId: compute.clusterId } : {}),
  };
}
