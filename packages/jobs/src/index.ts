import { DatabricksError, defineService, type ServiceContext } from '@minilake/core';
import type { IamApi } from '@minilake/iam';
import { sparkConfigDefaults, sparkEngine } from '@minilake/engine-spark';
import { jobsApp } from './app.js';
import type { SparkEngine } from './engine.js';
import { FileResolver, type FilesPeer, type VolumesPeer, type WorkspacePeer } from './resolve.js';
import { Scheduler } from './scheduler.js';
import { JobsService } from './service.js';
import { JobsStore } from './store.js';
import type { ComputePeer, SecretsPeer } from './tasks.js';
import { Triggers } from './triggers.js';

export { JobsStore } from './store.js';
export type { JobRecord, RunRecord, TaskRunRecord, TaskOutput, LifeCycle } from './store.js';
export { Scheduler } from './scheduler.js';
export { JobsService } from './service.js';
export { jobsApp } from './app.js';
export { resolveRefs, type RefContext } from './refs.js';
export { quartz } from './triggers.js';
export type { SparkEngine, SparkTask, SparkTaskResult, SparkRun } from './engine.js';

/** What other services (mcp) may use. */
export interface JobsApi {
  service: JobsService;
  /** Resolves once the triggers have finished the folder polls the clock started (tests step the clock). */
  idle(): Promise<void>;
}

/** Registers the `jobs` permission type with iam (kept in one function: iam's registration call in one place). */
function registerJobPermissions(iam: IamApi | undefined, store: JobsStore) {
  iam?.registerObjectType(
    {
      request: 'jobs',
      objectType: 'job',
      levels: ['CAN_VIEW', 'CAN_MANAGE_RUN', 'IS_OWNER', 'CAN_MANAGE'],
      owner: 'IS_OWNER',
      admins: 'CAN_MANAGE',
    },
    { exists: (id) => store.hasJob(id), owner: (id) => store.jobOwner(id) },
  );
  return (jobId: number) => iam?.dropPermissions('jobs', String(jobId));
}

/** The Spark engine, created on first use (so a server without a Spark install starts, and says so per task). */
function engineLoader(ctx: ServiceContext): () => Promise<SparkEngine> {
  return () => sparkEngine(ctx);
}

function positiveInt(text: string | undefined, fallback: number): number {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export const jobsService = defineService<JobsApi>({
  name: 'jobs',
  description: 'Jobs API and a real scheduler: task DAGs on Spark, run_if, retries, timeouts, triggers',
  // Every peer is optional: the API and the non-code tasks work alone; each peer adds what it owns.
  optionalUses: ['iam', 'secrets', 'workspace', 'files', 'unity-catalog', 'compute', 'sql'],
  // The shared Spark engine this service opens keeps its files in <dataDir>/spark.
  folders: ['spark'],
  // The Spark engine is not a service: its MINILAKE_SPARK_* settings are declared by its user.
  configDefaults: { MINILAKE_JOBS_TASK_CONCURRENCY: '4', ...sparkConfigDefaults },
  create(ctx) {
    const store = new JobsStore(ctx.state, ctx.clock);
    const onJobDeleted = registerJobPermissions(ctx.optionalPeer<IamApi>('iam'), store);
    const files = new FileResolver({
      workspace: ctx.optionalPeer<WorkspacePeer>('workspace'),
      files: ctx.optionalPeer<FilesPeer>('files'),
      volumes: ctx.optionalPeer<VolumesPeer>('unity-catalog'),
    });
    let engine: Promise<SparkEngine> | undefined;
    const load = engineLoader(ctx);
    const getEngine = () => {
      engine ??= load().catch((e: unknown) => {
        engine = undefined; // an install that appears later is picked up by the next task
        throw e;
      });
      return engine;
    };
    const scheduler = new Scheduler({
      store,
      clock: ctx.clock,
      logger: ctx.logger,
      dir: ctx.dir,
      userName: ctx.identity.userName,
      taskConcurrency: positiveInt(ctx.config.MINILAKE_JOBS_TASK_CONCURRENCY, 4),
      deps: {
        engine: getEngine,
        files,
        secrets: ctx.optionalPeer<SecretsPeer>('secrets'),
        compute: ctx.optionalPeer<ComputePeer>('compute'),
        ctx,
      },
    });
    const { queued } = scheduler.recover();
    // Recovered queued runs start once the server listens: their tasks get its URL (DATABRICKS_HOST).
    let resume: NodeJS.Timeout | undefined;
    if (queued > 0) {
      resume = setInterval(() => {
        if (ctx.selfUrl() === undefined) return;
        clearInterval(resume);
        scheduler.resumeQueued();
      }, 25);
      resume.unref();
    }
    const triggers = new Triggers({
      store,
      clock: ctx.clock,
      logger: ctx.logger,
      files,
      start: (job, trigger) => scheduler.runJob(job, { trigger }),
    });
    scheduler.onFinished((r) => triggers.runEnded(r));
    triggers.armAll();
    const service = new JobsService({
      store,
      scheduler,
      triggers,
      clock: ctx.clock,
      userName: ctx.identity.userName,
      baseUrl: () => ctx.selfUrl() ?? '',
      hooks: {
        onJobDeleted,
        // The permissions API is iam's: the ACL goes through it exactly as a client's PUT would.
        setAcl: async (jobId, acl) => {
          if (!ctx.optionalPeer('iam')) return;
          const res = await ctx.request(`/api/2.0/permissions/jobs/${jobId}`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ access_control_list: acl }),
          });
          if (!res.ok) {
            const b = (await res.json().catch(() => ({}))) as { error_code?: string; message?: string };
            throw new DatabricksError(
              res.status,
              b.error_code ?? 'INVALID_PARAMETER_VALUE',
              b.message ?? 'Invalid access_control_list',
            );
          }
        },
      },
    });
    const state = {
      name: store.name,
      version: store.version,
      reset: async () => {
        await scheduler.close();
        triggers.close();
        await store.reset();
        scheduler.reopen();
        triggers.reopen();
      },
      snapshot: () => store.snapshot(),
      // A restored snapshot's running runs have no process behind them: they end as after a restart; its
      // queued runs start (the server already listens).
      restore: (snap: unknown) => {
        store.restore(snap);
        const { queued } = scheduler.recover(
          'The MiniLake state was restored from a snapshot taken while this run was active; the run did not continue.',
        );
        if (queued) scheduler.resumeQueued();
      },
    };
    return {
      app: jobsApp(service),
      state: [state],
      api: { service, idle: () => triggers.idle() },
      async close() {
        clearInterval(resume);
        triggers.close();
        await scheduler.close();
        if (engine) await (await engine.catch(() => undefined))?.close();
      },
    };
  },
});
