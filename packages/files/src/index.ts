import path from 'node:path';
import { defineService } from '@minilake/core';
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import { filesApp } from './app.js';
import { DbfsStore } from './dbfs.js';
import { VolumeFiles, type VolumeResolver } from './volumes.js';

export { DbfsStore } from './dbfs.js';
export type { FileInfo } from './dbfs.js';
export { VolumeFiles } from './volumes.js';
export type { VolumeResolver, DirectoryEntry } from './volumes.js';
export { filesApp } from './app.js';

/** What other services (jobs) may use: where `dbfs:/` lives on disk. */
export interface FilesApi {
  /** The directory that holds DBFS root (`dbfs:/x` is `<dbfsRoot>/x`). */
  readonly dbfsRoot: string;
}

export const filesService = defineService<FilesApi>({
  name: 'files',
  description: 'DBFS and the Files API, including Unity Catalog volumes',
  // Volumes are served when unity-catalog is enabled (it owns their directories); DBFS works alone.
  optionalUses: ['unity-catalog'],
  // DBFS has always lived in `<dataDir>/dbfs` (not under the service's own folder): kept, so persisted
  // data stays where it is.
  folders: ['dbfs'],
  create(ctx) {
    const dbfs = new DbfsStore(ctx.state, { clock: ctx.clock, dir: ctx.folder('dbfs') });
    const uc: VolumeResolver | undefined = ctx.optionalPeer<UnityCatalogApi>('unity-catalog');
    const volumes = new VolumeFiles(() => uc, {
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
  },
});
