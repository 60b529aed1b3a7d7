import path from 'node:path';
import { defineService } from '@minilake/core';
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
  uses: ['unity-catalog'],
  create(ctx) {
    const dbfs = new DbfsStore(ctx.state, ctx.clock, ctx.dataDir);
    const volumes = new VolumeFiles(
      () => ctx.peer<VolumeResolver>('unity-catalog'),
      path.join(ctx.dataDir, 'files', 'tmp'),
    );
    return {
      app: filesApp(dbfs, volumes),
      state: [dbfs],
      api: { dbfsRoot: dbfs.root },
      close: () => dbfs.close(),
    };
  },
});
