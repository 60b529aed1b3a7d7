/**
 * JupyterLab behind the built server at /jupyter: started on the first request, HTTP proxied (the Lab page,
 * the contents API writing real files), kernel websockets upgraded through the same port. Needs
 * `pnpm build` and JupyterLab (`bash apps/server/scripts/install-jupyter.sh`, which .ci/run runs).
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@minilake/testing';

const python =
  process.env.MINILAKE_JUPYTER_PYTHON ??
  path.join(
    process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake'),
    'jupyter/venv/bin/python',
  );
const installed = existsSync(path.join(path.dirname(python), 'jupyter-lab'));
const title = installed
  ? 'JupyterLab at /jupyter'
  : 'JupyterLab at /jupyter (skipped: JupyterLab missing; .ci/run installs it with apps/server/scripts/install-jupyter.sh)';

let server: RunningServer;

describe.skipIf(!installed)(title, () => {
  beforeAll(async () => {
    server = await startServer({ env: { MINILAKE_JUPYTER_PYTHON: python } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('starts on demand and serves the Lab page through the server', async () => {
    const res = await fetch(`${server.url}/jupyter/lab`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('JupyterLab');
  }, 120_000);

  it('lists the starter notebook and saves notebooks as real files', async () => {
    const list = (await (await fetch(`${server.url}/jupyter/api/contents`)).json()) as {
      content: { name: string }[];
    };
    expect(list.content.map((c) => c.name)).toContain('minilake-starter.ipynb');
    // Jupyter's XSRF check wants the cookie it set echoed in a header.
    const lab = await fetch(`${server.url}/jupyter/lab`);
    const xsrf = /_xsrf=([^;]+)/.exec(lab.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const put = await fetch(`${server.url}/jupyter/api/contents/mine.ipynb`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-xsrftoken': xsrf, cookie: `_xsrf=${xsrf}` },
      body: JSON.stringify({
        type: 'notebook',
        content: { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [] },
      }),
    });
    expect(put.status).toBe(201);
    expect(existsSync(path.join(server.dataDir, 'jupyter', 'mine.ipynb'))).toBe(true);
  });

  it('upgrades a kernel websocket through the same port', async () => {
    const lab = await fetch(`${server.url}/jupyter/lab`);
    const xsrf = /_xsrf=([^;]+)/.exec(lab.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const kernel = (await (
      await fetch(`${server.url}/jupyter/api/kernels`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-xsrftoken': xsrf, cookie: `_xsrf=${xsrf}` },
        body: '{}',
      })
    ).json()) as { id: string };
    expect(kernel.id).toMatch(/^[0-9a-f-]{36}$/);
    const u = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: u.hostname,
        port: u.port,
        path: `/jupyter/api/kernels/${kernel.id}/channels`,
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': Buffer.from('minilake-jupyter').toString('base64'),
          origin: server.url,
          cookie: `_xsrf=${xsrf}`,
        },
      });
      req.once('upgrade', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.once('response', (res) => resolve(res.statusCode ?? 0));
      req.once('error', reject);
      req.end();
    });
    expect(status).toBe(101);
  }, 60_000);
});
