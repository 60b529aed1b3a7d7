import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService } from '@minilake/unity-catalog';
import { workspaceService } from '@minilake/workspace';
import { mlflowService, type MlflowApi } from '../src/index.js';

// The mlflow service in process with the real unity-catalog, workspace and files services (one data dir).
// No MLflow server is needed for models in Unity Catalog; tracking calls answer that it is not installed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (r: Response): Promise<any> => r.json();
let uc: Hono;
let ml: Hono;
let roots: MlflowApi['fileRoots'];
beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'minilake-mlflow-'));
  const config = { MINILAKE_MLFLOW_PYTHON: path.join(dataDir, 'no-python') };
  const peers = new Map<string, unknown>();
  const ucs = await serviceApp(unityCatalogService, { peers, dataDir });
  peers.set('unity-catalog', ucs.instance.api);
  uc = ucs.app;
  peers.set('workspace', (await serviceApp(workspaceService, { peers, dataDir })).instance.api);
  const mls = await serviceApp(mlflowService, { peers, dataDir, config });
  ml = mls.app;
  roots = mls.instance.api!.fileRoots;
  for (const c of ['mc', 'mc2']) {
    expect((await uc.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: c }))).status).toBe(
      200,
    );
    const s = await uc.request(
      '/api/2.1/unity-catalog/schemas',
      jsonInit('POST', { catalog_name: c, name: 'sch' }),
    );
    expect(s.status).toBe(200);
  }
});

const UC = '/api/2.1/unity-catalog/models';
const MLUC = '/api/2.0/mlflow/unity-catalog';
const create = (name: string, extra: Record<string, unknown> = {}) =>
  ml.request(UC, jsonInit('POST', { catalog_name: 'mc', schema_name: 'sch', name, ...extra }));

describe('/api/2.1/unity-catalog/models', () => {
  it('creates, gets, lists, updates, renames and deletes registered models', async () => {
    const m = await json(await create('Churn', { comment: 'first' }));
    expect(m).toMatchObject({
      name: 'churn',
      full_name: 'mc.sch.churn',
      catalog_name: 'mc',
      schema_name: 'sch',
      comment: 'first',
      owner: 'dev@minilake.local',
    });
    expect(m.storage_location).toMatch(/^file:\/\/.*\/mlflow\/models\//);
    expect(m.metastore_id).toBeTruthy();
    await expectDatabricksError(await create('churn'), 409, 'RESOURCE_ALREADY_EXISTS');
    await expectDatabricksError(
      await ml.request(UC, jsonInit('POST', { catalog_name: 'mc', schema_name: 'nope', name: 'x' })),
      404,
      'SCHEMA_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await create('x', { storage_location: '/tmp/x' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(await create('a.b'), 400, 'INVALID_PARAMETER_VALUE');
    for (const n of ['m1', 'm2', 'm3']) expect((await create(n)).status).toBe(200);
    const page1 = await json(await ml.request(`${UC}?catalog_name=mc&schema_name=sch&max_results=2`));
    expect(page1.registered_models.map((x: { name: string }) => x.name)).toEqual(['churn', 'm1']);
    const page2 = await json(
      await ml.request(
        `${UC}?catalog_name=mc&schema_name=sch&max_results=2&page_token=${page1.next_page_token}`,
      ),
    );
    expect(page2.registered_models.map((x: { name: string }) => x.name)).toEqual(['m2', 'm3']);
    expect(page2.next_page_token).toBeUndefined();
    const upd = await json(
      await ml.request(`${UC}/mc.sch.churn`, jsonInit('PATCH', { comment: 'second', new_name: 'churn2' })),
    );
    expect(upd).toMatchObject({
      full_name: 'mc.sch.churn2',
      comment: 'second',
      storage_location: m.storage_location,
    });
    await expectDatabricksError(await ml.request(`${UC}/mc.sch.churn`), 404, 'RESOURCE_DOES_NOT_EXIST');
    expect((await ml.request(`${UC}/mc.sch.churn2`, { method: 'DELETE' })).status).toBe(200);
    await expectDatabricksError(await ml.request(`${UC}/mc.sch.churn2`), 404, 'RESOURCE_DOES_NOT_EXIST');
    await expectDatabricksError(await ml.request(`${UC}/only.two`), 400, 'INVALID_PARAMETER_VALUE');
  });
});

describe('the mlflow client family over the same store', () => {
  it('creates a version, takes its files through /Models while pending, and finalizes it', async () => {
    const c = await ml.request(
      `${MLUC}/registered-models/create`,
      jsonInit('POST', { name: 'mc.sch.reg', description: 'd' }),
    );
    expect((await json(c)).registered_model).toMatchObject({ name: 'mc.sch.reg', description: 'd' });
    expect(
      await json(
        await ml.request(`${MLUC}/registered-models:is-databricks-sdk-models-artifact-repository-enabled`),
      ),
    ).toEqual({ is_databricks_sdk_models_artifact_repository_enabled: true });
    const v = (
      await json(
        await ml.request(
          `${MLUC}/model-versions/create`,
          jsonInit('POST', {
            name: 'mc.sch.reg',
            source: 'models:/m-1',
            run_id: 'r1',
            run_tracking_server_id: '123',
          }),
        ),
      )
    ).model_version;
    expect(v).toMatchObject({
      name: 'mc.sch.reg',
      version: '1',
      status: 'PENDING_REGISTRATION',
      run_tracking_server_id: '123',
    });
    // The /Models Files API root (mounted by the files service): the version's own folder, writable while
    // the version is pending (packages/files/test/mlflow-roots.test.ts drives it through the Files API).
    const pending = await roots.Models!.locate(['mc', 'sch', 'reg', '1', 'MLmodel'], 'write');
    expect(pending).toEqual({ dir: v.storage_location.slice('file://'.length), rest: ['MLmodel'] });
    const fin = await json(
      await ml.request(
        `${MLUC}/model-versions/finalize`,
        jsonInit('POST', { name: 'mc.sch.reg', version: '1' }),
      ),
    );
    expect(fin.model_version.status).toBe('READY');
    // READY: its files are read-only; reads still work.
    await expect(roots.Models!.locate(['mc', 'sch', 'reg', '1', 'x'], 'write')).rejects.toMatchObject({
      status: 403,
      errorCode: 'PERMISSION_DENIED',
    });
    expect((await roots.Models!.locate(['mc', 'sch', 'reg', '1'], 'read')).rest).toEqual([]);
    await expect(roots.Models!.locate(['mc', 'sch', 'reg', '9'], 'read')).rejects.toMatchObject({
      status: 404,
    });
    await expect(roots.Models!.locate(['mc', 'sch'], 'read')).rejects.toMatchObject({ status: 404 });
    // Alias, seen by both families.
    expect(
      (
        await ml.request(
          `${MLUC}/registered-models/alias`,
          jsonInit('POST', { name: 'mc.sch.reg', alias: 'Champion', version: '1' }),
        )
      ).status,
    ).toBe(200);
    expect((await json(await ml.request(`${UC}/mc.sch.reg/aliases/champion`))).version).toBe(1);
    const got = await json(await ml.request(`${UC}/mc.sch.reg?include_aliases=true`));
    expect(got.aliases).toMatchObject([{ alias_name: 'champion', version_num: 1 }]);
    expect((await json(await ml.request(`${UC}/mc.sch.reg`))).aliases).toBeUndefined();
    const byAlias = await json(
      await ml.request(`${MLUC}/registered-models/alias?name=mc.sch.reg&alias=champion`),
    );
    expect(byAlias.model_version).toMatchObject({
      version: '1',
      aliases: [{ alias: 'champion', version: '1' }],
    });
    const found = await json(
      await ml.request(`${MLUC}/model-versions/search?filter=${encodeURIComponent("name='mc.sch.reg'")}`),
    );
    expect(found.model_versions.map((x: { version: string }) => x.version)).toEqual(['1']);
    await expectDatabricksError(
      await ml.request(`${MLUC}/model-versions/search?filter=${encodeURIComponent('tags.x = 1')}`),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await ml.request(`${UC}/mc.sch.reg/aliases/latest`, jsonInit('PUT', { version_num: 1 })),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    const versions = await json(await ml.request(`${UC}/mc.sch.reg/versions`));
    expect(versions.model_versions).toMatchObject([
      { model_name: 'reg', version: 1, status: 'READY', run_workspace_id: 123 },
    ]);
    // Deleting the version drops its alias and its files.
    expect(
      (
        await ml.request(
          `${MLUC}/model-versions/delete`,
          jsonInit('DELETE', { name: 'mc.sch.reg', version: '1' }),
        )
      ).status,
    ).toBe(200);
    await expectDatabricksError(
      await ml.request(`${UC}/mc.sch.reg/aliases/champion`),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });
});

describe('models as Unity Catalog securables', () => {
  it('are granted as FUNCTIONs, block a plain schema delete, move with a renamed schema, go with a forced one', async () => {
    await ml.request(UC, jsonInit('POST', { catalog_name: 'mc2', schema_name: 'sch', name: 'g' }));
    const grant = await uc.request(
      '/api/2.1/unity-catalog/permissions/function/mc2.sch.g',
      jsonInit('PATCH', { changes: [{ principal: 'users', add: ['EXECUTE'] }] }),
    );
    expect((await json(grant)).privilege_assignments).toEqual([
      { principal: 'users', privileges: ['EXECUTE'] },
    ]);
    await expectDatabricksError(
      await uc.request('/api/2.1/unity-catalog/permissions/function/mc2.sch.nope'),
      404,
      'FUNCTION_DOES_NOT_EXIST',
    );
    // A renamed model keeps its grants.
    await ml.request(`${UC}/mc2.sch.g`, jsonInit('PATCH', { new_name: 'g2' }));
    const moved = await json(await uc.request('/api/2.1/unity-catalog/permissions/function/mc2.sch.g2'));
    expect(moved.privilege_assignments).toEqual([{ principal: 'users', privileges: ['EXECUTE'] }]);
    await expectDatabricksError(
      await uc.request('/api/2.1/unity-catalog/schemas/mc2.sch', { method: 'DELETE' }),
      400,
      'INVALID_STATE',
    );
    expect(
      (await uc.request('/api/2.1/unity-catalog/schemas/mc2.sch', jsonInit('PATCH', { new_name: 'sch2' })))
        .status,
    ).toBe(200);
    expect((await json(await ml.request(`${UC}/mc2.sch2.g2`))).schema_name).toBe('sch2');
    expect(
      (await uc.request('/api/2.1/unity-catalog/schemas/mc2.sch2?force=true', { method: 'DELETE' })).status,
    ).toBe(200);
    await expectDatabricksError(await ml.request(`${UC}/mc2.sch2.g2`), 404, 'RESOURCE_DOES_NOT_EXIST');
  });
});

describe('tracking without the MLflow install', () => {
  it('answers a Databricks error that says what to run', async () => {
    const res = await ml.request(
      '/api/2.0/mlflow/experiments/create',
      jsonInit('POST', { name: '/Users/x/e' }),
    );
    const err = await expectDatabricksError(res, 503, 'TEMPORARILY_UNAVAILABLE');
    expect(err.message).toContain('MINILAKE_MLFLOW_PYTHON');
    await expectDatabricksError(
      await ml.request('/api/2.0/mlflow/unity-catalog/prompts/get'),
      501,
      'NOT_IMPLEMENTED',
    );
  });
});
