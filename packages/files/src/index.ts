import { defineService } from '@minilake/core';

export type { FileInfo } from './dbfs.js';
export type { VolumeResolver, DirectoryEntry } from './volumes.js';

/** What other services (jobs) may use: where `dbfs:/` lives on disk. */
export interface FilesApi {
  /** The directory that holds DBFS root (`dbfs:/x` is `<dbfsRoot>/x`). */
  readonly dbfsRoot: string;
}

export const filesService = defineService<FilesApi>({
  name: 'files',
  description: 'DBFS and the Files API, including Unity Catalog volumes',
  // Volumes are served when unity-catalog is enabled (it owns their directories), MLflow's roots (/Models,
  // /WorkspaceInternal) when mlflow is; DBFS works alone.
  optionalUses: ['unity-catalog', 'mlflow'],
  // DBFS has always lived in `<dataDir>/dbfs` (not under the service's own folder): kept, so persisted
  // data stays where it is.
  folders: ['dbfs'],
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: ['/api/2.0/dbfs', '/api/2.0/fs'],
  async create(ctx) {
    return (await import('./create.js')).createFiles(ctx);
  },
});
