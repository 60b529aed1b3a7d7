import path from 'node:path';
import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { mlflowService } from '@minilake/mlflow';
import { unityCatalogService } from '@minilake/unity-catalog';
import { filesApp } from './app.js';
import { DbfsStore } from './dbfs.js';
import { VolumeFiles, type VolumeResolver } from './volumes.js';
import type { FilesApi } from './index.js';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createFiles(ctx: ServiceContext): ServiceInstance<FilesApi> {
  const dbfs = new DbfsStore(ctx.state, { clock: ctx.clock, dir: ctx.folder('dbfs') });
  const uc: VolumeResolver | undefined = ctx.optionalPeer(unityCatalogService);
  // MLflow mounts /Models (model versions) and /WorkspaceInternal (run artifacts) when it is enabled.
  const mlflow = ctx.optionalPeer(mlflowService);
  const volumes = new VolumeFiles(() => uc, {
    roots: () => mlflow?.fileRoots,
    tmpDir: path.join(ctx.dir, 'tmp'),
    durable: ctx.state.persistent,
  });
  // Links a crash left between an overwrite and its reclaim (see Reclaimer): nothing is in flight yet.
  void dbfs.reclaim.sweep(dbfs.tmp);
  void volumes.reclaim.sweep(volumes.tmpDir);
  return {
    app: filesApp(dbfs, volumes),
    state: [dbfs],
    api: { dbfsRoot: dbfs.root },
    close: async () => {
      await dbfs.close();
      await volumes.reclaim.settled();
    },
  };
}
