/**
 * The pipelines API's operations over the store and the update runner: create (with dry_run), get, list,
 * edit, delete (cascading to the pipeline's datasets by default), updates, stop, events, and the wire shapes
 * Databricks answers with.
 */
import { invalidParameter, uuid, type Clock } from '@minilake/core';
import type { ObjectAccess } from '@minilake/iam';
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import { nameConflict, modifiedSince } from './errors.js';
import { eventsPage } from './events.js';
import { likeRegExp } from './like.js';
import type { UpdateRunner, StartRequest } from './runner.js';
import type { PipelineSettingsInput } from './schemas.js';
import { checkEdit, specFrom } from './settings.js';
import { TERMINAL, type PipelineRecord, type PipelinesStore, type UpdateRecord } from './store.js';

export interface ServiceDeps {
  store: PipelinesStore;
  runner: UpdateRunner;
  clock: Clock;
  /** The caller (read per use: the request's principal with MINILAKE_AUTH=tokens), who creates and owns. */
  readonly userName: string;
  uc: UnityCatalogApi;
  /** Object permissions (MINILAKE_ENFORCE=1 only): iam's evaluation of the `pipelines` ACLs. */
  access?: PipelineAccess;
  /** iam's ACL clean-up when a pipeline goes. */
  onDeleted?: (pipelineId: string) => void;
}

/** Pipeline levels, weakest first: CAN_VIEW < CAN_RUN < CAN_MANAGE < IS_OWNER. */
export type PipelineLevel = 'CAN_VIEW' | 'CAN_RUN' | 'CAN_MANAGE' | 'IS_OWNER';

export type PipelineAccess = ObjectAccess<PipelineLevel>;

const LIST_DEFAULT = 25;
const LIST_MAX = 100;
const UPDATES_DEFAULT = 25;
const UPDATES_MAX = 100;

export class PipelinesService {
  constructor(private readonly d: ServiceDeps) {}

  private conflictingName(name: string | undefined, except?: string): PipelineRecord | undefined {
    if (!name) return undefined;
    return this.d.store.allPipelines().find((p) => p.pipeline_id !== except && p.spec.name === name);
  }

  /** The pipeline, known to exist (404 first, as Databricks), on which the caller holds `level`. */
  private pipeline(pipelineId: string, level: PipelineLevel): PipelineRecord {
    const p = this.d.store.pipeline(pipelineId);
    this.d.access?.check(pipelineId, level);
    return p;
  }

  create(body: PipelineSettingsInput): { pipeline_id: string; effective_settings?: Record<string, unknown> } {
    const id = uuid();
    const spec = specFrom(body, id);
    const other = body.allow_duplicate_names ? undefined : this.conflictingName(spec.name);
    if (other) throw nameConflict(spec.name!, other.pipeline_id);
    // dry_run validates the settings and answers what they would be, creating nothing.
    if (body.dry_run) return { pipeline_id: id, effective_settings: spec };
    const now = this.d.clock.now();
    this.d.store.putPipeline({
      pipeline_id: id,
      spec,
      ...(body.parameters ? { parameters: body.parameters } : {}),
      ...(body.run_as ? { run_as: body.run_as } : {}),
      creator_user_name: this.d.userName,
      run_as_user_name: body.run_as?.user_name ?? body.run_as?.service_principal_name ?? this.d.userName,
      created_at: now,
      last_modified: now,
      state: 'IDLE',
      seq: 0,
    });
    return { pipeline_id: id };
  }

  edit(pipelineId: string, body: PipelineSettingsInput): void {
    const p = this.pipeline(pipelineId, 'CAN_MANAGE');
    if (body.expected_last_modified !== undefined && body.expected_last_modified !== p.last_modified)
      throw modifiedSince(pipelineId);
    const spec = specFrom(body, pipelineId);
    checkEdit(p.spec, spec, body.id);
    if (spec.name !== p.spec.name && !body.allow_duplicate_names) {
      const other = this.conflictingName(spec.name, pipelineId);
      if (other) throw nameConflict(spec.name!, other.pipeline_id);
    }
    this.d.store.changePipeline(pipelineId, (r) => {
      r.spec = spec;
      if (body.parameters) r.parameters = body.parameters;
      else delete r.parameters;
      if (body.run_as) {
        r.run_as = body.run_as;
        r.run_as_user_name =
          body.run_as.user_name ?? body.run_as.service_principal_name ?? r.run_as_user_name;
      }
      r.last_modified = Math.max(this.d.clock.now(), r.last_modified + 1);
    });
  }

  async delete(pipelineId: string, cascade: boolean): Promise<void> {
    const p = this.pipeline(pipelineId, 'CAN_MANAGE');
    const active = this.d.store.activeUpdate(pipelineId);
    if (active) {
      await this.d.runner.stop(pipelineId);
      await this.d.runner.waitFor(pipelineId, active.update_id);
    }
    if (cascade) await this.dropDatasets(p);
    this.d.store.deletePipeline(pipelineId);
    await this.d.runner.forget(pipelineId);
    this.d.onDeleted?.(pipelineId);
  }

  /** The tables the pipeline published (Databricks drops a pipeline's datasets with it by default). */
  private async dropDatasets(p: PipelineRecord): Promise<void> {
    const names = new Set<string>();
    for (const u of this.d.store.updatesOf(p.pipeline_id))
      for (const ds of u.datasets ?? [])
        if (ds.kind === 'MATERIALIZED_VIEW' || ds.kind === 'STREAMING_TABLE') names.add(ds.full_name);
    for (const full of names) {
      try {
        const t = (await this.d.uc.getTable(full)) as { pipeline_id?: string };
        if (t.pipeline_id === p.pipeline_id) await this.d.uc.deleteTable(full);
      } catch {
        // already gone
      }
    }
  }

  get(pipelineId: string): Record<string, unknown> {
    const p = this.pipeline(pipelineId, 'CAN_VIEW');
    return {
      pipeline_id: p.pipeline_id,
      spec: p.spec,
      state: p.state,
      ...(p.cause ? { cause: p.cause } : {}),
      ...(p.health ? { health: p.health } : {}),
      name: p.spec.name,
      creator_user_name: p.creator_user_name,
      run_as_user_name: p.run_as_user_name,
      ...(p.run_as ? { run_as: p.run_as } : {}),
      ...(p.parameters ? { parameters: p.parameters } : {}),
      last_modified: p.last_modified,
      latest_updates: this.latest(p.pipeline_id),
      effective_publishing_mode: 'DEFAULT_PUBLISHING_MODE',
    };
  }

  private latest(pipelineId: string) {
    return this.d.store
      .updatesOf(pipelineId)
      .slice(0, 5)
      .map((u) => ({
        update_id: u.update_id,
        state: u.state,
        creation_time: new Date(u.creation_time).toISOString(),
      }));
  }

  list(q: { filter?: string; max_results?: number; page_token?: string; order_by: string[] }) {
    const max = q.max_results ?? LIST_DEFAULT;
    if (max < 0 || max > LIST_MAX) throw invalidParameter(`max_results must be between 1 and ${LIST_MAX}.`);
    let ps = this.d.store.allPipelines();
    // Only what the caller may view is listed (Databricks lists no pipeline the caller cannot open).
    const access = this.d.access;
    if (access) ps = ps.filter((p) => access.can(p.pipeline_id, 'CAN_VIEW'));
    if (q.filter) ps = ps.filter(listFilter(q.filter));
    const [field, dir] = (q.order_by[0] ?? 'id asc').trim().split(/\s+/);
    if (field !== 'id' && field !== 'name')
      throw invalidParameter(`order_by supports id and name, not '${field}'.`);
    const key = (p: PipelineRecord) =>
      field === 'name' ? `${p.spec.name ?? ''}\u0000${p.pipeline_id}` : p.pipeline_id;
    ps.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    if ((dir ?? 'asc').toLowerCase() === 'desc') ps.reverse();
    const start = q.page_token ? decodeOffset(q.page_token) : 0;
    const size = max || LIST_DEFAULT;
    const items = ps.slice(start, start + size);
    return {
      statuses: items.map((p) => ({
        pipeline_id: p.pipeline_id,
        name: p.spec.name,
        state: p.state,
        ...(p.health ? { health: p.health } : {}),
        creator_user_name: p.creator_user_name,
        run_as_user_name: p.run_as_user_name,
        latest_updates: this.latest(p.pipeline_id),
      })),
      ...(start + size < ps.length ? { next_page_token: encodeOffset(start + size) } : {}),
    };
  }

  /** `checked` false: a job's pipeline_task, which runs as the job's run_as, not as a request's caller. */
  startUpdate(pipelineId: string, req: StartRequest, checked = true): { update_id: string } {
    if (checked) this.pipeline(pipelineId, 'CAN_RUN');
    return { update_id: this.d.runner.start(pipelineId, req).update_id };
  }

  updateInfo(u: UpdateRecord): Record<string, unknown> {
    return {
      pipeline_id: u.pipeline_id,
      update_id: u.update_id,
      config: u.config,
      cause: u.cause,
      state: u.state,
      creation_time: u.creation_time,
      full_refresh: u.full_refresh,
      ...(u.full_refresh_selection ? { full_refresh_selection: u.full_refresh_selection } : {}),
      ...(u.refresh_selection ? { refresh_selection: u.refresh_selection } : {}),
      validate_only: u.validate_only,
      mode: u.mode,
      ...(u.parameters ? { parameters: u.parameters } : {}),
    };
  }

  getUpdate(pipelineId: string, updateId: string) {
    this.pipeline(pipelineId, 'CAN_VIEW');
    return { update: this.updateInfo(this.d.store.update(pipelineId, updateId)) };
  }

  listUpdates(
    pipelineId: string,
    q: { max_results?: number; page_token?: string; until_update_id?: string },
  ) {
    this.pipeline(pipelineId, 'CAN_VIEW');
    const max = q.max_results ?? UPDATES_DEFAULT;
    if (max < 0 || max > UPDATES_MAX)
      throw invalidParameter(`max_results must be between 1 and ${UPDATES_MAX}.`);
    let all = this.d.store.updatesOf(pipelineId);
    if (q.until_update_id) {
      const i = all.findIndex((u) => u.update_id === q.until_update_id);
      if (i >= 0) all = all.slice(0, i + 1);
    }
    const start = q.page_token ? decodeOffset(q.page_token) : 0;
    const size = max || UPDATES_DEFAULT;
    const items = all.slice(start, start + size);
    return {
      updates: items.map((u) => this.updateInfo(u)),
      ...(start + size < all.length ? { next_page_token: encodeOffset(start + size) } : {}),
      ...(start > 0 ? { prev_page_token: encodeOffset(Math.max(0, start - size)) } : {}),
    };
  }

  async stop(pipelineId: string, checked = true): Promise<void> {
    if (checked) this.pipeline(pipelineId, 'CAN_RUN');
    else this.d.store.pipeline(pipelineId);
    await this.d.runner.stop(pipelineId);
  }

  events(
    pipelineId: string,
    q: { filter?: string; max_results?: number; page_token?: string; order_by: string[] },
  ) {
    this.pipeline(pipelineId, 'CAN_VIEW');
    return eventsPage(this.d.store.eventsOf(pipelineId), {
      ...(q.filter ? { filter: q.filter } : {}),
      orderBy: q.order_by,
      ...(q.max_results !== undefined ? { maxResults: q.max_results } : {}),
      ...(q.page_token ? { pageToken: q.page_token } : {}),
    });
  }

  isTerminal(pipelineId: string, updateId: string): boolean {
    return TERMINAL.has(this.d.store.update(pipelineId, updateId).state);
  }
}

/** ListPipelines' filter: `name LIKE '%x%'` or `notebook='<path>'` (no composite filters). */
function listFilter(filter: string): (p: PipelineRecord) => boolean {
  let m = /^\s*name\s+like\s+'((?:[^']|'')*)'\s*$/i.exec(filter);
  if (m) {
    const re = likeRegExp(m[1]!.replace(/''/g, "'"));
    return (p) => re.test(p.spec.name ?? '');
  }
  m = /^\s*notebook\s*=\s*'((?:[^']|'')*)'\s*$/i.exec(filter);
  if (m) {
    const want = m[1]!.replace(/''/g, "'").replace(/^\/Workspace(?=\/)/, '');
    return (p) =>
      (p.spec.libraries ?? []).some((l) => l.notebook?.path?.replace(/^\/Workspace(?=\/)/, '') === want);
  }
  throw invalidParameter(`Invalid filter '${filter}': use name LIKE '<pattern>' or notebook='<path>'.`);
}

const encodeOffset = (n: number) => Buffer.from(`o:${n}`, 'utf8').toString('base64url');
function decodeOffset(t: string): number {
  const m = /^o:(\d+)$/.exec(Buffer.from(t, 'base64url').toString('utf8'));
  if (!m) throw invalidParameter(`Invalid page_token: ${t}`);
  return Number(m[1]);
}
