/**
 * The Spark engine against real Spark: spark-submit tasks, notebooks, cancel and timeout, the warm Spark
 * Connect server, per-environment venvs and wheels. Skipped only when the Spark install is absent (CI runs
 * the install step first; the skip names the command).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  alive,
  engineFor,
  groupMembers,
  installed,
  skipReason,
  task,
  tmp,
  within,
  write,
} from './helpers.js';

const T = 240_000;

describe.skipIf(!installed)(
  `Spark engine, subprocess executor (${installed ? 'installed' : skipReason})`,
  () => {
    const { engine, dir } = engineFor();
    afterAll(() => engine.close());

    it(
      'runs a PySpark script with its arguments; the logs hold only what the script printed',
      async () => {
        const file = write(
          dir,
          'count.py',
          'import sys\nfrom pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\nprint("count=%d arg=%s" % (spark.range(10).count(), sys.argv[1:]))\n',
        );
        const r = await engine.launch(task(dir, { file, args: ['a1', 'b 2'] })).result;
        expect(r.outcome, r.logs).toBe('SUCCESS');
        expect(r.exitCode).toBe(0);
        expect(r.logs).toContain("count=10 arg=['a1', 'b 2']");
        // Spark's own log4j output goes to the attempt's driver log, not into the task's output.
        expect(r.logs).not.toMatch(/ INFO | WARN |incubator/);
        expect(r.logsTruncated).toBe(false);
        expect(r.error).toBeUndefined();
      },
      T,
    );

    it(
      'a script that exits 3 fails with its exit code and keeps what it printed',
      async () => {
        const file = write(dir, 'bad.py', 'import sys\nprint("about to fail")\nsys.exit(3)\n');
        const r = await engine.launch(task(dir, { file })).result;
        expect(r.outcome).toBe('FAILED');
        expect(r.exitCode).toBe(3);
        expect(r.error).toBe('Process exited with code 3');
        expect(r.logs).toContain('about to fail');
      },
      T,
    );

    it(
      'an exception gives the one-line error and the traceback of the user code',
      async () => {
        const file = write(dir, 'boom.py', 'def f(x):\n    return x / 0\n\nprint("before")\nf(1)\n');
        const r = await engine.launch(task(dir, { file })).result;
        expect(r.outcome).toBe('FAILED');
        expect(r.exitCode).toBe(1);
        expect(r.error).toBe('ZeroDivisionError: division by zero');
        expect(r.errorTrace).toContain('Traceback (most recent call last)');
        expect(r.errorTrace).toContain(`File "${file}", line 2, in f`);
        // The runtime's own frames are not the user's business.
        expect(r.errorTrace).not.toContain('minilake_runtime');
        expect(r.logs).toContain('before');
      },
      T,
    );

    it(
      'cancel kills the whole process group within a second',
      async () => {
        const pidFile = path.join(dir, 'sleep.pid');
        const file = write(
          dir,
          'sleep.py',
          `import os, time\nopen(${JSON.stringify(pidFile)}, "w").write("%d %d" % (os.getpid(), os.getpgid(0)))\nprint("sleeping", flush=True)\ntime.sleep(120)\n`,
        );
        const run = engine.launch(task(dir, { file }));
        const deadline = Date.now() + 120_000;
        while (!existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        await new Promise((r) => setTimeout(r, 100));
        const [pid, pgid] = readFileSync(pidFile, 'utf8').split(' ').map(Number) as [number, number];
        expect(alive(pid)).toBe(true);
        const t0 = Date.now();
        run.cancel();
        const r = await run.result;
        expect(r.outcome).toBe('CANCELED');
        expect(r.logs).toContain('sleeping');
        // The Python and the JVM of spark-submit (same group) are gone within a second of cancel().
        expect(await within(1000, () => !alive(pid) && groupMembers(pgid).length === 0)).toBe(true);
        const ms = Date.now() - t0;
        expect(ms).toBeLessThan(1500);
        console.log(`[engine-spark] cancel: process group gone in ${ms} ms`);
      },
      T,
    );

    it(
      'a task past its timeout is killed and reported TIMEDOUT',
      async () => {
        const file = write(dir, 'slow.py', 'import time\ntime.sleep(120)\n');
        const t0 = Date.now();
        const r = await engine.launch(task(dir, { file, timeoutMs: 3000 })).result;
        expect(r.outcome).toBe('TIMEDOUT');
        expect(r.error).toContain('timed out after 3 s');
        expect(Date.now() - t0).toBeLessThan(6000);
      },
      T,
    );

    it(
      'a Databricks source notebook: widgets, a %sql cell on Delta, task values, notebook.exit',
      async () => {
        const file = write(
          dir,
          'nb.py',
          [
            '# Databricks notebook source',
            'dbutils.widgets.text("n", "3")',
            'dbutils.widgets.text("label", "default label")',
            'n = int(dbutils.widgets.get("n"))',
            'print("n is", n, "label is", dbutils.widgets.get("label"))',
            '',
            '# COMMAND ----------',
            '',
            '# MAGIC %md',
            '# MAGIC # A heading that is not code',
            '',
            '# COMMAND ----------',
            '',
            '# MAGIC %sql',
            '# MAGIC CREATE TABLE nb_t USING DELTA AS SELECT id FROM range(5);',
            '# MAGIC -- a comment; with a semicolon',
            "# MAGIC SELECT count(*) AS c, 'a;b' AS s FROM nb_t WHERE id < :n",
            '',
            '# COMMAND ----------',
            '',
            'c = _sqldf.collect()[0]["c"]',
            'dbutils.jobs.taskValues.set("rows", c)',
            'dbutils.jobs.taskValues.set("up", dbutils.jobs.taskValues.get("prev", "v"))',
            'assert spark.conf.get("spark.sql.catalog.spark_catalog").endswith("DeltaCatalog")',
            'dbutils.notebook.exit(f"rows={c}")',
            'print("never printed")',
            '',
          ].join('\n'),
        );
        const t = task(dir, {
          kind: 'notebook',
          file,
          widgets: { n: '4' },
          taskValues: { prev: { v: 'from upstream' } },
        });
        const r = await engine.launch(t).result;
        expect(r.outcome, `${r.error}\n${r.logs}`).toBe('SUCCESS');
        expect(r.notebookResult).toBe('rows=4');
        expect(r.taskValues).toEqual({ rows: 4, up: 'from upstream' });
        expect(r.logs).toContain('n is 4 label is default label');
        expect(r.logs).toContain('a;b');
        expect(r.logs).not.toContain('never printed');
        // CREATE TABLE ... USING DELTA wrote a real Delta table (the attempt's warehouse is its folder).
        expect(existsSync(path.join(t.workDir, 'spark-warehouse', 'nb_t', '_delta_log'))).toBe(true);
      },
      T,
    );

    it(
      'a failing notebook cell reports the error with the line of the notebook file',
      async () => {
        const file = write(
          dir,
          'nbfail.py',
          '# Databricks notebook source\nx = 1\n\n# COMMAND ----------\n\nprint("cell two")\nraise ValueError("bad value\\nsecond line")\n',
        );
        const r = await engine.launch(task(dir, { kind: 'notebook', file })).result;
        expect(r.outcome).toBe('FAILED');
        expect(r.error).toBe('ValueError: bad value');
        expect(r.errorTrace).toContain(`File "${file}", line 7`);
        expect(r.logs).toContain('cell two');
      },
      T,
    );
  },
);

describe.skipIf(!installed)(
  `Spark engine, Spark Connect executor (${installed ? 'installed' : skipReason})`,
  () => {
    const { engine, dir } = engineFor();
    afterAll(() => engine.close());
    // As a service with files as its peer does when it opens the engine; no task here brings a DBFS root.
    const dbfsRoot = path.join(dir, 'dbfs-root');
    mkdirSync(dbfsRoot);
    engine.useDbfsRoot(dbfsRoot);

    it(
      'a serverless task cancelled while the Spark Connect server is still starting ends at once',
      async () => {
        // The engine is cold: the task waits for the server. The cancel does not wait for it.
        const file = write(dir, 'never.py', 'print("should not run")\n');
        const run = engine.launch(task(dir, { file, compute: 'serverless' }));
        await new Promise((r) => setTimeout(r, 300));
        const t0 = Date.now();
        run.cancel();
        const r = await run.result;
        expect(r.outcome).toBe('CANCELED');
        expect(r.logs).not.toContain('should not run');
        expect(Date.now() - t0).toBeLessThan(1000);
      },
      T,
    );

    it(
      'serverless tasks run on one warm Spark Connect server; the second run is warm',
      async () => {
        const file = write(
          dir,
          'sc.py',
          'import os, sys\nprint("remote", os.environ["SPARK_REMOTE"].startswith("sc://127.0.0.1:"))\nprint("count=%d arg=%s" % (spark.range(10).count(), sys.argv[1:]))\nprint("partitions", spark.conf.get("spark.sql.shuffle.partitions"))\n',
        );
        const t0 = Date.now();
        const cold = await engine.launch(
          task(dir, {
            file,
            args: ['cold'],
            compute: 'serverless',
            sparkConf: { 'spark.sql.shuffle.partitions': '7' },
          }),
        ).result;
        const coldMs = Date.now() - t0;
        expect(cold.outcome, `${cold.error}\n${cold.logs}`).toBe('SUCCESS');
        expect(cold.logs).toContain('remote True');
        expect(cold.logs).toContain("count=10 arg=['cold']");
        expect(cold.logs).toContain('partitions 7');
        const t1 = Date.now();
        const warm = await engine.launch(task(dir, { file, args: ['warm'], compute: 'serverless' })).result;
        const warmMs = Date.now() - t1;
        expect(warm.outcome, warm.logs).toBe('SUCCESS');
        expect(warm.logs).toContain("count=10 arg=['warm']");
        // Session conf is per task: the first task's setting does not leak into the second.
        expect(warm.logs).not.toContain('partitions 7');
        console.log(
          `[engine-spark] Spark Connect: cold ${coldMs} ms (server start included), warm ${warmMs} ms`,
        );
        expect(warmMs).toBeLessThan(coldMs);
      },
      T,
    );

    it(
      'an .ipynb notebook on serverless: code cells, a %sql cell, notebook.exit',
      async () => {
        const nb = {
          cells: [
            { cell_type: 'markdown', source: ['# title'] },
            { cell_type: 'code', source: ['x = int(dbutils.widgets.get("x"))\n', 'print("x", x)'] },
            { cell_type: 'code', source: ['%sql\n', 'SELECT 40 + 2 AS answer'] },
            { cell_type: 'code', source: 'dbutils.notebook.exit(str(_sqldf.first()["answer"] + x))' },
          ],
          metadata: {},
          nbformat: 4,
          nbformat_minor: 5,
        };
        const file = write(dir, 'nb.ipynb', JSON.stringify(nb));
        const r = await engine.launch(
          task(dir, { kind: 'notebook', file, widgets: { x: '1' }, compute: 'serverless' }),
        ).result;
        expect(r.outcome, `${r.error}\n${r.logs}`).toBe('SUCCESS');
        expect(r.notebookResult).toBe('43');
        expect(r.logs).toContain('x 1');
      },
      T,
    );

    it(
      'dependencies install into a cached per-environment venv that the task imports from',
      async () => {
        const file = write(
          dir,
          'deps.py',
          'import tabulate, pyspark\nprint("tabulate", tabulate.__version__, "pyspark", pyspark.__version__)\n',
        );
        const r = await engine.launch(
          task(dir, { file, compute: 'serverless', dependencies: ['tabulate==0.9.0'] }),
        ).result;
        expect(r.outcome, `${r.error}\n${r.logs}`).toBe('SUCCESS');
        expect(r.logs).toContain('tabulate 0.9.0 pyspark 4.1.1');
        const t0 = Date.now();
        const again = await engine.launch(
          task(dir, { file, compute: 'serverless', dependencies: ['tabulate==0.9.0'] }),
        ).result;
        expect(again.outcome).toBe('SUCCESS');
        console.log(`[engine-spark] cached environment reused: ${Date.now() - t0} ms`);
      },
      T,
    );

    it(
      'a wheel task calls the entry point of its package with named parameters',
      async () => {
        const wdir = tmp('spark-wheel-');
        const whl = path.join(wdir, 'mlwheel-0.1.0-py3-none-any.whl');
        // A wheel is a zip with a dist-info folder; build one with the standard library.
        const { execFileSync } = await import('node:child_process');
        execFileSync('python3', [
          '-c',
          `import zipfile
z = zipfile.ZipFile(${JSON.stringify(whl)}, "w")
z.writestr("mlwheel/__init__.py", "")
z.writestr("mlwheel/cli.py", "import sys\\ndef main():\\n    print('wheel argv', sys.argv[1:])\\n    print('count', spark.range(3).count() if False else 3)\\n")
di = "mlwheel-0.1.0.dist-info/"
z.writestr(di + "METADATA", "Metadata-Version: 2.1\\nName: mlwheel\\nVersion: 0.1.0\\n")
z.writestr(di + "WHEEL", "Wheel-Version: 1.0\\nGenerator: minilake-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
z.writestr(di + "entry_points.txt", "[console_scripts]\\nrun-it = mlwheel.cli:main\\n")
z.writestr(di + "RECORD", "")
z.close()`,
        ]);
        const r = await engine.launch(
          task(dir, {
            kind: 'wheel',
            file: whl,
            compute: 'serverless',
            wheel: { packageName: 'mlwheel', entryPoint: 'run-it', namedParameters: { day: '2026-12-01' } },
          }),
        ).result;
        expect(r.outcome, `${r.error}\n${r.logs}`).toBe('SUCCESS');
        expect(r.logs).toContain("wheel argv ['--day=2026-12-01']");
      },
      T,
    );

    it(
      "dbfs:/ on the shared server is the engine's DBFS root, whoever started the server",
      async () => {
        // The server is already up, started by tasks without a DBFS root (as a pipeline update or a
        // Databricks Connect session starts it): dbfs:/ still maps to the root the engine was given.
        const file = write(
          dir,
          'dbfs.py',
          'spark.range(3).write.mode("overwrite").parquet("dbfs:/tmp/three")\nprint("read", spark.read.parquet("dbfs:/tmp/three").count())\n',
        );
        const r = await engine.launch(task(dir, { file, compute: 'serverless' })).result;
        expect(r.outcome, `${r.error}\n${r.logs}`).toBe('SUCCESS');
        expect(r.logs).toContain('read 3');
        expect(existsSync(path.join(dbfsRoot, 'tmp', 'three', '_SUCCESS'))).toBe(true);
      },
      T,
    );
  },
);
