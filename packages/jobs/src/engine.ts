/**
 * The Spark engine as jobs sees it. The engine lives in `@minilake/engine-spark`; this file names the part of
 * its interface the scheduler calls, so the scheduler can be given any engine (the host passes the real one).
 */
export interface SparkTask {
  id: string;
  kind: 'python' | 'notebook' | 'wheel';
  /** Absolute local path of the script, notebook source or wheel. */
  file: string;
  args: string[];
  widgets: Record<string, string>;
  wheel?: { packageName: string; entryPoint: string; namedParameters?: Record<string, string> };
  /** Environment variables for the task process, secrets already resolved. */
  env: Record<string, string>;
  sparkConf: Record<string, string>;
  compute: 'classic' | 'serverless';
  dependencies?: string[];
  /** Values set by upstream tasks, by task key. */
  taskValues: Record<string, Record<string, unknown>>;
  context: { jobId?: number; runId: number; taskRunId: number; taskKey: string };
  workDir: string;
  timeoutMs?: number;
}

export interface SparkTaskResult {
  outcome: 'SUCCESS' | 'FAILED' | 'TIMEDOUT' | 'CANCELED';
  exitCode: number | null;
  logs: string;
  logsTruncated: boolean;
  error?: string;
  errorTrace?: string;
  notebookResult?: string;
  taskValues: Record<string, unknown>;
}

export interface SparkRun {
  readonly result: Promise<SparkTaskResult>;
  cancel(): void;
}

export interface SparkEngine {
  launch(task: SparkTask): SparkRun;
  check(): Promise<void>;
  close(): Promise<void>;
}
