/**
 * Per-environment venvs for tasks with pip dependencies (serverless `environments`, pypi libraries, wheels):
 * one venv per distinct requirement list, cached under MINILAKE_CACHE and reused by every later task. The
 * venv sees the install's own site-packages through a .pth file, so PySpark is never installed twice and
 * pip only adds what is missing.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SparkInstall } from './install.js';

export class EnvInstallError extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
    this.name = 'EnvInstallError';
  }
}

async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

function exec(
  cmd: string,
  args: string[],
  opts: { signal: AbortSignal },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { signal: opts.signal, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

export class EnvCache {
  private readonly building = new Map<string, Promise<void>>();
  constructor(
    private readonly dir: string,
    private readonly install: () => SparkInstall,
  ) {}

  /** The python of a venv holding `requirements` (and the wheel, if any), built once. */
  async python(requirements: string[], wheel: string | undefined, signal: AbortSignal): Promise<string> {
    const inst = this.install();
    const key = createHash('sha256')
      .update(
        JSON.stringify({
          python: inst.python,
          requirements: [...requirements].sort(),
          wheel: wheel ? await sha256File(wheel) : null,
        }),
      )
      .digest('hex')
      .slice(0, 16);
    const envDir = path.join(this.dir, key);
    const py = path.join(envDir, 'bin', 'python');
    if (existsSync(path.join(envDir, '.ready'))) return py;
    let p = this.building.get(key);
    if (!p) {
      p = this.build(inst, envDir, requirements, wheel, signal).finally(() => this.building.delete(key));
      this.building.set(key, p);
    }
    await p;
    return py;
  }

  private async build(
    inst: SparkInstall,
    envDir: string,
    requirements: string[],
    wheel: string | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Built aside and renamed into place, so a crash or a concurrent server never leaves a half venv.
    const tmp = `${envDir}.tmp-${randomBytes(4).toString('hex')}`;
    try {
      let r = await exec(inst.python, ['-m', 'venv', '--without-pip', tmp], { signal });
      if (r.code !== 0) throw new EnvInstallError('Creating the task environment failed', r.output);
      await writeFile(path.join(tmp, inst.siteRelative, 'minilake-base.pth'), `${inst.sitePackages}\n`);
      const pkgs = [...requirements, ...(wheel ? [wheel] : [])];
      if (pkgs.length > 0) {
        r = await exec(
          inst.python,
          [
            '-m',
            'pip',
            '--python',
            path.join(tmp, 'bin', 'python'),
            'install',
            '-q',
            '--disable-pip-version-check',
            ...pkgs,
          ],
          { signal },
        );
        if (r.code !== 0) {
          const last = r.output.trim().split('\n').pop() ?? '';
          throw new EnvInstallError(`Installing ${pkgs.join(' ')} failed: ${last}`, r.output);
        }
      }
      await writeFile(path.join(tmp, '.ready'), pkgs.join('\n'));
      try {
        await rename(tmp, envDir);
      } catch {
        // Another server built the same environment meanwhile: theirs is as good as ours.
        if (!existsSync(path.join(envDir, '.ready'))) throw new Error(`Cannot move ${tmp} to ${envDir}`);
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
}
