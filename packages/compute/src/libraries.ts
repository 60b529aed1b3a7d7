/**
 * Cluster libraries: what was asked to be installed on each cluster. Nothing is installed: the status
 * follows the cluster's state, and an uninstall on a running cluster waits for its next restart.
 */
import type { Collection } from '@minilake/core';
import { invalidLibrary } from './errors.js';
import type { Spec } from './policy.js';

export interface LibraryEntry {
  library: Spec;
  uninstall: boolean;
}

const LIBRARY_KINDS = ['jar', 'egg', 'whl', 'pypi', 'maven', 'cran', 'requirements'];

export class ClusterLibraries {
  constructor(
    private readonly records: Collection<LibraryEntry[]>,
    private readonly opts: {
      /** The cluster (its state), or the clusters API's not-found error. */
      cluster(id: string): { state: string };
      hasCluster(id: string): boolean;
    },
  ) {}

  forget(clusterId: string): void {
    this.records.delete(clusterId);
  }

  installLibraries(clusterId: string, libraries: Spec[]): void {
    this.opts.cluster(clusterId);
    for (const lib of libraries) {
      const kinds = LIBRARY_KINDS.filter((k) => lib[k] !== undefined);
      if (kinds.length !== 1)
        throw invalidLibrary(`exactly one of ${LIBRARY_KINDS.join(', ')} must be set (got ${kinds.length})`);
    }
    const list = this.records.get(clusterId) ?? [];
    for (const lib of libraries) {
      const existing = list.find((e) => sameLibrary(e.library, lib));
      if (existing) existing.uninstall = false;
      else list.push({ library: structuredClone(lib), uninstall: false });
    }
    this.records.set(clusterId, list);
  }

  /** On a running cluster a library is removed at the next restart; on a stopped one at once. */
  uninstallLibraries(clusterId: string, libraries: Spec[]): void {
    const c = this.opts.cluster(clusterId);
    const list = this.records.get(clusterId) ?? [];
    const next: LibraryEntry[] = [];
    for (const e of list) {
      const hit = libraries.some((lib) => sameLibrary(e.library, lib));
      if (!hit) next.push(e);
      else if (c.state !== 'TERMINATED' && c.state !== 'TERMINATING' && c.state !== 'PENDING')
        next.push({ ...e, uninstall: true });
    }
    this.records.set(clusterId, next);
  }

  /** At a restart, libraries marked for uninstall go. */
  dropUninstalledLibraries(clusterId: string): void {
    const list = this.records.get(clusterId);
    if (!list?.some((e) => e.uninstall)) return;
    this.records.set(
      clusterId,
      list.filter((e) => !e.uninstall),
    );
  }

  /** The libraries a cluster's Spark starts with (those not marked for uninstall). */
  active(clusterId: string): Spec[] {
    return (this.records.get(clusterId) ?? []).filter((e) => !e.uninstall).map((e) => e.library);
  }

  libraryStatuses(clusterId: string) {
    const c = this.opts.cluster(clusterId);
    const installed = c.state === 'RUNNING' || c.state === 'RESIZING';
    const statuses = (this.records.get(clusterId) ?? []).map((e) => ({
      library: e.library,
      status: e.uninstall ? 'UNINSTALL_ON_RESTART' : installed ? 'INSTALLED' : 'PENDING',
      is_library_for_all_clusters: false,
    }));
    return { cluster_id: clusterId, ...(statuses.length > 0 ? { library_statuses: statuses } : {}) };
  }

  allLibraryStatuses() {
    return [...this.records.keys()]
      .filter((id) => this.opts.hasCluster(id) && (this.records.get(id)?.length ?? 0) > 0)
      .map((id) => this.libraryStatuses(id));
  }
}

function sameLibrary(a: Spec, b: Spec): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
