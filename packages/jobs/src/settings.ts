/**
 * Job settings as the wire carries them. Settings are kept as the client sent them (unknown fields included,
 * since Terraform and bundles send many this emulator never reads) plus only the defaults the real service
 * adds, so that a read after a write shows no drift.
 */
import { invalidParameter } from '@minilake/core';

export type Json = Record<string, unknown>;

export interface TaskSpec extends Json {
  task_key: string;
  depends_on?: { task_key: string; outcome?: string }[];
  run_if?: string;
  timeout_seconds?: number;
  max_retries?: number;
  min_retry_interval_millis?: number;
  retry_on_timeout?: boolean;
  existing_cluster_id?: string;
  job_cluster_key?: string;
  environment_key?: string;
  new_cluster?: Json;
  libraries?: Json[];
  disabled?: boolean;
}

export interface JobSettings extends Json {
  name?: string;
  tasks?: TaskSpec[];
  job_clusters?: { job_cluster_key: string; new_cluster?: Json }[];
  environments?: { environment_key: string; spec?: { dependencies?: string[]; client?: string } }[];
  parameters?: { name: string; default?: string }[];
  max_concurrent_runs?: number;
  timeout_seconds?: number;
  queue?: { enabled?: boolean };
  schedule?: { quartz_cron_expression: string; timezone_id?: string; pause_status?: string };
  trigger?: Json & { pause_status?: string };
  continuous?: { pause_status?: string };
  git_source?: Json;
  run_as?: Json;
}

export const RUN_IF = [
  'ALL_SUCCESS',
  'ALL_DONE',
  'NONE_FAILED',
  'AT_LEAST_ONE_SUCCESS',
  'ALL_FAILED',
  'AT_LEAST_ONE_FAILED',
] as const;

const TASK_KEY = /^[\w\-.]{1,100}$/;

const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Drops `null` values (null means absent on this API), recursively. */
export function dropNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(dropNulls) as T;
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = dropNulls(v);
  return out as T;
}

/** Checks what the real service checks before it stores a job: keys, dependencies, cycles, run_if. */
export function validateTasks(tasks: unknown, where = 'tasks'): TaskSpec[] {
  if (tasks === undefined) return [];
  if (!Array.isArray(tasks)) throw invalidParameter(`Invalid value for field '${where}': expected an array`);
  const keys = new Set<string>();
  for (const [i, t] of tasks.entries()) {
    if (!isObject(t)) throw invalidParameter(`Invalid value for field '${where}[${i}]': expected an object`);
    const key = t.task_key;
    if (typeof key !== 'string' || key === '')
      throw invalidParameter(`Task key must be specified (${where}[${i}]).`);
    if (!TASK_KEY.test(key)) {
      throw invalidParameter(
        `Invalid task_key '${key}': it may only contain alphanumeric characters, '_', '-' and '.', up to 100 characters.`,
      );
    }
    if (keys.has(key)) throw invalidParameter(`Task key '${key}' is used by more than one task.`);
    keys.add(key);
    if (t.run_if !== undefined && !(RUN_IF as readonly string[]).includes(t.run_if as string)) {
      throw invalidParameter(`Invalid run_if '${String(t.run_if)}' for task '${key}'.`);
    }
  }
  const byKey = new Map((tasks as TaskSpec[]).map((t) => [t.task_key, t]));
  for (const t of tasks as TaskSpec[]) {
    for (const d of t.depends_on ?? []) {
      if (!byKey.has(d.task_key)) {
        throw invalidParameter(
          `Task ${t.task_key} depends on ${d.task_key}, which does not exist in the job.`,
        );
      }
      if (d.task_key === t.task_key) throw invalidParameter(`Task ${t.task_key} depends on itself.`);
    }
  }
  // Kahn's algorithm: whatever is left once no task without pending dependencies remains is a cycle.
  const pending = new Map(
    [...byKey.values()].map((t) => [t.task_key, new Set((t.depends_on ?? []).map((d) => d.task_key))]),
  );
  let progress = true;
  while (progress) {
    progress = false;
    for (const [key, deps] of pending) {
      if (deps.size === 0) {
        pending.delete(key);
        for (const other of pending.values()) other.delete(key);
        progress = true;
      }
    }
  }
  if (pending.size > 0)
    throw invalidParameter(`The job's tasks form a cycle: ${[...pending.keys()].sort().join(', ')}.`);
  return tasks as TaskSpec[];
}

/** What the Jobs service answers for a git_source without a provider (as the CLI's own test server words it). */
const GIT_PROVIDERS =
  'github,gitlab,bitbucketcloud,gitlabenterpriseedition,bitbucketserver,azuredevopsservices,githubenterprise,awscodecommit';

function validateGitSource(git: unknown): void {
  if (git === undefined) return;
  if (!isObject(git)) throw invalidParameter("Invalid value for field 'git_source': expected an object");
  const provider = git.git_provider;
  if (typeof provider !== 'string' || !GIT_PROVIDERS.split(',').includes(provider.toLowerCase()))
    throw invalidParameter(`git_source.git_provider must be one of: ${GIT_PROVIDERS}`);
  if (typeof git.git_url !== 'string' || git.git_url === '')
    throw invalidParameter('Missing required field: git_source.git_url');
}

/**
 * A cluster spec the job would start: Databricks refuses it when it is saved (not when a run starts) if it
 * has no runtime or no size. A policy may fix either, so a spec naming one is left to the compute service.
 */
function validateNewCluster(spec: unknown): void {
  if (!isObject(spec) || (typeof spec.policy_id === 'string' && spec.policy_id !== '')) return;
  const missing = (field: string) =>
    invalidParameter(
      `Cluster validation error: Missing required field: settings.cluster_spec.new_cluster.${field}`,
    );
  if (typeof spec.spark_version !== 'string' || spec.spark_version === '') throw missing('spark_version');
  if (spec.num_workers === undefined && spec.autoscale === undefined) throw missing('size');
}

function validateClusters(s: JobSettings): void {
  validateNewCluster(s.new_cluster);
  for (const jc of s.job_clusters ?? []) validateNewCluster(jc.new_cluster);
  const tasks = (list: TaskSpec[] | undefined) => {
    for (const t of list ?? []) {
      validateNewCluster(t.new_cluster);
      const inner = (t.for_each_task as { task?: TaskSpec } | undefined)?.task;
      if (inner) tasks([inner]);
    }
  };
  tasks(s.tasks);
}

export function validateSettings(input: unknown, where = 'settings'): JobSettings {
  if (input === undefined) return {};
  if (!isObject(input)) throw invalidParameter(`Invalid value for field '${where}': expected an object`);
  const s = dropNulls(input) as JobSettings;
  validateTasks(s.tasks, 'tasks');
  validateGitSource(s.git_source);
  validateClusters(s);
  const mcr = s.max_concurrent_runs;
  if (mcr !== undefined && (!Number.isInteger(mcr) || mcr < 0 || mcr > 1000)) {
    throw invalidParameter('max_concurrent_runs must be between 0 and 1000.');
  }
  if (s.timeout_seconds !== undefined && (!Number.isInteger(s.timeout_seconds) || s.timeout_seconds < 0)) {
    throw invalidParameter("Invalid value for field 'timeout_seconds': must be a non-negative integer");
  }
  if (s.schedule && typeof s.schedule.quartz_cron_expression !== 'string') {
    throw invalidParameter('schedule.quartz_cron_expression is required.');
  }
  return s;
}

/** Adds the defaults the real Jobs service stores, and nothing else (see README, Fidelity). */
export function withServerDefaults(settings: JobSettings): JobSettings {
  const s: JobSettings = structuredClone(settings);
  s.email_notifications ??= {};
  s.webhook_notifications ??= {};
  s.timeout_seconds ??= 0;
  s.max_concurrent_runs ??= 1;
  // A legacy single-task job (task fields at the top, API 2.0) is stored as SINGLE_TASK.
  const single = !s.tasks && Object.keys(s).some((k) => k.endsWith('_task'));
  s.format ??= single ? 'SINGLE_TASK' : 'MULTI_TASK';
  s.name ??= 'Untitled';
  for (const t of s.tasks ?? []) normalizeTask(t, s.git_source !== undefined);
  return s;
}

export function normalizeTask(t: TaskSpec, git: boolean): TaskSpec {
  t.email_notifications ??= {};
  t.run_if ??= 'ALL_SUCCESS';
  t.timeout_seconds ??= 0;
  if (t.depends_on)
    t.depends_on.sort((a, b) => (a.task_key < b.task_key ? -1 : a.task_key > b.task_key ? 1 : 0));
  const nb = t.notebook_task as Json | undefined;
  if (nb && nb.source === undefined) nb.source = git ? 'GIT' : 'WORKSPACE';
  return t;
}

/** Merges by key: entries in `changes` replace or add entries with the same key (jobs/update semantics). */
function mergeKeyed<T extends Json>(current: T[] | undefined, changes: T[], key: string): T[] {
  const out = [...(current ?? [])];
  for (const c of changes) {
    const i = out.findIndex((x) => x[key] === c[key]);
    if (i >= 0) out[i] = c;
    else out.push(c);
  }
  return out;
}

const KEYED: Record<string, string> = {
  tasks: 'task_key',
  job_clusters: 'job_cluster_key',
  environments: 'environment_key',
  parameters: 'name',
};

/**
 * jobs/update: top-level fields of `changes` replace the stored ones, the keyed arrays (tasks, job_clusters,
 * environments, parameters) merge by key, and `fieldsToRemove` names top-level fields or `tasks/<key>`-style
 * entries to drop.
 */
export function applyUpdate(
  current: JobSettings,
  changes: JobSettings,
  fieldsToRemove: string[],
): JobSettings {
  const next: Json = structuredClone(current);
  for (const [k, v] of Object.entries(changes)) {
    const key = KEYED[k];
    next[k] = key && Array.isArray(v) ? mergeKeyed(next[k] as Json[] | undefined, v as Json[], key) : v;
  }
  for (const f of fieldsToRemove) {
    const slash = f.indexOf('/');
    if (slash < 0) {
      delete next[f];
      continue;
    }
    const field = f.slice(0, slash);
    const id = f.slice(slash + 1);
    const key = KEYED[field];
    if (!key) throw invalidParameter(`Invalid value in fields_to_remove: ${f}`);
    const list = (next[field] as Json[] | undefined) ?? [];
    if (!list.some((x) => x[key] === id)) throw invalidParameter(`Cannot remove ${f}: no such entry.`);
    next[field] = list.filter((x) => x[key] !== id);
  }
  return next as JobSettings;
}
