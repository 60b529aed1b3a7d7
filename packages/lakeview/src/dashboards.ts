/**
 * Dashboards: the draft (create, update with etag, trash, restore), its published revision, and its workspace
 * entry (`<parent_path>/<display_name>.lvdash.json`, type DASHBOARD, `resource_id` = the dashboard id) kept in
 * step through the workspace's owned-object seam. A workspace client's import of a `.lvdash.json` creates or
 * overwrites a dashboard, its export is the serialized dashboard, its delete trashes it (workspace hooks).
 */
import { hexId, invalidParameter, type Clock } from '@minilake/core';
import type { ObjectAccess } from '@minilake/iam';
import type { ForeignObjectType, WorkspaceApi } from '@minilake/workspace';
import { alreadyTrashed, inTrash, missingField, notTrashed, staleEtag } from './errors.js';
import { emptyDashboard, normalizeSerialized } from './serialized.js';
import {
  compact,
  iso,
  nextEtag,
  pathOf,
  type DashboardRecord,
  type Json,
  type LakeviewStore,
  type PublishedRecord,
} from './store.js';

export const DASHBOARD = 'DASHBOARD';
const SUFFIX = '.lvdash.json';

export interface DashboardInput {
  display_name?: string | undefined;
  parent_path?: string | undefined;
  serialized_dashboard?: string | undefined;
  warehouse_id?: string | undefined;
  etag?: string | undefined;
}
export interface DatasetDefaults {
  datasetCatalog?: string | undefined;
  datasetSchema?: string | undefined;
}

export function renderDashboard(d: DashboardRecord): Json {
  return compact({
    dashboard_id: d.dashboard_id,
    display_name: d.display_name,
    parent_path: d.parent_path,
    path: pathOf(d),
    serialized_dashboard: d.serialized_dashboard,
    warehouse_id: d.warehouse_id,
    etag: d.etag,
    lifecycle_state: d.lifecycle_state,
    create_time: iso(d.create_time),
    update_time: iso(d.update_time),
  });
}

/** What list answers: serialized_dashboard, etag, parent_path, path and update_time are left out, as documented. */
export function renderListed(d: DashboardRecord): Json {
  return compact({
    dashboard_id: d.dashboard_id,
    display_name: d.display_name,
    warehouse_id: d.warehouse_id,
    lifecycle_state: d.lifecycle_state,
    create_time: iso(d.create_time),
  });
}

/** `embed_credentials` is always sent, false included (the CLI and Terraform compare it). */
export function renderPublished(p: PublishedRecord): Json {
  return compact({
    display_name: p.display_name,
    embed_credentials: p.embed_credentials,
    warehouse_id: p.warehouse_id,
    revision_create_time: iso(p.revision_create_time),
  });
}

const nameOf = (path: string) => {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.toLowerCase().endsWith(SUFFIX) ? base.slice(0, -SUFFIX.length) : base;
};
const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/')) || '/';

/** Dashboard levels, weakest first: CAN_READ < CAN_RUN < CAN_EDIT < CAN_MANAGE. */
export type DashboardLevel = 'CAN_READ' | 'CAN_RUN' | 'CAN_EDIT' | 'CAN_MANAGE';

export type DashboardAccess = ObjectAccess<DashboardLevel>;

export class Dashboards {
  constructor(
    private readonly store: LakeviewStore,
    private readonly workspace: WorkspaceApi,
    private readonly opts: {
      clock: Clock;
      /** The caller (read per use: the request's principal with MINILAKE_AUTH=tokens). */
      readonly userName: string;
      onChanged?: (id: string) => void;
      /** Object permissions (MINILAKE_ENFORCE=1 only): iam's evaluation of the `dashboards` ACLs. */
      access?: DashboardAccess;
    },
  ) {}

  /** The dashboard (404 first, as Databricks) on which the caller holds `level`. */
  dashboard(id: string, level: DashboardLevel): DashboardRecord {
    const d = this.store.dashboard(id);
    this.opts.access?.check(id, level);
    return d;
  }

  /** For lists: whether the caller may read the dashboard (always without enforcement). */
  readable(id: string): boolean {
    return this.opts.access?.can(id, 'CAN_READ') ?? true;
  }

  private get now() {
    return this.opts.clock.now();
  }

  private checkName(name: string | undefined): string {
    if (!name) throw missingField('display_name');
    if (name.includes('/')) throw invalidParameter(`display_name must not contain '/': ${name}`);
    return name;
  }

  async create(input: DashboardInput, defaults: DatasetDefaults = {}): Promise<DashboardRecord> {
    const display_name = this.checkName(input.display_name);
    const parent_path = this.workspace.canonicalPath(input.parent_path || `/Users/${this.opts.userName}`);
    const serialized = normalizeSerialized(input.serialized_dashboard || emptyDashboard(hexId(8)), defaults);
    const now = this.now;
    const d: DashboardRecord = compact({
      dashboard_id: hexId(32),
      display_name,
      parent_path,
      serialized_dashboard: serialized,
      warehouse_id: input.warehouse_id || undefined,
      etag: nextEtag(undefined),
      create_time: now,
      update_time: now,
      lifecycle_state: 'ACTIVE' as const,
      creator_user_name: this.opts.userName,
    });
    // The entry first: a missing parent folder (404, which the CLI and Terraform answer with mkdirs and a
    // retry) or a taken name (409) leaves nothing behind.
    await this.workspace.addObject(pathOf(d), DASHBOARD, d.dashboard_id);
    this.store.dashboards.set(d.dashboard_id, d);
    this.opts.onChanged?.(d.dashboard_id);
    return d;
  }

  /**
   * PATCH: `display_name` (a rename moves the workspace entry) and `serialized_dashboard` when sent;
   * `warehouse_id` is replaced, absent included (Databricks moved update to replace semantics). Every write
   * gives a new etag; an etag sent must be the current one.
   */
  async update(id: string, input: DashboardInput, defaults: DatasetDefaults = {}): Promise<DashboardRecord> {
    const d = this.dashboard(id, 'CAN_EDIT');
    if (d.lifecycle_state === 'TRASHED') throw inTrash(id);
    if (input.etag && input.etag !== d.etag) throw staleEtag('dashboard', input.etag, d.etag);
    const next: DashboardRecord = { ...d };
    if (input.display_name !== undefined && input.display_name !== '')
      next.display_name = this.checkName(input.display_name);
    if (input.serialized_dashboard)
      next.serialized_dashboard = normalizeSerialized(input.serialized_dashboard, defaults);
    else if (defaults.datasetCatalog || defaults.datasetSchema)
      next.serialized_dashboard = normalizeSerialized(d.serialized_dashboard, defaults);
    if (input.warehouse_id) next.warehouse_id = input.warehouse_id;
    else delete next.warehouse_id;
    next.etag = nextEtag(d.etag);
    next.update_time = this.now;
    if (pathOf(next) !== pathOf(d)) await this.workspace.moveObject(pathOf(d), pathOf(next));
    this.store.dashboards.set(id, next);
    this.opts.onChanged?.(id);
    return next;
  }

  /** DELETE: to the trash; the published revision is dropped and the workspace entry goes. */
  async trash(id: string): Promise<void> {
    const d = this.dashboard(id, 'CAN_MANAGE');
    if (d.lifecycle_state === 'TRASHED') throw alreadyTrashed(id);
    await this.workspace.removeObject(pathOf(d), d.dashboard_id);
    this.markTrashed(d);
  }

  private markTrashed(d: DashboardRecord): void {
    this.store.dashboards.update(d.dashboard_id, (r) => {
      r.lifecycle_state = 'TRASHED';
      r.trashed_at = this.now;
      delete r.published;
    });
    this.opts.onChanged?.(d.dashboard_id);
  }

  /** Back from the trash to its folder (409 when its name is taken there, 404 when the folder is gone). */
  async restore(id: string): Promise<DashboardRecord> {
    const d = this.dashboard(id, 'CAN_MANAGE');
    if (d.lifecycle_state !== 'TRASHED') throw notTrashed(id);
    await this.workspace.addObject(pathOf(d), DASHBOARD, d.dashboard_id);
    const r = this.store.dashboards.update(id, (x) => {
      x.lifecycle_state = 'ACTIVE';
      delete x.trashed_at;
      x.etag = nextEtag(x.etag);
      x.update_time = this.now;
    })!;
    this.opts.onChanged?.(id);
    return r;
  }

  publish(id: string, input: { embed_credentials?: boolean | undefined; warehouse_id?: string | undefined }) {
    const d = this.dashboard(id, 'CAN_EDIT');
    if (d.lifecycle_state === 'TRASHED') throw inTrash(id);
    const published: PublishedRecord = compact({
      display_name: d.display_name,
      serialized_dashboard: d.serialized_dashboard,
      warehouse_id: input.warehouse_id || d.warehouse_id,
      embed_credentials: input.embed_credentials ?? false,
      // Never before the draft's update_time: the CLI reads an older revision as "the draft is unpublished".
      revision_create_time: Math.max(this.now, d.update_time),
    });
    this.store.dashboards.update(id, (r) => {
      r.published = published;
    });
    return published;
  }

  unpublish(id: string): void {
    this.dashboard(id, 'CAN_EDIT');
    this.store.published(id);
    this.store.dashboards.update(id, (r) => {
      delete r.published;
    });
  }

  /** The published revision, for a caller who may read the dashboard. */
  published(id: string): PublishedRecord {
    this.dashboard(id, 'CAN_READ');
    return this.store.published(id);
  }

  /** The workspace's hooks for DASHBOARD entries. */
  workspaceHooks(): ForeignObjectType {
    return {
      noun: 'a dashboard',
      importSuffix: SUFFIX,
      import: (path, bytes, existing) => this.imported(path, bytes.toString('utf8'), existing),
      export: async (id) => ({
        content: Buffer.from(this.store.dashboard(id).serialized_dashboard),
        file_type: 'lvdash.json',
      }),
      onDeleted: (objects) => {
        for (const o of objects) {
          const d = this.store.dashboards.get(o.resourceId);
          if (d && d.lifecycle_state === 'ACTIVE') this.markTrashed(d);
        }
      },
    };
  }

  /**
   * A `.lvdash.json` imported through the Workspace API: a new dashboard named after the file (or the
   * dashboard already at that path, overwritten). The workspace records the entry itself.
   */
  private imported(path: string, text: string, existing: string | undefined): string {
    const serialized = normalizeSerialized(text);
    const now = this.now;
    const current = existing ? this.store.dashboards.get(existing) : undefined;
    if (current) {
      this.store.dashboards.set(current.dashboard_id, {
        ...current,
        serialized_dashboard: serialized,
        etag: nextEtag(current.etag),
        update_time: now,
        lifecycle_state: 'ACTIVE',
      });
      this.opts.onChanged?.(current.dashboard_id);
      return current.dashboard_id;
    }
    const d: DashboardRecord = {
      dashboard_id: hexId(32),
      display_name: nameOf(path),
      parent_path: folderOf(path),
      serialized_dashboard: serialized,
      etag: nextEtag(undefined),
      create_time: now,
      update_time: now,
      lifecycle_state: 'ACTIVE',
      creator_user_name: this.opts.userName,
    };
    this.store.dashboards.set(d.dashboard_id, d);
    this.opts.onChanged?.(d.dashboard_id);
    return d.dashboard_id;
  }
}
