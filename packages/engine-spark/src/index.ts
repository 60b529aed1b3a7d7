/**
 * @minilake/engine-spark: runs Databricks-style Python tasks (scripts, notebooks, wheels) on a local PySpark
 * install, through spark-submit, a warm Spark Connect server, or a Spark cluster (MINILAKE_SPARK_MASTER),
 * with `spark`, `dbutils` and `display` as a Databricks task sees them. An engine, not a service: callers
 * get the host's one instance with sparkEngine(ctx).
 */
export type {
  ConnectServerExit,
  ConnectServerHandle,
  ConnectServerSpec,
  PythonRuntime,
  SparkEngine,
  SparkRun,
  SparkTask,
  SparkTaskResult,
} from './types.js';
export { sparkEngine, createSparkEngine } from './engine.js';
export {
  sparkSettings,
  sparkSettingsOf,
  sparkVersions,
  defaultInstallDir,
  installCommand,
  locateInstall,
  settingsFrom,
  type SparkInstall,
  type SparkSettings,
  type SparkSettingValues,
} from './install.js';
export { freePort } from './connect.js';
export { UC_CATALOG_CLASS, ucCatalogJar } from './uc.js';
