import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { mlflowService } from '@minilake/mlflow';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { unityCatalogService } from '@minilake/unity-catalog';
import { workspaceService } from '@minilake/workspace';
import { filesService } from '../src/index.js';

// The Files API roots the mlflow service mounts, with the real services in process (no MLflow server: a
// model version's files need none). Run artifacts under /WorkspaceInternal are driven by e2e/mlflow.
let ml: Hono;
let files: Hono;
beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'minilake-files-mlflow-'));
  const peers = new Map<string, unknown>();
  const uc = await serviceApp(unityCatalogService, { peers, dataDir });
  peers.set('unity-catalog', uc.instance.api);
  peers.set('workspace', (await serviceApp(workspaceService, { peers, dataDir })).instance.api);
  const mls = await serviceApp(mlflowService, {
    peers,
    dataDir,
    config: { MINILAKE_MLFLOW_PYTHON: '/none' },
  });
  peers.set('mlflow', mls.instance.api);
  ml = mls.app;
  files = (await serviceApp(filesService, { peers, dataDir })).app;
  expect(
    (await uc.app.request('/api/2.1/unity-catalog/catalogs', jsonInit('POST', { name: 'fm' }))).status,
  ).toBe(200);
});

describe('the /Models root', () => {
  it("serves a model version's files: writable while pending, read-only once READY", async () => {
    await ml.request(
      '/api/2.1/unity-catalog/models',
      jsonInit('POST', { catalog_name: 'fm', schema_name: 'default', name: 'm' }),
    );
    const v = await (
      await ml.request(
        '/api/2.0/mlflow/unity-catalog/model-versions/create',
        jsonInit('POST', { name: 'fm.default.m' }),
      )
    ).json();
    const dir = (v as { model_version: { storage_location: string } }).model_version.storage_location.slice(
      7,
    );
    expect(
      (
        await files.request('/api/2.0/fs/files/Models/fm/default/m/1/sub/MLmodel', {
          method: 'PUT',
          body: 'a',
        })
      ).status,
    ).toBe(204);
    expect(await readFile(path.join(dir, 'sub', 'MLmodel'), 'utf8')).toBe('a');
    const list = await (await files.request('/api/2.0/fs/directories/Models/fm/default/m/1')).json();
    expect(list).toEqual({
      contents: [expect.objectContaining({ path: '/Models/fm/default/m/1/sub/', is_directory: true })],
    });
    // The version's own folder is not deleted through the Files API.
    await expectDatabricksError(
      await files.request('/api/2.0/fs/directories/Models/fm/default/m/1', { method: 'DELETE' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await ml.request(
      '/api/2.0/mlflow/unity-catalog/model-versions/finalize',
      jsonInit('POST', { name: 'fm.default.m', version: '1' }),
    );
    await expectDatabricksError(
      await files.request('/api/2.0/fs/files/Models/fm/default/m/1/x', { method: 'PUT', body: 'b' }),
      403,
      'PERMISSION_DENIED',
    );
    await expectDatabricksError(
      await files.request('/api/2.0/fs/files/Models/fm/default/m/1/sub/MLmodel', { method: 'DELETE' }),
      403,
      'PERMISSION_DENIED',
    );
    expect(await (await files.request('/api/2.0/fs/files/Models/fm/default/m/1/sub/MLmodel')).text()).toBe(
      'a',
    );
    await expectDatabricksError(
      await files.request('/api/2.0/fs/files/Models/fm/default/nope/1/x'),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await files.request('/api/2.0/fs/files/Nowhere/x'),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });

  it('names this server as the one Files API endpoint', async () => {
    const r = await files.request('http://127.0.0.1:8123/api/2.0/fs/endpoints');
    expect(await r.json()).toEqual({
      endpoints: [
        {
          api: 'FILES_API',
          api_version: '2.0',
          scheme: 'http',
          hostname: '127.0.0.1:8123',
          multipart_upload_supported: false,
        },
      ],
    });
  });
});
