/**
 * `dbfs:/...` and `/Volumes/<c>/<s>/<v>/...` inside Spark: MiniLake's Hadoop file systems (fs/src, compiled
 * by install.sh into minilake-fs.jar) replace `fs.file.impl` and serve `fs.dbfs.impl`, so
 * `spark.read.csv("/Volumes/...")` and `df.write.save("dbfs:/...")` use the very files the Files and DBFS
 * APIs serve. The jar goes on the driver's and executors' class path (Hadoop loads a file system class
 * before any --jars are added), and the conf below is set for every classic application and for the Spark
 * Connect server.
 */
export interface FsOptions {
  fsJar?: string;
  /** The DBFS root folder (the files service's `dbfsRoot`); without it dbfs:/ is not mapped. */
  dbfsRoot?: string;
  /** The server's URL, where the volume lookups go (`/api/2.1/unity-catalog/volumes/...`). */
  selfUrl?: string;
  token: string;
}

export function fsConf(o: FsOptions): Record<string, string> {
  if (!o.fsJar) return {};
  const conf: Record<string, string> = {
    'spark.driver.extraClassPath': o.fsJar,
    'spark.executor.extraClassPath': o.fsJar,
  };
  if (o.selfUrl) {
    Object.assign(conf, {
      'spark.hadoop.fs.file.impl': 'dev.minilake.fs.VolumesFileSystem',
      'spark.hadoop.fs.AbstractFileSystem.file.impl': 'dev.minilake.fs.VolumesFs',
      'spark.hadoop.minilake.uc.uri': o.selfUrl,
      'spark.hadoop.minilake.uc.token': o.token,
    });
  }
  if (o.dbfsRoot) {
    Object.assign(conf, {
      'spark.hadoop.fs.dbfs.impl': 'dev.minilake.fs.DbfsFileSystem',
      'spark.hadoop.fs.AbstractFileSystem.dbfs.impl': 'dev.minilake.fs.DbfsFs',
      'spark.hadoop.minilake.dbfs.root': o.dbfsRoot,
    });
  }
  return conf;
}

/** `extraClassPath` entries joined, the engine's first (a task's own class path still applies). */
export function joinClassPath(ours: string | undefined, theirs: string | undefined): string | undefined {
  if (!ours) return theirs;
  return theirs ? `${ours}:${theirs}` : ours;
}
