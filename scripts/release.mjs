#!/usr/bin/env node
// Releases MiniLake: every public npm package (@minilake/server and the packages it is made of), the Python
// packages (pytest-minilake, testcontainers-minilake) and the Docker images, all at one version.
//
//   node scripts/release.mjs check              what CI runs: packs and checks everything at the current
//                                               version (no file changes, nothing published)
//   node scripts/release.mjs 0.2.0              bumps every version to 0.2.0, dates the CHANGELOG's
//                                               "Unreleased" section, builds, tests the packed tarballs outside
//                                               the repository, packs and checks; prints what --publish would do
//   node scripts/release.mjs 0.2.0 --publish    the same, then commits "Release 0.2.0", tags v0.2.0 and
//                                               publishes (pnpm publish, twine upload): the one command
//
// Artifacts go to release/<version>/ (npm/*.tgz, python/*.whl and *.tar.gz, SHA256SUMS). The images are built
// locally (docker/build.sh, tags minilake:<version> and minilake:<version>-slim) when a Docker daemon answers;
// there is no registry to push them to from here. Publishing needs NPM_TOKEN (or a logged-in npm) and
// TWINE_USERNAME/TWINE_PASSWORD (an API token: TWINE_USERNAME=__token__).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const mode = args[0];
const publish = args.includes('--publish');
const cache = process.env.MINILAKE_CACHE || path.join(os.homedir(), '.cache', 'minilake');
const t0 = Date.now();
const log = (m) => console.log(`[release +${Math.round((Date.now() - t0) / 1000)}s] ${m}`);
const die = (m) => {
  console.error(`release: ${m}`);
  process.exit(1);
};
const run = (cmd, argv, opts = {}) => {
  const r = spawnSync(cmd, argv, {
    cwd: root,
    stdio: opts.quiet ? 'pipe' : 'inherit',
    encoding: 'utf8',
    ...opts,
  });
  if (r.status !== 0) die(`${cmd} ${argv.join(' ')} failed${r.stderr ? `:\n${r.stderr.slice(-3000)}` : ''}`);
  return r.stdout ?? '';
};

if (!mode || (mode !== 'check' && !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(mode)))
  die('usage: node scripts/release.mjs check | <version> [--publish]');

// -- what is released ------------------------------------------------------------------------------------
const npmPackages = [...readdirSync(path.join(root, 'packages')).map((d) => `packages/${d}`), 'apps/server']
  .filter((d) => existsSync(path.join(root, d, 'package.json')))
  .filter((d) => !JSON.parse(readFileSync(path.join(root, d, 'package.json'), 'utf8')).private);
const pythonPackages = ['python/pytest-minilake', 'python/testcontainers-minilake'];
const current = JSON.parse(readFileSync(path.join(root, 'apps/server/package.json'), 'utf8')).version;
const version = mode === 'check' ? current : mode;
const out = path.join(root, 'release', version);

// -- 1. versions and the changelog (not in check mode) -----------------------------------------------------
if (mode !== 'check') {
  if (run('git', ['status', '--porcelain'], { quiet: true }).trim() !== '')
    die('the working tree has changes: commit or stash them first');
  const changelog = readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
  const unreleased = /^## Unreleased\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog);
  if (!unreleased || unreleased[1].trim() === '')
    die('CHANGELOG.md has no "## Unreleased" section with entries');
  if (changelog.includes(`## ${version} `)) die(`CHANGELOG.md already has ${version}`);
  const date = new Date().toISOString().slice(0, 10);
  writeFileSync(
    path.join(root, 'CHANGELOG.md'),
    changelog.replace('## Unreleased\n', `## Unreleased\n\n## ${version} — ${date}\n`),
  );
  for (const d of [...npmPackages, 'apps/ui', 'packages/testing', 'docs']) {
    const f = path.join(root, d, 'package.json');
    if (!existsSync(f)) continue;
    const text = readFileSync(f, 'utf8');
    writeFileSync(f, text.replace(/("version":\s*")[^"]+(")/, `$1${version}$2`));
  }
  for (const d of pythonPackages) {
    const f = path.join(root, d, 'pyproject.toml');
    writeFileSync(f, readFileSync(f, 'utf8').replace(/^version = "[^"]+"/m, `version = "${version}"`));
    for (const init of readdirSync(path.join(root, d, 'src'))) {
      const p = path.join(root, d, 'src', init, '__init__.py');
      if (existsSync(p))
        writeFileSync(
          p,
          readFileSync(p, 'utf8').replace(/^__version__ = "[^"]+"/m, `__version__ = "${version}"`),
        );
    }
  }
  log(`versions ${current} -> ${version}; CHANGELOG.md dated ${date}`);
  run('pnpm', ['build']);
  // The packed tarballs install and run outside the repository (npx minilake, one service in a Hono app).
  run('pnpm', ['vitest', 'run', '--project', 'e2e', 'apps/server/test/packaging.e2e.test.ts']);
}
for (const d of npmPackages)
  if (!existsSync(path.join(root, d, 'dist'))) die(`${d} has no dist/: run pnpm build first`);

// -- 2. npm tarballs -------------------------------------------------------------------------------------
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'npm'), { recursive: true });
mkdirSync(path.join(out, 'python'), { recursive: true });
for (const d of npmPackages)
  run('pnpm', ['pack', '--pack-destination', path.join(out, 'npm')], {
    cwd: path.join(root, d),
    quiet: true,
  });
for (const f of readdirSync(path.join(out, 'npm'))) {
  // What npm would publish: the manifest it reads from the tarball, every workspace: range resolved.
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', path.join(out, 'npm', f), 'package/package.json'], { encoding: 'utf8' }),
  );
  if (manifest.version !== version) die(`${f} has version ${manifest.version}, not ${version}`);
  const deps = { ...manifest.dependencies, ...manifest.peerDependencies };
  const bad = Object.entries(deps).filter(([, r]) => String(r).startsWith('workspace:'));
  if (bad.length) die(`${f} still depends on ${bad.map(([n]) => n).join(', ')} through workspace:`);
  const exp = JSON.stringify(manifest.exports ?? {});
  if (exp.includes('./src/')) die(`${f} exports its TypeScript sources (publishConfig missing?)`);
}
log(`npm: ${readdirSync(path.join(out, 'npm')).length} tarballs (${npmPackages.length} packages)`);

// -- 3. Python wheels and sdists (python -m build, in a venv cached under $MINILAKE_CACHE) -----------------
const buildVenv = path.join(cache, 'venv-release-build');
if (!existsSync(path.join(buildVenv, 'bin', 'twine'))) {
  run('python3', ['-m', 'venv', buildVenv]);
  run(path.join(buildVenv, 'bin', 'pip'), [
    'install',
    '-q',
    '--disable-pip-version-check',
    'build==1.3.0',
    'twine==6.2.0',
  ]);
}
for (const d of pythonPackages) {
  run(path.join(buildVenv, 'bin', 'python'), ['-m', 'build', '--outdir', path.join(out, 'python'), d], {
    quiet: true,
  });
  rmSync(path.join(root, d, 'build'), { recursive: true, force: true });
  for (const e of readdirSync(path.join(root, d, 'src')).filter((x) => x.endsWith('.egg-info')))
    rmSync(path.join(root, d, 'src', e), { recursive: true, force: true });
}
const dists = readdirSync(path.join(out, 'python'));
for (const d of pythonPackages) {
  const name = path.basename(d).replace(/-/g, '_');
  for (const ext of [`-${version}-py3-none-any.whl`, `-${version}.tar.gz`])
    if (!dists.includes(`${name}${ext}`)) die(`no ${name}${ext} in ${path.join(out, 'python')}`);
}
run(
  path.join(buildVenv, 'bin', 'twine'),
  ['check', '--strict', ...dists.map((f) => path.join(out, 'python', f))],
  {
    quiet: true,
  },
);
log(`python: ${dists.join(', ')} (twine check passed)`);

// -- 4. checksums ------------------------------------------------------------------------------------------
const sums = [];
for (const sub of ['npm', 'python'])
  for (const f of readdirSync(path.join(out, sub)).sort())
    sums.push(
      `${createHash('sha256')
        .update(readFileSync(path.join(out, sub, f)))
        .digest('hex')}  ${sub}/${f}`,
    );
writeFileSync(path.join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`);

// -- 5. images, when a daemon answers ------------------------------------------------------------------------
if (mode !== 'check') {
  if (spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0) {
    run('bash', ['docker/build.sh']);
    run('bash', ['docker/build.sh', '--slim']);
    log(`images minilake:${version} and minilake:${version}-slim built locally`);
  } else log('no Docker daemon: images not built (bash docker/build.sh [--slim] later)');
}

// -- 6. publish ----------------------------------------------------------------------------------------------
const npmFiles = readdirSync(path.join(out, 'npm')).map((f) => path.join(out, 'npm', f));
const tag = version.includes('-') ? 'next' : 'latest';
if (!publish) {
  // What npm would do, checked by npm itself (nothing leaves the machine).
  for (const f of npmFiles)
    run('npm', ['publish', '--dry-run', '--access', 'public', '--tag', tag, f], { quiet: true });
  log(
    `ready: ${npmFiles.length} npm tarballs and ${dists.length} Python files in ${path.relative(root, out)}`,
  );
  if (mode !== 'check')
    log(
      `review and commit the version bump, or run again with --publish: node scripts/release.mjs ${version} --publish`,
    );
  process.exit(0);
}
if (mode === 'check') die('--publish needs a version');
run('git', ['commit', '-qam', `Release ${version}`]);
run('git', ['tag', '-a', `v${version}`, '-m', `MiniLake ${version}`]);
// The server last: it is never installable before the packages it is made of are there.
const order = [...npmFiles].sort(
  (a, b) => (a.includes('minilake-server-') ? 1 : 0) - (b.includes('minilake-server-') ? 1 : 0),
);
for (const f of order) run('npm', ['publish', '--access', 'public', '--tag', tag, f]);
run(path.join(buildVenv, 'bin', 'twine'), ['upload', ...dists.map((f) => path.join(out, 'python', f))]);
log(`published ${version}: push the commit and the tag (git push --follow-tags)`);
