/**
 * What the UI's Chromium tests share: Debian's Chromium (playwright-core drives it), a page that may reach
 * only the server under test (anything else is refused and recorded), and screenshots at the two window sizes
 * the pages must fit, into apps/ui/test-artifacts/ (gitignored).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { repoRoot } from '@minilake/testing';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
export const ARTIFACTS = path.join(repoRoot, 'apps/ui/test-artifacts');
export const NO_CHROMIUM = 'skipped: no /usr/bin/chromium; .ci/run installs Debian chromium';

/** A new window at `p` of the server; a request to any other host is aborted and its URL pushed to `outside`. */
export async function openPage(
  browser: Browser,
  serverUrl: string,
  p: string,
  opts: { outside: string[]; viewport?: { width: number; height: number }; acceptDownloads?: boolean },
): Promise<Page> {
  const context = await browser.newContext({
    viewport: opts.viewport ?? { width: 1280, height: 720 },
    ...(opts.acceptDownloads ? { acceptDownloads: true } : {}),
  });
  const page = await context.newPage();
  const host = new URL(serverUrl).host;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).host === host)
      return route.continue();
    opts.outside.push(url);
    return route.abort();
  });
  await page.goto(`${serverUrl}${p}`);
  return page;
}

/** A screenshot at 1280×720 and 1920×1080, after checking nothing sticks out past the window's right edge. */
export async function shots(page: Page, name: string): Promise<void> {
  for (const [w, h] of [
    [1280, 720],
    [1920, 1080],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} at ${w}x${h} is wider than the window`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${w}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}
