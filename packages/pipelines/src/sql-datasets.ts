/**
 * Datasets made in the SQL warehouse: `CREATE [OR REFRESH] MATERIALIZED VIEW` / `STREAMING TABLE` run as a
 * pipeline, as Databricks SQL runs them (a pipeline per dataset, its statement the only source; the table
 * carries the pipeline's id), `REFRESH ... [FULL]` starts an update of that pipeline, `DROP` deletes it and
 * its table. Each call returns once the update has ended, so the statement ends as the update does.
 */
import { DatabricksError, invalidParameter } from '@minilake/core';
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import type { UpdateRunner } from './runner.js';
import type { PipelinesService } from './service.js';
import type { PipelinesStore } from './store.js';

export interface SqlDatasetRequest {
  /** create (refused when it exists), upsert (OR REFRESH), replace (OR REPLACE: a full refresh). */
  action: 'create' | 'upsert' | 'replace' | 'refresh' | 'drop';
  /** catalog.schema.name */
  full_name: string;
  statement?: string;
  full_refresh?: boolean;
  if_exists?: boolean;
  if_not_exists?: boolean;
}

export class SqlDatasets {
  constructor(
    private readonly d: {
      store: PipelinesStore;
      service: PipelinesService;
      runner: UpdateRunner;
      uc: UnityCatalogApi;
    },
  ) {}

  private async table(full: string): Promise<{ pipeline_id?: string; table_type?: string } | undefined> {
    try {
      return (await this.d.uc.getTable(full)) as { pipeline_id?: string; table_type?: string };
    } catch (e) {
      if (e instanceof DatabricksError && e.status === 404) return undefined;
      throw e;
    }
  }

  private pipelineOf(full: string, t: { pipeline_id?: string } | undefined) {
    const id = t?.pipeline_id;
    if (id && this.d.store.hasPipeline(id)) return this.d.store.pipeline(id);
    return this.d.store.allPipelines().find((p) => p.sql_definition?.dataset === full);
  }

  async run(req: SqlDatasetRequest): Promise<{ pipeline_id?: string; update_id?: string }> {
    const full = req.full_name.toLowerCase();
    const parts = full.split('.');
    if (parts.length !== 3) throw invalidParameter(`Expected a three-part name: ${req.full_name}`);
    const [catalog, schema] = parts as [string, string, string];
    const t = await this.table(full);
    const p = this.pipelineOf(full, t);
    if (req.action === 'drop') {
      if (!t && !p) {
        if (req.if_exists) return {};
        throw new DatabricksError(
          404,
          'TABLE_OR_VIEW_NOT_FOUND',
          `The table or view ${req.full_name} cannot be found.`,
        );
      }
      if (p) await this.d.service.delete(p.pipeline_id, true);
      else if (t) await this.d.uc.deleteTable(full);
      return {};
    }
    if (req.action === 'refresh') {
      if (!p)
        throw invalidParameter(
          `${req.full_name} is not a materialized view or streaming table made by a pipeline.`,
        );
      return this.update(p.pipeline_id, req.full_refresh ?? false);
    }
    if (t && !p)
      throw new DatabricksError(
        409,
        'TABLE_OR_VIEW_ALREADY_EXISTS',
        `Cannot create ${req.full_name}: it already exists.`,
      );
    if (p && req.action === 'create') {
      if (req.if_not_exists) return { pipeline_id: p.pipeline_id };
      throw new DatabricksError(
        409,
        'TABLE_OR_VIEW_ALREADY_EXISTS',
        `Cannot create ${req.full_name}: it already exists.`,
      );
    }
    const statement = req.statement ?? '';
    let id = p?.pipeline_id;
    if (!id) {
      id = this.d.service.create({
        name: `${full} (SQL)`,
        catalog,
        schema,
        serverless: true,
        allow_duplicate_names: true,
      }).pipeline_id;
    }
    this.d.store.changePipeline(id, (r) => {
      r.sql_definition = { statement, dataset: full };
    });
    return this.update(id, req.action === 'replace');
  }

  private async update(pipelineId: string, full: boolean) {
    const u = this.d.runner.start(pipelineId, { cause: 'API_CALL', full_refresh: full });
    const done = await this.d.runner.waitFor(pipelineId, u.update_id);
    if (done.state !== 'COMPLETED')
      throw invalidParameter(
        `The pipeline update for the dataset ended ${done.state}: ${done.error ?? 'no error recorded'}`,
      );
    return { pipeline_id: pipelineId, update_id: u.update_id };
  }
}
