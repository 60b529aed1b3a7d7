/**
 * AI/BI dashboards in a real headless Chromium (Debian's, playwright-core) against the built server, every
 * request outside the server refused: a dashboard in Databricks' serialized format (test/fixtures, made in the
 * shape of the `.lvdash.json` files Databricks exports) draws every widget with the numbers the same SQL gives
 * through the Statement API, its filters re-query, its pages switch, its published view draws the published
 * revision, at 1280×720 and 1920×1080. Screenshots go to apps/ui/test-artifacts/ (gitignored).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startServer, type RunningServer } from '@minilake/testing';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const ARTIFACTS = path.join(repoRoot, 'apps/ui/test-artifacts');
const FIXTURE = readFileSync(path.join(repoRoot, 'apps/ui/test/fixtures/retail.lvdash.json'), 'utf8');

let server: RunningServer;
let browser: Browser;
let wh = '';
let dashboardId = '';
const outside: string[] = [];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
async function call(method: string, p: string, body?: unknown): Promise<Any> {
  const res = await fetch(`${server.url}${p}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Any;
  expect(res.status, `${method} ${p}: ${JSON.stringify(json)}`).toBe(200);
  return json;
}
/** The rows of a statement through the Statement API: what the widgets are checked against. */
async function rows(statement: string): Promise<Any[][]> {
  const r = await call('POST', '/api/2.0/sql/statements', {
    warehouse_id: wh,
    statement,
    catalog: 'ui_dash',
    schema: 'default',
    wait_timeout: '30s',
  });
  expect(r.status.state, JSON.stringify(r.status)).toBe('SUCCEEDED');
  return r.result?.data_array ?? [];
}
/** The first cell of a statement's result. */
const one = async (statement: string): Promise<string> => (await rows(statement))[0]![0];
const fmt = (v: string | null) =>
  Number.isInteger(Number(v))
    ? Number(v).toLocaleString('en-US')
    : Number(v).toLocaleString('en-US', { maximumFractionDigits: 4 });

async function open(p: string, viewport = { width: 1280, height: 720 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const host = new URL(server.url).host;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).host === host)
      return route.continue();
    outside.push(url);
    return route.abort();
  });
  await page.goto(`${server.url}${p}`);
  return page;
}

/** Waits for the dashboard's next complete draw (every statement back and painted) and returns what it drew. */
async function drawn(page: Page, action?: () => Promise<unknown>): Promise<Any> {
  await page.evaluate(() => (window.__minilakeDashboard = undefined));
  await action?.();
  await page.waitForFunction(() => window.__minilakeDashboard !== undefined, undefined, { timeout: 30_000 });
  return page.evaluate(() => window.__minilakeDashboard);
}
const counterText = (page: Page, widget: string) =>
  page.locator(`[data-widget="${widget}"] .counter-value`).textContent();
const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

const title = CHROMIUM
  ? 'dashboards in Chromium'
  : 'dashboards in Chromium (skipped: no /usr/bin/chromium; .ci/run installs Debian chromium)';

describe.skipIf(!CHROMIUM)(title, () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    wh = (await call('POST', '/api/2.0/sql/warehouses', { name: 'bi', cluster_size: 'Small' })).id;
    await call('POST', '/api/2.1/unity-catalog/catalogs', { name: 'ui_dash' });
    await rows(
      'CREATE TABLE orders (order_date DATE, region STRING, product STRING, quantity BIGINT, amount DOUBLE)',
    );
    const values: string[] = [];
    const regions = ['north', 'south', 'east', 'west'];
    const products = ['Anvil', 'Bolt', 'Cog'];
    for (let day = 1; day <= 5; day++)
      for (let r = 0; r < regions.length; r++)
        for (let p = 0; p < products.length; p++) {
          const q = ((day * 7 + r * 3 + p * 5) % 9) + 1;
          values.push(
            `(DATE '2024-03-0${day}', '${regions[r]}', '${products[p]}', ${q}, ${(q * (12.5 + p * 4)).toFixed(2)})`,
          );
        }
    await rows(`INSERT INTO orders VALUES ${values.join(', ')}`);
    const me = (await call('GET', '/api/2.0/preview/scim/v2/Me')).userName;
    dashboardId = (
      await call('POST', '/api/2.0/lakeview/dashboards', {
        display_name: 'Retail',
        parent_path: `/Users/${me}`,
        warehouse_id: wh,
        serialized_dashboard: FIXTURE,
      })
    ).dashboard_id;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('draws every widget of the first page with the numbers its SQL gives', async () => {
    const page = await open(`/ui/dashboards/${dashboardId}`);
    const d = await drawn(page);
    expect(await page.getByRole('heading', { name: 'Retail sales' }).isVisible()).toBe(true);
    const revenue = await one('SELECT SUM(amount) FROM orders');
    const count = await one('SELECT COUNT(*) FROM orders');
    const avg = await one('SELECT AVG(quantity) FROM orders');
    expect(await counterText(page, 'c1')).toBe(fmt(revenue));
    expect(await counterText(page, 'c2')).toBe(fmt(count));
    expect(await counterText(page, 'c3')).toBe(fmt(avg));
    // bar: one bar per region, each labelled with its sum
    const byRegion = await rows('SELECT region, SUM(amount) FROM orders GROUP BY region ORDER BY region');
    expect(d.widgets.b1.rows).toEqual(byRegion);
    const barText = await page.locator('[data-widget="b1"] svg').textContent();
    for (const [region, sum] of byRegion) {
      expect(barText).toContain(region);
      expect(barText).toContain(String(Number(sum)));
    }
    // pie: a slice per product, labelled name: value
    const byProduct = await rows('SELECT product, SUM(quantity) FROM orders GROUP BY product');
    const pieText = await page.locator('[data-widget="p1"] svg').textContent();
    for (const [product, units] of byProduct) expect(pieText).toContain(`${product}: ${units}`);
    // table: the dataset's rows in its order, with the widget's column titles
    const table = await rows(
      'SELECT order_date, region, product, amount FROM orders ORDER BY order_date, region, product',
    );
    expect(d.widgets.tb.rows).toEqual(table.slice(0, 100));
    const head = await page.locator('[data-widget="tb"] .grid-head').textContent();
    for (const t of ['Date', 'Region', 'Product', 'Amount']) expect(head).toContain(t);
    await page
      .locator('[data-widget="tb"]')
      .getByRole('gridcell', { name: table[0]![3]!, exact: true })
      .first()
      .waitFor();
    // an unknown widget type is a labelled placeholder, never a crash
    expect(await page.locator('[data-widget="u1"]').textContent()).toContain(
      '“heatmap” is not drawn by MiniLake',
    );
    // the statements are in query history, as any client's
    const h = await call('GET', '/api/2.0/sql/history/queries?max_results=1000');
    expect(h.res.some((q: Any) => q.query_text.includes('SUM(`amount`) AS `sum(amount)`'))).toBe(true);
    await shot(page, 'dashboard-1280');
    expect(outside).toEqual([]);
    await page.close();
  });

  it('filters re-query the widgets they apply to', async () => {
    const page = await open(`/ui/dashboards/${dashboardId}`);
    await drawn(page);
    // multi-select two regions
    let d = await drawn(page, () => page.getByRole('group', { name: 'Region' }).getByLabel('north').check());
    d = await drawn(page, () => page.getByRole('group', { name: 'Region' }).getByLabel('west').check());
    const both = await one("SELECT SUM(amount) FROM orders WHERE region IN ('north', 'west')");
    expect(await counterText(page, 'c1')).toBe(fmt(both));
    expect(d.widgets.b1.rows.map((r: string[]) => r[0])).toEqual(['north', 'west']);
    // the filter itself still lists every region
    expect(await page.getByRole('group', { name: 'Region' }).getByRole('checkbox').count()).toBe(4);
    // single select on top
    await drawn(page, () => page.getByRole('combobox', { name: 'Product' }).selectOption('Bolt'));
    const bolt = await one(
      "SELECT SUM(amount) FROM orders WHERE region IN ('north', 'west') AND product = 'Bolt'",
    );
    expect(await counterText(page, 'c1')).toBe(fmt(bolt));
    await shot(page, 'dashboard-filtered');
    // a date range on a DATE column, on both datasets
    await drawn(page, () => page.getByRole('combobox', { name: 'Product' }).selectOption(''));
    await drawn(page, () => page.getByLabel('Order date from').fill('2024-03-02'));
    d = await drawn(page, () => page.getByLabel('Order date to').fill('2024-03-03'));
    const ranged = await one(
      "SELECT SUM(amount) FROM orders WHERE region IN ('north', 'west') AND order_date BETWEEN DATE '2024-03-02' AND DATE '2024-03-03'",
    );
    expect(await counterText(page, 'c1')).toBe(fmt(ranged));
    await page.close();
  });

  it('switches pages: line, area and scatter on the second one', async () => {
    const page = await open(`/ui/dashboards/${dashboardId}`, { width: 1920, height: 1080 });
    await drawn(page);
    await shot(page, 'dashboard-1920');
    const d = await drawn(page, () => page.getByRole('tab', { name: 'Trends' }).click());
    expect(new URL(page.url()).searchParams.get('page')).toBe('b2e1d4c5');
    const daily = await rows(
      "SELECT DATE_TRUNC('DAY', order_date), SUM(revenue), SUM(units) FROM (SELECT order_date, SUM(amount) AS revenue, SUM(quantity) AS units FROM orders GROUP BY order_date) GROUP BY ALL ORDER BY 1",
    );
    expect(d.widgets.l1.rows).toEqual(daily);
    const area = await rows(
      'SELECT order_date, region, SUM(amount) FROM orders GROUP BY ALL ORDER BY order_date',
    );
    expect(d.widgets.a1.rows.length).toBe(area.length);
    expect(d.widgets.s1.rows.length).toBe(
      (await rows('SELECT COUNT(*) FROM orders'))[0]![0] === '60' ? 60 : -1,
    );
    for (const w of ['l1', 'a1', 's1'])
      expect(await page.locator(`[data-widget="${w}"] svg path`).count()).toBeGreaterThan(2);
    await shot(page, 'dashboard-trends');
    // reloading the address lands on the same page
    await page.reload();
    await page.locator('[data-widget="l1"] svg').waitFor();
    await page.close();
  });

  it('draws the published revision, not the later draft, and lists dashboards', async () => {
    await call('POST', `/api/2.0/lakeview/dashboards/${dashboardId}/published`, {
      embed_credentials: true,
      warehouse_id: wh,
    });
    const draft = JSON.parse(FIXTURE);
    draft.pages[0].layout[0].widget.multilineTextboxSpec.lines = ['# Draft title'];
    await call('PATCH', `/api/2.0/lakeview/dashboards/${dashboardId}`, {
      display_name: 'Retail',
      warehouse_id: wh,
      serialized_dashboard: JSON.stringify(draft),
    });
    const page = await open(`/ui/dashboards/${dashboardId}/published`);
    await drawn(page);
    expect(await page.getByRole('heading', { name: 'Retail sales' }).isVisible()).toBe(true);
    await shot(page, 'dashboard-published');
    await page.getByRole('link', { name: 'Open the draft' }).click();
    await page.getByRole('heading', { name: 'Draft title' }).waitFor();
    await page.getByRole('link', { name: 'Dashboards' }).click();
    await page.getByRole('link', { name: 'Retail' }).waitFor();
    await shot(page, 'dashboards-list');
    await page.close();
  });
});
