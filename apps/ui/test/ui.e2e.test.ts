/**
 * The web SQL workspace in a real headless Chromium (Debian's, driven by playwright-core; no browser
 * download) against the built server, with every request to anything but the server refused. Needs
 * `pnpm build`. Screenshots go to apps/ui/test-artifacts/ (gitignored).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startServer, type RunningServer } from '@minilake/testing';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const ARTIFACTS = path.join(repoRoot, 'apps/ui/test-artifacts');

let server: RunningServer;
let browser: Browser;
const outside: string[] = [];

async function post<T>(p: string, body: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`${server.url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as T };
}
const sql = (statement: string) =>
  post<{ status: { state: string } }>('/api/2.0/sql/statements', {
    warehouse_id: 'dev',
    statement,
    wait_timeout: '30s',
  });

async function openPage(opts: { permissions?: string[]; sql?: string } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  if (opts.permissions) await context.grantPermissions(opts.permissions, { origin: server.url });
  // SQL whose exact text matters (columns in an error position) is put in the stored tab before the page
  // loads: typed, it would go through Monaco's auto-close and suggestions, which depend on timing.
  if (opts.sql !== undefined)
    await context.addInitScript((sql) => {
      localStorage.setItem(
        'minilake.ui.tabs.v1',
        JSON.stringify({ tabs: [{ id: 'seeded', title: 'Query 1', sql }], active: 'seeded' }),
      );
    }, opts.sql);
  const page = await context.newPage();
  const host = new URL(server.url).host;
  // The network is "off": only the server that served the page answers.
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).host === host)
      return route.continue();
    outside.push(url);
    return route.abort();
  });
  await page.goto(`${server.url}/ui/`);
  await page.locator('.monaco-editor').first().waitFor({ timeout: 30_000 });
  return page;
}

async function typeSql(page: Page, text: string): Promise<void> {
  await page.locator('.monaco-editor').first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text);
  // Close any completion list so the next key goes to the editor.
  await page.keyboard.press('Escape');
}

async function run(page: Page, text: string): Promise<void> {
  await typeSql(page, text);
  await page.keyboard.press('Control+Enter');
}

/** The editor's visible text (Monaco draws spaces as no-break spaces). */
const editorText = async (page: Page) =>
  ((await page.locator('.monaco-editor .view-lines').textContent()) ?? '').replaceAll('\u00a0', ' ');

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });

const title = CHROMIUM
  ? 'the web UI in Chromium'
  : 'the web UI in Chromium (skipped: no /usr/bin/chromium; .ci/run installs Debian chromium)';

describe.skipIf(!CHROMIUM)(title, () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('runs a typed query with Ctrl+Enter and shows its rows, NULL apart from the empty string', async () => {
    const page = await openPage();
    await run(page, "SELECT 6*7 AS answer, NULL AS nothing, '' AS blank");
    await page.getByRole('gridcell', { name: '42', exact: true }).waitFor();
    const cells = page.locator('.grow').first().locator('.gcell');
    expect(await cells.nth(2).getAttribute('data-null')).toBe('1');
    expect(await cells.nth(3).textContent()).toBe('');
    expect(await cells.nth(3).getAttribute('data-null')).toBeNull();
    await expect.poll(() => page.locator('.grid-head').textContent()).toContain('int');
    await shot(page, 'run');
    await page.close();
  });

  it('offers a table created through SQL a moment before, and its columns', async () => {
    expect((await post('/api/2.1/unity-catalog/catalogs', { name: 'uitest' })).status).toBe(200);
    expect(
      (await sql('CREATE TABLE uitest.default.fresh_one (id BIGINT, label STRING)')).json.status.state,
    ).toBe('SUCCEEDED');
    const page = await openPage();
    await typeSql(page, 'SELECT * FROM uitest.default.');
    await page.keyboard.press('Control+Space');
    await page.locator('.suggest-widget').getByText('fresh_one').first().waitFor();
    await page.keyboard.press('Escape');
    // A table created from the UI itself is offered on the next completion (the cache drops after DDL).
    await run(page, 'CREATE TABLE uitest.default.made_in_ui (x INT)');
    await page
      .getByText(/row|no columns/)
      .first()
      .waitFor();
    await typeSql(page, 'SELECT  FROM uitest.default.fresh_one');
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Control+Space');
    await page.locator('.suggest-widget').getByText('label', { exact: true }).first().waitFor();
    await page.keyboard.press('Escape');
    await typeSql(page, 'SELECT * FROM uitest.default.');
    await page.keyboard.press('Control+Space');
    await page.locator('.suggest-widget').getByText('made_in_ui').first().waitFor();
    await shot(page, 'completion');
    await page.keyboard.press('Escape');
    // Functions and keywords of the dialect.
    await typeSql(page, 'SELECT date_a');
    await page.keyboard.press('Control+Space');
    await page.locator('.suggest-widget').getByText('date_add', { exact: true }).first().waitFor();
    await page.keyboard.press('Escape');
    await typeSql(page, 'SELECT 1 QUALI');
    await page.keyboard.press('Control+Space');
    await page.locator('.suggest-widget').getByText('QUALIFY', { exact: true }).first().waitFor();
    await page.close();
  });

  it('draws a chart from the result and exports it and the whole result', async () => {
    const page = await openPage();
    await run(
      page,
      "SELECT id, id * id AS sq, CASE WHEN id = 3 THEN NULL ELSE 'x' END AS t FROM range(1, 6) AS r(id)",
    );
    await page.getByRole('gridcell', { name: '25', exact: true }).waitFor();
    const csvDl = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = readFileSync(await (await csvDl).path(), 'utf8');
    expect(csv).toBe('id,sq,t\r\n1,1,x\r\n2,4,x\r\n3,9,\r\n4,16,x\r\n5,25,x\r\n');
    const jsonDl = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON' }).click();
    expect(JSON.parse(readFileSync(await (await jsonDl).path(), 'utf8'))[2]).toEqual({
      id: 3,
      sq: 9,
      t: null,
    });

    await page.getByRole('tab', { name: 'Chart' }).click();
    const svg = page.locator('.chart svg');
    await svg.waitFor();
    // Five bars for five rows.
    await expect.poll(() => page.locator('.chart svg path[fill]').count()).toBeGreaterThan(5);
    for (const kind of ['line', 'area', 'scatter', 'pie']) {
      await page.getByLabel('Chart type').selectOption(kind);
      await expect.poll(() => page.locator('.chart svg path').count()).toBeGreaterThan(0);
    }
    await page.getByLabel('Chart type').selectOption('bar');
    const svgDl = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export SVG' }).click();
    const svgText = readFileSync(await (await svgDl).path(), 'utf8');
    expect(svgText).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect(svgText).toContain('sq');
    const pngDl = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export PNG' }).click();
    const png = readFileSync(await (await pngDl).path());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    await shot(page, 'chart');
    await page.close();
  });

  it('scrolls 100,000 rows fetched in chunks', async () => {
    const page = await openPage();
    await run(page, "SELECT id, concat('row ', id) AS label FROM range(100000)");
    await page.getByText('100,000 rows', { exact: false }).first().waitFor({ timeout: 60_000 });
    // Only the rows in view are in the DOM.
    expect(await page.locator('.grow').count()).toBeLessThan(120);
    await page.locator('.grid').evaluate((g) => (g.scrollTop = g.scrollHeight));
    await page.getByRole('gridcell', { name: 'row 99999', exact: true }).waitFor();
    await shot(page, 'hundred-thousand');
    // The export is the whole result, not the rows in view.
    const csvDl = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const lines = readFileSync(await (await csvDl).path(), 'utf8').split('\r\n');
    expect(lines.length).toBe(100_002); // header, 100,000 rows, the empty string after the last CRLF
    expect(lines[1]).toBe('0,row 0');
    expect(lines[100_000]).toBe('99999,row 99999');
    const jsonDl = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON' }).click();
    const json = JSON.parse(readFileSync(await (await jsonDl).path(), 'utf8')) as unknown[];
    expect(json.length).toBe(100_000);
    expect(json[99_999]).toEqual({ id: 99999, label: 'row 99999' });
    await page.close();
  });

  it('shows a failure as Databricks reports it, and history lists it', async () => {
    const page = await openPage();
    await run(page, 'SELECT * FROM no_such_table_for_ui');
    const alert = page.locator('.error[role=alert]');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('TABLE_OR_VIEW_NOT_FOUND');
    expect(await alert.textContent()).toContain('SQLSTATE: 42P01');
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByLabel('Status').selectOption('FAILED');
    await page.getByRole('searchbox').fill('no_such_table_for_ui');
    const row = page.locator('tr.st-failed').filter({ hasText: 'no_such_table_for_ui' });
    await row.first().waitFor();
    await shot(page, 'history');
    // Reopen it in the editor.
    await row.first().getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => page.locator('.tab.active').textContent()).toContain('History');
    await page.close();
  });

  it('marks where a failed statement went wrong, in the editor and in the error panel', async () => {
    // The string never ends.
    const page = await openPage({ sql: "SELECT 1 AS a,\n  'abc" });
    await page.locator('.monaco-editor').first().click();
    await page.keyboard.press('Control+Enter');
    const alert = page.locator('.error[role=alert]');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    expect(text).toContain('PARSE_SYNTAX_ERROR');
    expect(text).toContain('SQLSTATE: 42601');
    expect(text).toContain('error_code: BAD_REQUEST');
    // The server said "at line 2, column 7" (one past `  'abc`): shown the Databricks way, pos from 0.
    const pos = alert.getByRole('button', { name: 'line 2, pos 6' });
    await pos.waitFor();
    // A squiggle in the editor, on line 2.
    const squiggle = page.locator('.monaco-editor .squiggly-error').first();
    await squiggle.waitFor();
    const lineTops = await page
      .locator('.monaco-editor .view-line')
      .evaluateAll((ls) => ls.map((l) => parseFloat((l as HTMLElement).style.top)).sort((a, b) => a - b));
    const squiggleTop = await squiggle.evaluate((el) =>
      parseFloat((el.parentElement as HTMLElement).style.top),
    );
    expect(squiggleTop).toBe(lineTops[1]);
    await shot(page, 'error-position');
    // The position button puts the cursor there: what is typed next lands at the end of line 2.
    await page.locator('.monaco-editor').first().click();
    await page.keyboard.press('Control+Home');
    await pos.click();
    await page.keyboard.type('X');
    await expect
      .poll(() =>
        page.evaluate(() => {
          const s = JSON.parse(localStorage.getItem('minilake.ui.tabs.v1') ?? '{}') as {
            tabs: { id: string; sql: string }[];
            active: string;
          };
          return s.tabs.find((t) => t.id === s.active)?.sql;
        }),
      )
      .toBe("SELECT 1 AS a,\n  'abcX");
    await page.close();
  });

  it('cancels a long statement and the engine stops it', async () => {
    const page = await openPage();
    await run(page, 'SELECT count(*) FROM range(10000000000000)');
    await page
      .getByRole('button', { name: /Cancel/ })
      .and(page.locator(':enabled'))
      .waitFor();
    await page.getByText(/^Running [0-9a-f-]{36}/).waitFor();
    const id = /Running ([0-9a-f-]{36})/.exec(
      (await page.locator('.toolbar .status').textContent()) ?? '',
    )![1]!;
    await page.getByRole('button', { name: /Cancel/ }).click();
    await page.getByText(/was canceled/).waitFor({ timeout: 20_000 });
    const st = (await (await fetch(`${server.url}/api/2.0/sql/statements/${id}`)).json()) as {
      status: { state: string };
    };
    expect(st.status.state).toBe('CANCELED');
    await page.close();
  });

  it('saves a query to the Queries API', async () => {
    const page = await openPage();
    await typeSql(page, 'SELECT 1 AS saved_from_ui');
    await page.keyboard.press('Control+S');
    const form = page.getByRole('dialog', { name: 'Save query' });
    await form.getByLabel('Name').fill('ui saved query');
    await form.getByLabel('Description').fill('made by the UI test');
    await form.getByRole('button', { name: 'Save query' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved query' }).waitFor();
    const list = (await (await fetch(`${server.url}/api/2.0/sql/queries`)).json()) as {
      results?: { display_name: string; query_text: string; description?: string }[];
    };
    const saved = list.results?.find((q) => q.display_name === 'ui saved query');
    expect(saved?.query_text).toBe('SELECT 1 AS saved_from_ui');
    expect(saved?.description).toBe('made by the UI test');
    await page.getByRole('link', { name: 'Queries' }).click();
    // The editor's tab carries the name too: look in the saved-queries view.
    await page
      .getByRole('region', { name: 'Saved queries' })
      .getByRole('button', { name: 'ui saved query', exact: true })
      .waitFor();
    await page.close();
  });

  it('browses the catalog and previews a table', async () => {
    await post('/api/2.1/unity-catalog/catalogs', { name: 'uibrowse' });
    expect(
      (await sql("CREATE TABLE uibrowse.default.browse_me AS SELECT 1 AS n, 'one' AS word")).json.status
        .state,
    ).toBe('SUCCEEDED');
    expect(
      (
        await post('/api/2.1/unity-catalog/volumes', {
          catalog_name: 'uibrowse',
          schema_name: 'default',
          name: 'landing',
          volume_type: 'MANAGED',
        })
      ).status,
    ).toBe(200);
    const page = await openPage();
    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('button', { name: /uibrowse/ }).click();
    await page.getByRole('button', { name: /default/ }).click();
    await page.locator('.tree .leaf', { hasText: 'browse_me' }).click();
    await page.locator('.tree .volume', { hasText: 'landing' }).getByText('managed volume').waitFor();
    await page.getByRole('heading', { name: 'uibrowse.default.browse_me' }).waitFor();
    // Columns with their types.
    const columnRows = page.locator('.detail table.list tbody tr');
    await expect.poll(() => columnRows.allTextContents()).toEqual(['nintyes', 'wordstringyes']);
    await page.getByRole('button', { name: 'Preview 100 rows' }).click();
    await page.getByRole('gridcell', { name: 'one', exact: true }).waitFor();
    await shot(page, 'catalog');
    // Deep links load the app too.
    await page.goto(`${server.url}/ui/jobs`);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.close();
  });

  it('runs only the selection, keeps tabs across a reload and copies a cell', async () => {
    const page = await openPage({ permissions: ['clipboard-read', 'clipboard-write'] });
    await typeSql(page, 'SELECT 1 AS first_one\nSELECT 2 AS second_one');
    // Select the second line only, then run.
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Shift+Home');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('gridcell', { name: '2', exact: true }).waitFor();
    expect(await page.locator('.grid-head').textContent()).toContain('second_one');
    expect(await page.locator('.grid-head').textContent()).not.toContain('first_one');
    // A second tab, with its own text, survives a reload.
    await page.getByRole('button', { name: 'New tab (Alt+N)' }).click();
    await run(page, "SELECT 'kept across reloads' AS k");
    await page.getByRole('gridcell', { name: 'kept across reloads', exact: true }).click();
    await page.keyboard.press('Control+C');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('kept across reloads');
    await page.reload();
    await page.locator('.monaco-editor').first().waitFor();
    await expect.poll(() => page.getByRole('tab').count()).toBe(2);
    await expect.poll(() => editorText(page)).toContain('kept across reloads');
    await page.getByRole('tab').first().click();
    await expect.poll(() => editorText(page)).toContain('second_one');
    await page.close();
  });

  it("shows a job's runs live, with their task output", async () => {
    const q = await post<{ id: string }>('/api/2.0/sql/queries', {
      query: { display_name: 'ui job query', query_text: 'SELECT 42 AS answer', warehouse_id: 'dev' },
    });
    const job = await post<{ job_id: number }>('/api/2.2/jobs/create', {
      name: 'ui runs view',
      tasks: [{ task_key: 'answer', sql_task: { warehouse_id: 'dev', query: { query_id: q.json.id } } }],
    });
    expect(job.status).toBe(200);
    const page = await openPage();
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('link', { name: 'ui runs view' }).click();
    await page.getByRole('heading', { name: /ui runs view/ }).waitFor();
    await page.getByText('No runs yet').waitFor();
    // Started after the view opened: it appears and finishes there without a reload.
    const started = await post<{ run_id: number }>('/api/2.2/jobs/run-now', { job_id: job.json.job_id });
    const row = page.locator('tbody tr').filter({ hasText: String(started.json.run_id) });
    await row.waitFor({ timeout: 30_000 });
    await row.locator('.badge', { hasText: 'SUCCESS' }).waitFor({ timeout: 60_000 });
    await row.getByRole('link', { name: String(started.json.run_id) }).click();
    const output = page.getByRole('region', { name: /Output of/ });
    await output
      .locator('pre.output')
      .first()
      .getByText(/succeeded \(1 rows\)/)
      .waitFor();
    await shot(page, 'jobs');
    await page.close();
  });

  // The MLflow server starts on the first MLflow request (seconds, more on a busy machine); the MLflow install
  // is in CI's cache (packages/mlflow/install.sh), as the Spark install is for the jobs test above.
  it(
    'lists MLflow experiments and links each run to its page in the MLflow UI',
    { timeout: 300_000 },
    async () => {
      const exp = await post<{ experiment_id: string }>('/api/2.0/mlflow/experiments/create', {
        name: '/Users/dev@minilake.local/ui-experiment',
      });
      expect(exp.status, JSON.stringify(exp.json)).toBe(200);
      const id = exp.json.experiment_id;
      const run = await post<{ run: { info: { run_id: string } } }>('/api/2.0/mlflow/runs/create', {
        experiment_id: id,
        run_name: 'ui-run',
      });
      const runId = run.json.run.info.run_id;
      await post('/api/2.0/mlflow/runs/log-metric', {
        run_id: runId,
        key: 'loss',
        value: 0.25,
        timestamp: 1,
        step: 0,
      });
      const page = await openPage();
      await page.getByRole('link', { name: 'Experiments' }).click();
      await page.getByRole('button', { name: 'ui-experiment' }).click({ timeout: 60_000 });
      const link = page.getByRole('link', { name: 'ui-run' });
      await link.waitFor({ timeout: 30_000 });
      expect(await link.getAttribute('href')).toBe(`/mlflow/#/experiments/${id}/runs/${runId}`);
      await page.locator('.jobs tbody tr', { hasText: 'loss=0.25' }).waitFor();
      expect(
        await page
          .getByRole('link', { name: '/Users/dev@minilake.local/ui-experiment' })
          .getAttribute('href'),
      ).toBe(`/mlflow/#/experiments/${id}`);
      // The page those links open: MLflow's own UI, served by MiniLake.
      const ui = await fetch(`${server.url}/mlflow/`);
      expect(ui.status).toBe(200);
      expect(await ui.text()).toContain('<html');
      await shot(page, 'experiments');
      await page.close();
    },
  );

  it("gives every object an address: the API's links open its page, and clicks keep the address in step", async () => {
    const job = await post<{ job_id: number }>('/api/2.2/jobs/create', {
      name: 'ui addresses',
      tasks: [{ task_key: 'check', condition_task: { op: 'EQUAL_TO', left: '1', right: '1' } }],
    });
    const started = await post<{ run_id: number }>('/api/2.2/jobs/run-now', { job_id: job.json.job_id });
    const runId = started.json.run_id;
    let runPage = '';
    await expect
      .poll(async () => {
        const r = await (await fetch(`${server.url}/api/2.2/jobs/runs/get?run_id=${runId}`)).json();
        runPage = r.run_page_url;
        return r.state?.life_cycle_state;
      })
      .toBe('TERMINATED');
    const page = await openPage();
    // run_page_url (Databricks' address, ?o=<workspace id>) opens the run's page: its job and output.
    await page.goto(runPage);
    await page.getByRole('heading', { name: /ui addresses/ }).waitFor();
    await page.getByRole('region', { name: 'Output of check' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ui/jobs/${job.json.job_id}/runs/${runId}`);
    // A table's address opens it; a click on another one puts that one's in the address bar.
    await page.goto(`${server.url}/ui/catalog/samples/tpch/region`);
    await page.getByRole('heading', { name: 'samples.tpch.region' }).waitFor();
    await page.locator('.tree .leaf', { hasText: 'nation' }).click();
    await page.getByRole('heading', { name: 'samples.tpch.nation' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/catalog/samples/tpch/nation');
    await page.goBack();
    await page.getByRole('heading', { name: 'samples.tpch.region' }).waitFor();
    await page.getByRole('link', { name: 'Jobs' }).click();
    expect(new URL(page.url()).pathname).toBe('/ui/jobs');
    // A saved query's Databricks address opens it in the editor.
    const q = await post<{ id: string }>('/api/2.0/sql/queries', {
      query: { display_name: 'addressed query', query_text: 'SELECT 7 AS addressed', warehouse_id: 'dev' },
    });
    await page.goto(`${server.url}/sql/editor/${q.json.id}`);
    await page.getByRole('tab', { name: /addressed query/ }).waitFor();
    await page.close();
  });

  it('has a help panel of shortcuts, labelled controls and a sensible focus order', async () => {
    const page = await openPage();
    // Focus order from the top: the views, the help button, the query tabs, then the editor's actions.
    await page.getByRole('link', { name: 'Editor' }).focus();
    const order: string[] = ['Editor'];
    // Past the toolbar: the schema browser (its filter, refresh, the tree as one stop, the divider), then Monaco.
    for (let i = 0; i < 27; i++) {
      await page.keyboard.press('Tab');
      order.push(
        await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          return (el.getAttribute('aria-label') ?? el.textContent ?? '').trim();
        }),
      );
    }
    expect(order.slice(0, 15)).toEqual([
      'Editor',
      'Workspace',
      'Queries',
      'Dashboards',
      'Alerts',
      'Jobs',
      'Pipelines',
      'Catalog',
      'Warehouses',
      'History',
      'Experiments',
      'MLflow',
      'Jupyter',
      'Keyboard shortcuts (?)',
      'Query 1',
    ]);
    expect(order.indexOf('Run')).toBeGreaterThan(order.indexOf('New tab (Alt+N)'));
    expect(order).toContain('SQL editor');
    // Every visible control has a name a screen reader can say.
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('button, a[href], input, select, textarea')]
        // Visible and reachable (Monaco's hidden IME textarea is neither).
        .filter((el) => el.offsetParent !== null && !el.closest('[aria-hidden="true"]'))
        .filter((el) => {
          const named = el.getAttribute('aria-label') || el.textContent?.trim() || el.title;
          const labelled = (el as HTMLInputElement).labels?.length;
          return !named && !labelled;
        })
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
    // "?" opens the shortcuts; Escape closes them and focus goes back.
    await page.getByRole('button', { name: 'Keyboard shortcuts (?)' }).focus();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    expect(await help.textContent()).toContain('Ctrl/Cmd + Enter');
    expect(await help.textContent()).toContain('Shift + Escape');
    await shot(page, 'help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Keyboard shortcuts (?)',
    );
    await page.close();
  });

  it('asked nothing of the outside network', () => {
    expect(outside).toEqual([]);
  });
});
