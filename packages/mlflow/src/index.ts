import { defineService, type FileRoot } from '@minilake/core';
import { mlflowSettings } from './install.js';

export { mlflowVersions, mlflowSettings, installDir, installCommand } from './install.js';

/** What other services use: the Files API roots of run artifacts and model versions. */
export interface MlflowApi {
  /** `WorkspaceInternal` (`/WorkspaceInternal/Mlflow/Artifacts/...`) and `Models` (`/Models/<c>/<s>/<m>/<v>/...`). */
  readonly fileRoots: Readonly<Record<string, FileRoot>>;
}

export const mlflowService = defineService<MlflowApi, typeof mlflowSettings>({
  name: 'mlflow',
  description:
    'MLflow tracking on the real MLflow server; experiments as workspace objects; models in Unity Catalog',
  // Experiments are workspace objects; registered models live in Unity Catalog's namespace and grants;
  // experiment permissions are iam's when it is on.
  uses: ['workspace', 'unity-catalog'],
  optionalUses: ['iam'],
  settings: mlflowSettings,
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then. The MLflow
  // server itself starts later still, on the first request that needs it.
  paths: [
    '/api/2.0/mlflow',
    '/api/2.0/preview/mlflow',
    '/api/3.0/mlflow',
    '/ajax-api',
    '/mlflow',
    '/ml/experiments',
    '/api/2.1/unity-catalog/models',
    '/api/2.1/unity-catalog/temporary-model-version-credentials',
    '/api/2.0/permissions/experiments',
    '/_minilake/mlflow',
  ],
  async create(ctx) {
    return (await import('./create.js')).createMlflow(ctx);
  },
});
