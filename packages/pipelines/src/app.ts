/**
 * Pipelines API (/api/2.0/pipelines). Fidelity notes:
 * - Settings are echoed as sent plus `id` (and `storage` for a pipeline without a catalog), so the CLI and
 *   the Terraform provider plan no change on a second run; `dry_run` answers `effective_settings` and creates
 *   nothing. Unknown pipelines are 404 RESOURCE_DOES_NOT_EXIST "The specified pipeline <id> was not found.".
 * - Updates really run (Spark Declarative Pipelines); states and events come from the run, never a timer.
 * - `clone`, `environment/apply` and the other endpoints not built here answer 501 (the host's catch-all).
 * - `/_minilake/pipelines/...` are MiniLake's own: a running update reports its progress there, and the
 *   Spark catalog plugin asks for its datasets' tables there (processes outside the server, so routes).
 */
import { Hono } from 'hono';
import { invalidParameter, readJson, readQuery, v } from '@minilake/core';
import * as s from './schemas.js';
import type { UpdateRunner } from './runner.js';
import type { PipelinesService } from './service.js';

const BASE = '/api/2.0/pipelines';

export function pipelinesApp(service: PipelinesService, runner: UpdateRunner): Hono {
  const app = new Hono();

  app.post(BASE, async (c) => c.json(service.create(await readJson(c, s.PipelineSettings))));
  app.get(BASE, (c) => {
    const q = readQuery(c, s.ListPipelinesRequest);
    return c.json(
      service.list({
        ...(q.filter ? { filter: q.filter } : {}),
        ...(q.max_results !== undefined ? { max_results: q.max_results } : {}),
        ...(q.page_token ? { page_token: q.page_token } : {}),
        order_by: c.req.queries('order_by') ?? [],
      }),
    );
  });
  app.get(`${BASE}/:id`, (c) => c.json(service.get(c.req.param('id'))));
  app.put(`${BASE}/:id`, async (c) => {
    service.edit(c.req.param('id'), await readJson(c, s.PipelineSettings));
    return c.json({});
  });
  app.delete(`${BASE}/:id`, async (c) => {
    const q = readQuery(c, s.DeletePipelineRequest);
    await service.delete(c.req.param('id'), q.cascade ?? true);
    return c.json({});
  });

  app.post(`${BASE}/:id/updates`, async (c) => {
    const body = await readJson(c, s.StartUpdate);
    for (const field of ['reset_checkpoint_selection', 'replace_where_overrides', 'rewind_spec'] as const)
      if (body[field] !== undefined && !(Array.isArray(body[field]) && body[field].length === 0))
        throw invalidParameter(
          `${field} is not supported by MiniLake's pipelines (Spark Declarative Pipelines has no equivalent).`,
        );
    return c.json(
      service.startUpdate(c.req.param('id'), {
        ...(body.cause ? { cause: body.cause } : {}),
        ...(body.full_refresh !== undefined ? { full_refresh: body.full_refresh } : {}),
        ...(body.full_refresh_selection ? { full_refresh_selection: body.full_refresh_selection } : {}),
        ...(body.refresh_selection ? { refresh_selection: body.refresh_selection } : {}),
        ...(body.validate_only !== undefined ? { validate_only: body.validate_only } : {}),
        ...(body.parameters ? { parameters: body.parameters } : {}),
      }),
    );
  });
  app.get(`${BASE}/:id/updates`, (c) => {
    const q = readQuery(c, s.ListUpdatesRequest);
    return c.json(
      service.listUpdates(c.req.param('id'), {
        ...(q.max_results !== undefined ? { max_results: q.max_results } : {}),
        ...(q.page_token ? { page_token: q.page_token } : {}),
        ...(q.until_update_id ? { until_update_id: q.until_update_id } : {}),
      }),
    );
  });
  app.get(`${BASE}/:id/updates/:update`, (c) =>
    c.json(service.getUpdate(c.req.param('id'), c.req.param('update'))),
  );
  app.post(`${BASE}/:id/stop`, async (c) => {
    await service.stop(c.req.param('id'));
    return c.json({});
  });
  app.get(`${BASE}/:id/events`, (c) => {
    const q = readQuery(c, s.ListPipelineEventsRequest);
    return c.json(
      service.events(c.req.param('id'), {
        ...(q.filter ? { filter: q.filter } : {}),
        ...(q.max_results !== undefined ? { max_results: q.max_results } : {}),
        ...(q.page_token ? { page_token: q.page_token } : {}),
        order_by: c.req.queries('order_by') ?? [],
      }),
    );
  });

  // ---- the engine's own routes ----
  app.get('/_minilake/pipelines/updates/:update', (c) => c.json(runner.stateOf(c.req.param('update'))));
  app.post('/_minilake/pipelines/updates/:update/report', async (c) => {
    const body = await readJson(c, s.Report);
    return c.json(await runner.report(c.req.param('update'), body.events));
  });
  app.post('/_minilake/pipelines/updates/:update/tables', async (c) => {
    const body = await readJson(c, s.CreateDatasetTable);
    return c.json(
      await runner.createTable(c.req.param('update'), {
        catalog_name: body.catalog_name,
        schema_name: body.schema_name,
        name: body.name,
        fields: body.fields,
        ...(body.comment ? { comment: body.comment } : {}),
        ...(body.partition_columns ? { partition_columns: body.partition_columns } : {}),
        ...(body.properties ? { properties: body.properties } : {}),
      }),
    );
  });
  app.post('/_minilake/pipelines/updates/:update/metrics', async (c) => {
    const body = await readJson(
      c,
      v.looseObject({ flow: v.string(), metrics: v.record(v.string(), v.number()) }),
    );
    runner.observe(c.req.param('update'), body.flow, body.metrics);
    return c.json({});
  });
  return app;
}
