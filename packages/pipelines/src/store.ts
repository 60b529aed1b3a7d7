/**
 * Pipelines, their updates and their event logs. Every change goes through a collection, so it is journaled
 * and survives `kill -9` with persistence on; an update that was running when the process died has no
 * process behind it any more, and `recover()` ends it FAILED saying so.
 */
import { CollectionStore, uuid, type Clock, type Collection, type StateDb } from '@minilake/core';
import { pipelineNotFound, updateNotFound } from './errors.js';
import type { Spec } from './settings.js';

export type UpdateState =
  | 'QUEUED'
  | 'CREATED'
  | 'WAITING_FOR_RESOURCES'
  | 'INITIALIZING'
  | 'RESETTING'
  | 'SETTING_UP_TABLES'
  | 'RUNNING'
  | 'STOPPING'
  | 'COMPLETED'
  | 'FAILED'
  | 'CANCELED';

export const TERMINAL = new Set<UpdateState>(['COMPLETED', 'FAILED', 'CANCELED']);

export interface PipelineRecord {
  pipeline_id: string;
  spec: Spec;
  parameters?: Record<string, string>;
  run_as?: { user_name?: string; service_principal_name?: string };
  creator_user_name: string;
  run_as_user_name: string;
  created_at: number;
  last_modified: number;
  state: 'IDLE' | 'RUNNING' | 'STOPPING' | 'STARTING';
  cause?: string;
  health?: 'HEALTHY' | 'UNHEALTHY';
  /** The last event's sequence number (control_plane_seq_no). */
  seq: number;
  /**
   * A pipeline the SQL warehouse made for `CREATE MATERIALIZED VIEW` / `CREATE STREAMING TABLE`: the
   * statement is its whole source (Databricks SQL runs such datasets as pipelines too).
   */
  sql_definition?: { statement: string; dataset: string };
}

export interface DatasetInfo {
  name: string;
  full_name: string;
  kind: string;
  file?: string;
  line?: number;
  num_flows?: number;
  expectations?: { name: string; condition: string; action: string }[];
}

export interface FlowInfo {
  name: string;
  full_name: string;
  target: string;
  type: string;
  /** The pipeline's datasets the flow reads, as events name them (flow_definition.input_datasets). */
  inputs?: string[];
  file?: string;
  line?: number;
  expectations?: { name: string; condition: string; action: string }[];
}

export interface UpdateRecord {
  update_id: string;
  pipeline_id: string;
  config: Spec;
  cause: string;
  creation_time: number;
  full_refresh: boolean;
  full_refresh_selection?: string[];
  refresh_selection?: string[];
  validate_only: boolean;
  parameters?: Record<string, string>;
  state: UpdateState;
  mode: 'DEFAULT' | 'CONTINUOUS';
  end_time?: number;
  /** One line, for jobs' pipeline_task and the final event. */
  error?: string;
  /** The graph the runner registered: dataset kinds (for their tables) and flows. */
  datasets?: DatasetInfo[];
  flows?: FlowInfo[];
}

export interface EventRecord {
  pipeline_id: string;
  seq: number;
  /** ms since the epoch */
  ts: number;
  update_id?: string;
  event: Record<string, unknown>;
}

export class PipelinesStore extends CollectionStore {
  private readonly pipelines: Collection<PipelineRecord>;
  private readonly updates: Collection<UpdateRecord>;
  private readonly events: Collection<EventRecord>;
  /** Each pipeline's events in sequence order (built from the collection on first use). */
  private index?: Map<string, EventRecord[]>;

  constructor(
    db: StateDb,
    private readonly clock: Clock,
  ) {
    super('pipelines', 1, db);
    this.pipelines = this.collection('pipelines');
    this.updates = this.collection('updates');
    this.events = this.collection('events');
  }

  protected override onReset(): void {
    this.index = undefined;
  }

  override restore(snapshot: unknown): void {
    super.restore(snapshot);
    this.index = undefined;
  }

  // ---- pipelines ---------------------------------------------------------------------------------------

  pipeline(id: string): PipelineRecord {
    const p = this.pipelines.get(id);
    if (!p) throw pipelineNotFound(id);
    return p;
  }

  hasPipeline(id: string): boolean {
    return this.pipelines.has(id);
  }

  allPipelines(): PipelineRecord[] {
    return [...this.pipelines.values()];
  }

  putPipeline(p: PipelineRecord): PipelineRecord {
    return this.pipelines.set(p.pipeline_id, p);
  }

  changePipeline(id: string, change: (p: PipelineRecord) => void): PipelineRecord {
    this.pipeline(id);
    return this.pipelines.update(id, (p) => {
      change(p);
    })!;
  }

  deletePipeline(id: string): void {
    this.pipelines.delete(id);
    for (const [k, u] of this.updates.entries()) if (u.pipeline_id === id) this.updates.delete(k);
    for (const e of this.eventsOf(id)) this.events.delete(eventKey(e));
    this.index?.delete(id);
  }

  // ---- updates -----------------------------------------------------------------------------------------

  update(pipelineId: string, updateId: string): UpdateRecord {
    this.pipeline(pipelineId);
    const u = this.updates.get(updateId);
    if (!u || u.pipeline_id !== pipelineId) throw updateNotFound(updateId);
    return u;
  }

  updateById(updateId: string): UpdateRecord | undefined {
    return this.updates.get(updateId);
  }

  putUpdate(u: UpdateRecord): UpdateRecord {
    return this.updates.set(u.update_id, u);
  }

  changeUpdate(updateId: string, change: (u: UpdateRecord) => void): UpdateRecord | undefined {
    return this.updates.update(updateId, (u) => {
      change(u);
    });
  }

  /** Newest first. */
  updatesOf(pipelineId: string): UpdateRecord[] {
    return [...this.updates.values()]
      .filter((u) => u.pipeline_id === pipelineId)
      .sort((a, b) => b.creation_time - a.creation_time || (a.update_id < b.update_id ? 1 : -1));
  }

  activeUpdate(pipelineId: string): UpdateRecord | undefined {
    return this.updatesOf(pipelineId).find((u) => !TERMINAL.has(u.state));
  }

  /** Updates that were running when the process stopped. */
  unfinished(): UpdateRecord[] {
    return [...this.updates.values()].filter((u) => !TERMINAL.has(u.state));
  }

  // ---- events ------------------------------------------------------------------------------------------

  private byPipeline(): Map<string, EventRecord[]> {
    if (!this.index) {
      const m = new Map<string, EventRecord[]>();
      for (const e of this.events.values()) {
        const list = m.get(e.pipeline_id) ?? [];
        list.push(e);
        m.set(e.pipeline_id, list);
      }
      for (const list of m.values()) list.sort((a, b) => a.seq - b.seq);
      this.index = m;
    }
    return this.index;
  }

  eventsOf(pipelineId: string): readonly EventRecord[] {
    return this.byPipeline().get(pipelineId) ?? [];
  }

  /** Appends an event with the pipeline's next sequence number; `build` gets its id, sequence and time. */
  addEvent(
    pipelineId: string,
    updateId: string | undefined,
    build: (meta: { id: string; seq: number; ts: number }) => Record<string, unknown>,
    at?: number,
  ): EventRecord {
    const p = this.changePipeline(pipelineId, (r) => {
      r.seq += 1;
    });
    const list = this.eventsOf(pipelineId);
    // After the previous event, by a millisecond at least: the log is ordered by time and by sequence alike,
    // and clients that poll with `timestamp > '<last seen>'` (the CLI) never skip an event that shared it.
    const prev = list[list.length - 1]?.ts ?? -1;
    const ts = Math.max(at ?? this.clock.now(), prev + 1);
    const rec: EventRecord = {
      pipeline_id: pipelineId,
      seq: p.seq,
      ts,
      ...(updateId ? { update_id: updateId } : {}),
      event: build({ id: uuid(), seq: p.seq, ts }),
    };
    this.events.set(eventKey(rec), rec);
    const m = this.byPipeline();
    const l = m.get(pipelineId) ?? [];
    l.push(rec);
    m.set(pipelineId, l);
    return rec;
  }
}

const eventKey = (e: { pipeline_id: string; seq: number }) =>
  `${e.pipeline_id}/${String(e.seq).padStart(12, '0')}`;
