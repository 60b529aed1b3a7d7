/**
 * JupyterLab behind the built server at /jupyter: started on the first request, HTTP proxied (the Lab page,
 * the contents API reading and writing the workspace), kernel websockets upgraded through the same port. Needs
 * `pnpm build` and JupyterLab (`bash apps/server/scripts/install-jupyter.sh`, which .ci/run runs).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, workspaceClient, type RunningServer } from '@minilake/testing';
import { sparkJars } from '../src/jupyter.js';

const python =
  process.env.MINILAKE_JUPYTER_PYTHON ??
  path.join(
    process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake'),
    'jupyter/venv/bin/python',
  );
const installed = existsSync(path.join(path.dirname(python), 'jupyter-lab'));
const jars = sparkJars(process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake'));
const withUcPlugin = jars.some((j) => j.endsWith('minilake-uc-spark.jar'));
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

  it('opens and saves notebooks in the workspace: the API sees what JupyterLab made, and the reverse', async () => {
    const w = workspaceClient(server.url);
    const me = (await w.currentUser.me()).userName!;
    const home = `Users/${me}`;
    const contents = (p: string) =>
      fetch(`${server.url}/jupyter/api/contents/${p.split('/').map(encodeURIComponent).join('/')}`);
    // The root is the workspace's; the starter notebook is in the home folder, a workspace NOTEBOOK.
    const root = (await (await contents('')).json()) as { content: { name: string; type: string }[] };
    expect(root.content).toContainEqual(expect.objectContaining({ name: 'Users', type: 'directory' }));
    const listed = (await (await contents(home)).json()) as { content: { name: string; type: string }[] };
    expect(listed.content).toContainEqual(
      expect.objectContaining({ name: 'minilake-starter.ipynb', type: 'notebook' }),
    );
    expect((await w.workspace.getStatus({ path: `/Workspace/${home}/minilake-starter` })).object_type).toBe(
      'NOTEBOOK',
    );
    // Jupyter's XSRF check wants the cookie it set echoed in a header.
    const lab = await fetch(`${server.url}/jupyter/lab`);
    const xsrf = /_xsrf=([^;]+)/.exec(lab.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const headers = { 'content-type': 'application/json', 'x-xsrftoken': xsrf, cookie: `_xsrf=${xsrf}` };
    const cell = {
      cell_type: 'code',
      metadata: {},
      source: 'print(6 * 7)',
      outputs: [],
      execution_count: null,
    };
    const put = await fetch(`${server.url}/jupyter/api/contents/${home}/mine.ipynb`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({
        type: 'notebook',
        content: {
          nbformat: 4,
          nbformat_minor: 5,
          metadata: { kernelspec: { name: 'python3', language: 'python', display_name: 'Python 3' } },
          cells: [cell],
        },
      }),
    });
    expect(put.status).toBe(201);
    const made = await w.workspace.getStatus({ path: `/Users/${me}/mine` });
    expect(made.object_type).toBe('NOTEBOOK');
    expect(made.language).toBe('PYTHON');
    const source = await w.workspace.export({ path: `/Users/${me}/mine`, format: 'SOURCE' });
    expect(Buffer.from(source.content!, 'base64').toString()).toContain('print(6 * 7)');
    // A notebook the API imported opens in JupyterLab with its cells.
    await w.workspace.import({
      path: `/Users/${me}/from_api`,
      format: 'SOURCE',
      language: 'PYTHON',
      content: Buffer.from(
        '# Databricks notebook source\nx = 1\n\n# COMMAND ----------\n\nprint(x)\n',
      ).toString('base64'),
    });
    const opened = (await (await contents(`${home}/from_api.ipynb`)).json()) as {
      type: string;
      content: { cells: { source: string }[] };
    };
    expect(opened.type).toBe('notebook');
    expect(opened.content.cells.map((c) => c.source)).toEqual(['x = 1', 'print(x)']);
    // Renamed and deleted in JupyterLab: gone from the workspace.
    const moved = await fetch(`${server.url}/jupyter/api/contents/${home}/mine.ipynb`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ path: `${home}/renamed.ipynb` }),
    });
    expect(moved.status).toBe(200);
    expect((await w.workspace.getStatus({ path: `/Users/${me}/renamed` })).object_type).toBe('NOTEBOOK');
    await expect(w.workspace.getStatus({ path: `/Users/${me}/mine` })).rejects.toThrow();
    const del = await fetch(`${server.url}/jupyter/api/contents/${home}/renamed.ipynb`, {
      method: 'DELETE',
      headers,
    });
    expect(del.status).toBe(204);
    await expect(w.workspace.getStatus({ path: `/Users/${me}/renamed` })).rejects.toThrow();
  }, 120_000);

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

  // The kernel's own startup file, run by IPython as a kernel runs it, with the environment MiniLake gives
  // the kernel: Spark sees Unity Catalog tables by name and MiniLake's SQL reads what Spark wrote.
  it.skipIf(!withUcPlugin)(
    "gives a kernel's PySpark Delta and every Unity Catalog catalog, with no configuration",
    async () => {
      await (await fetch(`${server.url}/jupyter/lab`)).arrayBuffer();
      // Created after JupyterLab started: Spark picks up the catalogs when it starts, not the kernel.
      const made = await fetch(`${server.url}/api/2.1/unity-catalog/catalogs`, {
        method: 'POST',
        body: JSON.stringify({ name: 'nbc' }),
      });
      expect(made.status).toBe(200);
      await made.arrayBuffer();
      const ipythonDir = path.join(server.dataDir, 'jupyter', '.ipython');
      expect(existsSync(path.join(ipythonDir, 'profile_default', 'startup', '00-minilake.py'))).toBe(true);
      const loc = await mkdtemp(path.join(os.tmpdir(), 'ml-nb-'));
      try {
        const code = [
          'from pyspark.sql import SparkSession',
          'spark = SparkSession.builder.master("local[1]").getOrCreate()',
          `spark.sql("CREATE TABLE nbc.default.nb_numbers (n BIGINT) USING DELTA LOCATION '${loc}/t'")`,
          'spark.range(5).withColumnRenamed("id", "n").writeTo("nbc.default.nb_numbers").append()',
          'print("COUNT", spark.table("nbc.default.nb_numbers").count())',
        ].join('\n');
        // Asynchronously: a synchronous spawn would freeze this process for the minutes Spark takes, so
        // undici could not retire its idle keep-alive socket (at the server's advertised 65 s, less its
        // margin) and the next fetch would be written to a socket the server has just closed.
        const r = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
          execFile(
            python,
            ['-m', 'IPython', '--no-banner', `--ipython-dir=${ipythonDir}`, '-c', code],
            {
              env: {
                ...process.env,
                DATABRICKS_HOST: server.url,
                DATABRICKS_TOKEN: 'dapi-minilake-test',
                MINILAKE_SPARK_JARS: jars.join(','),
                PYSPARK_SUBMIT_ARGS: undefined,
              },
              encoding: 'utf8',
              timeout: 240_000,
              maxBuffer: 64 * 1024 * 1024,
            },
            (err, stdout, stderr) =>
              resolve({ stdout, stderr: `${err?.killed ? 'killed at the 240 s timeout\n' : ''}${stderr}` }),
          ),
        );
        expect(r.stdout, r.stderr).toContain('COUNT 5');
        const q = await fetch(`${server.url}/api/2.0/sql/statements`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            warehouse_id: 'dev',
            statement: 'SELECT sum(n) FROM nbc.default.nb_numbers',
            wait_timeout: '30s',
          }),
        });
        expect(((await q.json()) as any).result.data_array).toEqual([['10']]);
      } finally {
        await rm(loc, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
