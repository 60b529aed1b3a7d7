import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { invalidParameter } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { workspaceService, type WorkspaceApi } from '../src/index.js';

const HOME = '/Users/dev@minilake.local';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (r: Response): Promise<any> => r.json();
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A stand-in owner, as lakeview is for DASHBOARD: its objects' content lives here, keyed by id. */
class Owner {
  content = new Map<string, string>();
  deleted: string[] = [];
  next = 1;
  hooks = {
    noun: 'a thing',
    importSuffix: '.thing.json',
    import: (_path: string, bytes: Buffer, existing: string | undefined) => {
      const text = bytes.toString('utf8');
      try {
        JSON.parse(text);
      } catch {
        throw invalidParameter('not a thing');
      }
      const id = existing ?? `t${this.next++}`;
      this.content.set(id, text);
      return id;
    },
    export: async (id: string) => ({
      content: Buffer.from(this.content.get(id) ?? ''),
      file_type: 'thing.json',
    }),
    onDeleted: (objects: { path: string; resourceId: string }[]) => {
      for (const o of objects) {
        this.deleted.push(o.resourceId);
        this.content.delete(o.resourceId);
      }
    },
  };
}

let app: Hono;
let ws: WorkspaceApi;
let owner: Owner;
beforeEach(async () => {
  const s = await serviceApp(workspaceService);
  app = s.app;
  ws = s.instance.api!;
  owner = new Owner();
  ws.registerObjectType('THING', owner.hooks);
});
const post = (p: string, body: unknown) => app.request(p, jsonInit('POST', body));
const get = (p: string, q: Record<string, string>) =>
  app.request(`${p}?${new URLSearchParams(q).toString()}`, { method: 'GET' });
const status = (p: string) => get('/api/2.0/workspace/get-status', { path: p });

describe('objects another service owns', () => {
  it('are placed, described, listed, exported, moved and removed by their owner', async () => {
    owner.content.set('abc', '{"a":1}');
    const info = await ws.addObject(`/Workspace${HOME}/x.thing.json`, 'THING', 'abc');
    expect(info).toMatchObject({ object_type: 'THING', path: `${HOME}/x.thing.json`, resource_id: 'abc' });
    expect(await json(await status(`${HOME}/x.thing.json`))).toMatchObject({
      object_type: 'THING',
      resource_id: 'abc',
      object_id: info.object_id,
    });
    const listed = await json(await get('/api/2.0/workspace/list', { path: HOME }));
    expect(listed.objects.map((o: { path: string }) => o.path)).toContain(`${HOME}/x.thing.json`);
    const exported = await json(await get('/api/2.0/workspace/export', { path: `${HOME}/x.thing.json` }));
    expect(Buffer.from(exported.content, 'base64').toString()).toBe('{"a":1}');
    expect(exported.file_type).toBe('thing.json');
    expect(ws.objectAt(`${HOME}/x.thing.json`, 'THING')?.resource_id).toBe('abc');
    // a rename keeps the object id
    await ws.moveObject(`${HOME}/x.thing.json`, `${HOME}/y.thing.json`);
    expect(ws.objectAt(`${HOME}/y.thing.json`, 'THING')?.object_id).toBe(info.object_id);
    await expectDatabricksError(await status(`${HOME}/x.thing.json`), 404, 'RESOURCE_DOES_NOT_EXIST');
    await ws.removeObject(`${HOME}/y.thing.json`, 'other'); // not it: kept
    expect((await status(`${HOME}/y.thing.json`)).status).toBe(200);
    await ws.removeObject(`${HOME}/y.thing.json`, 'abc');
    await expectDatabricksError(await status(`${HOME}/y.thing.json`), 404, 'RESOURCE_DOES_NOT_EXIST');
    expect(owner.deleted).toEqual([]); // the owner removed it: nothing to tell
  });

  it('answer 404 for a missing parent and 409 for a taken path, and are never replaced by other objects', async () => {
    await expect(ws.addObject(`${HOME}/nope/x.thing.json`, 'THING', 'a')).rejects.toMatchObject({
      status: 404,
      errorCode: 'RESOURCE_DOES_NOT_EXIST',
    });
    await post('/api/2.0/workspace/import', { path: `${HOME}/f.txt`, content: b64('x'), format: 'RAW' });
    await expect(ws.addObject(`${HOME}/f.txt`, 'THING', 'a')).rejects.toMatchObject({
      status: 409,
      errorCode: 'RESOURCE_ALREADY_EXISTS',
    });
    await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/d` });
    await ws.addObject(`${HOME}/d/x`, 'THING', 'b');
    await expect(ws.moveObject(`${HOME}/d/x`, `${HOME}/f.txt`)).rejects.toMatchObject({ status: 409 });
    // a plain file never replaces it, even with overwrite
    await expectDatabricksError(
      await post('/api/2.0/workspace/import', {
        path: `${HOME}/d/x`,
        content: b64('x'),
        format: 'RAW',
        overwrite: true,
      }),
      409,
      'RESOURCE_ALREADY_EXISTS',
    );
    // a folder holding one is not empty
    await expectDatabricksError(
      await post('/api/2.0/workspace/delete', { path: `${HOME}/d` }),
      400,
      'DIRECTORY_NOT_EMPTY',
    );
  });

  it('are created by importing a file with their suffix, through import (AUTO) and import-file', async () => {
    const r = await post('/api/2.0/workspace/import', {
      path: `${HOME}/a.thing.json`,
      content: b64('{"n":1}'),
      format: 'AUTO',
    });
    expect(r.status).toBe(200);
    const a = await json(await status(`${HOME}/a.thing.json`));
    expect(a).toMatchObject({ object_type: 'THING', resource_id: 't1' });
    expect(owner.content.get('t1')).toBe('{"n":1}');
    // overwriting gives the same object new content
    const f = await app.request(`/api/2.0/workspace-files/import-file${HOME}/a.thing.json?overwrite=true`, {
      method: 'POST',
      body: '{"n":2}',
    });
    expect(f.status).toBe(200);
    expect(await json(await status(`${HOME}/a.thing.json`))).toMatchObject({ resource_id: 't1' });
    expect(owner.content.get('t1')).toBe('{"n":2}');
    // raw bytes through workspace-files read back the owner's content
    expect(await (await app.request(`/api/2.0/workspace-files${HOME}/a.thing.json`)).text()).toBe('{"n":2}');
    // SOURCE keeps it a file; the owner's refusal is the answer
    await post('/api/2.0/workspace/import', {
      path: `${HOME}/b.thing.json`,
      content: b64('{}'),
      format: 'RAW',
    });
    expect((await json(await status(`${HOME}/b.thing.json`))).object_type).toBe('FILE');
    await expectDatabricksError(
      await post('/api/2.0/workspace/import', {
        path: `${HOME}/c.thing.json`,
        content: b64('not json'),
        format: 'AUTO',
      }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(await status(`${HOME}/c.thing.json`), 404, 'RESOURCE_DOES_NOT_EXIST');
  });

  it('tell their owner when a workspace client deletes them, alone or with their folder', async () => {
    await post('/api/2.0/workspace/mkdirs', { path: `${HOME}/p/q` });
    for (const p of [`${HOME}/one.thing.json`, `${HOME}/p/two.thing.json`, `${HOME}/p/q/three.thing.json`])
      await post('/api/2.0/workspace/import', { path: p, content: b64('{}'), format: 'AUTO' });
    await post('/api/2.0/workspace/delete', { path: `${HOME}/one.thing.json` });
    expect(owner.deleted).toEqual(['t1']);
    await post('/api/2.0/workspace/delete', { path: `${HOME}/p`, recursive: true });
    expect(owner.deleted.sort()).toEqual(['t1', 't2', 't3']);
  });
});
