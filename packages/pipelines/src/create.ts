import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { sparkEngine, type SparkEngine } from '@minilake/engine-spark';
import { filesService } from '@minilake/files';
import { iamService, objectAccess, type IamApi } from '@minilake/iam';
import { unityCatalogService } from '@minilake/unity-catalog';
import { workspaceService } from '@minilake/workspace';
import { pipelinesApp } from './app.js';
import { UpdateRunner } from './runner.js';
import { PipelinesService, type PipelineLevel } from './service.js';
import { SourceResolver } from './sources.js';
import { SqlDatasets } from './sql-datasets.js';
import { PipelinesStore } from './store.js';
import type { PipelinesApi, PipelinesSettings } from './index.js';

/** The `pipelines` permission type (iam's permissions API serves it; this package owns the objects). */
function registerPermissions(iam: IamApi | undefined, store: PipelinesStore) {
  iam?.registerObjectType(
    {
      request: 'pipelines',
      objectType: 'pipelines',
      levels: ['CAN_VIEW', 'CAN_RUN', 'CAN_MANAGE', 'IS_OWNER'],
      owner: 'IS_OWNER',
      admins: 'CAN_MANAGE',
      // Enforced refusals name it `pipeline <id>` (jobs' wording; see the README).
      noun: 'pipeline',
    },
    {
      exists: (id) => store.hasPipeline(id),
      owner: (id) => (store.hasPipeline(id) ? store.pipeline(id).creator_user_name : undefined),
    },
  );
  return (pipelineId: string) => iam?.dropPermissions('pipelines', pipelineId);
}

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createPipelines(ctx: ServiceContext<PipelinesSettings>): ServiceInstance<PipelinesApi> {
  const store = new PipelinesStore(ctx.state, ctx.clock);
  const uc = ctx.peer(unityCatalogService);
  const workspace = ctx.peer(workspaceService);
  const iam = ctx.optionalPeer(iamService);
  const onDeleted = registerPermissions(iam, store);
  // MINILAKE_ENFORCE=1: the caller's level on a pipeline, through iam's one evaluation.
  const access = objectAccess<PipelineLevel>(iam, 'pipelines');
  const files = ctx.optionalPeer(filesService);
  // The Spark engine is the host's one (shared with jobs), opened on the first update.
  let engine: Promise<SparkEngine> | undefined;
  const getEngine = () => {
    engine ??= sparkEngine(ctx).then(
      (e) => {
        // Its sessions get Unity Catalog's catalogs from the peer, not over HTTP, and dbfs:/ from files.
        e.useCatalogs(() => uc.store.listCatalogs().map((c) => c.name));
        if (files) e.useDbfsRoot(files.dbfsRoot);
        return e;
      },
      (e: unknown) => {
        engine = undefined;
        throw e;
      },
    );
    return engine;
  };
  const runner = new UpdateRunner({
    store,
    clock: ctx.clock,
    logger: ctx.logger.child('pipelines'),
    dir: ctx.dir,
    engine: getEngine,
    uc,
    sources: new SourceResolver(workspace),
    orgId: ctx.identity.workspaceId,
  });
  runner.recover();
  const service = new PipelinesService({
    store,
    runner,
    clock: ctx.clock,
    // Read per use: the request's principal (MINILAKE_AUTH=tokens) creates and owns the pipeline.
    get userName() {
      return ctx.principal().userName;
    },
    uc,
    onDeleted,
    ...(access ? { access } : {}),
  });
  const sqlDatasets = new SqlDatasets({ store, service, runner, uc });
  return {
    app: pipelinesApp(service, runner),
    state: [store],
    api: {
      startUpdate: async (pipelineId, opts = {}) =>
        service.startUpdate(
          pipelineId,
          {
            ...(opts.fullRefresh ? { full_refresh: true } : {}),
            cause: opts.cause ?? 'API_CALL',
          },
          false,
        ),
      waitForUpdate: async (pipelineId, updateId) => {
        const u = await runner.waitFor(pipelineId, updateId);
        return { state: u.state, ...(u.error ? { error: u.error } : {}), validateOnly: u.validate_only };
      },
      stop: (pipelineId) => service.stop(pipelineId, false),
      runDatasetStatement: (req) => sqlDatasets.run(req),
    },
    // Running updates stop before the store empties, and the runner accepts updates again after.
    beforeReset: () => runner.close(),
    afterReset: () => runner.reopen(),
    // A restored snapshot's running updates have no process behind them: they end as after a restart.
    afterRestore() {
      runner.reopen();
      runner.recover(
        'The MiniLake state was restored from a snapshot taken while this update was running; it did not continue.',
      );
    },
    async close() {
      await runner.close();
    },
  };
}
