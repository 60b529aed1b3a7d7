/**
 * What `pnpm dlx @minilake/server` and "import one service into another tool" will do once published:
 * the packed tarballs install with plain npm into an empty project outside the repo and run there.
 * Needs `pnpm build` first (the tarballs carry dist/).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listening, repoRoot } from '@minilake/testing';

/**
 * The packages this test packs and installs (the server, and the service packages a tool may import alone) and
 * every workspace package they depend on at run time, found by walking `workspace:` dependencies, so a package a service starts to
 * depend on is packed without anyone listing it here.
 */
function publishable(roots: string[]): string[] {
  const dirs = new Map<string, string>();
  for (const parent of ['packages', 'apps']) {
    for (const entry of readdirSync(path.join(repoRoot, parent))) {
      const manifest = path.join(repoRoot, parent, entry, 'package.json');
      if (existsSync(manifest))
        dirs.set(JSON.parse(readFileSync(manifest, 'utf8')).name, path.join(parent, entry));
    }
  }
  const found = new Set<string>();
  const visit = (name: string) => {
    const dir = dirs.get(name);
    if (!dir || found.has(dir)) return;
    found.add(dir);
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8'));
    for (const [dep, range] of Object.entries<string>(manifest.dependencies ?? {})) {
      if (range.startsWith('workspace:')) visit(dep);
    }
  };
  roots.forEach(visit);
  return [...found];
}

let project: string;

beforeAll(() => {
  const tarballs = mkdtempSync(path.join(os.tmpdir(), 'ml-tgz-'));
  for (const dir of publishable([
    '@minilake/server',
    '@minilake/secrets',
    '@minilake/unity-catalog',
    '@minilake/sql',
    '@minilake/workspace',
    '@minilake/files',
    '@minilake/compute',
    '@minilake/iam',
    '@minilake/workspace-admin',
  ])) {
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
