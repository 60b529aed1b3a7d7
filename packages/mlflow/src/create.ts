import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Hono } from 'hono';
import type { FileRoot, ServiceContext, ServiceInstance } from '@minilake/core';
import { iamService } from '@minilake/iam';
import { unityCatalogService } from '@minilake/unity-catalog';
import { workspaceService } from '@minilake/workspace';
import { ExperimentAccess } from './access.js';
import { Artifacts } from './artifacts.js';
import { artifactNotFound } from './errors.js';
import { Experiments } from './experiments.js';
import type { MlflowApi } from './index.js';
import { mlflowSettingsOf, type MlflowSettingValues } from './install.js';
import { modelsApp } from './models/app.js';
import { ModelStore } from './models/store.js';
import { MlflowServer } from './server.js';
import { trackingApp } from './tracking.js';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createMlflow(ctx: ServiceContext<MlflowSettingValues>): ServiceInstance<MlflowApi> {
  const workspace = ctx.peer(workspaceService);
  const uc = ctx.peer(unityCatalogService);
  const iam = ctx.optionalPeer(iamService);
  const server = new MlflowServer({
    settings: mlflowSettingsOf(ctx.settings),
    dir: ctx.dir,
    logger: ctx.logger,
  });
  const artifactsDir = path.join(ctx.dir, 'artifacts');
  const artifacts = new Artifacts(server, artifactsDir);
  const experiments = new Experiments(ctx.state, {
    server,
    workspace,
    iam,
    user: () => ctx.principal().userName,
    dir: ctx.dir,
    artifactsDir,
    logger: ctx.logger,
  });
  experiments.onDeletedByWorkspace = () => artifacts.forget();
  const acl = new ExperimentAccess({ iam, workspace, experiments, server });
  const models = new ModelStore(ctx.state, {
    clock: ctx.clock,
    user: ctx.identity.userName,
    dir: path.join(ctx.dir, 'models'),
    uc,
  });
  uc.registerExternal(models.asSecurables());
  // A model's grants (FUNCTION in Unity Catalog) follow its renames and go with it.
  models.onRenamed = (from, to) => uc.moveGrants('function', from, to);

  const notFoundHere = (p: string) => artifactNotFound(p);
  const fileRoots: Record<string, FileRoot> = {
    WorkspaceInternal: {
      async locate(rest, access) {
        const [m, a, exp, kindSeg, id, ...more] = rest;
        if (
          m !== 'Mlflow' ||
          a !== 'Artifacts' ||
          !exp ||
          !id ||
          (kindSeg !== 'Runs' && kindSeg !== 'LoggedModels')
        )
          throw notFoundHere(`/WorkspaceInternal/${rest.join('/')}`);
        const kind = kindSeg === 'Runs' ? 'runs' : 'logged_models';
        const o = await artifacts.owner(kind, id);
        if (o.experimentId !== exp) throw notFoundHere(`/WorkspaceInternal/${rest.join('/')}`);
        // The Files API path of a run's or logged model's artifacts: its experiment's read or edit level.
        acl.check(exp, access === 'write' ? 'CAN_EDIT' : 'CAN_READ');
        // Checked (active run, path inside) as every artifact write is.
        if (access === 'write') await artifacts.file(o, '', 'write');
        const dir =
          kind === 'runs'
            ? path.join(artifactsDir, exp, id)
            : path.join(artifactsDir, exp, 'logged_models', id);
        if (access === 'write') await mkdir(dir, { recursive: true });
        return { dir, rest: more };
      },
    },
    Models: {
      async locate(rest, access) {
        const [c, s, m, version, ...more] = rest;
        if (!c || !s || !m || !version) throw notFoundHere(`/Models/${rest.join('/')}`);
        return { dir: models.versionFiles(`${c}.${s}.${m}`, version, access), rest: more };
      },
    },
  };

  const app = new Hono();
  // Unity Catalog's model routes first: the tracking app passes the rest of /api/2.0/mlflow to the server.
  app.route(
    '/',
    modelsApp(models, () => ({
      store: models,
      metastoreId: uc.metastoreId(),
      workspaceId: ctx.identity.workspaceId,
    })),
  );
  app.route(
    '/',
    trackingApp({
      server,
      access: acl,
      experiments,
      artifacts,
      clock: ctx.clock,
      workspaceId: ctx.identity.workspaceId,
    }),
  );
  return {
    app,
    state: [experiments, models],
    api: { fileRoots },
    close: () => server.stop(),
  };
}
