// An AI/BI dashboard of 10 widgets (3 counters, bar, line, area, pie, scatter, a table, a filter) over a
// 1,000,000-row table, drawn at /ui/dashboards/<id> in Debian's headless Chromium once its warehouse is
// running. The page records, on its own clock from the navigation's start, when it sent its statements
// (loading the app and the dashboard JSON), when the last result came back and when the frame that paints them
// was done (window.__minilakeDashboard), so the time splits into loading, queries (the statements, in
// parallel, through the Statement API) and drawing (Preact, ECharts' SVG, the grid). Each figure is the
// median of BENCH_DASHBOARD_ROUNDS page loads (default 5) after one warm-up; the baseline, measured in the
// same run, is the same 10 statements sent by node over loopback with no browser: what the queries cost alone.
// Knobs: BENCH_DASHBOARD_ROWS (default 1000000).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { median, postJson, root, startServer } from '../lib.mjs';

export const targets = {
  navigation_to_drawn_ms:
    '< 1000 (navigation start to the last widget painted, page clock, warehouse running)',
};

const ROWS = Number(process.env.BENCH_DASHBOARD_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_DASHBOARD_ROUNDS ?? 5);

const q = (fields, disaggregated = false) => [
  {
    name: 'main_query',
    query: {
      datasetName: 'sales',
      fields: fields.map(([name, expression]) => ({ name, expression })),
      disaggregated,
    },
  },
];
const at = (x, y, width, height) => ({ x, y, width, height });
const w = (name, widgetType, queries, encodings, position) => ({
  widget: {
    name,
    queries,
    spec: { version: 3, widgetType, encodings, frame: { showTitle: true, title: name } },
  },
  position,
});

function dashboardJson() {
  const layout = [
    w(
      'revenue',
      'counter',
      q([['sum(amount)', 'SUM(`amount`)']]),
      { value: { fieldName: 'sum(amount)' } },
      at(0, 0, 2, 2),
    ),
    w(
      'orders',
      'counter',
      q([['count(*)', 'COUNT(`*`)']]),
      { value: { fieldName: 'count(*)' } },
      at(2, 0, 2, 2),
    ),
    w(
      'average',
      'counter',
      q([['avg(amount)', 'AVG(`amount`)']]),
      { value: { fieldName: 'avg(amount)' } },
      at(4, 0, 2, 2),
    ),
    w(
      'by_region',
      'bar',
      q([
        ['region', '`region`'],
        ['sum(amount)', 'SUM(`amount`)'],
      ]),
      { x: { fieldName: 'region', scale: { type: 'categorical' } }, y: { fieldName: 'sum(amount)' } },
      at(0, 2, 3, 5),
    ),
    w(
      'by_day',
      'line',
      q([
        ['day', '`day`'],
        ['sum(amount)', 'SUM(`amount`)'],
      ]),
      { x: { fieldName: 'day', scale: { type: 'quantitative' } }, y: { fieldName: 'sum(amount)' } },
      at(3, 2, 3, 5),
    ),
    w(
      'by_day_region',
      'area',
      q([
        ['day', '`day`'],
        ['region', '`region`'],
        ['sum(amount)', 'SUM(`amount`)'],
      ]),
      {
        x: { fieldName: 'day', scale: { type: 'quantitative' } },
        y: { fieldName: 'sum(amount)' },
        color: { fieldName: 'region' },
      },
      at(0, 7, 3, 5),
    ),
    w(
      'by_product',
      'pie',
      q([
        ['product', '`product`'],
        ['count(*)', 'COUNT(`*`)'],
      ]),
      { angle: { fieldName: 'count(*)' }, color: { fieldName: 'product' } },
      at(3, 7, 3, 5),
    ),
    w(
      'spread',
      'scatter',
      q([
        ['quantity', '`quantity`'],
        ['avg(amount)', 'AVG(`amount`)'],
      ]),
      { x: { fieldName: 'quantity', scale: { type: 'quantitative' } }, y: { fieldName: 'avg(amount)' } },
      at(0, 12, 3, 5),
    ),
    w(
      'top',
      'table',
      q(
        [
          ['id', '`id`'],
          ['region', '`region`'],
          ['amount', '`amount`'],
        ],
        true,
      ),
      { columns: [{ fieldName: 'id' }, { fieldName: 'region' }, { fieldName: 'amount' }] },
      at(3, 12, 3, 5),
    ),
    {
      widget: {
        name: 'region_filter',
        queries: [
          {
            name: 'f',
            query: {
              datasetName: 'sales',
              fields: [{ name: 'region', expression: '`region`' }],
              disaggregated: false,
            },
          },
        ],
        spec: {
          version: 2,
          widgetType: 'filter-multi-select',
          encodings: { fields: [{ fieldName: 'region', queryName: 'f' }] },
          frame: { showTitle: true, title: 'Region' },
        },
      },
      position: at(0, 17, 2, 1),
    },
  ];
  return JSON.stringify({
    datasets: [{ name: 'sales', displayName: 'sales', queryLines: ['SELECT * FROM bench_bi.default.sales'] }],
    pages: [{ name: 'p', displayName: 'Sales', pageType: 'PAGE_TYPE_CANVAS', layout }],
  });
}

export async function run() {
  const { chromium } = createRequire(path.join(root, 'apps/ui/package.json'))('playwright-core');
  const exe = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  if (!exe) throw new Error('the dashboard scenario needs Debian chromium (/usr/bin/chromium)');
  const server = await startServer({ MINILAKE_WAREHOUSE_START_DELAY: '0' });
  const render = await import(path.join(root, 'packages/lakeview/dist/render-entry.js'));
  const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox'] });
  try {
    const wh = (await postJson(`${server.url}/api/2.0/sql/warehouses`, { name: 'bi', cluster_size: 'Small' }))
      .id;
    const sql = async (statement, parameters) => {
      const r = await postJson(`${server.url}/api/2.0/sql/statements`, {
        warehouse_id: wh,
        statement,
        wait_timeout: '50s',
        ...(parameters?.length ? { parameters } : {}),
      });
      if (r.status.state !== 'SUCCEEDED') throw new Error(`${statement}: ${JSON.stringify(r.status)}`);
      return r;
    };
    await postJson(`${server.url}/api/2.1/unity-catalog/catalogs`, { name: 'bench_bi' });
    const t0 = performance.now();
    await sql(
      `CREATE TABLE bench_bi.default.sales AS SELECT id, ` +
        `element_at(array('north', 'south', 'east', 'west'), CAST(id % 4 AS INT) + 1) AS region, ` +
        `element_at(array('anvil', 'bolt', 'cog', 'drill', 'einstein'), CAST(id % 5 AS INT) + 1) AS product, ` +
        `CAST(id % 365 AS INT) AS day, CAST(id % 10 AS INT) + 1 AS quantity, ` +
        `CAST((id % 997) * 1.5 AS DOUBLE) AS amount FROM range(${ROWS})`,
    );
    const loadMs = performance.now() - t0;
    const serialized = dashboardJson();
    const d = await postJson(`${server.url}/api/2.0/lakeview/dashboards`, {
      display_name: 'Bench',
      warehouse_id: wh,
      serialized_dashboard: serialized,
    });

    // Baseline: the dashboard's 10 statements from node, in parallel, no browser.
    const content = JSON.parse(serialized);
    const planned = content.pages[0].layout.flatMap((i) => render.planWidget(content, i.widget, {}));
    const baseline = [];
    for (let i = 0; i < ROUNDS + 1; i++) {
      const s = performance.now();
      await Promise.all(planned.map((p) => sql(p.compiled.statement, p.compiled.parameters)));
      baseline.push(performance.now() - s);
    }
    baseline.shift();

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    const rounds = [];
    for (let i = 0; i < ROUNDS + 1; i++) {
      const s = performance.now();
      await page.goto(`${server.url}/ui/dashboards/${d.dashboard_id}`);
      await page.waitForFunction(() => window.__minilakeDashboard !== undefined, undefined, {
        timeout: 60_000,
      });
      const pageMs = performance.now() - s;
      const t = await page.evaluate(() => window.__minilakeDashboard);
      rounds.push({
        pageMs,
        drawnMs: t.startMs + t.totalMs,
        startMs: t.startMs,
        queriesMs: t.queriesMs,
        drawMs: t.drawMs,
        inPageMs: t.totalMs,
        statements: t.statements,
      });
    }
    const warmup = rounds.shift();
    const med = (k) => +median(rounds.map((r) => r[k])).toFixed(0);
    return {
      rows: ROWS,
      widgets: content.pages[0].layout.length,
      statements: rounds[0].statements,
      table_load_ms: +loadMs.toFixed(0),
      first_load_ms: +warmup.pageMs.toFixed(0),
      navigation_to_drawn_ms: med('drawnMs'),
      // As Playwright sees it from outside: goto, the page's work, its polling for the end.
      page_render_ms: med('pageMs'),
      in_page_ms: med('inPageMs'),
      navigation_to_statements_ms: med('startMs'),
      queries_ms: med('queriesMs'),
      drawing_ms: med('drawMs'),
      baseline_statements_ms: +median(baseline).toFixed(0),
      queries_over_baseline: +(med('queriesMs') / median(baseline)).toFixed(2),
      rounds: rounds.map((r) => ({
        drawn_ms: r.drawnMs,
        page_ms: +r.pageMs.toFixed(0),
        start_ms: r.startMs,
        queries_ms: r.queriesMs,
        drawing_ms: r.drawMs,
      })),
    };
  } finally {
    await browser.close();
    await server.stop();
  }
}
