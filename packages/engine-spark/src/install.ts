/**
 * Where the Spark install is and what it holds. The versions are pinned once, in versions.json, which
 * install.sh reads too: both derive the same cache folder from them, so the server finds what the install
 * step made without being told.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  cacheSetting,
  tlsCertSetting,
  choiceSetting,
  EngineUnavailable,
  numberSetting,
  readSettings,
  switchSetting,
  textSetting,
  type SettingsOf,
} from '@minilake/core';
import versions from '../versions.json' with { type: 'json' };
import { pluginJar } from './plugin-jars.js';
import { ucCatalogJar } from './uc.js';

const run = promisify(execFile);

export const sparkVersions: {
  pyspark: string;
  deltaSpark: string;
  jars: string[];
  python: string[];
} = versions;

/**
 * The settings the engine reads: its user (jobs) spreads these into its own settings schema, so the host
 * parses them once and the README table documents them.
 */
export const sparkSettings = {
  ...cacheSetting,
  ...tlsCertSetting,
  MINILAKE_SPARK_PYTHON: textSetting({
    doc: 'A Python with PySpark to run Spark tasks with, instead of the cached install (no Delta jars check).',
    shown: "the install's venv",
  }),
  MINILAKE_SPARK_JARS: textSetting({
    doc: 'A folder of jars added to every Spark application.',
    shown: "the install's `jars/` (Delta)",
  }),
  MINILAKE_SPARK_MASTER: textSetting({
    doc: 'Where classic Spark tasks run: `spark://host:7077`, `k8s://...` (data dir on storage both see).',
    default: 'local[*]',
  }),
  MINILAKE_SPARK_CONNECT_MASTER: textSetting({
    doc: 'The master of the warm Spark Connect server serverless tasks use.',
    default: 'local[*]',
  }),
  MINILAKE_SPARK_CONNECT_START_TIMEOUT: numberSetting({
    doc: 'Seconds the Spark Connect server may take to start before serverless tasks fail.',
    default: 180,
    positive: true,
  }),
  MINILAKE_SPARK_LOG_BYTES: numberSetting({
    doc: "Bytes of a task's output kept (the tail) in its result; `logsTruncated` says when it was cut.",
    default: 5242880,
    integer: true,
    min: 1,
  }),
  MINILAKE_SPARK_EXECUTOR: choiceSetting({
    doc: 'Where classic tasks run by default: `subprocess` (spark-submit here) or `docker` (a container each).',
    choices: ['subprocess', 'docker'],
    default: 'subprocess',
  }),
  MINILAKE_SPARK_IMAGE: textSetting({
    doc: "The Docker executor's image (`packages/engine-spark/docker/build.sh` builds it).",
    default: 'minilake-spark:local',
  }),
  MINILAKE_SPARK_RUNTIME: textSetting({
    doc: 'The folder holding `minilake_entry.py` (for a bundled server outside the repo).',
    shown: "the package's `runtime/`",
  }),
  MINILAKE_SPARK_ZYGOTE: switchSetting({
    doc: 'Serverless tasks fork from a warm, pre-imported Python beside Spark Connect (`false`: a plain Python process each).',
    default: 'true',
  }),
};
export type SparkSettingValues = SettingsOf<typeof sparkSettings>;

export interface SparkSettings {
  cacheDir: string;
  python?: string;
  jarsDir?: string;
  master: string;
  connectMaster: string;
  connectStartTimeoutMs: number;
  logBytes: number;
  runtimeDir?: string;
  executor: 'subprocess' | 'docker';
  image: string;
  zygote: boolean;
}

/** The engine's view of its parsed settings. */
export function sparkSettingsOf(s: SparkSettingValues): SparkSettings {
  return {
    cacheDir: s.MINILAKE_CACHE,
    python: s.MINILAKE_SPARK_PYTHON,
    jarsDir: s.MINILAKE_SPARK_JARS,
    master: s.MINILAKE_SPARK_MASTER,
    connectMaster: s.MINILAKE_SPARK_CONNECT_MASTER,
    connectStartTimeoutMs: s.MINILAKE_SPARK_CONNECT_START_TIMEOUT * 1000,
    logBytes: s.MINILAKE_SPARK_LOG_BYTES,
    runtimeDir: s.MINILAKE_SPARK_RUNTIME,
    executor: s.MINILAKE_SPARK_EXECUTOR,
    image: s.MINILAKE_SPARK_IMAGE,
    zygote: s.MINILAKE_SPARK_ZYGOTE,
  };
}

/**
 * The engine's settings from raw MINILAKE_* values (tests and tools that locate the install without a
 * host); a bad value throws a SettingsError naming it.
 */
export function settingsFrom(raw: Readonly<Record<string, string | undefined>>): SparkSettings {
  return sparkSettingsOf(readSettings(sparkSettings, raw));
}

/** The folder install.sh fills, derived from the pinned versions. */
export function defaultInstallDir(cacheDir: string): string {
  return path.join(cacheDir, `spark-${sparkVersions.pyspark}-delta-${sparkVersions.deltaSpark}`);
}

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The package's own folder. Unbundled (src/ or dist/) it is one level up; when apps/server bundles this
 * package, import.meta.url is the server's dist/, so the monorepo layout is tried next.
 */
function packageRoots(): string[] {
  return [path.resolve(here, '..'), path.resolve(here, '../../../packages/engine-spark')];
}

export function installCommand(): string {
  const script = packageRoots()
    .map((r) => path.join(r, 'install.sh'))
    .find((p) => existsSync(p));
  return `bash ${script ?? 'packages/engine-spark/install.sh'}`;
}

export function findRuntime(settings: SparkSettings): string {
  const candidates = settings.runtimeDir
    ? [settings.runtimeDir]
    : packageRoots().map((r) => path.join(r, 'runtime'));
  const found = candidates.find((d) => existsSync(path.join(d, 'minilake_entry.py')));
  if (!found) {
    throw new EngineUnavailable(
      'Spark',
      `the task runtime (minilake_entry.py) is not in ${candidates.join(' or ')}; set MINILAKE_SPARK_RUNTIME to the package's runtime/ folder`,
    );
  }
  return found;
}

export interface SparkInstall {
  python: string;
  sparkHome: string;
  sparkSubmit: string;
  /** The install venv's site-packages, which per-environment venvs see through a .pth file. */
  sitePackages: string;
  /** site-packages relative to the venv's prefix (lib/python3.11/site-packages). */
  siteRelative: string;
  jars: string[];
  runtimeDir: string;
  entry: string;
  supervisor: string;
  /** The warm Python serverless tasks fork from (runtime/minilake_zygote.py). */
  zygote: string;
  /** MiniLake's file systems for dbfs:/ and /Volumes (fs/src, compiled by install.sh), when built. */
  fsJar?: string;
}

export async function locateInstall(settings: SparkSettings): Promise<SparkInstall> {
  const dir = defaultInstallDir(settings.cacheDir);
  const python = settings.python ?? path.join(dir, 'venv', 'bin', 'python');
  const fix = `run \`${installCommand()}\` (PySpark ${sparkVersions.pyspark}, delta-spark ${sparkVersions.deltaSpark}, cached under ${settings.cacheDir})`;
  if (!existsSync(python)) {
    throw new EngineUnavailable(
      'Spark',
      settings.python
        ? `MINILAKE_SPARK_PYTHON=${settings.python} does not exist`
        : `PySpark is not installed (no ${python}): ${fix}`,
    );
  }
  if (!settings.python && !existsSync(path.join(dir, '.complete'))) {
    throw new EngineUnavailable('Spark', `the Spark install in ${dir} is incomplete: ${fix}`);
  }
  let out: string;
  try {
    ({ stdout: out } = await run(
      python,
      [
        '-c',
        'import os, sys, sysconfig, pyspark; p = sysconfig.get_path("purelib"); print(os.path.dirname(pyspark.__file__)); print(p); print(os.path.relpath(p, sys.prefix))',
      ],
      { timeout: 60_000 },
    ));
  } catch (e) {
    throw new EngineUnavailable('Spark', `${python} cannot import pyspark (${firstLine(e)}): ${fix}`);
  }
  const [sparkHome, sitePackages, siteRelative] = out.trim().split('\n');
  const sparkSubmit = path.join(sparkHome!, 'bin', 'spark-submit');
  if (!existsSync(sparkSubmit)) {
    throw new EngineUnavailable('Spark', `${sparkSubmit} is missing: ${fix}`);
  }
  const jarsDir = settings.jarsDir ?? path.join(dir, 'jars');
  const jars = existsSync(jarsDir)
    ? (await readdir(jarsDir))
        .filter((f) => f.endsWith('.jar'))
        .sort()
        .map((f) => path.join(jarsDir, f))
    : [];
  // MiniLake's Unity Catalog plugin (install.sh compiles it next to the Delta jars) joins every application.
  const ucJar = ucCatalogJar(dir);
  if (existsSync(ucJar)) jars.push(ucJar);
  if (
    !settings.jarsDir &&
    !settings.python &&
    !jars.some((j) => path.basename(j).startsWith('delta-spark'))
  ) {
    throw new EngineUnavailable('Spark', `the Delta jars are missing from ${jarsDir}: ${fix}`);
  }
  if (!javaFound()) {
    throw new EngineUnavailable(
      'Spark',
      'Java 17 is needed and neither JAVA_HOME nor a java on PATH was found (Debian: apt-get install openjdk-17-jre-headless)',
    );
  }
  const runtimeDir = findRuntime(settings);
  const fsJar = pluginJar(dir, path.join('fs', 'src'), 'fs', 'minilake-fs.jar');
  return {
    python,
    sparkHome: sparkHome!,
    sparkSubmit,
    sitePackages: sitePackages!,
    siteRelative: siteRelative!,
    jars,
    runtimeDir,
    entry: path.join(runtimeDir, 'minilake_entry.py'),
    supervisor: path.join(runtimeDir, 'minilake_supervise.py'),
    zygote: path.join(runtimeDir, 'minilake_zygote.py'),
    ...(existsSync(fsJar) ? { fsJar } : {}),
  };
}

/** spark-submit fails at once without Java; say so before a task starts. */
function javaFound(): boolean {
  // The environment a child inherits (as spawn does), not configuration.
  const env = process.env;
  if (env.JAVA_HOME && existsSync(path.join(env.JAVA_HOME, 'bin', 'java'))) return true;
  return (env.PATH ?? '').split(path.delimiter).some((d) => d !== '' && existsSync(path.join(d, 'java')));
}

export function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n').find((l) => l.trim() !== '') ?? m;
}
