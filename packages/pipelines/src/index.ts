import { defineService, type SettingsOf } from '@minilake/core';
import { sparkSettings } from '@minilake/engine-spark';

export type { PipelineRecord, UpdateRecord, UpdateState } from './store.js';

/** What other services use: jobs' `pipeline_task`, the SQL warehouse's CREATE MATERIALIZED VIEW. */
export interface PipelinesApi {
  /** Starts an update as the API's `POST .../updates` does (cause JOB_TASK for a job's task). */
  startUpdate(
    pipelineId: string,
    opts?: { fullRefresh?: boolean; cause?: 'API_CALL' | 'JOB_TASK' | 'USER_ACTION' },
  ): Promise<{ update_id: string }>;
  /** Resolves with the update's final state (COMPLETED, FAILED, CANCELED) and its error, if any. */
  waitForUpdate(
    pipelineId: string,
    updateId: string,
  ): Promise<{ state: string; error?: string; validateOnly?: boolean }>;
  /** Stops the pipeline's active update (as `POST .../stop`). */
  stop(pipelineId: string): Promise<void>;
  /**
   * The SQL warehouse's CREATE MATERIALIZED VIEW / STREAMING TABLE, REFRESH and DROP of them, as a pipeline
   * per dataset; resolves once its update has ended, throws (DatabricksError) when it failed.
   */
  runDatasetStatement(req: {
    action: 'create' | 'upsert' | 'replace' | 'refresh' | 'drop';
    full_name: string;
    statement?: string;
    full_refresh?: boolean;
    if_exists?: boolean;
    if_not_exists?: boolean;
  }): Promise<{ pipeline_id?: string; update_id?: string }>;
}

/** The Spark engine's settings (not a service: its user declares them). */
export const pipelinesSettings = { ...sparkSettings };
export type PipelinesSettings = SettingsOf<typeof pipelinesSettings>;

export const pipelinesService = defineService<PipelinesApi, typeof pipelinesSettings>({
  name: 'pipelines',
  description:
    'Lakeflow Declarative Pipelines on Spark Declarative Pipelines: updates, events, datasets in Unity Catalog',
  // Sources are workspace files; datasets are Unity Catalog tables.
  uses: ['unity-catalog', 'workspace'],
  // files: dbfs:/ in the Spark sessions an update runs on.
  optionalUses: ['iam', 'files'],
  // The shared Spark engine this service opens keeps its files in <dataDir>/spark.
  folders: ['spark'],
  settings: pipelinesSettings,
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then. The
  // `/_minilake/pipelines` routes are the engine's own (a running update reports there).
  paths: ['/api/2.0/pipelines', '/api/2.0/permissions/pipelines', '/_minilake/pipelines'],
  async create(ctx) {
    return (await import('./create.js')).createPipelines(ctx);
  },
});
