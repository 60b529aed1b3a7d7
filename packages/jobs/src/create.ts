import path from 'node:path';
import { isAdmin, permissionDenied, type ServiceContext, type ServiceInstance } from '@minilake/core';
import { computeService } from '@minilake/compute';
import { filesService } from '@minilake/files';
import { iamService, type IamApi } from '@minilake/iam';
import { lakeviewService } from '@minilake/lakeview';
import { pipelinesService } from '@minilake/pipelines';
import { secretsService } from '@minilake/secrets';
import { sparkEngine } from '@minilake/engine-spark';
import { sqlService } from '@minilake/sql';
import { sqlObjectsService } from '@minilake/sql-objects';
import { unityCatalogService } from '@minilake/unity-catalog';
import { workspaceService } from '@minilake/workspace';
import { jobsApp } from './app.js';
import { ClusterLibraries } from './tasks/libraries.js';
import type { SparkEngine } from './engine.js';
import { FileResolver } from './resolve.js';
import { Scheduler } from './scheduler.js';
import { JobsService, type JobsAccess } from './service.js';
import { JobsStore, type RunRecord } from './store.js';
import { runTokens } from './tokens.js';
import { Triggers } from './triggers.js';
import type { JobsApi, JobsSettings } from './index.js';

/** Registers the `jobs` permission type with iam (kept in one function: iam's registration call in one place). */
function registerJobPermissions(iam: IamApi | undefined, store: JobsStore) {
  iam?.registerObjectType(
    {
      request: 'jobs',
      objectType: 'job',
      levels: ['CAN_VIEW', 'CAN_MANAGE_RUN', 'IS_OWNER', 'CAN_MANAGE'],
      owner: 'IS_OWNER',
      ownerRequired: true,
      admins: 'CAN_MANAGE',
      order: ['CAN_VIEW', 'CAN_MANAGE_RUN', 'CAN_MANAGE', 'IS_OWNER'],
      noun: 'job',
      // Databricks' own wording (databricks/cli acceptance/bundle/resources/permissions/jobs/
      // destroy_without_mgmtperms, run against the cloud): a read names "View or Admin or Manage Run or
      // Owner", a delete "Admin or Owner"; reading the ACL without CAN_MANAGE names the job by its
      // internal id.
      refusal: {
        words: { CAN_VIEW: 'View', CAN_MANAGE: 'Admin', CAN_MANAGE_RUN: 'Manage Run', IS_OWNER: 'Owner' },
        order: ['CAN_VIEW', 'CAN_MANAGE', 'CAN_MANAGE_RUN', 'IS_OWNER'],
      },
      aclNoun: 'Job with ID: ElasticJobId({id})',
    },
    { exists: (id) => store.hasJob(id), owner: (id) => store.jobOwner(id) },
  );
  return (jobId: number) => iam?.dropPermissions('jobs', String(jobId));
}

/** The caller's rights on jobs and runs, from iam (MINILAKE_ENFORCE=1); undefined: nothing is checked. */
function jobsAccess(ctx: ServiceContext<JobsSettings>, iam: IamApi | undefined): JobsAccess | undefined {
  if (!iam?.enforcing) return undefined;
  // A one-time run has no ACL of its own here: its submitter and the admins.
  const ownsRun = (run: RunRecord) => {
    const me = ctx.principal();
    return isAdmin(me) || me.userName === run.creator_user_name;
  };
  return {
    check: (jobId, level) => iam.check('jobs', String(jobId), level),
    can: (jobId, level) => iam.can('jobs', String(jobId), level),
    canOwnRun: ownsRun,
    checkOwnRun: (run, level) => {
      if (!ownsRun(run))
        // The jobs refusal's wording (see registerJobPermissions); no recorded reply covers a one-time run.
        throw permissionDenied(
          `User ${ctx.principal().userName} does not have ${level === 'CAN_VIEW' ? 'View or Admin or Manage Run or Owner' : 'Admin or Manage Run or Owner'} permissions on run ${run.run_id}`,
        );
    },
  };
}

/** The Spark engine, created on first use (so a server without a Spark install starts, and says so per task). */
function engineLoader(
  ctx: ServiceContext<JobsSettings>,
  catalogs: (() => string[]) | undefined,
  dbfsRoot: string | undefined,
): () => Promise<SparkEngine> {
  return async () => {
    const engine = await sparkEngine(ctx);
    // Tasks get Unity Catalog's catalogs as Spark catalogs: the list comes from the peer, not over HTTP.
    if (catalogs) engine.useCatalogs(catalogs);
    if (dbfsRoot) engine.useDbfsRoot(dbfsRoot);
    return engine;
  };
}

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createJobs(ctx: ServiceContext<JobsSettings>): ServiceInstance<JobsApi> {
  const store = new JobsStore(ctx.state, ctx.clock);
  const iam = ctx.optionalPeer(iamService);
  const onJobDeleted = registerJobPermissions(iam, store);
  const files = new FileResolver({
    workspace: ctx.optionalPeer(workspaceService),
    files: ctx.optionalPeer(filesService),
    volumes: ctx.optionalPeer(unityCatalogService),
  });
  let engine: Promise<SparkEngine> | undefined;
  const uc = ctx.optionalPeer(unityCatalogService);
  const load = engineLoader(
    ctx,
    uc && (() => uc.store.listCatalogs().map((c) => c.name)),
    ctx.optionalPeer(filesService)?.dbfsRoot,
  );
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
    // Read per use: the request's principal (MINILAKE_AUTH=tokens) creates the job or run; the configured
    // user outside a request (a schedule firing) and without authentication.
    get userName() {
      return ctx.principal().userName;
    },
    taskConcurrency: ctx.settings.MINILAKE_JOBS_TASK_CONCURRENCY,
    tokens: runTokens(iam),
    deps: {
      clock: ctx.clock,
      workspaceId: ctx.identity.workspaceId,
      selfUrl: () => ctx.selfUrl(),
      engine: getEngine,
      files,
      secrets: ctx.optionalPeer(secretsService),
      compute: ctx.optionalPeer(computeService),
      sql: ctx.optionalPeer(sqlService),
      sqlObjects: ctx.optionalPeer(sqlObjectsService),
      lakeview: ctx.optionalPeer(lakeviewService),
      clusterLibraries: new ClusterLibraries(path.join(ctx.dir, 'cluster-libraries')),
      pipelines: ctx.optionalPeer(pipelinesService),
      fault: (taskKey) => ctx.fault('task', taskKey),
    },
  });
  // Recovered queued runs, and runs whose lost task has a retry left, start once the server listens
  // (onListening): their tasks get its URL.
  const recovered = scheduler.recover();
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
    // Read per use: the request's principal (MINILAKE_AUTH=tokens) creates the job or run; the configured
    // user outside a request (a schedule firing) and without authentication.
    get userName() {
      return ctx.principal().userName;
    },
    links: () => ({ base: ctx.selfUrl() ?? '', workspaceId: ctx.identity.workspaceId }),
    access: jobsAccess(ctx, iam),
    hooks: {
      onJobDeleted,
      // The permissions API is iam's: the ACL is validated and stored exactly as a client's PUT would be.
      // A create's list may leave the owner out: the creator is the job's owner then, as on Databricks.
      setAcl: async (jobId, acl) => {
        const named = acl.some((a) => a.permission_level === 'IS_OWNER');
        const owner = { user_name: store.jobOwner(String(jobId)), permission_level: 'IS_OWNER' };
        iam?.setPermissions('jobs', String(jobId), named ? acl : [owner, ...acl]);
      },
    },
  });
  return {
    app: jobsApp(service),
    state: [store],
    api: { service, idle: () => triggers.idle(), waitForRun: (runId) => scheduler.waitFor(runId) },
    onListening() {
      if (recovered.queued > 0 || recovered.resumable > 0) scheduler.resume();
    },
    // Live runs and armed triggers stop before the store empties, and accept work again after (a reset or
    // a restore).
    async beforeReset() {
      await scheduler.close();
      triggers.close();
    },
    afterReset() {
      scheduler.reopen();
      triggers.reopen();
    },
    // A restored snapshot's running runs have no process behind them: they end as after a restart; its
    // queued runs start (the server already listens).
    afterRestore() {
      scheduler.reopen();
      triggers.reopen();
      const { queued, resumable } = scheduler.recover(
        'The MiniLake state was restored from a snapshot taken while this run was active; the run did not continue.',
      );
      if (queued || resumable) scheduler.resume();
    },
    async close() {
      triggers.close();
      await scheduler.close();
      if (engine) await (await engine.catch(() => undefined))?.close();
    },
  };
}
