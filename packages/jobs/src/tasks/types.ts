/**
 * What a task executor is: the settings field that names its type (`spark_python_task`), a valibot schema of
 * that field's settings, and `run`, which does the work and reports an Outcome. The registry (index.ts) finds
 * the executor of a task, resolves and validates its settings, and turns a TaskFileError into a FAILED task.
 */
import type { Clock, InjectedFault } from '@minilake/core';
import type { ComputeApi } from '@minilake/compute';
import type { PipelinesApi } from '@minilake/pipelines';
import type { SecretsApi } from '@minilake/secrets';
import type { SqlApi } from '@minilake/sql';
import type { SqlObjectsApi } from '@minilake/sql-objects';
import type { LakeviewApi } from '@minilake/lakeview';
import { v } from '@minilake/core';
import type { SparkEngine } from '../engine.js';
import type { RefContext } from '../refs.js';
import type { FileResolver } from '../resolve.js';
import type { GitCheckouts } from './git.js';
import type { ClusterLibraries } from './libraries.js';
import type { Json } from '../settings.js';
import type { JobsStore, RunRecord, TaskOutput, TaskRunRecord } from '../store.js';

export interface Outcome {
  result: 'SUCCESS' | 'FAILED' | 'TIMEDOUT' | 'CANCELED';
  message: string;
  output: TaskOutput;
  values?: Record<string, unknown>;
  condition?: { left: string; right: string; op: string; outcome: 'true' | 'false' };
  clusterId?: string;
  forEachStats?: Json;
  runJobRunId?: number;
  /** A serverless environment's workload failed (the run then ends INTERNAL_ERROR, as on Databricks). */
  serverlessFailure?: boolean;
}

/** What executors work with: the jobs store, the Spark engine, and the peers' Apis (each optional). */
export interface ExecDeps {
  store: JobsStore;
  clock: Clock;
  workspaceId: string;
  /** The server's URL once it listens (DATABRICKS_HOST of a task, `{{workspace.url}}`). */
  selfUrl(): string | undefined;
  engine: () => Promise<SparkEngine>;
  files: FileResolver;
  secrets?: SecretsApi | undefined;
  compute?: ComputeApi | undefined;
  sql?: SqlApi | undefined;
  sqlObjects?: SqlObjectsApi | undefined;
  lakeview?: Pick<LakeviewApi, 'refresh'> | undefined;
  /** Each run's checkout of its job's git_source (git.ts). */
  git: GitCheckouts;
  /** Wheels installed on all-purpose clusters (libraries.ts). */
  clusterLibraries?: ClusterLibraries | undefined;
  pipelines?: PipelinesApi | undefined;
  /** Runs a task through the registry (a for-each iteration). */
  execute(input: ExecInput): Promise<Outcome>;
  /** A fault injected for a task about to run, by its task key (ServiceContext.fault). */
  fault?(taskKey: string): InjectedFault | undefined;
  runJob(
    jobId: number,
    req: { job_parameters?: Record<string, string>; parent_task_run_id?: number },
  ): { runId: number; done: Promise<RunRecord>; cancel(): void };
}

export interface ExecInput {
  run: RunRecord;
  task: TaskRunRecord;
  workDir: string;
  /** The run's own token: what its task processes call the server back with (DATABRICKS_TOKEN). */
  token: string;
  /** Registers how to stop the task's work (a process, a statement, a child run). */
  register(cancel: () => void): void;
  /** The for_each input of an iteration. */
  input?: string;
}

export interface TaskExecutor<S extends v.GenericSchema = v.GenericSchema> {
  /** The task settings field that names this type, as Databricks spells it (`condition_task`). */
  field: string;
  /** The field's settings; a task whose settings do not parse fails with the schema's message. */
  settings: S;
  /** `{{...}}` references in the whole field are resolved before it is validated (else `run` resolves). */
  resolveRefs?: boolean;
  run(d: ExecDeps, input: ExecInput, settings: v.InferOutput<S>, refs: RefContext): Promise<Outcome>;
}

/** Declares an executor with its settings' type inferred from the schema. */
export function defineTask<S extends v.GenericSchema>(e: TaskExecutor<S>): TaskExecutor<S> {
  return e;
}

/** A task that fails for a reason it can say (a missing file, a peer that is off): FAILED with that message. */
export { TaskFileError } from '../resolve.js';

export const fail = (message: string, output: TaskOutput = { error: message }): Outcome => ({
  result: 'FAILED',
  message,
  output,
});

/** Settings values as the wire carries them: scalars are read as text (parameters, widgets). */
export const text = v.pipe(v.union([v.string(), v.number(), v.boolean()]), v.transform(String));
export const texts = v.array(text);
export const textMap = v.record(v.string(), text);
