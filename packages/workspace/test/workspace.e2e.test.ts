import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type WorkspaceClient } from '@databricks/sdk-experimental';
import { startServer, workspaceClient, type RunningServer } from '@minilake/testing';

let server: RunningServer;
let w: WorkspaceClient;
let home: string;
beforeAll(async () => {
  server = await startServer();
  w = workspaceClient(server.url);
  home = `/Users/${(await w.currentUser.me()).userName}`;
});
afterAll(async () => {
  await server?.stop();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('the TypeScript SDK against the Workspace API', () => {
  it('finds the user home, imports, exports, lists and deletes', async () => {
    expect(await w.workspace.getStatus({ path: home })).toMatchObject({ object_type: 'DIRECTORY' });
    await w.workspace.mkdirs({ path: `${home}/ts` });
    const src = '# Databricks notebook source\nprint("ts")\n';
    await w.workspace.import({
      path: `${home}/ts/nb`,
      content: b64(src),
      format: 'SOURCE',
      language: 'PYTHON',
      overwrite: true,
    });
    const out = await w.workspace.export({ path: `/Workspace${home}/ts/nb`, format: 'SOURCE' });
    expect(Buffer.from(out.content!, 'base64').toString()).toBe(src);
    expect(out.file_type).toBe('py');
    const st = await w.workspace.getStatus({ path: `${home}/ts/nb` });
    expect(st).toMatchObject({ object_type: 'NOTEBOOK', language: 'PYTHON', path: `${home}/ts/nb` });
    const listed = [];
    for await (const o of w.workspace.list({ path: `${home}/ts` })) listed.push(o.path);
    expect(listed).toEqual([`${home}/ts/nb`]);

    const err = await w.workspace
      .import({ path: `${home}/ts/nb`, content: b64(src), format: 'SOURCE', language: 'PYTHON' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).errorCode).toBe('RESOURCE_ALREADY_EXISTS');

    await w.workspace.mkdirs({ path: `${home}/ts/empty` });
    const none = [];
    for await (const o of w.workspace.list({ path: `${home}/ts/empty` })) none.push(o);
    expect(none).toEqual([]);
    await w.workspace.delete({ path: `${home}/ts/empty` });

    const nonEmpty = await w.workspace.delete({ path: `${home}/ts` }).catch((e: unknown) => e);
    expect((nonEmpty as ApiError).errorCode).toBe('DIRECTORY_NOT_EMPTY');
    await w.workspace.delete({ path: `${home}/ts`, recursive: true });
    const gone = await w.workspace.getStatus({ path: `${home}/ts` }).catch((e: unknown) => e);
    expect((gone as ApiError).statusCode).toBe(404);
  });

  it('imports through workspace-files with the status codes the CLI relies on', async () => {
    const importFile = (p: string, body: string, overwrite: boolean) =>
      fetch(`${server.url}/api/2.0/workspace-files/import-file${p}?overwrite=${overwrite}`, {
        method: 'POST',
        body,
      });
    expect((await importFile(`${home}/missing/f.txt`, 'x', false)).status).toBe(404);
    expect((await importFile(`${home}/lock`, 'one', false)).status).toBe(200);
    expect((await importFile(`${home}/lock`, 'two', false)).status).toBe(409);
    const direct = await fetch(
      `${server.url}/api/2.0/workspace/export?direct_download=true&path=${home}/lock`,
    );
    expect(await direct.text()).toBe('one');
  });
});

describe('persistence', () => {
  it('keeps an acknowledged notebook and file across kill -9 with MINILAKE_PERSIST=1', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'minilake-ws-persist-'));
    const env = { MINILAKE_PERSIST: '1' };
    const first = await startServer({ dataDir, env });
    try {
      const c = workspaceClient(first.url);
      const me = `/Users/${(await c.currentUser.me()).userName}`;
      await c.workspace.import({
        path: `${me}/kept`,
        content: b64('print(1)\n'),
        format: 'SOURCE',
        language: 'PYTHON',
      });
      await fetch(`${first.url}/api/2.0/workspace-files/import-file${me}/kept.txt?overwrite=false`, {
        method: 'POST',
        body: 'bytes',
      });
    } finally {
      await first.kill9();
    }
    const second = await startServer({ dataDir, env });
    try {
      const c = workspaceClient(second.url);
      const me = `/Users/${(await c.currentUser.me()).userName}`;
      expect(await c.workspace.getStatus({ path: `${me}/kept` })).toMatchObject({
        object_type: 'NOTEBOOK',
        language: 'PYTHON',
      });
      const out = await c.workspace.export({ path: `${me}/kept`, format: 'SOURCE' });
      expect(Buffer.from(out.content!, 'base64').toString()).toBe('# Databricks notebook source\nprint(1)\n');
      const file = await fetch(
        `${second.url}/api/2.0/workspace/export?direct_download=true&path=${me}/kept.txt`,
      );
      expect(await file.text()).toBe('bytes');
    } finally {
      await second.stop();
    }
  });
});

describe('raw dot segments', () => {
  it('refuses an import-file path with .. that the URL parser would fold away', async () => {
    const http = await import('node:http');
    const u = new URL(server.url);
    for (const p of [`${home}/../../../../x.txt`, `${home}/%2e%2e/%2e%2e/%2e%2e/x.txt`]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: u.hostname,
            port: u.port,
            method: 'POST',
            path: `/api/2.0/workspace-files/import-file${p}`,
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('x');
      });
      expect(status).toBe(400);
    }
  });
});
