/**
 * The Databricks CLI's own acceptance dashboards (every `.lvdash.json` under `acceptance/bundle/` of the CLI's
 * Go module, found at test time in the module cache e2e/tools/build.sh fills; nothing copied into this repo)
 * imported through the Lakeview API with the TypeScript SDK and opened at /ui/dashboards/<id> in a real
 * headless Chromium (Debian's, playwright-core): each draws without an error and shows its text widgets'
 * text. These files are what the CLI's tests deploy, so they hold the shapes real exports have: `{}`, pages
 * without a layout, `textbox_spec` widgets, a dataset with its own catalog and schema, `uiSettings`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, NO_CHROMIUM, openPage } from './browser.js';
import { repoRoot, startServer, workspaceClient, type RunningServer } from '@minilake/testing';

/** The CLI version the e2e tools are built from, and where `go mod download` put its sources. */
const CLI_VERSION = /^CLI_VERSION=(\S+)/m.exec(
  readFileSync(path.join(repoRoot, 'e2e/tools/versions.sh'), 'utf8'),
)?.[1];
const MODCACHES = [
  path.join(process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache/minilake'), 'go/pkg/mod'),
  ...(process.env.GOPATH ? [path.join(process.env.GOPATH, 'pkg/mod')] : []),
];
function cliSources(): string | undefined {
  for (const mod of MODCACHES) {
    const dir = path.join(mod, 'github.com/databricks');
    if (!existsSync(dir)) continue;
    const versions = readdirSync(dir)
      .filter((d) => d.startsWith('cli@'))
      .sort();
    // The pinned version when it is there, else the newest the cache holds.
    const pick = versions.find((d) => d === `cli@v${CLI_VERSION}`) ?? versions.at(-1);
    if (pick && existsSync(path.join(dir, pick, 'acceptance/bundle'))) return path.join(dir, pick);
  }
  return undefined;
}
/** `acceptance/bundle/**\/*.lvdash.json`, walked by hand (fs.globSync needs Node 22). */
function lvdashFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.lvdash.json')) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}
const SOURCES = cliSources();
const FILES = SOURCES ? lvdashFiles(path.join(SOURCES, 'acceptance/bundle')) : [];

interface Widget {
  name: string;
  textbox_spec?: string;
  multilineTextboxSpec?: { lines?: string[] };
}
/** Each text widget's text as a reader sees it: the Markdown's words without its marks. */
function texts(serialized: string): { widget: string; words: string }[] {
  const d = JSON.parse(serialized) as { pages?: { layout?: { widget: Widget }[] }[] };
  const out: { widget: string; words: string }[] = [];
  for (const p of d.pages ?? [])
    for (const { widget: w } of p.layout ?? []) {
      const text = w.textbox_spec ?? w.multilineTextboxSpec?.lines?.join('');
      if (text === undefined) continue;
      const words = text
        .replace(/^\s*#+\s*/gm, '')
        .replace(/[*_`]/g, '')
        .replace(/\s+/g, ' ')
        .trim();
      if (words) out.push({ widget: w.name, words });
    }
  return out;
}

let server: RunningServer;
let browser: Browser;
let w: ReturnType<typeof workspaceClient>;
let folder = '';
const outside: string[] = [];

const open = (p: string): Promise<Page> => openPage(browser, server.url, p, { outside });

const INSTALL =
  'bash e2e/tools/build.sh (go mod download of github.com/databricks/cli into the Go module cache)';
if (CHROMIUM && !SOURCES)
  console.warn(
    `skipping the CLI's acceptance dashboards: no github.com/databricks/cli@v${CLI_VERSION}/acceptance/bundle under ${MODCACHES.join(' or ')}; run ${INSTALL}`,
  );
const title = !CHROMIUM
  ? `the Databricks CLI's acceptance dashboards in Chromium (${NO_CHROMIUM})`
  : !SOURCES
    ? `the Databricks CLI's acceptance dashboards in Chromium (skipped: the CLI's sources are missing; run ${INSTALL})`
    : "the Databricks CLI's acceptance dashboards in Chromium";

describe.skipIf(!CHROMIUM || !SOURCES)(title, () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    w = workspaceClient(server.url);
    folder = `/Users/${(await w.currentUser.me()).userName!}/cli-acceptance`;
    await w.workspace.mkdirs({ path: folder });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('finds the dashboards the CLI tests with, some with text widgets', () => {
    expect(FILES.length).toBeGreaterThan(5);
    expect(FILES.some((f) => texts(readFileSync(f, 'utf8')).length > 0)).toBe(true);
  });

  // One test per file, named by its place in the CLI's acceptance tree.
  const cases = FILES.map((file, i) => ({
    i,
    file,
    rel: path.relative(path.join(SOURCES ?? '', 'acceptance/bundle'), file),
  }));
  it.each(cases)('$rel: imported through the Lakeview API, drawn with its text, no error', async (c) => {
    const serialized = readFileSync(c.file, 'utf8');
    // A display name is unique in its folder; several files share a base name.
    const name = `${String(c.i).padStart(2, '0')} ${path.basename(path.dirname(c.file))} ${path.basename(c.file, '.lvdash.json')}`;
    const d = await w.lakeview.create({
      dashboard: {
        display_name: name,
        parent_path: folder,
        warehouse_id: 'dev',
        serialized_dashboard: serialized,
      },
    });
    expect(d.dashboard_id).toBeTruthy();
    const page = await open(`/ui/dashboards/${d.dashboard_id}`);
    await page.getByRole('region', { name: `Dashboard ${name}` }).waitFor({ timeout: 30_000 });
    // Every statement back and drawn (a dashboard without datasets draws at once).
    await page.waitForFunction(() => window.__minilakeDashboard !== undefined, undefined, {
      timeout: 30_000,
    });
    expect(await page.getByRole('alert').count(), 'an error on the page').toBe(0);
    for (const t of texts(serialized))
      expect(
        (await page.locator(`[data-widget="${t.widget}"]`).innerText()).replace(/\s+/g, ' ').trim(),
        `text widget ${t.widget}`,
      ).toContain(t.words);
    await page.screenshot({
      path: path.join(ARTIFACTS, `cli-dashboard-${c.rel.replace(/[/\\]/g, '_')}.png`),
    });
    await page.close();
  });

  it('asked nothing of the outside network', () => {
    expect(outside).toEqual([]);
  });
});
