/** The engine's contract with its callers (the Jobs package): plain data in, plain data out, no HTTP. */

export interface SparkTask {
  /** Unique per attempt, for logs. */
  id: string;
  /**
   * Python kinds run MiniLake's runtime (dbutils, widgets, task values); `jar` and `submit` are JVM
   * applications spark-submit starts itself (always classic, on this machine's Spark); `dbt` runs dbt
   * commands with the dbt its dependencies install, as a plain process (no Spark of its own); `pipeline` runs a Spark Declarative Pipelines update.
   */
  kind: 'python' | 'notebook' | 'wheel' | 'jar' | 'submit' | 'dbt' | 'pipeline';
  /**
   * Absolute local path: a .py script, a notebook source (.py Databricks source with '# COMMAND ----------'
   * cells and '# MAGIC %sql' cells, or .ipynb), or a .whl.
   */
  file: string;
  /**
   * A declarative pipeline update (kind `pipeline`, serverless only): what runtime/minilake_runtime/pipeline.py
   * reads (the update id, catalog and schema, sources, refresh selection, ...). `file` is then unused.
   */
  pipeline?: Record<string, unknown>;
  /** argv (spark_python_task parameters / python_params). */
  args: string[];
  /** dbutils.widgets values (notebook base_parameters + notebook_params + job parameters). */
  widgets: Record<string, string>;
  wheel?: { packageName: string; entryPoint: string; namedParameters?: Record<string, string> };
  /** `jar`: the main class, found in `file` (the application jar) or in `jars` (on the class path too). */
  jar?: { mainClass: string; jars: string[] };
  /** `dbt`: the commands (each split into words, `dbt` first), the project folder and the profiles folder. */
  dbt?: { commands: string[][]; projectDir: string; profilesDir: string };
  /** `submit`: spark-submit's own arguments as the user wrote them (options, then the application and its args). */
  submitArgs?: string[];
  /** spark_env_vars, secrets already resolved by the caller. */
  env: Record<string, string>;
  sparkConf: Record<string, string>;
  /** classic: spark-submit (or MINILAKE_SPARK_MASTER); serverless: warm Spark Connect. */
  compute: 'classic' | 'serverless';
  /**
   * A Spark Connect server the task runs on instead (`sc://127.0.0.1:<port>`: an all-purpose cluster's
   * driver, for `existing_cluster_id`): a Connect client as serverless tasks are, sharing the cluster's
   * Spark application (its cache, its global temp views). Its sparkConf is the server's already.
   */
  remote?: string;
  /**
   * Where a classic task runs: `subprocess` (spark-submit on this machine) or `docker` (a sibling container
   * of `image`); default MINILAKE_SPARK_EXECUTOR. Serverless tasks always use the Spark Connect server.
   */
  executor?: 'subprocess' | 'docker';
  /** The Docker executor's image; default MINILAKE_SPARK_IMAGE. */
  image?: string;
  /** pip requirements (serverless environments / pypi libraries): per-environment cached venv. */
  dependencies?: string[];
  /** Upstream values for dbutils.jobs.taskValues.get, by task key. */
  taskValues: Record<string, Record<string, unknown>>;
  context: { jobId?: number; runId: number; taskRunId: number; taskKey: string };
  /** A folder the caller owns for this attempt. */
  workDir: string;
  /** The engine kills the process at timeout -> TIMEDOUT. */
  timeoutMs?: number;
  /**
   * Strings that must never appear in the returned logs (secret values the caller resolved into `env`);
   * each is replaced by `[REDACTED]`, as Databricks does in task output.
   */
  redact?: string[];
  /** The task file's workspace path, so dbutils.notebook.run and %run resolve relative paths. */
  sourcePath?: string;
  /**
   * The token the task's DATABRICKS_TOKEN carries: its run's own (jobs mints one per run); without one, the
   * engine's. MiniLake accepts any token today.
   */
  token?: string;
}

export interface SparkTaskResult {
  outcome: 'SUCCESS' | 'FAILED' | 'TIMEDOUT' | 'CANCELED';
  exitCode: number | null;
  /** stdout+stderr as the user's code printed it (tail kept, bounded). */
  logs: string;
  logsTruncated: boolean;
  /** One line: 'ZeroDivisionError: division by zero', 'Process exited with code 3', ... */
  error?: string;
  /** The Python traceback. */
  errorTrace?: string;
  /** dbutils.notebook.exit(value). */
  notebookResult?: string;
  /** Set by this task via dbutils.jobs.taskValues.set. */
  taskValues: Record<string, unknown>;
  /** True when the task never started because the Spark install is missing (error says what to run). */
  unavailable?: boolean;
  /** Wall time of the attempt, from launch to the end of the process. */
  durationMs?: number;
}

export interface SparkRun {
  readonly result: Promise<SparkTaskResult>;
  cancel(): void;
}

export interface SparkEngine {
  launch(task: SparkTask): SparkRun;
  /**
   * How the engine learns Unity Catalog's catalogs (the Spark catalogs a task or a Spark Connect server is
   * given): a service with Unity Catalog as a peer hands its list over; without one, the engine asks the
   * server's REST route, as a task would.
   */
  useCatalogs(list: () => string[]): void;
  /**
   * Where `dbfs:/` lives for every Spark process the engine starts (the shared Spark Connect server,
   * clusters' drivers, tasks): the files service's `dbfsRoot`, handed over by every service that opens the
   * engine and has files as a peer, so the first to start the shared server does not decide it.
   */
  useDbfsRoot(root: string): void;
  /** Rejects with EngineUnavailable (naming the install command) when Spark is not installed. */
  check(): Promise<void>;
  /** Starts the warm Spark Connect server now instead of on the first serverless task. */
  prewarm(): Promise<void>;
  /** The warm (serverless) Spark Connect server's port, starting it when needed. */
  connectPort(): Promise<number>;
  /**
   * What a Python process beside Spark needs (a command execution context's REPL): the install's Python,
   * the supervisor that ends it with the server, the task runtime's folder (for `minilake_runtime`, with
   * dbutils) and an environment with DATABRICKS_HOST/TOKEN pointing back at MiniLake.
   */
  pythonRuntime(): Promise<PythonRuntime>;
  /** Starts a Spark Connect server of its own (a cluster's driver); stopped by its handle or by close(). */
  startConnectServer(spec: ConnectServerSpec): ConnectServerHandle;
  /** Kills every running task and stops the Spark Connect server. */
  close(): Promise<void>;
}

/** A Spark Connect server of its own (an all-purpose cluster's driver), as the compute service starts one. */
export interface ConnectServerSpec {
  /** Names its folder (`<dataDir>/spark/servers/<id>`) and its Spark application. */
  id: string;
  /** The cluster's spark_conf (on top of the engine's: Delta, Unity Catalog, quiet UI). */
  sparkConf: Record<string, string>;
  /** The cluster's spark_env_vars, in the driver's environment (and local executors'). */
  env: Record<string, string>;
  /** PyPI requirements for its Python workers (UDFs): a cached venv, as tasks' dependencies get. */
  dependencies?: string[];
  /** Local jar files added to the application (cluster libraries). */
  jars?: string[];
  /** Its master; default MINILAKE_SPARK_CONNECT_MASTER. */
  master?: string;
}

export interface ConnectServerExit {
  exitCode: number | null;
  signal: string | null;
  /** The tail of the server's own output (the JVM's log goes to `logFile`). */
  output: string;
}

export interface ConnectServerHandle {
  /** The port once it listens; rejects (EngineUnavailable for a missing install) when it cannot start. */
  readonly ready: Promise<number>;
  /** Settles when the process (its whole group) is gone, however it ended. */
  readonly exited: Promise<ConnectServerExit>;
  readonly logFile: string;
  /** The supervisor's pid (the group leader), once started. */
  pid(): number | undefined;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface PythonRuntime {
  python: string;
  supervisor: string;
  runtimeDir: string;
  env(extra: Record<string, string>): Record<string, string>;
}
