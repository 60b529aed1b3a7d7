/**
 * Jobs API (/api/2.2/jobs, with the /api/2.1 and /api/2.0 paths older clients send). Fidelity notes:
 * - jobs/get and runs/get of an unknown id answer 400 INVALID_PARAMETER_VALUE "Job 123 does not exist." /
 *   "Run 123 does not exist.", as the real service does; the SDKs and Terraform turn that into not-found.
 * - Stored settings echo what was sent plus only the defaults the real service adds (see settings.ts).
 * - jobs/get and runs/get page tasks at 100 with next_page_token, none on the last page.
 * - Runs fill both the deprecated `state` (the SDK waiters read it) and `status`.
 */
import { Hono } from 'hono';
import { readJson, readQuery, readQueryOrBody } from '@minilake/core';
import * as s from './schemas.js';
import type { JobsService } from './service.js';

const VERSIONS = ['2.2', '2.1', '2.0'];

export function jobsApp(svc: JobsService): Hono {
  const app = new Hono();
  for (const ver of VERSIONS) {
    const B = `/api/${ver}/jobs`;
    app.post(`${B}/create`, async (c) => c.json(await svc.create(await readJson(c, s.CreateJob))));
    app.get(`${B}/get`, async (c) => {
      const q = await readQueryOrBody(c, s.GetJobRequest);
      return c.json(svc.get(q.job_id, q.page_token ?? undefined));
    });
    app.get(`${B}/list`, (c) => {
      const q = readQuery(c, s.ListJobsRequest);
      return c.json(
        svc.list({
          ...(q.limit != null ? { limit: q.limit } : {}),
          ...(q.page_token ? { page_token: q.page_token } : {}),
          ...(q.name ? { name: q.name } : {}),
          ...(q.expand_tasks != null ? { expand_tasks: q.expand_tasks } : {}),
        }),
      );
    });
    app.post(`${B}/reset`, async (c) => {
      const b = await readJson(c, s.ResetJob);
      svc.reset(b.job_id, b.new_settings);
      return c.json({});
    });
    app.post(`${B}/update`, async (c) => {
      const b = await readJson(c, s.UpdateJob);
      svc.update(b.job_id, b.new_settings ?? undefined, b.fields_to_remove ?? undefined);
      return c.json({});
    });
    app.post(`${B}/delete`, async (c) => {
      svc.delete((await readJson(c, s.DeleteJob)).job_id);
      return c.json({});
    });
    app.post(`${B}/run-now`, async (c) => {
      const b = await readJson(c, s.RunNow);
      return c.json(svc.runNow({ ...b, idempotency_token: b.idempotency_token ?? undefined }));
    });
    app.post(`${B}/runs/submit`, async (c) => c.json(svc.submit(await readJson(c, s.SubmitRun))));
    app.get(`${B}/runs/get`, async (c) => {
      const q = await readQueryOrBody(c, s.GetRunRequest);
      return c.json(
        svc.getRun(q.run_id, {
          ...(q.include_history != null ? { include_history: q.include_history } : {}),
          ...(q.page_token ? { page_token: q.page_token } : {}),
        }),
      );
    });
    app.get(`${B}/runs/list`, (c) => {
      const q = readQuery(c, s.ListRunsRequest);
      const clean = Object.fromEntries(
        Object.entries(q).filter(([, v]) => v !== null && v !== undefined && v !== ''),
      );
      return c.json(svc.listRuns(clean));
    });
    app.post(`${B}/runs/cancel`, async (c) => {
      svc.cancel((await readJson(c, s.RunIdBody)).run_id);
      return c.json({});
    });
    app.post(`${B}/runs/cancel-all`, async (c) => {
      const b = await readJson(c, s.CancelAllRuns);
      svc.cancelAll(b.job_id ?? undefined, b.all_queued_runs ?? false);
      return c.json({});
    });
    app.post(`${B}/runs/delete`, async (c) => {
      svc.deleteRun((await readJson(c, s.RunIdBody)).run_id);
      return c.json({});
    });
    app.get(`${B}/runs/get-output`, async (c) =>
      c.json(svc.output((await readQueryOrBody(c, s.GetRunOutputRequest)).run_id)),
    );
    app.post(`${B}/runs/repair`, async (c) => c.json(svc.repair(await readJson(c, s.RepairRun))));
    app.get(`${B}/runs/export`, async (c) => {
      const q = await readQueryOrBody(c, s.ExportRunRequest);
      return c.json(svc.export(q.run_id, q.views_to_export ?? undefined));
    });
  }
  return app;
}
