import type { ServiceContext, ServiceInstance, StateModule } from '@minilake/core';
import { computeService } from '@minilake/compute';
import { sparkEngine } from '@minilake/engine-spark';
import { connectApp } from './app.js';
import { Contexts } from './contexts.js';
import type { ConnectApi } from './index.js';
import { Upstreams } from './proxy.js';
import { Router } from './router.js';

/** The runtime a serverless session reports to a client that does not say which one it targets. */
const NEWEST_RUNTIME = '19.3.x-scala2.13';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export async function createConnect(ctx: ServiceContext): Promise<ServiceInstance<ConnectApi>> {
  const compute = ctx.peer(computeService);
  const spark = await sparkEngine(ctx);
  const upstreams = new Upstreams();
  const hold = Number(ctx.config.MINILAKE_CONNECT_HOLD ?? '20');
  const router = new Router({
    compute,
    spark,
    upstreams,
    logger: ctx.logger,
    holdMs: (Number.isFinite(hold) ? hold : 20) * 1000,
    newestRuntime: NEWEST_RUNTIME,
  });
  const contexts = new Contexts({ compute, spark, logger: ctx.logger, holdMs: 180_000 });
  // Execution contexts are processes, not persisted state: a reset ends them, a snapshot has none.
  const state: StateModule = {
    name: 'connect',
    version: 1,
    reset: () => contexts.clear(),
    snapshot: () => null,
    restore: () => contexts.clear(),
  };
  return {
    app: connectApp(contexts),
    state: [state],
    grpc: (stream, headers) => router.handle(stream, headers),
    close() {
      contexts.clear();
      upstreams.close();
    },
  };
}
