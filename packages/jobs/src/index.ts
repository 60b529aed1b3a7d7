import { defineService, numberSetting, type SettingsOf } from '@minilake/core';
import { sparkSettings } from '@minilake/engine-spark';

import type { JobsService } from './service.js';
import type { RunRecord } from './store.js';

export type { JobRecord, RunRecord, TaskRunRecord, TaskOutput, LifeCycle } from './store.js';
export type { RefContext } from './refs.js';
export type { JobsService } from './service.js';
export type { SparkEngine, SparkTask, SparkTaskResult, SparkRun } from './engine.js';

/** What other services (mcp) may use. */
export interface JobsApi {
  service: JobsService;
  /** Resolves once the triggers have finished the folder polls the clock started (tests step the clock). */
  idle(): Promise<void>;
  /** Resolves with the run once it is no longer active (at once for a finished or unknown run). */
  waitForRun(runId: number): Promise<RunRecord | undefined>;
}

/** The jobs service's settings, and the Spark engine's (not a service: its user declares them). */
export const jobsSettings = {
  MINILAKE_JOBS_TASK_CONCURRENCY: numberSetting({
    doc: 'Job tasks that run at once across all runs (independent branches of a DAG run in parallel up to this).',
    default: 4,
    integer: true,
    min: 1,
  }),
  ...sparkSettings,
};
export type JobsSettings = SettingsOf<typeof jobsSettings>;

export const jobsService = defineService<JobsApi, typeof jobsSettings>({
  name: 'jobs',
  description: 'Jobs API and a real scheduler: task DAGs on Spark, run_if, retries, timeouts, triggers',
  // Every peer is optional: the API and the non-code tasks work alone; each peer adds what it owns.
  optionalUses: ['iam', 'secrets', 'workspace', 'files', 'unity-catalog', 'compute', 'sql', 'sql-objects'],
  // The shared Spark engine this service opens keeps its files in <dataDir>/spark.
  folders: ['spark'],
  settings: jobsSettings,
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: ['/api/2.2/jobs', '/api/2.1/jobs', '/api/2.0/jobs', '/api/2.0/permissions/jobs'],
  async create(ctx) {
    return (await import('./create.js')).createJobs(ctx);
  },
});
