/**
 * The UI as a workspace, in a real headless Chromium (Debian's, playwright-core) against the built server,
 * every request outside the server refused: the editor's schema browser, dividers, sortable and resizable
 * columns, one result tab per statement and the full type on hover; pages at their addresses for the
 * workspace tree (a notebook read-only with its cells), jobs (Run now, followed to the task graph and the
 * output; cancel), a Delta table's history, a volume's files (upload, download, delete), alerts (evaluate
 * now), warehouses (stop, start) and query history's filters. Every page is photographed at 1280×720 and
 * 1920×1080 into apps/ui/test-artifacts/ (gitignored), and nothing on it is clipped off the window's width.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, NO_CHROMIUM, openPage, shots } from './browser.js';
import { startServer, type RunningServer } from '@minilake/testing';

let server: RunningServer;
let browser: Browser;
let me = '';
const outside: string[] = [];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
async function call(method: string, p: string, body?: unknown): Promise<Any> {
  const res = await fetch(`${server.url}${p}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  expect(res.status, `${method} ${p}: ${text}`).toBe(200);
  return text ? JSON.parse(text) : {};
}
const sql = async (statement: string) => {
  const r = await call('POST', '/api/2.0/sql/statements', {
    warehouse_id: 'dev',
    statement,
    wait_timeout: '30s',
  });
  expect(r.status.state, JSON.stringify(r.status)).toBe('SUCCEEDED');
  return (r.result?.data_array ?? []) as string[][];
};

const open = (p: string, viewport?: { width: number; height: number }): Promise<Page> =>
  openPage(browser, server.url, p, { outside, acceptDownloads: true, ...(viewport ? { viewport } : {}) });

const title = CHROMIUM
  ? 'the workspace pages in Chromium'
  : `the workspace pages in Chromium (${NO_CHROMIUM})`;

describe.skipIf(!CHROMIUM)(title, () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    me = (await call('GET', '/api/2.0/preview/scim/v2/Me')).userName;
    await call('POST', '/api/2.1/unity-catalog/catalogs', { name: 'pages' });
    await sql(
      'CREATE TABLE pages.default.people (id BIGINT, name STRING, score DOUBLE, tags ARRAY<STRING>, info STRUCT<city: STRING, zip: INT>)',
    );
    await sql(
      "INSERT INTO pages.default.people VALUES (1, 'ada', 9.5, array('x'), named_struct('city', 'Paris', 'zip', 75001)), (2, 'bob', 12.25, array('y'), named_struct('city', 'Oslo', 'zip', 150)), (3, 'cy', 3.0, array(), named_struct('city', 'Rome', 'zip', 100)), (10, 'dee', 7.75, NULL, NULL)",
    );
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('editor: schema browser inserts names, one result tab per statement, sorting, resizing, full types', async () => {
    const page = await open('/ui/');
    await page.locator('.monaco-editor').first().waitFor({ timeout: 30_000 });
    await page.locator('.monaco-editor').first().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('SELECT * FROM ');
    // The schema browser: catalog, schema, table, column; a click inserts the table's full name.
    const tree = page.getByRole('navigation', { name: 'Schema browser' });
    await tree.getByRole('button', { name: 'Expand pages' }).click();
    await tree.getByRole('button', { name: 'Expand default' }).click();
    await tree.getByRole('button', { name: 'Expand people' }).click();
    await tree.getByRole('button', { name: 'score' }).waitFor();
    expect(await tree.locator('.st-col', { hasText: 'info' }).textContent()).toContain(
      'struct<city:string,zip:int>',
    );
    await tree.getByRole('button', { name: 'people', exact: true }).click();
    await page.keyboard.type(
      ' ORDER BY id;\nSELECT 1 AS one;\nSELECT name FROM pages.default.people WHERE id = 2',
    );
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    const tabs = page.getByRole('tablist', { name: 'Statement results' });
    await tabs.getByRole('tab', { name: 'Statement 3' }).waitFor({ timeout: 30_000 });
    await page.getByRole('gridcell', { name: 'bob', exact: true }).waitFor();
    await shots(page, 'editor-script');
    await tabs.getByRole('tab', { name: 'Statement 1' }).click();
    const grid = page.locator('.result-area .grid');
    const col = (i: number) =>
      grid.locator('.grow').evaluateAll(
        (rows, i) =>
          rows
            .filter((r) => !(r as HTMLElement).hidden)
            .sort(
              (a, b) => parseFloat((a as HTMLElement).style.top) - parseFloat((b as HTMLElement).style.top),
            )
            .map((r) => r.children[i]!.textContent),
        i,
      );
    await expect.poll(() => col(1)).toEqual(['1', '2', '3', '10']);
    // Sort: numbers as numbers (10 after 3), then descending, then as fetched.
    const scoreHead = grid.getByRole('columnheader', { name: /score/ });
    await scoreHead.click();
    await expect.poll(() => col(3)).toEqual(['3.0', '7.75', '9.5', '12.25']);
    expect(await scoreHead.getAttribute('aria-sort')).toBe('ascending');
    await scoreHead.click();
    await expect.poll(() => col(3)).toEqual(['12.25', '9.5', '7.75', '3.0']);
    await grid.getByRole('columnheader', { name: /name/ }).click();
    await expect.poll(() => col(2)).toEqual(['ada', 'bob', 'cy', 'dee']);
    // The full type on hover.
    await grid.getByRole('columnheader', { name: /info/ }).hover();
    await expect.poll(() => page.getByRole('tooltip').textContent()).toBe('info STRUCT<city:STRING,zip:INT>');
    await shots(page, 'editor-sorted');
    // Resize a column by its edge.
    const before = (await grid.getByRole('columnheader', { name: /name/ }).boundingBox())!.width;
    const handle = grid.getByRole('separator', { name: 'Resize name' });
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 122, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    expect((await grid.getByRole('columnheader', { name: /name/ }).boundingBox())!.width).toBeGreaterThan(
      before + 100,
    );
    // The divider between editor and results drags.
    const editorBox = (await page.locator('.editor').boundingBox())!;
    const split = page.getByRole('separator', { name: 'Resize the editor and the results' });
    const sb = (await split.boundingBox())!;
    await page.mouse.move(sb.x + 100, sb.y + 3);
    await page.mouse.down();
    await page.mouse.move(sb.x + 100, sb.y + 83, { steps: 4 });
    await page.mouse.up();
    expect((await page.locator('.editor').boundingBox())!.height).toBeGreaterThan(editorBox.height + 60);
    // A failing statement stops the script there; its tab says so.
    await page.locator('.monaco-editor').first().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('SELECT 1; SELECT * FROM pages.default.nope; SELECT 3');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    await page.locator('.result-area [role=alert]').waitFor();
    expect(await tabs.getByRole('tab').count()).toBe(3);
    expect(await tabs.getByRole('tab', { name: 'Statement 2' }).getAttribute('class')).toContain('failed');
    expect(await tabs.getByRole('tab', { name: 'Statement 3' }).getAttribute('aria-selected')).toBe('false');
    await page.close();
  });

  it('workspace: folders, a notebook read-only with its cells, a dashboard opens its page', async () => {
    await call('POST', '/api/2.0/workspace/mkdirs', { path: `/Users/${me}/project` });
    const source = [
      '# Databricks notebook source',
      '# MAGIC %md',
      '# MAGIC # Load orders',
      '# MAGIC Reads **raw** orders.',
      '',
      '# COMMAND ----------',
      '',
      "df = spark.table('pages.default.people')",
      'display(df)',
      '',
    ].join('\n');
    await call('POST', '/api/2.0/workspace/import', {
      path: `/Users/${me}/project/load`,
      format: 'SOURCE',
      language: 'PYTHON',
      content: Buffer.from(source).toString('base64'),
    });
    await call('POST', '/api/2.0/workspace/import', {
      path: `/Users/${me}/project/README.md`,
      format: 'RAW',
      content: Buffer.from('# Project\n').toString('base64'),
    });
    const dash = await call('POST', '/api/2.0/lakeview/dashboards', {
      display_name: 'Board',
      parent_path: `/Users/${me}/project`,
    });
    const page = await open('/ui/workspace');
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('link', { name: me }).click();
    await page.getByRole('link', { name: 'project' }).click();
    await page.getByRole('link', { name: 'Board.lvdash.json' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ui/workspace/Users/${encodeURIComponent(me)}/project`);
    await shots(page, 'workspace-folder');
    await page.getByRole('link', { name: 'load' }).click();
    await page.getByRole('heading', { name: 'Load orders' }).waitFor();
    expect(await page.locator('.nb-cell').count()).toBe(2);
    expect(await page.locator('.nb-code').textContent()).toContain("spark.table('pages.default.people')");
    await shots(page, 'workspace-notebook');
    await page.goBack();
    await page.getByRole('link', { name: 'Board.lvdash.json' }).click();
    await page.waitForURL(`**/ui/dashboards/${dash.dashboard_id}`);
    await page.close();
  });

  it('jobs: Run now from the job page, followed to the task graph and each task’s output; cancel', async () => {
    const q = await call('POST', '/api/2.0/sql/queries', {
      query: {
        display_name: 'top score',
        query_text: 'SELECT max(score) AS top FROM pages.default.people',
        warehouse_id: 'dev',
      },
    });
    const bad = await call('POST', '/api/2.0/sql/queries', {
      query: {
        display_name: 'broken',
        query_text: 'SELECT * FROM pages.default.missing_table',
        warehouse_id: 'dev',
      },
    });
    const task = (key: string, query: string, deps: string[] = []) => ({
      task_key: key,
      sql_task: { warehouse_id: 'dev', query: { query_id: query } },
      ...(deps.length ? { depends_on: deps.map((d) => ({ task_key: d })) } : {}),
    });
    const job = await call('POST', '/api/2.2/jobs/create', {
      name: 'nightly scores',
      tasks: [
        task('extract', q.id),
        task('score', q.id, ['extract']),
        task('audit', bad.id, ['extract']),
        task('publish', q.id, ['score', 'audit']),
      ],
    });
    const page = await open('/ui/jobs');
    await page.getByRole('link', { name: 'nightly scores' }).click();
    await page.getByRole('heading', { name: 'nightly scores' }).waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    // Run now lands on the run's page; the graph fills in as the tasks end.
    await page.waitForURL(new RegExp(`/ui/jobs/${job.job_id}/runs/\\d+$`));
    const graph = page.getByRole('group', { name: 'Task graph' });
    await graph.getByRole('button', { name: /Task extract: SUCCESS/ }).waitFor({ timeout: 60_000 });
    await graph.getByRole('button', { name: /Task audit: FAILED/ }).waitFor({ timeout: 60_000 });
    await graph
      .getByRole('button', { name: /Task publish: (UPSTREAM_FAILED|EXCLUDED|SKIPPED)/ })
      .waitFor({ timeout: 60_000 });
    await page.locator('.page-head .badge', { hasText: 'FAILED' }).waitFor({ timeout: 60_000 });
    expect(await graph.locator('.edge').count()).toBe(4);
    await graph.getByRole('button', { name: /Task score/ }).click();
    await page
      .getByRole('region', { name: 'Output of score' })
      .locator('pre.output')
      .first()
      .getByText(/succeeded \(1 rows\)/)
      .waitFor();
    await graph.getByRole('button', { name: /Task audit/ }).click();
    const err = page.getByRole('region', { name: 'Output of audit' }).getByRole('alert');
    await err.waitFor();
    expect(await err.textContent()).toMatch(/missing_table/);
    await shots(page, 'jobs-run');
    await page.getByRole('link', { name: `Job ${job.job_id}` }).click();
    await page.getByRole('link', { name: /^\d+$/ }).first().waitFor();
    await shots(page, 'jobs-job');
    await page.getByRole('link', { name: 'Jobs', exact: true }).first().click();
    await page.locator('.run-dot.st-failed').first().waitFor();
    await shots(page, 'jobs-list');
    await page.close();

    // Cancel: a run of a job whose one task waits on a statement that takes a while.
    const slow = await call('POST', '/api/2.0/sql/queries', {
      query: {
        display_name: 'slow',
        query_text: 'SELECT count(*) FROM range(3000000000)',
        warehouse_id: 'dev',
      },
    });
    const sj = await call('POST', '/api/2.2/jobs/create', {
      name: 'slow job',
      tasks: [task('wait', slow.id)],
    });
    const run = await call('POST', '/api/2.2/jobs/run-now', { job_id: sj.job_id });
    const p2 = await open(`/ui/jobs/${sj.job_id}/runs/${run.run_id}`);
    await p2.getByRole('button', { name: 'Cancel run' }).click();
    await p2.locator('.page-head .badge', { hasText: /CANCEL/ }).waitFor({ timeout: 60_000 });
    await p2.close();
  });

  it('catalog: a Delta table’s history, and a volume’s files: upload, download, delete', async () => {
    const loc = mkdtempSync(path.join(os.tmpdir(), 'ui-delta-'));
    await sql(
      `CREATE TABLE pages.default.events (id BIGINT, kind STRING) USING DELTA LOCATION '${loc}/events'`,
    );
    await sql("INSERT INTO pages.default.events VALUES (1, 'a'), (2, 'b')");
    await sql("UPDATE pages.default.events SET kind = 'c' WHERE id = 2");
    const page = await open('/ui/catalog/pages/default/events');
    await page.getByRole('heading', { name: 'pages.default.events' }).waitFor();
    await page.getByRole('button', { name: 'History' }).click();
    await page.getByRole('gridcell', { name: 'UPDATE', exact: true }).waitFor();
    await page.getByRole('gridcell', { name: 'CREATE TABLE', exact: true }).waitFor();
    await shots(page, 'catalog-history');
    await page.getByRole('button', { name: 'Preview 100 rows' }).click();
    await page.getByRole('gridcell', { name: 'c', exact: true }).waitFor();
    await page.close();

    await call('POST', '/api/2.1/unity-catalog/volumes', {
      catalog_name: 'pages',
      schema_name: 'default',
      name: 'landing',
      volume_type: 'MANAGED',
    });
    const v = await open('/ui/catalog');
    await v.getByRole('button', { name: /pages/ }).click();
    await v.getByRole('button', { name: /default/ }).click();
    await v.locator('.tree .volume', { hasText: 'landing' }).click();
    await v.waitForURL('**/ui/catalog/pages/default/landing');
    await v.getByText('This folder is empty').waitFor();
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'ui-up-')), 'orders.csv');
    writeFileSync(file, 'id,amount\n1,10\n2,20\n');
    await v.getByLabel('Upload files').setInputFiles(file);
    await v.getByRole('link', { name: 'Download orders.csv' }).waitFor();
    const onDisk = await fetch(`${server.url}/api/2.0/fs/files/Volumes/pages/default/landing/orders.csv`);
    expect(await onDisk.text()).toBe('id,amount\n1,10\n2,20\n');
    const [download] = await Promise.all([
      v.waitForEvent('download'),
      v.getByRole('link', { name: 'Download orders.csv' }).click(),
    ]);
    expect(readFileSync((await download.path())!, 'utf8')).toBe('id,amount\n1,10\n2,20\n');
    v.once('dialog', (d) => void d.accept('raw'));
    await v.getByRole('button', { name: 'New folder' }).click();
    await v.getByRole('link', { name: 'raw' }).click();
    await v.waitForURL('**/ui/catalog/pages/default/landing/raw');
    await v.getByLabel('Upload files').setInputFiles(file);
    await v.getByRole('link', { name: 'Download orders.csv' }).waitFor();
    await shots(v, 'volume-browser');
    await v.locator('.crumbs').getByRole('link', { name: 'landing' }).click();
    await v.getByRole('link', { name: 'raw' }).waitFor();
    v.once('dialog', (d) => void d.accept());
    await v.getByRole('button', { name: 'Delete orders.csv' }).click();
    await expect
      .poll(() => v.getByRole('link', { name: 'Download orders.csv' }).count())
      .toBe(0)
      .catch(async (e: unknown) => {
        await v.screenshot({ path: path.join(ARTIFACTS, 'volume-delete-failed.png') });
        throw e;
      });
    expect(
      (await fetch(`${server.url}/api/2.0/fs/files/Volumes/pages/default/landing/orders.csv`)).status,
    ).toBe(404);
    await v.close();
  });

  it('alerts: state, last evaluation, evaluate now; warehouses: stop and start; history: filters', async () => {
    const alert = await call('POST', '/api/2.0/alerts', {
      display_name: 'high score',
      query_text: 'SELECT max(score) AS top FROM pages.default.people',
      warehouse_id: 'dev',
      evaluation: {
        comparison_operator: 'GREATER_THAN',
        source: { name: 'top' },
        threshold: { value: { double_value: 10 } },
      },
      // Paused: only the button evaluates it.
      schedule: { quartz_cron_schedule: '0 0 * * * ?', timezone_id: 'UTC', pause_status: 'PAUSED' },
    });
    const page = await open('/ui/alerts');
    const row = page.locator('tr', { hasText: 'high score' });
    await row.getByText('never').waitFor();
    await row.getByRole('button', { name: 'Evaluate high score now' }).click();
    await page
      .getByRole('status')
      .getByText(/TRIGGERED \(value 12.25\)/)
      .waitFor();
    await row.locator('.badge', { hasText: 'TRIGGERED' }).waitFor();
    expect(await row.textContent()).not.toContain('never');
    expect((await call('GET', `/api/2.0/alerts/${alert.id}`)).evaluation.state).toBe('TRIGGERED');
    await shots(page, 'alerts');
    await page.close();

    const wh = await call('POST', '/api/2.0/sql/warehouses', { name: 'ui-wh', cluster_size: 'Small' });
    const w = await open('/ui/warehouses');
    const wrow = w.locator('tr', { hasText: 'ui-wh' });
    await wrow.locator('.badge', { hasText: 'RUNNING' }).waitFor({ timeout: 30_000 });
    await wrow.getByRole('button', { name: 'Stop ui-wh' }).click();
    await wrow.locator('.badge', { hasText: 'STOPPED' }).waitFor({ timeout: 30_000 });
    expect((await call('GET', `/api/2.0/sql/warehouses/${wh.id}`)).state).toBe('STOPPED');
    await wrow.getByRole('button', { name: 'Start ui-wh' }).click();
    await wrow.locator('.badge', { hasText: 'RUNNING' }).waitFor({ timeout: 30_000 });
    await shots(w, 'warehouses');
    await w.close();

    await call('POST', '/api/2.0/sql/statements', {
      warehouse_id: wh.id,
      statement: 'SELECT 4242 AS only_here',
      wait_timeout: '30s',
    });
    const h = await open('/ui/history');
    await h.getByText('SELECT 4242 AS only_here').waitFor();
    await h.getByRole('combobox', { name: 'Warehouse' }).selectOption({ label: 'ui-wh' });
    await expect.poll(() => h.locator('.history tbody tr').count()).toBe(1);
    await h.getByRole('combobox', { name: 'Warehouse' }).selectOption({ label: 'all' });
    await h.getByRole('combobox', { name: 'Status' }).selectOption('FAILED');
    await expect
      .poll(async () =>
        (await h.locator('.history tbody tr').allTextContents()).every((t) => t.includes('FAILED')),
      )
      .toBe(true);
    await h.getByRole('combobox', { name: 'Started' }).selectOption({ label: 'in the last 15 minutes' });
    await shots(h, 'history');
    await h.close();
  });

  it('a warehouse has its own address: opened directly, from the list and from history; unknown ids; start', async () => {
    const wh = await call('POST', '/api/2.0/sql/warehouses', {
      name: 'addr-wh',
      cluster_size: 'X-Small',
      auto_stop_mins: 15,
    });
    const state = async () => (await call('GET', `/api/2.0/sql/warehouses/${wh.id}`)).state as string;
    await expect.poll(state, { timeout: 30_000 }).toMatch(/RUNNING|STARTING/);
    await call('POST', `/api/2.0/sql/warehouses/${wh.id}/stop`);
    await expect.poll(state, { timeout: 30_000 }).toBe('STOPPED');

    // Opened at its address: what it is, and how to connect to it as Databricks' Connection details tab says.
    const page = await open(`/ui/warehouses/${wh.id}`);
    const view = page.getByRole('region', { name: 'Warehouse addr-wh' });
    await view.getByRole('heading', { name: 'addr-wh' }).waitFor();
    await view.locator('.page-head .badge', { hasText: 'STOPPED' }).waitFor();
    const overview = view.getByRole('table', { name: 'Overview' });
    expect(await overview.textContent()).toContain('X-Small');
    expect(await overview.textContent()).toContain('15 min');
    const conn = view.getByRole('table', { name: 'Connection details' });
    const row = async (label: string) =>
      (await conn
        .locator('tr', { has: page.getByRole('rowheader', { name: label }) })
        .locator('code')
        .textContent()) ?? '';
    const { hostname, port } = new URL(server.url);
    expect(await row('Server hostname')).toBe(hostname);
    expect(await row('Port')).toBe(port);
    expect(await row('HTTP path')).toBe(`/sql/1.0/warehouses/${wh.id}`);
    expect(await row('JDBC URL')).toBe(
      `jdbc:databricks://${hostname}:${port}/default;transportMode=http;ssl=0;AuthMech=3;httpPath=/sql/1.0/warehouses/${wh.id};`,
    );
    // Start calls the real API, and the page follows the state to RUNNING.
    await view.getByRole('button', { name: 'Start addr-wh' }).click();
    await view.locator('.page-head .badge', { hasText: 'RUNNING' }).waitFor({ timeout: 30_000 });
    expect(await state()).toBe('RUNNING');
    await view.getByRole('button', { name: 'Stop addr-wh' }).waitFor();
    await shots(page, 'warehouse');
    // A reload opens the same warehouse.
    await page.reload();
    await view.locator('.page-head .badge', { hasText: 'RUNNING' }).waitFor();

    // From the list: a click changes the address without a reload, and back returns to the list.
    await page.goto(`${server.url}/ui/warehouses`);
    await page.evaluate(() => ((window as unknown as { __same: boolean }).__same = true));
    await page.getByRole('link', { name: 'addr-wh' }).click();
    await view.getByRole('heading', { name: 'addr-wh' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ui/warehouses/${wh.id}`);
    expect(await page.evaluate(() => (window as unknown as { __same?: boolean }).__same)).toBe(true);
    await page.getByRole('link', { name: 'SQL warehouses' }).click();
    await page.getByRole('region', { name: 'SQL warehouses' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/warehouses');

    // Query history names the warehouse a statement ran on, as a link to it.
    await call('POST', '/api/2.0/sql/statements', {
      warehouse_id: wh.id,
      statement: 'SELECT 77 AS on_addr_wh',
      wait_timeout: '30s',
    });
    await page.goto(`${server.url}/ui/history`);
    const hrow = page.locator('.history tbody tr', { hasText: 'SELECT 77 AS on_addr_wh' });
    await hrow.getByRole('link', { name: wh.id }).click();
    await view.getByRole('heading', { name: 'addr-wh' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ui/warehouses/${wh.id}`);

    // An id no warehouse has says so.
    await page.goto(`${server.url}/ui/warehouses/no-such-wh`);
    await page.getByText('No SQL warehouse has the id no-such-wh').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('RESOURCE_DOES_NOT_EXIST');
    await page.close();
  });

  it('asked nothing of the outside network', () => {
    expect(outside).toEqual([]);
  });
});
