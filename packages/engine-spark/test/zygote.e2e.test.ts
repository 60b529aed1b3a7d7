/**
 * Serverless tasks forked from the warm, pre-imported Python (the zygote) beside the Spark Connect server:
 * output, exit codes, exceptions, cancel and timeout behave exactly as for a plain process, secrets in the
 * environment stay out of the logs, and with MINILAKE_SPARK_ZYGOTE=false the task is a plain process again.
 * Skipped only when the Spark install is absent (the skip names the command).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, engineFor, groupMembers, installed, skipReason, task, within, write } from './helpers.js';

const T = 300_000;
/** Printed first by every script: whether pandas was imported before the task's first line ran. */
const PROBE = 'import os, sys\nprint("preloaded", "pandas" in sys.modules, "pid", os.getpid(), flush=True)\n';

describe.skipIf(!installed)(`Spark engine, zygote (${installed ? 'installed' : skipReason})`, () => {
  const { engine, dir } = engineFor();
  beforeAll(() => engine.prewarm(), T);
  afterAll(() => engine.close());

  it(
    'a warm serverless task is forked pre-imported: its argv, env, cwd, output and Spark session',
    async () => {
      const file = write(
        dir,
        'z.py',
        `${PROBE}print("argv", sys.argv[1:], "cwd", os.getcwd(), "env", os.environ.get("ZY_VAR"))\nprint("count=%d" % spark.range(5).count())\nprint("to stderr", file=sys.stderr)\n`,
      );
      const t = task(dir, { file, args: ['a', 'b c'], env: { ZY_VAR: 'v1' }, compute: 'serverless' });
      const t0 = Date.now();
      const r = await engine.launch(t).result;
      const ms = Date.now() - t0;
      expect(r.outcome, `${r.error}\n${r.logs}`).toBe('SUCCESS');
      expect(r.logs).toContain('preloaded True');
      expect(r.logs).toContain(`argv ['a', 'b c'] cwd ${t.workDir} env v1`);
      expect(r.logs).toContain('count=5');
      expect(r.logs).toContain('to stderr');
      expect(r.exitCode).toBe(0);
      console.log(`[engine-spark] zygote: warm serverless task in ${ms} ms`);
    },
    T,
  );

  it(
    'exit codes, exceptions (error and error trace) and redacted env secrets on the zygote path',
    async () => {
      const bad = write(dir, 'zbad.py', `${PROBE}print("leaving")\nsys.exit(4)\n`);
      const r1 = await engine.launch(task(dir, { file: bad, compute: 'serverless' })).result;
      expect(r1.logs).toContain('preloaded True');
      expect(r1.outcome).toBe('FAILED');
      expect(r1.exitCode).toBe(4);
      expect(r1.error).toBe('Process exited with code 4');
      expect(r1.logs).toContain('leaving');

      const boom = write(
        dir,
        'zboom.py',
        `${PROBE}print("secret is", os.environ["ZY_SECRET"])\ndef f():\n    raise KeyError("nope")\nf()\n`,
      );
      const r2 = await engine.launch(
        task(dir, {
          file: boom,
          compute: 'serverless',
          env: { ZY_SECRET: 's3cr3t-value' },
          redact: ['s3cr3t-value'],
        }),
      ).result;
      expect(r2.logs).toContain('preloaded True');
      expect(r2.outcome).toBe('FAILED');
      expect(r2.exitCode).toBe(1);
      expect(r2.error).toBe("KeyError: 'nope'");
      expect(r2.errorTrace).toContain(`File "${boom}", line 5, in f`);
      expect(r2.errorTrace).not.toContain('minilake_');
      expect(r2.logs).toContain('secret is [REDACTED]');
      expect(r2.logs).not.toContain('s3cr3t-value');
      // The raw output (secret unredacted) does not stay on disk once the task ended.
      expect(existsSync(path.join(path.dirname(boom), 'output.txt'))).toBe(false);
    },
    T,
  );

  it(
    'cancel kills the forked task and its process group within a second',
    async () => {
      const pidFile = path.join(dir, 'zsleep.pid');
      const file = write(
        dir,
        'zsleep.py',
        `${PROBE}import subprocess, time\nsub = subprocess.Popen(["sleep", "120"])\nopen(${JSON.stringify(pidFile)}, "w").write("%d %d %d" % (os.getpid(), os.getpgid(0), sub.pid))\nprint("sleeping", flush=True)\ntime.sleep(120)\n`,
      );
      const run = engine.launch(task(dir, { file, compute: 'serverless' }));
      const deadline = Date.now() + 120_000;
      while (!existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 100));
      const [pid, pgid, sub] = readFileSync(pidFile, 'utf8').split(' ').map(Number) as [
        number,
        number,
        number,
      ];
      expect(pid).toBe(pgid); // the child leads its own group, apart from the zygote
      expect(alive(sub)).toBe(true);
      const t0 = Date.now();
      run.cancel();
      const r = await run.result;
      expect(r.outcome).toBe('CANCELED');
      expect(r.logs).toContain('preloaded True');
      expect(r.logs).toContain('sleeping');
      expect(await within(1000, () => !alive(pid) && !alive(sub) && groupMembers(pgid).length === 0)).toBe(
        true,
      );
      expect(Date.now() - t0).toBeLessThan(1500);
    },
    T,
  );

  it(
    'a forked task past its timeout is killed and reported TIMEDOUT; the zygote keeps serving',
    async () => {
      const file = write(dir, 'zslow.py', `${PROBE}import time\ntime.sleep(120)\n`);
      const t0 = Date.now();
      const r = await engine.launch(task(dir, { file, compute: 'serverless', timeoutMs: 3000 })).result;
      expect(r.outcome).toBe('TIMEDOUT');
      expect(r.error).toContain('timed out after 3 s');
      expect(r.logs).toContain('preloaded True');
      expect(Date.now() - t0).toBeLessThan(6000);
      const ok = write(dir, 'zok.py', `${PROBE}print("still warm")\n`);
      const again = await engine.launch(task(dir, { file: ok, compute: 'serverless' })).result;
      expect(again.outcome).toBe('SUCCESS');
      expect(again.logs).toContain('preloaded True');
      expect(again.logs).toContain('still warm');
    },
    T,
  );
});

describe.skipIf(!installed)(`Spark engine, zygote off (${installed ? 'installed' : skipReason})`, () => {
  const { engine, dir } = engineFor({ config: { MINILAKE_SPARK_ZYGOTE: 'false' } });
  afterAll(() => engine.close());

  it(
    'MINILAKE_SPARK_ZYGOTE=false runs a serverless task as a plain process',
    async () => {
      const file = write(dir, 'plain.py', `${PROBE}print("count=%d" % spark.range(3).count())\n`);
      const r = await engine.launch(task(dir, { file, compute: 'serverless' })).result;
      expect(r.outcome, `${r.error}\n${r.logs}`).toBe('SUCCESS');
      expect(r.logs).toContain('preloaded False');
      expect(r.logs).toContain('count=3');
    },
    T,
  );
});
