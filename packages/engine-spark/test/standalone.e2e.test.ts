/**
 * MINILAKE_SPARK_MASTER against a real Spark standalone cluster: a master and one worker started from the
 * same PySpark install on loopback (free ports), a classic task whose Python UDF work runs on the worker's
 * executor, both stopped afterwards. Skipped only when the Spark install is absent.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, locateInstall, settingsFrom } from '../src/index.js';
import { startProc, type Proc } from '../src/proc.js';
import { cacheDir, engineFor, installed, skipReason, task, tmp, write } from './helpers.js';

describe.skipIf(!installed)(
  `a Spark standalone cluster as MINILAKE_SPARK_MASTER (${installed ? 'installed' : skipReason})`,
  () => {
    const procs: Proc[] = [];
    let master = '';
    const dir = tmp('spark-standalone-');

    beforeAll(async () => {
      const inst = await locateInstall(settingsFrom({ MINILAKE_CACHE: cacheDir }));
      const [port, ui, workerUi] = [await freePort(), await freePort(), await freePort()];
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? dir,
        SPARK_HOME: inst.sparkHome,
        SPARK_LOCAL_IP: '127.0.0.1',
        ...(process.env.JAVA_HOME ? { JAVA_HOME: process.env.JAVA_HOME } : {}),
      };
      const sparkClass = path.join(inst.sparkHome, 'bin', 'spark-class');
      master = `spark://127.0.0.1:${port}`;
      procs.push(
        startProc({
          cmd: sparkClass,
          args: [
            'org.apache.spark.deploy.master.Master',
            '--host',
            '127.0.0.1',
            '--port',
            String(port),
            '--webui-port',
            String(ui),
          ],
          env,
          cwd: dir,
          logBytes: 65536,
        }),
      );
      procs.push(
        startProc({
          cmd: sparkClass,
          args: [
            'org.apache.spark.deploy.worker.Worker',
            '--host',
            '127.0.0.1',
            '--webui-port',
            String(workerUi),
            '--cores',
            '2',
            '--memory',
            '1g',
            '--work-dir',
            path.join(dir, 'work'),
            master,
          ],
          env,
          cwd: dir,
          logBytes: 65536,
        }),
      );
      // Ready when the master's status page counts the worker as alive.
      const deadline = Date.now() + 150_000;
      for (;;) {
        try {
          const s = (await (await fetch(`http://127.0.0.1:${ui}/json/`)).json()) as { aliveworkers?: number };
          if ((s.aliveworkers ?? 0) >= 1) break;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error('the standalone worker never registered with the master');
        await new Promise((r) => setTimeout(r, 250));
      }
    }, 180_000);

    afterAll(async () => {
      for (const p of procs.reverse()) p.kill(500);
      await Promise.all(procs.map((p) => p.done));
    });

    it('a classic task runs on the cluster: Python work on its executor, Delta files on shared storage', async () => {
      const { engine } = engineFor({ config: { MINILAKE_SPARK_MASTER: master } });
      const out = path.join(dir, 'delta-out');
      const file = write(
        dir,
        'cluster.py',
        [
          'import os',
          'sc = spark.sparkContext',
          'print("master", sc.master)',
          'print("sum", sc.parallelize(range(100), 4).map(lambda x: x * 2).sum())',
          'print("executor pids differ", len(set(sc.parallelize(range(4), 4).map(lambda _: os.getpid()).collect()) - {os.getpid()}) > 0)',
          `spark.range(7).write.format("delta").save(${JSON.stringify(out)})`,
          `print("delta rows", spark.read.format("delta").load(${JSON.stringify(out)}).count())`,
        ].join('\n'),
      );
      const r = await engine.launch(task(dir, { file })).result;
      await engine.close();
      expect(r.outcome, `${r.error}\n${r.logs}`).toBe('SUCCESS');
      expect(r.logs).toContain(`master ${master}`);
      expect(r.logs).toContain('sum 9900');
      expect(r.logs).toContain('executor pids differ True');
      expect(r.logs).toContain('delta rows 7');
      expect(existsSync(path.join(out, '_delta_log', '00000000000000000000.json'))).toBe(true);
    }, 300_000);
  },
);
