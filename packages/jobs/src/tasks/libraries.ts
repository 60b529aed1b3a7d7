/**
 * A task's `libraries` on the compute it runs on. PyPI packages and wheels become the task's Python
 * dependencies (a venv per distinct list, see @minilake/engine-spark's EnvCache).
 *
 * On an all-purpose cluster (existing_cluster_id) libraries outlive the run, as on Databricks: a wheel whose
 * name and version the cluster installed since its Spark last started is not installed again, so a later run
 * gets the copy installed first (a wheel rebuilt under the same version needs a new version or a cluster
 * restart to be seen). The installed copies live under `<jobs dir>/cluster-libraries/<cluster>/<spark
 * context>/`; a restart gives the cluster a new Spark context id, and so a fresh set.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Json } from '../settings.js';
import type { Compute } from './compute.js';
import type { ExecDeps, ExecInput } from './types.js';

/** `name-version` of a wheel file name (PEP 427, names normalized), else the file name itself. */
export function wheelKey(fileName: string): string {
  const m = /^([^-]+)-([^-]+)-.+\.whl$/i.exec(fileName);
  return m ? `${m[1]!.toLowerCase().replace(/[-_.]+/g, '_')}-${m[2]!}` : fileName;
}

const safe = (s: string) => s.replace(/[^\w.-]/g, '_');

export class ClusterLibraries {
  private readonly pending = new Map<string, Promise<string>>();
  constructor(private readonly dir: string) {}

  /** The cluster's installed copy of this wheel (installing `file` when the cluster has none of its version). */
  pin(clusterId: string, contextId: string, file: string): Promise<string> {
    const key = `${clusterId}/${contextId}/${wheelKey(path.basename(file))}`;
    let p = this.pending.get(key);
    if (!p) {
      p = this.install(clusterId, contextId, file).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  private async install(clusterId: string, contextId: string, file: string): Promise<string> {
    const clusterDir = path.join(this.dir, safe(clusterId));
    const dir = path.join(clusterDir, safe(contextId));
    const key = wheelKey(path.basename(file));
    if (existsSync(dir)) {
      const found = (await readdir(dir)).find((n) => !n.startsWith('.') && wheelKey(n) === key);
      if (found) return path.join(dir, found);
    } else {
      // The Spark context the cluster had before (a restart since) installed nothing that still counts.
      if (existsSync(clusterDir))
        for (const old of await readdir(clusterDir))
          await rm(path.join(clusterDir, old), { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
    }
    const target = path.join(dir, path.basename(file));
    const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
    await copyFile(file, tmp);
    await rename(tmp, target);
    return target;
  }

  forget(clusterId: string): Promise<void> {
    return rm(path.join(this.dir, safe(clusterId)), { recursive: true, force: true });
  }
}

/** The all-purpose cluster's Spark context a task's libraries install into, when it runs on one. */
export function clusterContext(d: ExecDeps, input: ExecInput, compute: Compute) {
  const clusterId = input.task.spec.existing_cluster_id;
  if (!clusterId || !d.clusterLibraries || compute.clusterId !== clusterId) return undefined;
  const ctx = d.compute?.getCluster(clusterId)?.spark_context_id;
  return ctx === undefined ? undefined : { clusterId, contextId: String(ctx) };
}

/** The local files of wheel libraries, each pinned to the cluster's installed copy on an all-purpose one. */
export async function wheelFiles(
  d: ExecDeps,
  input: ExecInput,
  compute: Compute,
  wheels: string[],
): Promise<string[]> {
  const local = await Promise.all(wheels.map((w) => d.files.localFile(w, input.workDir)));
  const cluster = clusterContext(d, input, compute);
  if (!cluster) return local;
  return Promise.all(local.map((f) => d.clusterLibraries!.pin(cluster.clusterId, cluster.contextId, f)));
}

/** PyPI requirements and wheel files of a task's libraries (other kinds are not installed here). */
export async function libraryDependencies(
  d: ExecDeps,
  input: ExecInput,
  compute: Compute,
): Promise<string[]> {
  const libs = (input.task.spec.libraries ?? []) as Json[];
  const pypi = libs
    .map((l) => (l.pypi as { package?: unknown } | undefined)?.package)
    .filter((x): x is string => typeof x === 'string' && x !== '');
  const whl = libs.map((l) => l.whl).filter((x): x is string => typeof x === 'string' && x !== '');
  return [...pypi, ...(await wheelFiles(d, input, compute, whl))];
}
