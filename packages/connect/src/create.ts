import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { computeService } from '@minilake/compute';
import { sparkEngine } from '@minilake/engine-spark';
import { filesService } from '@minilake/files';
import { connectApp } from './app.js';
import { Contexts } from './contexts.js';
import type { ConnectApi, ConnectSettings } from './index.js';
import { Upstreams } from './proxy.js';
import { Router } from './router.js';

/** The runtime a serverless session reports to a client that does not say which one it targets. */
const NEWEST_RUNTIME = '19.3.x-scala2.13';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export async function createConnect(
  ctx: ServiceContext<ConnectSettings>,
): Promise<ServiceInstance<ConnectApi>> {
  const compute = ctx.peer(computeService);
  const spark = await sparkEngine(ctx);
  // Sessions on the shared server see dbfs:/ as jobs' tasks do, whoever starts the server first.
  const files = ctx.optionalPeer(filesService);
  if (files) spark.useDbfsRoot(files.dbfsRoot);
  const upstreams = new Upstreams();
  const router = new Router({
    compute,
    spark,
    upstreams,
    logger: ctx.logger,
    holdMs: ctx.settings.MINILAKE_CONNECT_HOLD * 1000,
    newestRuntime: NEWEST_RUNTIME,
  });
  const contexts = new Contexts({ compute, spark, logger: ctx.logger, holdMs: 180_000, upstreams });
  return {
    app: connectApp(contexts),
    // Execution contexts are processes, not persisted state: a reset (or a restore) ends them.
    state: [],
    beforeReset: () => contexts.clear(),
    grpc: (stream, headers) => router.handle(stream, headers),
    grpcSplice: (headers) => router.splice(headers),
    close() {
      contexts.clear();
      upstreams.close();
    },
  };
}
