/**
 * What needs no Spark: the missing-install path (a clear failure naming the install command, at once),
 * settings, the output tail, and the runtime's notebook parser and SQL splitter (run on the system Python).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineUnavailable } from '@minilake/core';
import { describe, expect, it } from 'vitest';
import { defaultInstallDir, settingsFrom, sparkSettings, sparkVersions } from '../src/index.js';
import { TailBuffer } from '../src/proc.js';
import { alive, engineFor, task, tmp, within, write } from './helpers.js';

const runtimeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../runtime');

describe('without a Spark install', () => {
  it('fails the task at once with the command to run, and check() rejects with EngineUnavailable', async () => {
    const { engine, dir } = engineFor({ config: { MINILAKE_CACHE: tmp('empty-cache-') } });
    const file = write(dir, 'x.py', 'print(1)\n');
    const t0 = Date.now();
    const r = await engine.launch(task(dir, { file })).result;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.outcome).toBe('FAILED');
    expect(r.unavailable).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.error).toMatch(/PySpark is not installed .*run `bash .*packages\/engine-spark\/install\.sh`/);
    await expect(engine.check()).rejects.toBeInstanceOf(EngineUnavailable);
    await engine.close();
  });

  it('names a bad MINILAKE_SPARK_PYTHON', async () => {
    const { engine } = engineFor({ config: { MINILAKE_SPARK_PYTHON: '/nonexistent/python' } });
    await expect(engine.check()).rejects.toThrow('MINILAKE_SPARK_PYTHON=/nonexistent/python does not exist');
  });
});

describe('settings', () => {
  it('derives the install folder from the pinned versions and MINILAKE_CACHE', () => {
    const s = settingsFrom({ MINILAKE_CACHE: '/c' });
    expect(defaultInstallDir(s.cacheDir)).toBe(
      `/c/spark-${sparkVersions.pyspark}-delta-${sparkVersions.deltaSpark}`,
    );
    expect(sparkVersions.jars).toContain(`io.delta:delta-spark_4.1_2.13:${sparkVersions.deltaSpark}`);
    expect(s.master).toBe('local[*]');
    expect(settingsFrom({ MINILAKE_SPARK_MASTER: 'spark://h:7077' }).master).toBe('spark://h:7077');
    expect(
      Object.keys(sparkSettings).every(
        (k) => k.startsWith('MINILAKE_SPARK_') || k === 'MINILAKE_CACHE' || k === 'MINILAKE_TLS_CERT',
      ),
    ).toBe(true);
    // A bad value is named, never replaced by a default.
    expect(() => settingsFrom({ MINILAKE_SPARK_EXECUTOR: 'vm' })).toThrow(
      'MINILAKE_SPARK_EXECUTOR="vm" must be one of subprocess, docker',
    );
  });
});

describe('TailBuffer', () => {
  it('keeps the last bytes and says when it cut', () => {
    const t = new TailBuffer(10);
    for (let i = 0; i < 100; i++) t.push(Buffer.from(`${i % 10}`));
    expect(t.text()).toEqual({ text: '0123456789', truncated: true });
    const u = new TailBuffer(100);
    u.push(Buffer.from('héllo'));
    expect(u.text()).toEqual({ text: 'héllo', truncated: false });
  });
});

describe('runtime parsing (system Python)', () => {
  const py = (code: string) =>
    JSON.parse(execFileSync('python3', ['-c', code], { cwd: runtimeDir, encoding: 'utf8' })) as unknown;

  it('splits %sql cells on semicolons outside quotes and comments, and finds parameter markers', () => {
    const sql = "SELECT 'a;b', `c;d` FROM t; -- x;y\nSELECT \"e;\" || :name, a::int, '\\';' ; /* ; */ ;";
    const out = py(
      `import json; from minilake_runtime.sqlsplit import split_statements as s; print(json.dumps(s(${JSON.stringify(sql)})))`,
    );
    expect(out).toEqual([
      ["SELECT 'a;b', `c;d` FROM t", []],
      ["-- x;y\nSELECT \"e;\" || :name, a::int, '\\';'", ['name']],
      ['/* ; */', []],
    ]);
  });

  it('parses Databricks source notebooks into python and magic cells with their lines', () => {
    const src = [
      '# Databricks notebook source',
      'x = 1',
      '',
      '# COMMAND ----------',
      '',
      '# DBTITLE 1,Load',
      '# MAGIC %sql',
      '# MAGIC SELECT 1',
      '',
      '# COMMAND ----------',
      '',
      '# MAGIC %md',
      '# MAGIC # Title',
      '',
      '# COMMAND ----------',
      '',
      '# MAGIC %pip install tabulate==0.9.0',
    ].join('\n');
    const out = py(
      `import json; from minilake_runtime.notebook import parse_source as p; print(json.dumps([[c.magic, c.source.strip(), c.line] for c in p(${JSON.stringify(src)})]))`,
    );
    expect(out).toEqual([
      [null, 'x = 1', 1],
      ['sql', 'SELECT 1', 5],
      ['md', '# Title', 11],
      ['pip', 'install tabulate==0.9.0', 16],
    ]);
  });
});

describe('the supervisor', () => {
  it('kills its whole process group when the server that started it is gone', async () => {
    const dir = tmp('supervise-');
    const pidFile = path.join(dir, 'pid');
    // A stand-in for the MiniLake server: the supervisor watches its pid.
    const server = spawn('sleep', ['60'], { stdio: 'ignore' });
    const sup = spawn(
      'python3',
      [
        path.join(runtimeDir, 'minilake_supervise.py'),
        'python3',
        '-c',
        `import os, time; open(${JSON.stringify(pidFile)}, "w").write(str(os.getpid())); time.sleep(60)`,
      ],
      { env: { ...process.env, MINILAKE_SERVER_PID: String(server.pid) }, detached: true, stdio: 'ignore' },
    );
    const exited = new Promise((r) => sup.once('exit', r));
    const deadline = Date.now() + 10_000;
    while (!existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const child = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(child)).toBe(true);
    server.kill('SIGKILL');
    const t0 = Date.now();
    await exited;
    // SIGKILL is delivered to the group at once, but a process takes a moment to be gone.
    expect(await within(1000, () => !alive(child))).toBe(true);
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});
