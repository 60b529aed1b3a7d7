/**
 * Updates: the state machine `CREATED → WAITING_FOR_RESOURCES → INITIALIZING → SETTING_UP_TABLES → RUNNING →
 * COMPLETED | FAILED | CANCELED`, driven by the process that runs the pipeline (a `pipeline` task on the
 * Spark engine's warm Spark Connect server) and by what it reports while it runs (runtime/minilake_runtime/
 * pipeline.py). Nothing advances on a timer. Stop cancels the process group, and the runner interrupts the
 * run on the server before it goes.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { invalidParameter, invalidState, uuid, type Clock, type Logger } from '@minilake/core';
import type { SparkEngine, SparkRun } from '@minilake/engine-spark';
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import { activeUpdate, updateNotFound } from './errors.js';
import { Emitter, shortId, type ErrorDetail } from './emit.js';
import { targetSchema, type Spec } from './settings.js';
import type { SourceResolver } from './sources.js';
import {
  TERMINAL,
  type DatasetInfo,
  type FlowInfo,
  type PipelineRecord,
  type PipelinesStore,
  type UpdateRecord,
  type UpdateState,
} from './store.js';

export interface RunnerDeps {
  store: PipelinesStore;
  clock: Clock;
  logger: Logger;
  /** The service's folder: updates' work folders and the pipelines' storage (checkpoints). */
  dir: string;
  engine: () => Promise<SparkEngine>;
  uc: UnityCatalogApi;
  sources: SourceResolver;
  orgId: string;
}

export interface StartRequest {
  cause?: string;
  full_refresh?: boolean;
  full_refresh_selection?: string[];
  refresh_selection?: string[];
  validate_only?: boolean;
  parameters?: Record<string, string>;
}

interface Active {
  pipelineId: string;
  run?: SparkRun;
  stopping: boolean;
  /** Expectation counts per flow, summed over the observations Spark reported. */
  observed: Map<string, { rows: number; failed: number[] }>;
  reportedError: boolean;
  /** The error the runner reported (with the user's frames): the final event carries it too. */
  errorDetail?: ErrorDetail;
}

type ReportItem = Record<string, unknown> & { type: string; ts?: number };

const FLOW_DONE = new Set(['COMPLETED', 'FAILED', 'SKIPPED', 'STOPPED', 'EXCLUDED']);

export class UpdateRunner {
  private readonly active = new Map<string, Active>();
  private readonly waiters = new Map<string, ((u: UpdateRecord) => void)[]>();
  private readonly emitter: Emitter;
  private closed = false;

  constructor(private readonly d: RunnerDeps) {
    this.emitter = new Emitter(d.store, d.orgId);
  }

  private emit(p: PipelineRecord, u: UpdateRecord | undefined, e: Parameters<Emitter['emit']>[2]) {
    return this.emitter.emit(p, u, e);
  }

  // ---- starting --------------------------------------------------------------------------------------

  start(pipelineId: string, req: StartRequest): UpdateRecord {
    const { store } = this.d;
    const p = store.pipeline(pipelineId);
    const running = store.activeUpdate(pipelineId);
    if (running) throw activeUpdate(pipelineId, running.update_id);
    const full = req.full_refresh_selection ?? [];
    const refresh = req.refresh_selection ?? [];
    if (req.full_refresh && (full.length || refresh.length))
      throw invalidParameter(
        'full_refresh cannot be combined with refresh_selection or full_refresh_selection.',
      );
    const both = full.filter((t) => refresh.map((r) => r.toLowerCase()).includes(t.toLowerCase()));
    if (both.length)
      throw invalidParameter(
        `Datasets cannot be both in refresh_selection and full_refresh_selection: ${both.join(', ')}`,
      );
    const u: UpdateRecord = {
      update_id: uuid(),
      pipeline_id: pipelineId,
      config: structuredClone(p.spec),
      cause: req.cause ?? 'API_CALL',
      creation_time: this.d.clock.now(),
      full_refresh: req.full_refresh ?? false,
      ...(full.length ? { full_refresh_selection: full } : {}),
      ...(refresh.length ? { refresh_selection: refresh } : {}),
      validate_only: req.validate_only ?? false,
      ...(req.parameters ? { parameters: req.parameters } : {}),
      state: 'CREATED',
      mode: p.spec.continuous ? 'CONTINUOUS' : 'DEFAULT',
    };
    store.putUpdate(u);
    store.changePipeline(pipelineId, (r) => {
      r.state = 'RUNNING';
      delete r.cause;
    });
    this.emit(p, u, {
      event_type: 'create_update',
      message: `Update ${shortId(u.update_id)} started by ${u.cause}.`,
      details: {
        create_update: {
          cause: u.cause,
          config: u.config,
          full_refresh: u.full_refresh,
          ...(u.full_refresh_selection ? { full_refresh_selection: u.full_refresh_selection } : {}),
          ...(u.refresh_selection ? { refresh_selection: u.refresh_selection } : {}),
          validate_only: u.validate_only,
        },
      },
    });
    this.progress(u, 'CREATED');
    const a: Active = { pipelineId, stopping: false, observed: new Map(), reportedError: false };
    this.active.set(u.update_id, a);
    void this.execute(u, a).catch((e: unknown) => {
      this.d.logger.error('pipeline update failed unexpectedly', { update: u.update_id, error: String(e) });
      this.finish(u.update_id, 'FAILED', { message: `The update failed: ${String(e)}` });
    });
    return u;
  }

  /** The update's state changes, with its update_progress event; terminal states end it. */
  private progress(u: UpdateRecord, state: UpdateState, error?: ErrorDetail, at?: number): UpdateRecord {
    const { store } = this.d;
    const cur = store.updateById(u.update_id);
    if (!cur || TERMINAL.has(cur.state) || (cur.state === state && state !== 'CREATED')) return cur ?? u;
    if (cur.state === 'STOPPING' && !TERMINAL.has(state)) return cur;
    const next = store.changeUpdate(u.update_id, (r) => {
      r.state = state;
      if (TERMINAL.has(state)) r.end_time = this.d.clock.now();
      if (error) r.error = error.exceptions[0]?.message ?? r.error;
    })!;
    const p = store.pipeline(u.pipeline_id);
    this.emit(p, next, {
      event_type: 'update_progress',
      message: `Update ${shortId(u.update_id)} is ${state}.`,
      level: state === 'FAILED' ? 'ERROR' : 'INFO',
      details: { update_progress: { state } },
      ...(error ? { error } : {}),
      ...(at ? { at } : {}),
    });
    return next;
  }

  private finish(
    updateId: string,
    state: 'COMPLETED' | 'FAILED' | 'CANCELED',
    err?: { message: string; className?: string },
  ) {
    const { store } = this.d;
    const u = store.updateById(updateId);
    const reported = this.active.get(updateId)?.errorDetail;
    this.active.delete(updateId);
    if (!u) return;
    const error: ErrorDetail | undefined = !err
      ? undefined
      : reported
        ? { ...reported, fatal: true }
        : {
            exceptions: [{ ...(err.className ? { class_name: err.className } : {}), message: err.message }],
            fatal: true,
          };
    const done = this.progress(u, state, error);
    if (store.hasPipeline(u.pipeline_id))
      store.changePipeline(u.pipeline_id, (r) => {
        if (!store.activeUpdate(u.pipeline_id)) r.state = 'IDLE';
        r.health = state === 'FAILED' ? 'UNHEALTHY' : 'HEALTHY';
        if (state === 'FAILED' && err) r.cause = err.message.split('\n')[0];
        else delete r.cause;
      });
    for (const w of this.waiters.get(updateId) ?? []) w(done);
    this.waiters.delete(updateId);
  }

  private async execute(u: UpdateRecord, a: Active): Promise<void> {
    const { store } = this.d;
    this.progress(u, 'WAITING_FOR_RESOURCES');
    const spec = u.config;
    const fail = (message: string, className?: string) =>
      this.finish(
        u.update_id,
        a.stopping ? 'CANCELED' : 'FAILED',
        a.stopping ? undefined : { message, ...(className ? { className } : {}) },
      );
    if (!spec.catalog)
      return fail(
        'MiniLake publishes pipeline datasets to Unity Catalog only: set catalog (and schema) in the pipeline settings (Hive metastore pipelines are not supported).',
      );
    const schema = targetSchema(spec) ?? 'default';
    try {
      await this.ensureSchema(u, spec.catalog, schema);
    } catch (e) {
      return fail(firstLine(e));
    }
    let engine: SparkEngine;
    try {
      engine = await this.d.engine();
      await engine.check();
    } catch (e) {
      return fail(firstLine(e), 'EngineUnavailable');
    }
    if (a.stopping) return this.finish(u.update_id, 'CANCELED');
    const work = path.join(this.d.dir, 'updates', u.update_id);
    let sources: Awaited<ReturnType<SourceResolver['materialize']>>;
    let dependencies: string[] = [];
    try {
      await mkdir(work, { recursive: true });
      const sqlDef = store.pipeline(u.pipeline_id).sql_definition;
      sources = sqlDef
        ? await sqlSource(work, sqlDef.statement)
        : await this.d.sources.materialize(spec.libraries ?? [], spec.root_path, work);
      dependencies = await this.d.sources.localDependencies(
        spec.environment?.dependencies ?? [],
        path.join(this.d.dir, 'dependencies'),
      );
      if (sources.sources.length === 0)
        throw invalidParameter(
          'The pipeline has no source code: its libraries match no .py or .sql file or notebook.',
        );
    } catch (e) {
      return fail(firstLine(e));
    }
    const storage = path.join(this.d.dir, 'storage', u.pipeline_id);
    await mkdir(storage, { recursive: true });
    const pipeline = {
      id: u.pipeline_id,
      updateId: u.update_id,
      name: spec.name ?? '',
      catalog: spec.catalog,
      schema,
      configuration: { ...spec.configuration, ...u.parameters },
      storage: `file://${storage}`,
      fullRefresh: u.full_refresh,
      fullRefreshSelection: u.full_refresh_selection ?? [],
      refreshSelection: u.refresh_selection ?? [],
      validateOnly: u.validate_only,
      continuous: Boolean(spec.continuous) && !u.validate_only,
      triggerIntervalSeconds: triggerSeconds(spec),
      sources: sources.sources,
      roots: [{ local: sources.srcDir, workspace: '' }],
      pythonPath: sources.pythonPath,
    };
    const file = path.join(work, 'pipeline.json');
    await writeFile(file, JSON.stringify(pipeline));
    if (a.stopping) return this.finish(u.update_id, 'CANCELED');
    const run = engine.launch({
      id: u.update_id,
      kind: 'pipeline',
      file,
      args: [],
      widgets: {},
      env: {},
      sparkConf: {},
      compute: 'serverless',
      // Installed into the task's venv as jobs' environments are (cached per requirement list).
      ...(dependencies.length ? { dependencies } : {}),
      taskValues: {},
      context: { runId: 0, taskRunId: 0, taskKey: 'pipeline' },
      workDir: path.join(work, 'run'),
      pipeline,
    });
    a.run = run;
    const r = await run.result;
    const now = store.updateById(u.update_id);
    if (!now || TERMINAL.has(now.state)) return;
    if (a.stopping || r.outcome === 'CANCELED') return this.finish(u.update_id, 'CANCELED');
    if (r.outcome === 'SUCCESS') return this.finish(u.update_id, 'COMPLETED');
    const message = r.error ?? 'The pipeline run failed';
    // The runner reported the error with its file and line already; the final event carries the same words.
    this.finish(u.update_id, 'FAILED', { message: now.error ?? message });
    if (!a.reportedError && r.logs)
      this.d.logger.warn('pipeline update failed', { update: u.update_id, tail: r.logs.slice(-2000) });
  }

  /** The target schema, created when missing as Databricks does for a pipeline's target. */
  private async ensureSchema(u: UpdateRecord, catalog: string, schema: string): Promise<void> {
    try {
      await this.d.uc.getSchema(`${catalog}.${schema}`);
      return;
    } catch (e) {
      if (!(e instanceof Error && 'status' in e && (e as { status: number }).status === 404)) throw e;
    }
    this.d.uc.getCatalog(catalog); // an unknown catalog is an error, with Unity Catalog's words
    await this.d.uc.createSchema({ catalog_name: catalog, name: schema });
    const p = this.d.store.pipeline(u.pipeline_id);
    this.emit(p, u, {
      event_type: 'operation_progress',
      message: `Schema ${catalog}.${schema} created for the pipeline's datasets.`,
    });
  }

  // ---- what the runner reports ------------------------------------------------------------------------

  /** An update's state, for the Spark Connect server's listener that cancels the jobs of stopped updates. */
  stateOf(updateId: string): { state: UpdateState } {
    const u = this.d.store.updateById(updateId);
    if (!u) throw updateNotFound(updateId);
    return { state: u.state };
  }

  async report(updateId: string, items: ReportItem[]): Promise<Record<string, unknown>> {
    const { store } = this.d;
    const u = store.updateById(updateId);
    if (!u) throw invalidParameter(`Unknown update ${updateId}`);
    const a = this.active.get(updateId);
    if (!a || TERMINAL.has(u.state)) throw invalidState(`Update ${updateId} is not running.`);
    const p = store.pipeline(u.pipeline_id);
    for (const it of items) {
      const at = typeof it.ts === 'number' ? Math.round(it.ts * 1000) : undefined;
      switch (it.type) {
        case 'phase':
          this.progress(u, it.state as UpdateState, undefined, at);
          break;
        case 'graph':
          this.graph(p, u, it.datasets as DatasetInfo[], it.flows as FlowInfo[], at);
          break;
        case 'flow':
          await this.flow(p, u, a, it, at);
          break;
        case 'error':
          a.reportedError = true;
          this.error(p, u, a, it, at);
          break;
        case 'log':
          this.emit(p, u, {
            event_type: 'operation_progress',
            message: String(it.message ?? ''),
            ...(at ? { at } : {}),
          });
          break;
        default:
          break; // 'run' summaries: the final state comes from the process
      }
    }
    return {};
  }

  private graph(p: PipelineRecord, u: UpdateRecord, datasets: DatasetInfo[], flows: FlowInfo[], at?: number) {
    const cur = this.d.store.changeUpdate(u.update_id, (r) => {
      r.datasets = datasets;
      r.flows = flows;
    })!;
    for (const ds of datasets) {
      const published = ds.kind === 'MATERIALIZED_VIEW' || ds.kind === 'STREAMING_TABLE';
      this.emit(p, cur, {
        event_type: 'dataset_definition',
        message: `Dataset '${ds.name}' defined as ${ds.kind}.`,
        origin: { dataset_name: published ? ds.full_name : ds.name },
        details: {
          dataset_definition: {
            dataset_type: ds.kind,
            num_flows: ds.num_flows ?? 0,
            ...(ds.expectations?.length ? { expectations: ds.expectations } : {}),
            ...(ds.file
              ? { source_code_location: { path: ds.file, ...(ds.line ? { line_number: ds.line } : {}) } }
              : {}),
          },
        },
        ...(at ? { at } : {}),
      });
    }
    for (const f of flows) {
      this.emit(p, cur, {
        event_type: 'flow_definition',
        message: `Flow '${f.full_name}' is defined as ${f.type}.`,
        origin: { flow_name: f.full_name, dataset_name: f.target },
        details: {
          flow_definition: {
            output_dataset: f.target,
            ...(f.inputs?.length ? { input_datasets: f.inputs } : {}),
            flow_type: f.type,
            ...(f.expectations?.length ? { expectations: f.expectations } : {}),
            ...(f.file
              ? { source_code_location: { path: f.file, ...(f.line ? { line_number: f.line } : {}) } }
              : {}),
          },
        },
        ...(at ? { at } : {}),
      });
      const target = datasets.find((x) => x.full_name === f.target);
      if (target?.kind === 'MATERIALIZED_VIEW' && f.type !== 'CHANGE') {
        // Spark Declarative Pipelines recomputes a materialized view in full at every update.
        this.emit(p, cur, {
          event_type: 'planning_information',
          message: `Flow '${f.full_name}' has been planned to be executed as COMPLETE_RECOMPUTE.`,
          origin: { flow_name: f.full_name, dataset_name: f.target },
          details: {
            planning_information: {
              technique_information: [
                {
                  maintenance_type: 'MAINTENANCE_TYPE_COMPLETE_RECOMPUTE',
                  is_chosen: true,
                  is_applicable: true,
                },
              ],
            },
          },
          ...(at ? { at } : {}),
        });
      }
    }
  }

  private flowInfo(u: UpdateRecord, flow: string): FlowInfo | undefined {
    const cur = this.d.store.updateById(u.update_id);
    const l = flow.toLowerCase();
    return cur?.flows?.find((f) => f.full_name.toLowerCase() === l || f.name.toLowerCase() === l);
  }

  private async flow(p: PipelineRecord, u: UpdateRecord, a: Active, it: ReportItem, at?: number) {
    const flow = String(it.flow);
    const state = String(it.state);
    const info = this.flowInfo(u, flow);
    const name = info?.full_name ?? flow;
    const details: Record<string, unknown> = { status: state };
    let error: ErrorDetail | undefined;
    if (state === 'COMPLETED' && info) {
      // A batch flow's expectation counts come with its COMPLETED report; a stream's from the listener.
      if (it.metrics && typeof it.metrics === 'object')
        this.observe(u.update_id, info.name, it.metrics as Record<string, number>);
      const metrics = await this.outputRows(info, u);
      if (metrics !== undefined) details.metrics = { num_output_rows: metrics };
      const dq = await this.dataQuality(a, info);
      if (dq) details.data_quality = dq;
    }
    if (state === 'FAILED') {
      const msg = String(it.error ?? it.message ?? 'The flow failed');
      error = {
        exceptions: [
          {
            class_name: sparkErrorClass(msg),
            message: msg,
            ...(info?.file
              ? {
                  stack: [
                    {
                      declaring_class: '<pipeline source>',
                      file_name: info.file,
                      line_number: info.line ?? 0,
                      method_name: info.name,
                    },
                  ],
                }
              : {}),
          },
        ],
        fatal: Boolean(it.final),
      };
      this.d.store.changeUpdate(u.update_id, (r) => {
        r.error = `Flow '${name}' has FAILED: ${msg.split('\n')[0]}`;
      });
      // The final event of a failed update carries the flow's error (with where the flow was written).
      if (it.final || !a.errorDetail) a.errorDetail = error;
    }
    const verb = FLOW_DONE.has(state) && state !== 'SKIPPED' ? 'has' : 'is';
    const message =
      state === 'SKIPPED'
        ? `Flow '${name}' SKIPPED due to upstream failure(s).`
        : `Flow '${name}' ${verb} ${state}.`;
    this.emit(p, u, {
      event_type: 'flow_progress',
      message,
      level: state === 'FAILED' ? 'ERROR' : 'INFO',
      origin: { flow_name: name, ...(info ? { dataset_name: info.target } : {}) },
      details: { flow_progress: details },
      ...(error ? { error } : {}),
      ...(at ? { at } : {}),
    });
  }

  /** Rows written by the flow in this update: the Delta commits of its table since the update began. */
  private async outputRows(info: FlowInfo, u: UpdateRecord): Promise<number | undefined> {
    if (info.target.split('.').length !== 3) return undefined; // a temporary view holds no rows
    try {
      const table = await this.d.uc.describeTable(info.target);
      const rows = table && (await this.d.uc.tables.of(table).history(table, 1000));
      if (!rows) return undefined;
      let n = 0;
      for (const h of rows) {
        if (h.timestamp < u.creation_time - 1000) break;
        const m = h.operationMetrics?.numOutputRows;
        if (m !== undefined) n += Number(m);
      }
      return n;
    } catch {
      return undefined;
    }
  }

  /** The expectation counts Spark observed for the flow; waits a little, as they arrive on Spark's listener bus. */
  private async dataQuality(a: Active, info: FlowInfo) {
    const exps = info.expectations ?? [];
    if (!exps.length) return undefined;
    const key = info.name.toLowerCase();
    for (let i = 0; i < 60 && !a.observed.has(key) && !this.closed; i++)
      await new Promise((r) => setTimeout(r, 50));
    const o = a.observed.get(key);
    if (!o) return undefined;
    const dropActions = exps.map((e) => e.action === 'drop');
    // A row dropped by any expect_or_drop is gone; without per-row data, the largest single count is the floor.
    const dropped = Math.max(0, ...o.failed.filter((_, i) => dropActions[i]));
    return {
      dropped_records: dropped,
      expectations: exps.map((e, i) => ({
        name: e.name,
        dataset: info.target,
        passed_records: o.rows - (o.failed[i] ?? 0),
        failed_records: o.failed[i] ?? 0,
      })),
    };
  }

  /** Observed metrics of a flow (MiniLake's Spark listener posts them); summed over micro-batches. */
  observe(updateId: string, flow: string, metrics: Record<string, number>) {
    const a = this.active.get(updateId);
    if (!a) return;
    const key = flow.toLowerCase();
    const cur = a.observed.get(key) ?? { rows: 0, failed: [] };
    cur.rows += Number(metrics.rows ?? 0);
    for (const [k, val] of Object.entries(metrics)) {
      const m = /^f(\d+)$/.exec(k);
      if (m) cur.failed[Number(m[1])] = (cur.failed[Number(m[1])] ?? 0) + Number(val ?? 0);
    }
    a.observed.set(key, cur);
  }

  private error(p: PipelineRecord, u: UpdateRecord, a: Active, it: ReportItem, at?: number) {
    const frames = (it.frames as { file: string; line: number; method: string }[] | undefined) ?? [];
    const message = String(it.message ?? 'The update failed');
    const where = frames[0] ? ` (${frames[0].file}, line ${frames[0].line})` : '';
    this.d.store.changeUpdate(u.update_id, (r) => {
      r.error = `${message.split('\n')[0]}${where}`;
    });
    const detail: ErrorDetail = {
      exceptions: [
        {
          class_name: String(it.class ?? 'Exception'),
          message,
          stack: frames.map((f) => ({
            declaring_class: '<pipeline source>',
            file_name: f.file,
            line_number: f.line,
            method_name: f.method,
          })),
        },
      ],
      fatal: true,
    };
    a.errorDetail = detail;
    this.emit(p, u, {
      event_type: it.flow ? 'flow_progress' : 'update_progress',
      message: it.flow
        ? `Flow '${String(it.flow)}' has FAILED.`
        : `Update ${shortId(u.update_id)} has failed: ${message.split('\n')[0]}${where}`,
      level: 'ERROR',
      origin: it.flow ? { flow_name: String(it.flow) } : {},
      ...(it.flow ? { details: { flow_progress: { status: 'FAILED' } } } : {}),
      error: detail,
      ...(at ? { at } : {}),
    });
  }

  // ---- tables Spark creates for the running update ---------------------------------------------------------

  async createTable(
    updateId: string,
    body: {
      catalog_name: string;
      schema_name: string;
      name: string;
      comment?: string;
      fields: unknown[];
      partition_columns?: string[];
      properties?: Record<string, string>;
    },
  ) {
    const u = this.d.store.updateById(updateId);
    if (!u || !this.active.has(updateId)) throw invalidState(`Update ${updateId} is not running.`);
    const full = `${body.catalog_name}.${body.schema_name}.${body.name}`.toLowerCase();
    const kind = u.datasets?.find((x) => x.full_name.toLowerCase() === full)?.kind;
    return this.d.uc.createDeltaTable({
      catalog_name: body.catalog_name,
      schema_name: body.schema_name,
      name: body.name,
      table_type: kind === 'STREAMING_TABLE' ? 'STREAMING_TABLE' : 'MATERIALIZED_VIEW',
      pipeline_id: u.pipeline_id,
      fields: body.fields,
      partition_columns: body.partition_columns ?? [],
      ...(body.comment ? { comment: body.comment } : {}),
      ...(body.properties && Object.keys(body.properties).length ? { properties: body.properties } : {}),
    });
  }

  // ---- stop, wait, recover -----------------------------------------------------------------------------------

  async stop(pipelineId: string): Promise<void> {
    const u = this.d.store.activeUpdate(pipelineId);
    if (!u) return;
    const a = this.active.get(u.update_id);
    this.d.store.changePipeline(pipelineId, (r) => {
      r.state = 'STOPPING';
    });
    this.progress(u, 'STOPPING');
    if (!a) return this.finish(u.update_id, 'CANCELED');
    a.stopping = true;
    a.run?.cancel();
    if (!a.run) return; // execute() sees `stopping` before it launches
  }

  waitFor(pipelineId: string, updateId: string): Promise<UpdateRecord> {
    const u = this.d.store.update(pipelineId, updateId);
    if (TERMINAL.has(u.state)) return Promise.resolve(u);
    return new Promise((resolve) => {
      const l = this.waiters.get(updateId) ?? [];
      l.push(resolve);
      this.waiters.set(updateId, l);
    });
  }

  /** Updates that were running when MiniLake stopped have no process any more: they end FAILED, saying why. */
  recover(message = 'The update was interrupted: MiniLake stopped while it was running.'): number {
    const stale = this.d.store.unfinished();
    for (const u of stale) {
      this.active.delete(u.update_id);
      this.finish(u.update_id, 'FAILED', { message });
    }
    return stale.length;
  }

  /** Stops every running update (server shutdown or reset). */
  async close(): Promise<void> {
    this.closed = true;
    const runs = [...this.active.entries()];
    for (const [, a] of runs) {
      a.stopping = true;
      a.run?.cancel();
    }
    await Promise.all(runs.map(([, a]) => a.run?.result.catch(() => undefined)));
  }

  reopen(): void {
    this.closed = false;
  }

  /** Removes an update's work folder (sources copy) once the pipeline is deleted. */
  async forget(pipelineId: string): Promise<void> {
    await rm(path.join(this.d.dir, 'storage', pipelineId), { recursive: true, force: true });
  }
}

/** The one source of a SQL warehouse's dataset: its statement. */
async function sqlSource(work: string, statement: string) {
  const srcDir = path.join(work, 'src');
  const local = path.join(srcDir, 'statement.sql');
  await mkdir(srcDir, { recursive: true });
  await writeFile(local, statement);
  return {
    sources: [{ local, workspace: '<SQL statement>', language: 'SQL' as const, kind: 'FILE' as const }],
    srcDir,
    pythonPath: [],
  };
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n').find((l) => l.trim() !== '') ?? m;
}

/** `[ERROR_CLASS] ...` of a Spark message, else the generic Spark exception. */
function sparkErrorClass(msg: string): string {
  const m = /^\[([A-Z0-9_.]+)\]/.exec(msg.trim());
  return m ? `org.apache.spark.SparkException: ${m[1]}` : 'org.apache.spark.SparkException';
}

/** `pipelines.trigger.interval` ("10 seconds", "1 minute") for continuous pipelines; 5 s otherwise. */
function triggerSeconds(spec: Spec): number {
  const t = spec.configuration?.['pipelines.trigger.interval'];
  const m = t
    ? /^\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec(?:ond)?s?|min(?:ute)?s?|h(?:our)?s?)?\s*$/i.exec(t)
    : null;
  if (!m) return 5;
  const n = Number(m[1]);
  const unit = (m[2] ?? 's').toLowerCase();
  return unit.startsWith('ms') || unit.startsWith('milli')
    ? n / 1000
    : unit.startsWith('min')
      ? n * 60
      : unit.startsWith('h')
        ? n * 3600
        : n;
}
