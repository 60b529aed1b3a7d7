/**
 * What `pnpm dlx @minilake/server` and "import one service into another tool" will do once published:
 * the packed tarballs install with plain npm into an empty project outside the repo and run there.
 * Needs `pnpm build` first (the tarballs carry dist/).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listening, repoRoot } from '@minilake/testing';

const publishable = [
  'packages/core',
  'packages/secrets',
  'packages/engine-duckdb',
  'packages/datatypes',
  'packages/delta',
  'packages/tables',
  'packages/unity-catalog',
  'packages/sql',
  'packages/workspace',
  'packages/files',
  'packages/compute',
  'packages/iam',
  'packages/workspace-admin',
  'apps/server',
];

let project: string;

beforeAll(() => {
  const tarballs = mkdtempSync(path.join(os.tmpdir(), 'ml-tgz-'));
  for (const dir of publishable) {
    execFileSync('pnpm', ['pack', '--pack-destination', tarballs], {
      cwd: path.join(repoRoot, dir),
      stdio: 'pipe',
    });
  }
  project = mkdtempSync(path.join(os.tmpdir(), 'ml-install-'));
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'outside', private: true, type: 'module' }),
  );
  const files = readdirSync(tarballs).map((f) => path.join(tarballs, f));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], {
    cwd: project,
    stdio: 'pipe',
  });
}, 600_000);

describe('packed tarballs outside the repo', () => {
  it('node_modules/.bin/minilake starts and answers healthy', async () => {
    const proc = spawn(path.join(project, 'node_modules/.bin/minilake'), ['--port', '0'], {
      cwd: project,
      env: { ...process.env, NODE_DEBUG: 'minilake' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const { url: listeningUrl, output } = listening(proc, 30_000);
      const url = await listeningUrl;
      expect(await (await fetch(`${url}/_minilake/health`)).json()).toEqual({ status: 'ok' });
      // The tarball carries the V8 code cache the build made, and this Node accepts it (src/code-cache.ts).
      expect(output()).toContain('code cache used');
      expect((await fetch(`${url}/_minilake/ready`)).status).toBe(200);
      // The tarball carries the built web UI.
      const ui = await fetch(`${url}/ui/`);
      expect(ui.status).toBe(200);
      expect(await ui.text()).toContain('<div id="app">');
      expect((await fetch(`${url}/api/2.0/preview/scim/v2/Me`)).headers.get('x-databricks-org-id')).toMatch(
        /^\d+$/,
      );
    } finally {
      proc.kill('SIGTERM');
    }
  });

  it('one service package imported alone serves a request in a tiny Hono app', () => {
    writeFileSync(
      path.join(project, 'embed.mjs'),
      `import { Hono } from 'hono';
import { createContext, installErrorHandling, silentLogger } from '@minilake/core';
import { secretsService } from '@minilake/secrets';
const instance = await secretsService.create(createContext());
const app = new Hono();
installErrorHandling(app, silentLogger);
app.route('/', instance.app);
await app.request('/api/2.0/secrets/scopes/create', { method: 'POST', body: JSON.stringify({ scope: 'embedded' }) });
const res = await app.request('/api/2.0/secrets/scopes/list');
const missing = await app.request('/api/2.0/clusters/list');
console.log(JSON.stringify({ status: res.status, body: await res.json(), missing: missing.status }));
`,
    );
    const out = execFileSync(process.execPath, ['embed.mjs'], { cwd: project, encoding: 'utf8' });
    expect(JSON.parse(out.trim())).toEqual({
      status: 200,
      body: { scopes: [{ name: 'embedded', backend_type: 'DATABRICKS' }] },
      missing: 501,
    });
  });
});
