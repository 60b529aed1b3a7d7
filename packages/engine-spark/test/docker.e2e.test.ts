/**
 * The Docker executor against a real daemon and the image built by docker/build.sh: a PySpark task in a
 * sibling container sharing the data directory, exit codes and tracebacks, cancel and timeout removing the
 * container within a second. Skipped when `docker info` fails or the image is missing (the skip says which);
 * .ci/run starts dockerd and builds the image in its jobs2 block.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineFor, installed, skipReason, task, within, write } from './helpers.js';

const T = 600_000;
const image = 'minilake-spark:local';

function docker(...args: string[]): string | undefined {
  try {
    return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

const why = !installed
  ? skipReason
  : docker('info', '-f', '{{.ServerVersion}}') === undefined
    ? 'Docker is not available (`docker info` fails): start dockerd (docker/dockerd.sh start)'
    : docker('image', 'inspect', image) === undefined
      ? `the image ${image} is missing: bash packages/engine-spark/docker/build.sh`
      : undefined;

/** Task containers of this test process's engine. */
const containers = () =>
  (docker('ps', '-aq', '--filter', `label=dev.minilake.server.pid=${process.pid}`) ?? '')
    .split('\n')
    .filter(Boolean);

describe.skipIf(why !== undefined)(
  `Spark engine, Docker executor (${why ?? 'docker and image present'})`,
  () => {
    const { engine, dir, ctx } = engineFor({ config: { MINILAKE_SPARK_EXECUTOR: 'docker' } });
    afterAll(() => engine.close());

    it(
      'runs a PySpark script in a container of the image; a Delta table lands in the shared data dir',
      async () => {
        const table = path.join(ctx.dataDir, 'docker-delta');
        const file = write(
          dir,
          'delta.py',
          [
            'import sys',
            'from pyspark.sql import SparkSession',
            'spark = SparkSession.builder.getOrCreate()',
            `spark.range(5).write.format("delta").save(${JSON.stringify(table)})`,
            `print("rows=%d" % spark.read.format("delta").load(${JSON.stringify(table)}).count())`,
            // The image's own root fs: its passwd has the `spark` user, the host has no such file content.
            'print("image_passwd=%s" % ("Spark:/tmp" in open("/etc/passwd").read()))',
            'print("args=%s" % sys.argv[1:])',
          ].join('\n'),
        );
        const r = await engine.launch(task(dir, { file, args: ['x', 'y z'] })).result;
        expect(r.outcome, r.logs + (r.error ?? '')).toBe('SUCCESS');
        expect(r.logs).toContain('rows=5');
        expect(r.logs).toContain('image_passwd=True');
        expect(r.logs).toContain("args=['x', 'y z']");
        expect(r.logs).not.toMatch(/ INFO | WARN /);
        // Written through the bind mount, by the server's own user.
        expect(existsSync(path.join(table, '_delta_log', '00000000000000000000.json'))).toBe(true);
        expect(statSync(table).uid).toBe(process.getuid!());
        // The container is removed once the task ends.
        expect(containers()).toEqual([]);
      },
      T,
    );

    it(
      'an exception gives the error and traceback; sys.exit(3) gives exit code 3',
      async () => {
        const boom = write(dir, 'boom.py', 'def f(x):\n    return x / 0\n\nprint("before")\nf(1)\n');
        const r = await engine.launch(task(dir, { file: boom })).result;
        expect(r.outcome).toBe('FAILED');
        expect(r.error).toBe('ZeroDivisionError: division by zero');
        expect(r.errorTrace).toContain(`File "${boom}", line 2, in f`);
        expect(r.logs).toContain('before');
        const bad = write(dir, 'bad.py', 'import sys\nprint("about to fail")\nsys.exit(3)\n');
        const r2 = await engine.launch(task(dir, { file: bad })).result;
        expect(r2.exitCode).toBe(3);
        expect(r2.error).toBe('Process exited with code 3');
      },
      T,
    );

    it(
      'cancel removes the container within a second; a timeout ends TIMEDOUT',
      async () => {
        const marker = path.join(ctx.dataDir, 'started'); // the task file's folder is mounted read-only
        const file = write(
          dir,
          'sleep.py',
          `import time\nprint("sleeping", flush=True)\nopen(${JSON.stringify(marker)}, "w").write("1")\ntime.sleep(120)\n`,
        );
        const run = engine.launch(task(dir, { file }));
        expect(await within(120_000, () => existsSync(marker))).toBe(true);
        expect(containers()).toHaveLength(1);
        const t0 = Date.now();
        run.cancel();
        const r = await run.result;
        expect(r.outcome).toBe('CANCELED');
        expect(r.logs).toContain('sleeping');
        expect(await within(1000, () => containers().length === 0)).toBe(true);
        expect(Date.now() - t0).toBeLessThan(2000);

        const r2 = await engine.launch(task(dir, { file, timeoutMs: 1500 })).result;
        expect(r2.outcome).toBe('TIMEDOUT');
        expect(containers()).toEqual([]);
      },
      T,
    );

    it('a missing image fails the task naming the build command', async () => {
      const file = write(dir, 'noop.py', 'print(1)\n');
      const r = await engine.launch(task(dir, { file, image: 'minilake-spark:does-not-exist' })).result;
      expect(r.outcome).toBe('FAILED');
      expect(r.error).toContain('docker/build.sh');
      expect(readFileSync(file, 'utf8')).toBe('print(1)\n');
    });
  },
);
