/**
 * The Spark engine: runs a task's Python (script, notebook or wheel entry point) with `spark` and `dbutils`,
 * on one of two executors behind the same launch(): `subprocess` (spark-submit from the PySpark install,
 * --master local[*] or MINILAKE_SPARK_MASTER) for classic compute, and the warm Spark Connect server for
 * serverless. It knows nothing of HTTP or Databricks JSON: the caller maps SparkTaskResult onto run output.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EngineUnavailable, type Logger, type ServiceContext } from '@minilake/core';
import { ConnectServer } from './connect.js';
import { dockerProblem, removeLeftovers, startContainer } from './docker.js';
import { EnvCache, EnvInstallError } from './envs.js';
import {
  firstLine,
  locateInstall,
  sparkSettingsOf,
  type SparkInstall,
  type SparkSettings,
  type SparkSettingValues,
} from './install.js';
import { startProc, type Proc } from './proc.js';
import { fsConf, joinClassPath, type FsOptions } from './fs.js';
import { startServer } from './servers.js';
import {
  DATABRICKS_SQL_EXTENSION,
  DELTA_CONNECT_CONF,
  hasUcJar,
  pipelineListenerConf,
  ucServerConf,
  ucTaskConf,
} from './uc.js';
import { Zygote } from './zygote.js';
import type {
  ConnectServerHandle,
  ConnectServerSpec,
  PythonRuntime,
  SparkEngine,
  SparkRun,
  SparkTask,
  SparkTaskResult,
} from './types.js';

const DELTA_CONF: Record<string, string> = {
  'spark.sql.extensions': 'io.delta.sql.DeltaSparkSessionExtension',
  'spark.sql.catalog.spark_catalog': 'org.apache.spark.sql.delta.catalog.DeltaCatalog',
  // Tables are Delta unless said otherwise, as on Databricks (saveAsTable, CREATE TABLE without USING).
  'spark.sql.sources.default': 'delta',
  // Spark renders this default with a unit ("3221225472b"); newer Databricks Connect clients (19.x) read it
  // with int() before sending a local relation (createDataFrame). The same value, as a plain number.
  'spark.sql.session.localRelationSizeLimit': '3221225472',
  // Delta's SQL parser drops named parameter markers on Spark 4.1 (spark.sql(text, args=...) fails with
  // UNBOUND_SQL_PARAMETER); the legacy constants-only substitution binds them, which %sql cells need.
  'spark.sql.legacy.parameterSubstitution.constantsOnly': 'true',
};

/** Spark's UI and console progress bar are noise for a job run; a task may turn them back on. */
const QUIET_CONF: Record<string, string> = {
  'spark.ui.enabled': 'false',
  'spark.ui.showConsoleProgress': 'false',
};

/** Driver logs go to a file per attempt (like a cluster's driver log), not into the task's output. */
const LOG4J = `# Written by MiniLake's Spark engine: the JVM's own logs go to the file named by -Dminilake.log.file.
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = \${sys:minilake.log.file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.jetty.name = org.sparkproject.jetty
logger.jetty.level = warn
`;

/** The one line the JVM prints on stderr for the vector module Spark enables; it is not the user's output. */
const JVM_BANNER = 'WARNING: Using incubator modules: jdk.incubator.vector';

/** Environment variables of the host that must not leak into a task (they would point the SDK elsewhere). */
const isHostOnly = (k: string) =>
  k.startsWith('DATABRICKS_') ||
  k.startsWith('MLFLOW_') ||
  k.startsWith('MINILAKE_') ||
  k.startsWith('PYSPARK_') ||
  k === 'SPARK_REMOTE' ||
  k === 'SPARK_CONNECT_MODE_ENABLED' ||
  k === 'PYTHONPATH' ||
  k === 'VIRTUAL_ENV';

/** A local master, or a cluster on this machine's loopback: the driver need not listen anywhere else. */
function onLoopback(master: string): boolean {
  if (master.startsWith('local')) return true;
  const m = /^spark:\/\/([^:/,]+)/.exec(master);
  return m !== null && ['127.0.0.1', 'localhost', '::1'].includes(m[1]!);
}

interface RuntimeResult {
  notebookResult?: string | null;
  taskValues?: Record<string, unknown>;
  error?: string | null;
  errorTrace?: string | null;
}

class Engine implements SparkEngine {
  private readonly settings: SparkSettings;
  private readonly logger: Logger;
  private readonly dir: string;
  private install?: SparkInstall;
  private locating?: Promise<SparkInstall>;
  /** Every task not yet finished, with the promise that settles when its process is gone. */
  private readonly running = new Map<{ cancel(): void }, Promise<unknown>>();
  private readonly connect: ConnectServer;
  private zygote?: Zygote;
  /** Where dbfs:/ lives for every Spark process (the files service's root, handed over by useDbfsRoot). */
  private dbfsRoot?: string;
  /**
   * The engine's own token, for what outlives any one task (the shared Spark Connect server's Unity Catalog
   * calls) and for a task that brings none: a run's token ends with its run, so the server must not borrow it.
   */
  // The host's token (accepted as the configured user with MINILAKE_AUTH=tokens), not a run's.
  private readonly ownToken: string;
  private readonly envs: EnvCache;
  /** Unity Catalog for sessions that did not come from a task (Databricks Connect), fixed at the server's start. */
  private connectConf: Record<string, string> = {};
  /** Unity Catalog's catalog names, once a service handed them over (useCatalogs). */
  private catalogList: (() => string[]) | undefined;
  /** Servers of their own (clusters' drivers) still running, stopped by close(). */
  private readonly servers = new Set<() => Promise<void>>();
  private log4jReady?: Promise<string>;
  private dockerSwept?: Promise<void>;
  private closed = false;

  constructor(private readonly ctx: ServiceContext<SparkSettingValues>) {
    this.settings = sparkSettingsOf(ctx.settings);
    this.ownToken = ctx.hostToken;
    this.logger = ctx.logger.child('spark');
    // Engines keep their files under <dataDir>/<engine>/ (the service's own ctx.dir is the caller's).
    this.dir = path.join(ctx.dataDir, 'spark');
    this.envs = new EnvCache(path.join(this.settings.cacheDir, 'spark-envs'), () => this.install!);
    this.connect = new ConnectServer({
      dir: path.join(this.dir, 'connect'),
      master: this.settings.connectMaster,
      startTimeoutMs: this.settings.connectStartTimeoutMs,
      logger: this.logger,
      commonArgs: (logFile, localDir) =>
        this.commonArgs(
          this.install!,
          logFile,
          localDir,
          { ...pipelineListenerConf(this.install!.jars), ...this.connectConf },
          this.defaultFs(),
        ),
      env: (extra) => this.childEnv({ ...extra, SPARK_LOCAL_IP: '127.0.0.1' }),
    });
  }

  /** Found once; a missing install is looked for again on the next call, so installing needs no restart. */
  private locate(): Promise<SparkInstall> {
    if (this.install) return Promise.resolve(this.install);
    if (!this.locating) {
      this.locating = locateInstall(this.settings)
        .then((i) => {
          this.install = i;
          return i;
        })
        .finally(() => {
          this.locating = undefined;
        });
    }
    return this.locating;
  }

  async check(): Promise<void> {
    await this.locate();
  }

  async connectPort(): Promise<number> {
    const inst = await this.locate();
    await this.log4jFile();
    return this.ensureConnect(inst);
  }

  /**
   * The shared Spark Connect server, started with the conf its own sessions need (Unity Catalog's catalogs:
   * a Databricks Connect client or a port client's session has no task to configure it), whoever starts it
   * first: a client, a serverless task, a pipeline update or the prewarm.
   */
  private async ensureConnect(inst: SparkInstall): Promise<number> {
    if (!this.connect.url()) this.connectConf = await ucServerConf(this.ucOptions(inst, this.ownToken));
    return this.connect.ensure(inst);
  }

  async pythonRuntime(): Promise<PythonRuntime> {
    const inst = await this.locate();
    const selfUrl = this.ctx.selfUrl();
    return {
      python: inst.python,
      supervisor: inst.supervisor,
      runtimeDir: inst.runtimeDir,
      env: (extra) =>
        this.childEnv({
          DATABRICKS_AUTH_TYPE: 'pat',
          DATABRICKS_TOKEN: this.ownToken,
          ...(selfUrl ? { DATABRICKS_HOST: selfUrl } : {}),
          PYTHONPATH: inst.runtimeDir,
          ...extra,
        }),
    };
  }

  startConnectServer(spec: ConnectServerSpec): ConnectServerHandle {
    return startServer(
      {
        dir: this.dir,
        master: this.settings.connectMaster,
        startTimeoutMs: this.settings.connectStartTimeoutMs,
        logger: this.logger,
        locate: () => {
          if (this.closed) return Promise.reject(new EngineUnavailable('Spark', 'the engine is closed'));
          return this.locate();
        },
        prepare: () => this.log4jFile(),
        python: (inst, deps) =>
          deps.length
            ? this.envs.python(deps, undefined, new AbortController().signal)
            : Promise.resolve(inst.python),
        args: (inst, logFile, localDir, conf, jars) =>
          this.commonArgs(inst, logFile, localDir, conf, this.defaultFs(), jars),
        conf: async (inst) => {
          // A cluster restarted with a persisted server starts before the host listens: its Spark needs
          // the server's URL for Unity Catalog, so it waits for it (briefly: the host listens right after).
          for (let i = 0; i < 600 && !this.ctx.selfUrl() && !this.closed; i++)
            await new Promise((r) => setTimeout(r, 50));
          return ucServerConf(this.ucOptions(inst, this.ownToken));
        },
        env: (extra) => this.childEnv(extra),
        track: (stop) => {
          this.servers.add(stop);
          return () => this.servers.delete(stop);
        },
      },
      spec,
    );
  }

  /**
   * How Spark reaches Unity Catalog: the server's URL, the token, MiniLake's local certificate when the
   * server speaks TLS (the host writes it to <dataDir>/tls/cert.pem, or MINILAKE_TLS_CERT names it), and
   * Unity Catalog's list of catalogs when a service handed it over (useCatalogs).
   */
  private ucOptions(inst: SparkInstall, token: string) {
    const selfUrl = this.ctx.selfUrl();
    const caCert = selfUrl?.startsWith('https:')
      ? (this.ctx.settings.MINILAKE_TLS_CERT ?? path.join(this.ctx.dataDir, 'tls', 'cert.pem'))
      : undefined;
    return {
      jars: inst.jars,
      selfUrl,
      token,
      caCert,
      catalogs: this.catalogList,
    };
  }

  useCatalogs(list: () => string[]): void {
    this.catalogList = list;
  }

  useDbfsRoot(root: string): void {
    this.dbfsRoot = root;
  }

  async prewarm(): Promise<void> {
    const inst = await this.locate();
    await this.log4jFile();
    const warm = this.warmPython(inst);
    await this.ensureConnect(inst);
    await warm;
  }

  /**
   * Starts (once) the pre-imported Python serverless tasks fork from, beside the Spark Connect server;
   * false when it is turned off or could not start, and the task runs as a plain process.
   */
  private warmPython(inst: SparkInstall): Promise<boolean> {
    if (!this.settings.zygote || this.closed) return Promise.resolve(false);
    this.zygote ??= new Zygote({
      python: inst.python,
      script: inst.zygote,
      cwd: this.dir,
      env: this.childEnv({}),
      logger: this.logger,
      startTimeoutMs: this.settings.connectStartTimeoutMs,
    });
    return this.zygote.ensure();
  }

  private log4jFile(): Promise<string> {
    this.log4jReady ??= (async () => {
      await mkdir(this.dir, { recursive: true });
      const f = path.join(this.dir, 'log4j2.properties');
      await writeFile(f, LOG4J);
      return f;
    })();
    return this.log4jReady;
  }

  private commonArgs(
    inst: SparkInstall,
    logFile: string,
    localDir: string,
    userConf: Record<string, string>,
    fs: Omit<FsOptions, 'fsJar'>,
    userJars: string[] = [],
  ): string[] {
    const mapped = fsConf({ ...fs, fsJar: inst.fsJar });
    const log4j = path.join(this.dir, 'log4j2.properties');
    const javaOpts = [`-Dlog4j2.configurationFile=file:${log4j}`, `-Dminilake.log.file=${logFile}`];
    const conf: Record<string, string> = {
      ...DELTA_CONF,
      // Databricks SQL (USE CATALOG, CREATE CATALOG, GRANT...) beside Delta's, and Delta Connect (DeltaTable
      // over Databricks Connect) for the Spark Connect servers, both from MiniLake's plugin jar.
      ...(hasUcJar(inst.jars)
        ? {
            'spark.sql.extensions': `${DELTA_CONF['spark.sql.extensions']},${DATABRICKS_SQL_EXTENSION}`,
            ...DELTA_CONNECT_CONF,
          }
        : {}),
      ...QUIET_CONF,
      // Spark's scratch space (shuffle, block manager) inside the attempt's folder, so a killed task
      // leaves nothing in /tmp.
      'spark.local.dir': localDir,
      ...mapped,
      ...userConf,
    };
    for (const k of ['spark.driver.extraClassPath', 'spark.executor.extraClassPath']) {
      const cp = joinClassPath(mapped[k], userConf[k]);
      if (cp) conf[k] = cp;
    }
    const userJava = userConf['spark.driver.extraJavaOptions'];
    conf['spark.driver.extraJavaOptions'] = [...javaOpts, ...(userJava ? [userJava] : [])].join(' ');
    const args: string[] = [];
    // One --jars (spark-submit keeps only the last one given): the engine's and the task's together.
    const jars = [...inst.jars, ...userJars];
    if (jars.length > 0) args.push('--jars', jars.join(','));
    for (const [k, v] of Object.entries(conf)) args.push('--conf', `${k}=${v}`);
    return args;
  }

  private childEnv(extra: Record<string, string>, taskEnv: Record<string, string> = {}) {
    const env: Record<string, string> = {};
    // A child inherits the host's environment as any process does (PATH, JAVA_HOME, HOME); this is not
    // configuration, which comes through ctx.settings. Variables that would redirect the task are dropped.
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !isHostOnly(k)) env[k] = v;
    // As in a Databricks runtime, mlflow tracks to the workspace (MiniLake) unless the task says otherwise.
    env.MLFLOW_TRACKING_URI = 'databricks';
    Object.assign(env, taskEnv, extra, {
      PYTHONUNBUFFERED: '1',
      MINILAKE_SERVER_PID: String(process.pid),
    });
    if (this.install) env.SPARK_HOME = this.install.sparkHome;
    return env;
  }

  /** Undefined when a container can start; leftovers of a dead server are removed once. */
  private async dockerReady(image: string): Promise<string | undefined> {
    const problem = await dockerProblem(image);
    if (!problem) {
      this.dockerSwept ??= removeLeftovers(pidAlive).catch(() => undefined);
      await this.dockerSwept;
    }
    return problem;
  }

  /**
   * A container gets the task's variables and the engine's, not the host's environment (PATH, JAVA_HOME and
   * the locale come from the image).
   */
  private containerEnv(extra: Record<string, string>, taskEnv: Record<string, string>, workDir: string) {
    const env: Record<string, string> = {
      HOME: workDir,
      ...taskEnv,
      ...extra,
      PYTHONUNBUFFERED: '1',
      MINILAKE_SERVER_PID: String(process.pid),
    };
    if (this.install) env.SPARK_HOME = this.install.sparkHome;
    return env;
  }

  /** What the container sees of the host, each at its own path: data, runtime, venvs, the task's file. */
  private containerMounts(inst: SparkInstall, task: SparkTask, python: string) {
    const data = path.resolve(this.ctx.dataDir);
    const inside = (p: string, dir: string) => p === dir || p.startsWith(dir + path.sep);
    const mounts: { path: string; ro?: boolean }[] = [{ path: data }, { path: inst.runtimeDir, ro: true }];
    if (!inside(path.resolve(task.workDir), data)) mounts.push({ path: path.resolve(task.workDir) });
    const fileDir = path.dirname(path.resolve(task.file));
    if (!mounts.some((m) => inside(fileDir, m.path))) mounts.push({ path: fileDir, ro: true });
    if (inst.fsJar) mounts.push({ path: path.dirname(inst.fsJar), ro: true });
    if (python !== inst.python)
      mounts.push({ path: path.join(this.settings.cacheDir, 'spark-envs'), ro: true });
    return mounts;
  }

  /**
   * dbfs:/ and /Volumes for what outlives any one task (the shared Spark Connect server, clusters' drivers):
   * the engine's own token; dbfs:/ only once a service handed its root over (useDbfsRoot).
   */
  private defaultFs(): Omit<FsOptions, 'fsJar'> {
    return { dbfsRoot: this.dbfsRoot, selfUrl: this.ctx.selfUrl(), token: this.ownToken };
  }

  launch(task: SparkTask): SparkRun {
    const t0 = Date.now();
    let proc: Proc | undefined;
    let stopped: 'CANCELED' | 'TIMEDOUT' | undefined;
    const abort = new AbortController();
    const handle = {
      cancel: () => {
        if (stopped) return;
        stopped = 'CANCELED';
        abort.abort();
        proc?.kill();
      },
    };
    const timer =
      task.timeoutMs && task.timeoutMs > 0
        ? setTimeout(() => {
            if (stopped) return;
            stopped = 'TIMEDOUT';
            abort.abort();
            proc?.kill();
          }, task.timeoutMs)
        : undefined;
    // The slow steps before the process starts (a Spark Connect server or the warm Python coming up, an
    // environment installing) are raced against a cancel, so a cancel ends the task at once instead of when
    // the step is done; the step itself goes on for the next task.
    const stop = new Promise<void>((resolve) => abort.signal.addEventListener('abort', () => resolve()));
    const unlessStopped = <T>(p: Promise<T>): Promise<T | undefined> =>
      Promise.race([p, stop.then(() => undefined)]);
    const base = (): Pick<SparkTaskResult, 'logs' | 'logsTruncated' | 'taskValues' | 'exitCode'> => ({
      logs: '',
      logsTruncated: false,
      taskValues: {},
      exitCode: null,
    });
    const stoppedResult = (): SparkTaskResult => ({
      ...base(),
      outcome: stopped!,
      error:
        stopped === 'TIMEDOUT'
          ? `The task timed out after ${Math.round(task.timeoutMs! / 1000)} s and was stopped`
          : 'The task was canceled',
    });
    const result = (async (): Promise<SparkTaskResult> => {
      if (this.closed) {
        return { ...base(), outcome: 'FAILED', error: 'The Spark engine is closed', unavailable: true };
      }
      let inst: SparkInstall;
      try {
        const located = await unlessStopped(this.locate());
        if (located === undefined) return stoppedResult();
        inst = located;
      } catch (e) {
        if (e instanceof EngineUnavailable) {
          return { ...base(), outcome: 'FAILED', error: e.message, unavailable: true };
        }
        throw e;
      }
      if (stopped) return stoppedResult();
      await mkdir(task.workDir, { recursive: true });
      await this.log4jFile();
      let python = inst.python;
      const jvm = task.kind === 'jar' || task.kind === 'submit';
      const deps = jvm ? [] : (task.dependencies ?? []);
      if (deps.length > 0 || task.kind === 'wheel') {
        try {
          python = await this.envs.python(deps, task.kind === 'wheel' ? task.file : undefined, abort.signal);
        } catch (e) {
          if (stopped) return stoppedResult();
          const output = e instanceof EnvInstallError ? e.output : '';
          return {
            ...base(),
            outcome: 'FAILED',
            error: firstLine(e),
            logs: output.slice(-this.settings.logBytes),
          };
        }
      }
      if (stopped) return stoppedResult();
      // dbt is a plain Python process (the runtime's dbt kind): no Spark application, no Spark Connect. A
      // Python task on a cluster's own Spark Connect server runs as a serverless one does, on that server; a JVM
      // task is its own spark-submit application whatever compute it names.
      const plain = task.kind === 'dbt';
      const serverless = (task.compute === 'serverless' || task.remote !== undefined) && !jvm && !plain;
      let remote: string | undefined = jvm || plain ? undefined : task.remote;
      // Only the install's own Python is pre-imported: a task with its own venv runs as a plain process.
      const warm = serverless && python === inst.python ? this.warmPython(inst) : Promise.resolve(false);
      const selfUrl = this.ctx.selfUrl();
      const token = task.token ?? this.ownToken;
      if (serverless && !remote) {
        try {
          const port = await unlessStopped(this.ensureConnect(inst));
          if (port === undefined) return stoppedResult();
          remote = `sc://127.0.0.1:${port}`;
        } catch (e) {
          if (stopped) return stoppedResult();
          return {
            ...base(),
            outcome: 'FAILED',
            error: firstLine(e),
            unavailable: e instanceof EngineUnavailable,
          };
        }
      }
      if (stopped) return stoppedResult();
      // Unity Catalog's catalogs as Spark catalogs (the task's own conf wins over them).
      const sparkConf: Record<string, string> = {
        ...(await unlessStopped(ucTaskConf(this.ucOptions(inst, token)))),
        ...(task.remote ? {} : task.sparkConf),
      };
      // A session on a shared Spark Connect server (serverless, or a cluster's driver) inherits the server's
      // conf, where the file systems' key holds the engine's token (fs.ts): the run's replaces it, so the
      // task cannot read the engine's token back with spark.conf.get. Path reads keep the file system the
      // server made at its start (Hadoop caches it), so they are unchanged.
      if (serverless && task.token !== undefined && inst.fsJar && selfUrl)
        sparkConf['spark.hadoop.minilake.uc.token'] = token;
      if (stopped) return stoppedResult();
      const resultFile = path.join(task.workDir, 'minilake-result.json');
      const taskFile = path.join(task.workDir, 'minilake-task.json');
      await writeFile(
        taskFile,
        JSON.stringify({
          kind: task.kind,
          file: task.file,
          args: task.args,
          widgets: task.widgets,
          wheel: task.wheel ?? null,
          dbt: task.dbt ?? null,
          pipeline: task.pipeline ?? null,
          taskValues: task.taskValues,
          context: task.context,
          sourcePath: task.sourcePath ?? null,
          sparkConf: serverless ? sparkConf : {},
          serverless,
          workDir: task.workDir,
          resultFile,
        }),
      );
      const extra: Record<string, string> = {
        MINILAKE_TASK_FILE: taskFile,
        PYSPARK_PYTHON: python,
        PYSPARK_DRIVER_PYTHON: python,
        DATABRICKS_AUTH_TYPE: 'pat',
        DATABRICKS_TOKEN: token,
        ...(selfUrl ? { DATABRICKS_HOST: selfUrl } : {}),
        DATABRICKS_JOB_RUN_ID: String(task.context.runId),
      };
      const master = this.settings.master;
      if (remote) extra.SPARK_REMOTE = remote;
      else if (onLoopback(master) && !task.env.SPARK_LOCAL_IP) extra.SPARK_LOCAL_IP = '127.0.0.1';
      const env = this.childEnv(extra, task.env);
      const driverLog = path.join(task.workDir, 'driver-log4j.txt');
      const app = jvmApplication(task);
      const args =
        serverless || plain
          ? [inst.supervisor, python, inst.entry]
          : [
              inst.supervisor,
              inst.sparkSubmit,
              '--master',
              master,
              '--name',
              `minilake-${task.context.taskKey}-${task.id}`,
              ...this.commonArgs(
                inst,
                driverLog,
                path.join(task.workDir, 'spark-local'),
                sparkConf,
                { dbfsRoot: this.dbfsRoot, selfUrl, token },
                app?.jars,
              ),
              ...(app ? app.args : [inst.entry]),
            ];
      const warmed = serverless && (await unlessStopped(warm)) === true;
      if (stopped) return stoppedResult();
      const executor = serverless || plain ? 'subprocess' : (task.executor ?? this.settings.executor);
      if (executor === 'docker') {
        const image = task.image ?? this.settings.image;
        const problem = await this.dockerReady(image);
        if (problem) return { ...base(), outcome: 'FAILED', error: `Docker executor: ${problem}` };
        if (stopped) return stoppedResult();
        proc = startContainer({
          image,
          cmd: inst.python,
          args,
          env: this.containerEnv(extra, task.env, task.workDir),
          cwd: task.workDir,
          logBytes: this.settings.logBytes,
          mounts: this.containerMounts(inst, task, python),
          user: `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`,
          name: `minilake-${task.id}`.replace(/[^a-zA-Z0-9_.-]/g, '-'),
          labels: { 'dev.minilake.server.pid': String(process.pid) },
        });
      } else if (warmed) {
        proc = this.zygote!.spawn({
          env,
          cwd: task.workDir,
          logFile: path.join(task.workDir, 'output.txt'),
          logBytes: this.settings.logBytes,
        });
      } else {
        proc = startProc({
          cmd: inst.python,
          args,
          env,
          cwd: task.workDir,
          logBytes: this.settings.logBytes,
        });
      }
      if (stopped) proc.kill();
      const r = await proc.done;
      let rt: RuntimeResult = {};
      if (existsSync(resultFile)) {
        try {
          rt = JSON.parse(await readFile(resultFile, 'utf8')) as RuntimeResult;
        } catch {
          rt = {};
        }
      }
      let logs = r.output
        .split('\n')
        .filter((l) => l !== JVM_BANNER)
        .join('\n');
      for (const secret of task.redact ?? []) if (secret) logs = logs.split(secret).join('[REDACTED]');
      const common = {
        exitCode: r.exitCode,
        logs,
        logsTruncated: r.truncated,
        taskValues: rt.taskValues ?? {},
        ...(rt.notebookResult != null ? { notebookResult: rt.notebookResult } : {}),
      };
      if (stopped) return { ...stoppedResult(), ...common };
      if (r.spawnError)
        return { ...common, outcome: 'FAILED', error: `Could not start the task: ${r.spawnError}` };
      if (r.exitCode === 0) return { ...common, outcome: 'SUCCESS' };
      const thrown = jvm ? jvmException(logs) : undefined;
      return {
        ...common,
        outcome: 'FAILED',
        ...(thrown ? { errorTrace: thrown.trace } : {}),
        error:
          rt.error ??
          thrown?.error ??
          (r.exitCode === null
            ? `Process was killed by ${r.signal ?? 'a signal'}`
            : `Process exited with code ${r.exitCode}`),
        ...(rt.errorTrace ? { errorTrace: rt.errorTrace } : {}),
      };
    })()
      .then((res) => ({ ...res, durationMs: Date.now() - t0 }))
      .finally(() => {
        if (timer) clearTimeout(timer);
        this.running.delete(handle);
      });
    this.running.set(
      handle,
      result.catch(() => undefined),
    );
    return { result, cancel: handle.cancel };
  }

  /** Kills every running task and waits until their processes are gone. */
  private async stopAll(): Promise<void> {
    for (const h of this.running.keys()) h.cancel();
    await Promise.all(this.running.values());
  }

  async reset(): Promise<void> {
    await this.stopAll();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.stopAll();
    await Promise.all([this.connect.stop(), this.zygote?.stop(), ...[...this.servers].map((stop) => stop())]);
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The host's one Spark engine (shared by every service that asks, through ctx.shared). */
export function sparkEngine(ctx: ServiceContext<SparkSettingValues>): Promise<SparkEngine> {
  return ctx.shared('spark', () => new Engine(ctx));
}

/** A fresh engine not shared through the host (tests, embedders). */
export function createSparkEngine(ctx: ServiceContext<SparkSettingValues>): SparkEngine {
  return new Engine(ctx);
}

/**
 * What spark-submit runs for a JVM task: `jar` is `--class <main> <application jar> <args>` with the other
 * jars on the class path; `submit` is the user's own arguments, their `--jars` merged into the engine's.
 */
function jvmApplication(task: SparkTask): { jars: string[]; args: string[] } | undefined {
  if (task.kind === 'jar' && task.jar)
    return { jars: task.jar.jars, args: ['--class', task.jar.mainClass, task.file, ...task.args] };
  if (task.kind !== 'submit') return undefined;
  const jars: string[] = [];
  const args: string[] = [];
  const user = task.submitArgs ?? [];
  for (let i = 0; i < user.length; i++) {
    const a = user[i]!;
    if (a === '--jars' && i + 1 < user.length) jars.push(...user[++i]!.split(',').filter(Boolean));
    else if (a.startsWith('--jars=')) jars.push(...a.slice('--jars='.length).split(',').filter(Boolean));
    else args.push(a);
  }
  return { jars, args };
}

/** The exception a JVM application died of, from its output: `Exception in thread "main" x.Y: why`. */
function jvmException(logs: string): { error: string; trace: string } | undefined {
  const lines = logs.split('\n');
  const at = lines.findIndex((l) => l.startsWith('Exception in thread "main" '));
  if (at < 0) return undefined;
  const error = lines[at]!.slice('Exception in thread "main" '.length).trim();
  const trace = [error];
  for (const l of lines.slice(at + 1)) {
    if (!/^\s+at |^Caused by: |^\s+\.\.\. \d+ more/.test(l)) break;
    trace.push(l);
  }
  return { error, trace: trace.join('\n') };
}
