/**
 * The Pipelines pages in a real headless Chromium (Debian's, playwright-core) against the built server, every
 * request outside the server refused. A pipeline made through the TypeScript SDK from two tiny SQL sources
 * (a materialized view over another) is listed at /ui/pipelines; its page's Start runs an update on Spark
 * Declarative Pipelines (the Spark install under ~/.cache/minilake) that ends COMPLETED on the page, with the
 * graph of its two datasets and the event log; Stop cancels a second update. Photographed at 1280×720 and
 * 1920×1080 into apps/ui/test-artifacts/ (gitignored), nothing clipped off the window's width.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, NO_CHROMIUM, openPage, shots } from './browser.js';
import { repoRoot, startServer, uniqueName, workspaceClient, type RunningServer } from '@minilake/testing';

// The Spark install the pipelines run on (packages/engine-spark/install.sh), found as the Python suite does.
const versions = JSON.parse(
  readFileSync(path.join(repoRoot, 'packages/engine-spark/versions.json'), 'utf8'),
) as { pyspark: string; deltaSpark: string };
const SPARK = existsSync(
  path.join(
    process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake'),
    `spark-${versions.pyspark}-delta-${versions.deltaSpark}`,
    'uc-catalog/minilake-uc-spark.jar',
  ),
);

let server: RunningServer;
let browser: Browser;
const outside: string[] = [];

const open = (p: string, viewport?: { width: number; height: number }): Promise<Page> =>
  openPage(browser, server.url, p, { outside, acceptDownloads: true, ...(viewport ? { viewport } : {}) });

const title = CHROMIUM
  ? 'the pipelines pages in Chromium'
  : `the pipelines pages in Chromium (${NO_CHROMIUM})`;

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

  it.skipIf(!SPARK)(
    'a pipeline: listed, Start runs an update to COMPLETED with its dataset graph and events; Stop cancels',
    { timeout: 900_000 },
    async () => {
      const w = workspaceClient(server.url);
      const me = (await w.currentUser.me()).userName!;
      const cat = uniqueName('uipl');
      await w.catalogs.create({ name: cat });
      await w.schemas.create({ name: 's', catalog_name: cat });
      const home = `/Users/${me}/${cat}`;
      await w.workspace.mkdirs({ path: `${home}/src` });
      const put = (name: string, sql: string) =>
        w.workspace.import({
          path: `${home}/src/${name}`,
          content: Buffer.from(sql).toString('base64'),
          format: 'SOURCE',
          language: 'SQL',
          overwrite: true,
        });
      await put('numbers.sql', 'CREATE MATERIALIZED VIEW numbers AS SELECT id AS n FROM range(5)');
      await put('doubled.sql', 'CREATE MATERIALIZED VIEW doubled AS SELECT n * 2 AS x FROM numbers');
      const name = uniqueName('ui pipeline');
      const created = await w.pipelines.create({
        name,
        catalog: cat,
        schema: 's',
        serverless: true,
        development: true,
        libraries: [{ glob: { include: `${home}/src/**` } }],
      });
      const id = created.pipeline_id!;

      // The list: name (a link), state, the last update (none yet), creator.
      const page = await open('/ui/pipelines');
      const row = page.locator('table.list tbody tr', { hasText: name });
      await row.waitFor();
      expect(await row.textContent()).toContain('IDLE');
      expect(await row.textContent()).toContain('never run');
      expect(await row.textContent()).toContain(me);
      await shots(page, 'pipelines-list');
      await row.getByRole('link', { name }).click();
      const view = page.getByRole('region', { name: `Pipeline ${name}` });
      await view.getByRole('heading', { name }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/ui/pipelines/${id}`);

      // Start: a real update through the Pipelines API, followed on the page until it ends.
      await view.getByRole('button', { name: 'Start' }).click();
      const updates = view.getByRole('table', { name: 'Updates' });
      await updates.locator('tbody tr').first().waitFor();
      await expect
        .poll(() => updates.locator('tbody tr').first().locator('.badge').textContent(), {
          timeout: 600_000,
          interval: 1000,
        })
        .toMatch(/^(COMPLETED|FAILED|CANCELED)$/);
      const { updates: got } = await w.pipelines.listUpdates({ pipeline_id: id });
      expect(got?.[0]?.state, JSON.stringify(got)).toBe('COMPLETED');
      expect(await updates.locator('tbody tr').first().locator('.badge').textContent()).toBe('COMPLETED');
      // Its duration, read from the event log.
      expect(await updates.locator('tbody tr').first().locator('td').nth(4).textContent()).toMatch(
        /\d+(\.\d)? (ms|s)|min/,
      );

      // The graph: both materialized views of the update, each coloured by its flow's last progress.
      const graph = view.getByRole('group', { name: 'Dataset graph' });
      for (const ds of ['numbers', 'doubled'])
        await graph
          .getByRole('img', { name: `Dataset ${cat}.s.${ds}: MATERIALIZED_VIEW COMPLETED` })
          .waitFor();
      // One edge: doubled reads numbers (the flow's input_datasets).
      expect(await graph.locator('path.edge').count()).toBe(1);
      // The event log with levels: the update's progress to COMPLETED and the flows' definitions.
      const log = view.getByRole('table', { name: 'Event log' });
      await log.locator('tr', { hasText: 'is COMPLETED.' }).first().waitFor();
      expect(await log.locator('tr', { hasText: 'flow_definition' }).count()).toBe(2);
      expect(await log.locator('tbody tr').first().locator('.badge').textContent()).toBe('INFO');
      await shots(page, 'pipeline-completed');
      // The level filter keeps only that level.
      await view.getByLabel('Level').selectOption('ERROR');
      await view.getByText('No events.').waitFor();
      await view.getByLabel('Level').selectOption('');

      // Stop: a second update, canceled from the page.
      await view.getByRole('button', { name: 'Start' }).click();
      await expect.poll(() => updates.locator('tbody tr').count(), { timeout: 30_000 }).toBe(2);
      const stop = view.getByRole('button', { name: 'Stop' });
      await expect.poll(() => stop.isEnabled(), { timeout: 30_000 }).toBe(true);
      await stop.click();
      await expect
        .poll(() => updates.locator('tbody tr').first().locator('.badge').textContent(), {
          timeout: 120_000,
          interval: 1000,
        })
        .toMatch(/^(CANCELED|COMPLETED)$/);
      const after = await w.pipelines.listUpdates({ pipeline_id: id });
      // A stop that lands after the run finished leaves it COMPLETED; either way the page shows the API's state.
      expect(await updates.locator('tbody tr').first().locator('.badge').textContent()).toBe(
        after.updates?.[0]?.state,
      );
      await page.close();
    },
  );

  it("Databricks' pipeline addresses lead to the page; a pipeline id nobody has says so", async () => {
    // What the CLI's `bundle run` prints: <host>/pipelines/<id>/updates/<update>?o=<workspace id>.
    for (const p of ['/pipelines/p-1/updates/u-2', '/pipelines/p-1']) {
      const r = await fetch(`${server.url}${p}?o=1000000000000000`, { redirect: 'manual' });
      expect([p, r.status, r.headers.get('location')]).toEqual([p, 302, '/ui/pipelines/p-1']);
    }
    const page = await open('/ui/pipelines/no-such-pipeline');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('RESOURCE_DOES_NOT_EXIST');
    await page.close();
  });

  it('asked nothing of the outside network', () => {
    expect(outside).toEqual([]);
  });
});
