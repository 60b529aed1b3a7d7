/**
 * Where a code task runs: an existing cluster, a job cluster (shared by `job_cluster_key`, or the task's own
 * `new_cluster`) made in the compute service, or serverless with an environment's dependencies.
 */
import type { Json, TaskSpec } from '../settings.js';
import { resolveSecrets } from './context.js';
import { TaskFileError, type ExecDeps, type ExecInput } from './types.js';

export interface Compute {
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

/** How Databricks ends a job cluster once its work is done. */
export const JOB_FINISHED = { code: 'JOB_FINISHED', type: 'SUCCESS', parameters: {} };

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

/**
 * Resolves once the cluster is RUNNING, starting it when it is stopped. The compute service's state machine
 * runs on the injected clock, so this waits on that clock too: a test steps it instead of waiting in real
 * time, and a server sees each state change within 50 ms.
 */
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
    await new Promise<void>((resolve) => d.clock.setTimeout(resolve, 50));
  }
}

export async function computeFor(
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
    // tasks and notebooks attached to one cluster share its Spark application. The driver's Python sees the
    // cluster's spark_env_vars; its spark_conf is the server's already.
    const port = d.compute.sparkPort(clusterId);
    if (port !== undefined) {
      const vars = (cluster.spark_env_vars as Record<string, string>) ?? {};
      const env = resolveSecrets(d, 'spark_env_vars', vars, secrets);
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
