/**
 * The real Databricks CLI v1.12.1 against the built server: `workspace import-dir` and `bundle deploy` send
 * workspace-files paths as one escaped segment (`import-file/Users%2Fdev%40...%2Fdatabricks.yml`), and later
 * deploys and `destroy` read the state back through `GET workspace-files/<escaped path>`. The CLI is built
 * once per machine by e2e/tools/build.sh into $MINILAKE_CACHE/tools (CI builds it for the CLI suites).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, uniqueName, type RunningServer } from '@minilake/testing';

const cache = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache', 'minilake');
const cli = path.join(cache, 'tools', 'databricks-1.12.1');
const run = promisify(execFile);

describe.skipIf(!existsSync(cli))('the Databricks CLI 1.12.1 (built by e2e/tools/build.sh)', () => {
  let server: RunningServer;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    server = await startServer();
    // a fresh HOME: the CLI caches /Me and host metadata under ~/.cache/databricks
    const home = await mkdtemp(path.join(os.tmpdir(), 'minilake-cli-home-'));
    env = {
      PATH: process.env.PATH,
      HOME: home,
      DATABRICKS_HOST: server.url,
      DATABRICKS_TOKEN: 'dapi-minilake-test',
      DATABRICKS_CONFIG_FILE: '/dev/null',
      DATABRICKS_BUNDLE_ENGINE: 'direct',
    };
  });
  afterAll(async () => {
    await server?.stop();
  });
  const databricks = async (args: string[], cwd?: string) =>
    (await run(cli, args, { env, cwd, timeout: 120_000 })).stdout;
  const status = async (p: string) => {
    const res = await fetch(`${server.url}/api/2.0/workspace/get-status?path=${encodeURIComponent(p)}`, {
      headers: { authorization: 'Bearer x' },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('imports a folder with workspace import-dir', async () => {
    const src = await mkdtemp(path.join(os.tmpdir(), 'minilake-cli-src-'));
    await mkdir(path.join(src, 'sub'));
    await writeFile(path.join(src, 'a.txt'), 'one');
    await writeFile(path.join(src, 'sub', 'b.txt'), 'two');
    const target = `/Users/dev@minilake.local/${uniqueName('import')}`;
    await databricks(['workspace', 'import-dir', src, target]);
    expect((await status(`${target}/a.txt`)).body.object_type).toBe('FILE');
    expect(await databricks(['workspace', 'export', `${target}/sub/b.txt`])).toBe('two');
  });

  it('deploys a bundle twice and destroys it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'minilake-cli-bundle-'));
    const name = uniqueName('b').replace(/_/g, '-');
    await writeFile(
      path.join(dir, 'databricks.yml'),
      `bundle:\n  name: ${name}\nworkspace:\n  host: ${server.url}\ntargets:\n  dev:\n    default: true\n`,
    );
    await writeFile(path.join(dir, 'main.py'), 'print(1)\n');
    const root = `/Users/dev@minilake.local/.bundle/${name}/dev`;
    await databricks(['bundle', 'deploy'], dir);
    expect((await status(`${root}/files/databricks.yml`)).body.object_type).toBe('FILE');
    expect((await status(`${root}/state/deployment.json`)).body.object_type).toBe('FILE');
    // the second deploy reads the state back through GET workspace-files/<escaped path>
    await databricks(['bundle', 'deploy'], dir);
    await databricks(['bundle', 'destroy', '--auto-approve'], dir);
    expect((await status(root)).status).toBe(404);
  });
});
