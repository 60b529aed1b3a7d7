/**
 * Unity Catalog for Spark tasks: every catalog the server holds becomes a Spark catalog served by MiniLake's
 * own plugin (catalog/src, compiled by install.sh), pointed back at the server, so a task's
 * `spark.table("cat.sch.tbl")` works with no configuration in user code. The catalogs are those that exist
 * when the task starts; a task may add one itself with `spark.conf.set("spark.sql.catalog.<c>", ...)`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pluginJar } from './plugin-jars.js';

/**
 * The plugin's class and where install.sh puts its jar (next to the Delta jars, never inside jars/): the
 * one built from this package's own sources (plugin-jars.ts).
 */
export const UC_CATALOG_CLASS = 'dev.minilake.spark.MiniLakeCatalog';
export const ucCatalogJar = (installDir: string) =>
  pluginJar(installDir, path.join('catalog', 'src'), 'uc-catalog', 'minilake-uc-spark.jar');

/** Names Spark reserves for its own catalogs, and names it could not parse in a conf key. */
const usable = (n: string) => n !== 'spark_catalog' && n !== 'system' && /^[\p{L}\p{N}_-]+$/u.test(n);

/** The session extension that teaches Spark Databricks SQL (catalog/src, DatabricksSqlExtension.java). */
export const DATABRICKS_SQL_EXTENSION = 'dev.minilake.spark.DatabricksSqlExtension';

/**
 * Delta Connect on a Spark Connect server (catalog/src, DeltaConnect.java and DeltaConnectCommands.java):
 * what Databricks Connect's `from delta.tables import DeltaTable` sends as Relation/Command extensions.
 * Delta's own server plugin (io.delta:delta-connect-server) is not published where MiniLake installs from,
 * so the plugin jar carries MiniLake's. Only a Spark Connect server reads these keys; a task ignores them.
 */
export const DELTA_CONNECT_CONF: Record<string, string> = {
  'spark.connect.extensions.relation.classes': 'dev.minilake.spark.DeltaConnect',
  'spark.connect.extensions.command.classes': 'dev.minilake.spark.DeltaConnectCommands',
};

/**
 * `spark.sql.catalog.<c>` with its `.uri` and `.token` for each catalog, in the official connector's keys
 * (and `.caCert`, MiniLake's own, for an https:// server with its local certificate); the Unity Catalog
 * server for Databricks SQL (`spark.minilake.uc.*`, read by DatabricksSqlExtension, which adds catalogs
 * created later); and `main` as the current catalog when it exists, as on a Unity Catalog workspace.
 */
export function ucCatalogConf(
  names: string[],
  uri: string,
  token: string,
  caCert?: string,
): Record<string, string> {
  const conf: Record<string, string> = {
    'spark.minilake.uc.uri': uri,
    'spark.minilake.uc.token': token,
    ...(caCert ? { 'spark.minilake.uc.caCert': caCert } : {}),
  };
  for (const n of names.filter(usable)) {
    conf[`spark.sql.catalog.${n}`] = UC_CATALOG_CLASS;
    conf[`spark.sql.catalog.${n}.uri`] = uri;
    conf[`spark.sql.catalog.${n}.token`] = token;
    if (caCert) conf[`spark.sql.catalog.${n}.caCert`] = caCert;
  }
  if (names.includes('main')) conf['spark.sql.defaultCatalog'] = 'main';
  return conf;
}

/**
 * The Spark Connect server's listeners for declarative pipelines (in the plugin jar): their expectation counts
 * (dev.minilake.spark.PipelineMetrics), and the jobs of a stopped update cancelled as they start
 * (dev.minilake.spark.PipelineJobs). Static conf, so set when the server starts; nothing without the jar.
 */
export function pipelineListenerConf(jars: string[]): Record<string, string> {
  if (!jars.some((j) => path.basename(j) === 'minilake-uc-spark.jar' && existsSync(j))) return {};
  return {
    'spark.sql.queryExecutionListeners': 'dev.minilake.spark.PipelineMetrics$Batch',
    'spark.sql.streaming.streamingQueryListeners': 'dev.minilake.spark.PipelineMetrics$Stream',
    'spark.extraListeners': 'dev.minilake.spark.PipelineJobs',
  };
}

/**
 * The catalogs Unity Catalog has: from `catalogs` when a service with Unity Catalog as a peer handed its list
 * to the engine (SparkEngine.useCatalogs), otherwise through the server's REST route, as a task would see
 * them; none when the server has no Unity Catalog or does not answer in time: the task then runs without them.
 */
export async function ucCatalogNames(
  selfUrl: string,
  token: string,
  timeoutMs = 5000,
  catalogs?: () => string[],
): Promise<string[]> {
  try {
    if (catalogs) return catalogs();
    const init = { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(timeoutMs) };
    const r = await fetch(new URL('/api/2.1/unity-catalog/catalogs', selfUrl), init);
    if (!r.ok) return [];
    const j = (await r.json()) as { catalogs?: { name?: unknown }[] };
    return (j.catalogs ?? []).map((c) => c.name).filter((n): n is string => typeof n === 'string');
  } catch {
    return [];
  }
}

/** Whether MiniLake's plugin jar (catalog plugin and Databricks SQL extension) is among the jars. */
export function hasUcJar(jars: string[]): boolean {
  return jars.some((j) => path.basename(j) === 'minilake-uc-spark.jar' && existsSync(j));
}

/** The conf a task gets when the plugin jar is installed and the server answers; {} otherwise. */
export async function ucTaskConf(opts: {
  jars: string[];
  selfUrl: string | undefined;
  token: string;
  caCert?: string | undefined;
  catalogs?: (() => string[]) | undefined;
}): Promise<Record<string, string>> {
  if (!opts.selfUrl || !hasUcJar(opts.jars)) return {};
  return ucCatalogConf(
    await ucCatalogNames(opts.selfUrl, opts.token, 5000, opts.catalogs),
    opts.selfUrl,
    opts.token,
    opts.caCert,
  );
}

/**
 * What a Spark Connect server's own sessions get (Databricks Connect, command execution: sessions no task
 * configured): every catalog the server lists when the Spark server starts, and Unity Catalog's `main` as
 * the current catalog, as on a Unity Catalog workspace. {} without the plugin jar or a server to ask.
 */
export async function ucServerConf(opts: {
  jars: string[];
  selfUrl: string | undefined;
  token: string;
  caCert?: string | undefined;
  catalogs?: (() => string[]) | undefined;
}): Promise<Record<string, string>> {
  return ucTaskConf(opts);
}
