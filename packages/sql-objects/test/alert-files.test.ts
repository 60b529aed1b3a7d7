import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { ManualClock } from '@minilake/core';
import { sqlService } from '@minilake/sql';
import { jsonInit, serviceApp } from '@minilake/testing';
import { workspaceService } from '@minilake/workspace';
import { sqlObjectsService } from '../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const ME = 'dev@minilake.local';
const HOME = `/Users/${ME}`;

let objects: Hono;
let workspace: Hono;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  const clock = new ManualClock(Date.now());
  const sql = await serviceApp(sqlService, { config: { MINILAKE_WAREHOUSE_START_DELAY: '0' } });
  const ws = await serviceApp(workspaceService, { clock });
  const made = await serviceApp(sqlObjectsService, {
    clock,
    peers: new Map<string, unknown>([
      ['sql', sql.instance.api],
      ['workspace', ws.instance.api],
    ]),
  });
  objects = made.app;
  workspace = ws.app;
  closers.push(
    () => sql.instance.close?.(),
    () => made.instance.close?.(),
  );
});
afterAll(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function call(
  app: Hono,
  method: string,
  p: string,
  body?: unknown,
): Promise<{ status: number; body: Any }> {
  const res = await app.request(p, jsonInit(method, body));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
}
const alerts = (m: string, p: string, b?: unknown) => call(objects, m, p, b);
const ws = (m: string, p: string, b?: unknown) => call(workspace, m, p, b);
const status = (p: string) => ws('GET', `/api/2.0/workspace/get-status?path=${encodeURIComponent(p)}`);
const exported = async (p: string) => {
  const r = await ws('GET', `/api/2.0/workspace/export?path=${encodeURIComponent(p)}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return Buffer.from(r.body.content as string, 'base64').toString('utf8');
};

/** The alert the CLI's `bundle generate alert` acceptance test creates (acceptance/bundle/generate/alert). */
const alertBody = (parent_path: string | undefined, display_name = 'test alert') => ({
  display_name,
  ...(parent_path ? { parent_path } : {}),
  query_text: 'SELECT 1\n as value',
  warehouse_id: 'dev',
  evaluation: {
    comparison_operator: 'GREATER_THAN',
    source: { name: 'value' },
    threshold: { value: { double_value: 0.0 } },
  },
  schedule: { quartz_cron_schedule: '0 0 9 10 1 ?', timezone_id: 'UTC' },
});

describe('alerts v2 as workspace files', () => {
  it('is <parent_path>/<display_name>.dbalert.json: a FILE, listed, exported as the goldens record', async () => {
    expect((await ws('POST', '/api/2.0/workspace/mkdirs', { path: `${HOME}/gen` })).status).toBe(200);
    // Bundles send the /Workspace form; parent_path keeps it, the file is where the tree says.
    const made = await alerts('POST', '/api/2.0/alerts', alertBody(`/Workspace${HOME}/gen`));
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.parent_path).toBe(`/Workspace${HOME}/gen`);
    const file = `${HOME}/gen/test alert.dbalert.json`;
    const info = await status(`/Workspace${file}`);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ object_type: 'FILE', path: `/Workspace${file}` });
    const listed = (await ws('GET', `/api/2.0/workspace/list?path=${encodeURIComponent(`${HOME}/gen`)}`))
      .body;
    expect(listed.objects).toEqual([expect.objectContaining({ path: file, object_type: 'FILE' })]);
    // Byte for byte what acceptance/bundle/generate/alert/out/alert/test_alert.dbalert.json holds.
    expect(await exported(file)).toBe(
      [
        '{',
        '  "evaluation": {',
        '    "source": {',
        '      "name": "value"',
        '    },',
        '    "comparison_operator": "GREATER_THAN",',
        '    "threshold": {',
        '      "value": {',
        '        "double_value": 0.0',
        '      }',
        '    },',
        '    "notification": {}',
        '  },',
        '  "schedule": {',
        '    "quartz_cron_schedule": "0 0 9 10 1 ?",',
        '    "timezone_id": "UTC"',
        '  },',
        '  "query_lines": [',
        '    "SELECT 1",',
        '    " as value"',
        '  ]',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('writes every field a .dbalert.json carries, lines joined back as bundles split them', async () => {
    expect((await ws('POST', '/api/2.0/workspace/mkdirs', { path: `${HOME}/full` })).status).toBe(200);
    const made = await alerts('POST', '/api/2.0/alerts', {
      ...alertBody(`${HOME}/full`, 'myalert'),
      query_text: 'select 2\n',
      custom_summary: 'My alert from file',
      custom_description: 'My alert from file\nwith multiple lines\nand a third line\n',
      evaluation: {
        comparison_operator: 'EQUAL',
        source: { name: '1', display: '1', aggregation: 'MAX' },
        threshold: { value: { double_value: 2 } },
        notification: { retrigger_seconds: 1 },
      },
      schedule: { quartz_cron_schedule: '44 19 */1 * * ?', timezone_id: 'Europe/Amsterdam' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const text = await exported(`${HOME}/full/myalert.dbalert.json`);
    expect(text).toContain('"double_value": 2.0');
    expect(JSON.parse(text)).toEqual({
      custom_summary: 'My alert from file',
      evaluation: {
        source: { name: '1', display: '1', aggregation: 'MAX' },
        comparison_operator: 'EQUAL',
        threshold: { value: { double_value: 2 } },
        notification: { retrigger_seconds: 1, notify_on_ok: false },
      },
      schedule: { quartz_cron_schedule: '44 19 */1 * * ?', timezone_id: 'Europe/Amsterdam' },
      query_lines: ['select 2'],
      custom_description_lines: ['My alert from file', 'with multiple lines', 'and a third line'],
    });
  });

  it('needs its folder (404) and a free name (409), leaving nothing behind; in the home folder without parent_path', async () => {
    const missing = await alerts('POST', '/api/2.0/alerts', alertBody(`${HOME}/nowhere`));
    expect(missing.status).toBe(404);
    expect(missing.body.error_code).toBe('RESOURCE_DOES_NOT_EXIST');
    const home = await alerts('POST', '/api/2.0/alerts', alertBody(undefined, 'at home'));
    expect(home.status).toBe(200);
    // parent_path stays absent (the Terraform provider does not expect one it did not send).
    expect(home.body).not.toHaveProperty('parent_path');
    expect((await status(`${HOME}/at home.dbalert.json`)).body.object_type).toBe('FILE');
    const before = ((await alerts('GET', '/api/2.0/alerts')).body.alerts as Any[]).length;
    const taken = await alerts('POST', '/api/2.0/alerts', alertBody(undefined, 'at home'));
    expect(taken.status).toBe(409);
    expect(taken.body.error_code).toBe('RESOURCE_ALREADY_EXISTS');
    expect((await alerts('GET', '/api/2.0/alerts')).body.alerts).toHaveLength(before);
    const slash = await alerts('POST', '/api/2.0/alerts', alertBody(undefined, 'a/b'));
    expect(slash.status).toBe(400);
    // Nothing else takes the alert's path.
    const over = await ws('POST', '/api/2.0/workspace/import', {
      path: `${HOME}/at home.dbalert.json`,
      format: 'AUTO',
      content: Buffer.from('{}').toString('base64'),
      overwrite: true,
    });
    expect(over.status).toBe(409);
    expect((await alerts('GET', `/api/2.0/alerts/${home.body.id}`)).body.lifecycle_state).toBe('ACTIVE');
  });

  it('moves with a rename, goes with a trash or a purge, and a delete of its folder trashes it', async () => {
    expect((await ws('POST', '/api/2.0/workspace/mkdirs', { path: `${HOME}/mv` })).status).toBe(200);
    const a = (await alerts('POST', '/api/2.0/alerts', alertBody(`${HOME}/mv`, 'one'))).body;
    const renamed = await alerts('PATCH', `/api/2.0/alerts/${a.id}?update_mask=display_name`, {
      display_name: 'two',
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect((await status(`${HOME}/mv/one.dbalert.json`)).status).toBe(404);
    expect((await status(`${HOME}/mv/two.dbalert.json`)).body.object_type).toBe('FILE');
    expect(JSON.parse(await exported(`${HOME}/mv/two.dbalert.json`)).query_lines).toEqual([
      'SELECT 1',
      ' as value',
    ]);
    // A full update (update_mask=*, as bundles send) without parent_path keeps the folder.
    const full = await alerts('PATCH', `/api/2.0/alerts/${a.id}?update_mask=*`, {
      ...alertBody(undefined, 'two'),
      query_text: 'SELECT 2 AS value',
    });
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    expect(full.body.parent_path).toBe(`${HOME}/mv`);
    expect(JSON.parse(await exported(`${HOME}/mv/two.dbalert.json`)).query_lines).toEqual([
      'SELECT 2 AS value',
    ]);

    await alerts('DELETE', `/api/2.0/alerts/${a.id}`);
    expect((await status(`${HOME}/mv/two.dbalert.json`)).status).toBe(404);
    expect((await alerts('GET', `/api/2.0/alerts/${a.id}`)).body.lifecycle_state).toBe('DELETED');

    // What `bundle destroy` sends: gone for good.
    const b = (await alerts('POST', '/api/2.0/alerts', alertBody(`${HOME}/mv`, 'purged'))).body;
    expect((await alerts('DELETE', `/api/2.0/alerts/${b.id}?purge=true`)).status).toBe(200);
    expect((await alerts('GET', `/api/2.0/alerts/${b.id}`)).status).toBe(404);
    expect((await status(`${HOME}/mv/purged.dbalert.json`)).status).toBe(404);

    // A client deleting the folder (or the file) trashes the alert.
    const c = (await alerts('POST', '/api/2.0/alerts', alertBody(`${HOME}/mv`, 'three'))).body;
    const notEmpty = await ws('POST', '/api/2.0/workspace/delete', { path: `${HOME}/mv` });
    expect(notEmpty.status).toBe(400);
    expect(
      (await ws('POST', '/api/2.0/workspace/delete', { path: `${HOME}/mv`, recursive: true })).status,
    ).toBe(200);
    expect((await alerts('GET', `/api/2.0/alerts/${c.id}`)).body.lifecycle_state).toBe('DELETED');
    const ids = ((await alerts('GET', '/api/2.0/alerts')).body.alerts as Any[] | undefined)?.map((x) => x.id);
    expect(ids ?? []).not.toContain(c.id);
  });
});
