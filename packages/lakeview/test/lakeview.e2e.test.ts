/**
 * Tier 3: the built server driven by the official TypeScript SDK: a dashboard and its schedule survive a
 * crash (SIGKILL) with persistence on, workspace entry included, and the schedule is armed again after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, workspaceClient, type RunningServer } from '@minilake/testing';

const dirs: string[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('lakeview through the TypeScript SDK', () => {
  it('keeps an acknowledged dashboard, its workspace entry and its schedule through kill -9', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'minilake-lakeview-'));
    dirs.push(dataDir);
    const env = { MINILAKE_PERSIST: '1' };
    const first = await startServer({ dataDir, env });
    servers.push(first);
    let w = workspaceClient(first.url);
    const me = (await w.currentUser.me()).userName!;
    const d = await w.lakeview.create({
      dashboard: {
        display_name: 'Kept',
        parent_path: `/Users/${me}`,
        serialized_dashboard: JSON.stringify({ pages: [{ name: 'p', displayName: 'P' }] }),
      },
    });
    // @databricks/sdk-experimental 0.17.0 sends no body with PATCH (its client only sends one for POST and
    // PUT): the update goes over plain HTTP, as every other client sends it.
    const res = await fetch(`${first.url}/api/2.0/lakeview/dashboards/${d.dashboard_id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'Kept and renamed', etag: d.etag }),
    });
    const updated = (await res.json()) as { etag: string };
    await w.lakeview.publish({ dashboard_id: d.dashboard_id!, embed_credentials: true });
    const s = await w.lakeview.createSchedule({
      dashboard_id: d.dashboard_id!,
      schedule: { cron_schedule: { quartz_cron_expression: '0 0 8 * * ?', timezone_id: 'Europe/Paris' } },
    });
    await first.kill9();

    const second = await startServer({ dataDir, env });
    servers.push(second);
    w = workspaceClient(second.url);
    const got = await w.lakeview.get({ dashboard_id: d.dashboard_id! });
    expect(got).toMatchObject({
      display_name: 'Kept and renamed',
      etag: updated.etag,
      path: `/Users/${me}/Kept and renamed.lvdash.json`,
      lifecycle_state: 'ACTIVE',
    });
    expect(JSON.parse(got.serialized_dashboard!).pages[0].pageType).toBe('PAGE_TYPE_CANVAS');
    expect((await w.lakeview.getPublished({ dashboard_id: d.dashboard_id! })).embed_credentials).toBe(true);
    const st = await w.workspace.getStatus({ path: got.path! });
    expect(st.object_type).toBe('DASHBOARD');
    expect(st.resource_id).toBe(d.dashboard_id);
    const schedules = [];
    for await (const x of w.lakeview.listSchedules({ dashboard_id: d.dashboard_id! })) schedules.push(x);
    expect(schedules.map((x) => [x.schedule_id, x.cron_schedule?.timezone_id])).toEqual([
      [s.schedule_id, 'Europe/Paris'],
    ]);
  });
});
