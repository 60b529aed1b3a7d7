import { describe, expect, it } from 'vitest';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { workspaceService } from '../src/index.js';

const HOME = '/Users/dev@minilake.local';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (r: Response): Promise<any> => r.json();

/** A workspace with an object type another service owns (as mlflow owns MLFLOW_EXPERIMENT). */
async function workspace() {
  const { app, instance } = await serviceApp(workspaceService);
  const api = instance.api!;
  const deleted: { path: string; resourceId: string }[][] = [];
  api.registerObjectType('MLFLOW_EXPERIMENT', {
    noun: 'an MLflow experiment',
    onDeleted: (objects) => void deleted.push(objects),
  });
  const get = (p: string, q: Record<string, string>) => app.request(`${p}?${new URLSearchParams(q)}`);
  const post = (p: string, body: unknown) => app.request(p, jsonInit('POST', body));
  return { app, api, deleted, get, post };
}

describe('objects other services own', () => {
  it('are listed and reported with their type and their owner id', async () => {
    const { api, get } = await workspace();
    const info = await api.addObject(`/Workspace${HOME}/exp`, 'MLFLOW_EXPERIMENT', '42');
    expect(info).toMatchObject({
      object_type: 'MLFLOW_EXPERIMENT',
      path: `${HOME}/exp`,
      object_id: 42,
      resource_id: '42',
    });
    expect(await json(await get('/api/2.0/workspace/get-status', { path: `${HOME}/exp` }))).toMatchObject({
      object_type: 'MLFLOW_EXPERIMENT',
      resource_id: '42',
    });
    const listed = (await json(await get('/api/2.0/workspace/list', { path: HOME }))).objects;
    expect(listed.map((o: { path: string; object_type: string }) => [o.path, o.object_type])).toEqual([
      [`${HOME}/exp`, 'MLFLOW_EXPERIMENT'],
    ]);
    expect(api.objectAt(`${HOME}/exp`, 'MLFLOW_EXPERIMENT')?.resource_id).toBe('42');
  });

  it('need an existing parent folder and a free path, and nothing replaces them', async () => {
    const { api, get, post } = await workspace();
    await expect(api.addObject(`${HOME}/missing/exp`, 'MLFLOW_EXPERIMENT', '1')).rejects.toMatchObject({
      status: 404,
      errorCode: 'RESOURCE_DOES_NOT_EXIST',
    });
    await api.addObject(`${HOME}/exp`, 'MLFLOW_EXPERIMENT', '1');
    await expect(api.addObject(`${HOME}/exp`, 'MLFLOW_EXPERIMENT', '2')).rejects.toMatchObject({
      status: 409,
      errorCode: 'RESOURCE_ALREADY_EXISTS',
    });
    expect(() => api.checkFree(`${HOME}/exp`)).toThrow(/already exists/);
    expect(() => api.checkFree('no-slash')).toThrow(/absolute/);
    // An import over it, even with overwrite, is refused; so are a folder through it and an export of it.
    const imp = await post('/api/2.0/workspace/import', {
      path: `${HOME}/exp`,
      format: 'RAW',
      content: '',
      overwrite: true,
    });
    const err = await expectDatabricksError(imp, 409, 'RESOURCE_ALREADY_EXISTS');
    expect(err.message).toContain('an MLflow experiment');
    await expectDatabricksError(
      await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/exp/sub` }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await get('/api/2.0/workspace/export', { path: `${HOME}/exp` }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
  });

  it('move and are forgotten by their owner', async () => {
    const { api, get } = await workspace();
    await api.addObject(`${HOME}/a`, 'MLFLOW_EXPERIMENT', '7');
    await api.moveObject(`${HOME}/a`, `${HOME}/b`);
    expect((await get('/api/2.0/workspace/get-status', { path: `${HOME}/a` })).status).toBe(404);
    expect((await json(await get('/api/2.0/workspace/get-status', { path: `${HOME}/b` }))).resource_id).toBe(
      '7',
    );
    // A remove names the id: another object at the path now is left alone.
    await api.removeObject(`${HOME}/b`, '8');
    expect((await get('/api/2.0/workspace/get-status', { path: `${HOME}/b` })).status).toBe(200);
    await api.removeObject(`${HOME}/b`, '7');
    expect((await get('/api/2.0/workspace/get-status', { path: `${HOME}/b` })).status).toBe(404);
  });

  it('are deleted with their folder, and their owner is told', async () => {
    const { api, deleted, post } = await workspace();
    await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/proj/inner` });
    await api.addObject(`${HOME}/proj/e1`, 'MLFLOW_EXPERIMENT', '1');
    await api.addObject(`${HOME}/proj/inner/e2`, 'MLFLOW_EXPERIMENT', '2');
    expect((await post('/api/2.0/workspace/delete', { path: `${HOME}/proj`, recursive: true })).status).toBe(
      200,
    );
    expect(deleted.flat().sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual([
      { path: `${HOME}/proj/e1`, resourceId: '1' },
      { path: `${HOME}/proj/inner/e2`, resourceId: '2' },
    ]);
  });
});
