// The web UI at /ui in Debian's headless Chromium (playwright-core from apps/ui): first paint and time to a
// usable editor over loopback with an empty cache and with a warm one, the bytes sent (raw / gzip /
// brotli), and frame times while scrolling a 100,000-row result. Headless Chromium paces requestAnimationFrame
// at 60 Hz, so rAF intervals there sit on the 16.7 ms vsync floor whatever the page does; the scroll is
// measured in a second Chromium with the frame-rate limit and vsync off (rAF intervals are then what a frame
// really costs), and in a Chromium trace of the same scroll (main-thread CPU time per frame, which the other
// processes on a loaded machine do not inflate). Long animation frames (>= 50 ms) are counted too.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { median, root, startServer } from '../lib.mjs';

export const targets = {
  first_paint_ms: '< 1000',
  // Judged on raf_interval_unlimited and main_thread_cpu_per_frame (the 60 Hz intervals cannot go below 16.7).
  scroll_frame_p95_ms: '< 16',
};

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

function bundleSizes(dir) {
  const sizes = { raw: 0, gzip: 0, brotli: 0, files: 0 };
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const f = path.join(d, name);
      if (statSync(f).isDirectory()) walk(f);
      else if (!/\.(br|gz)$/.test(name)) {
        const raw = statSync(f).size;
        const size = (ext) => (existsSync(`${f}.${ext}`) ? statSync(`${f}.${ext}`).size : raw);
        sizes.raw += raw;
        sizes.gzip += size('gz');
        sizes.brotli += size('br');
        sizes.files++;
      }
    }
  };
  walk(dir);
  const kib = (n) => +(n / 1024).toFixed(1);
  return {
    files: sizes.files,
    raw_kib: kib(sizes.raw),
    gzip_kib: kib(sizes.gzip),
    brotli_kib: kib(sizes.brotli),
  };
}

const summary = (xs) => ({
  frames: xs.length,
  p50_ms: +pct(xs, 0.5).toFixed(2),
  p95_ms: +pct(xs, 0.95).toFixed(2),
  max_ms: +Math.max(...xs).toFixed(2),
});

/** Types and runs the 100,000-row statement; resolves once every chunk is in (ms from Ctrl+Enter). */
async function runHundredThousand(page) {
  await page.locator('.monaco-editor').first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(
    "SELECT id, concat('row ', id) AS label, id * 2.5 AS x, id % 7 = 0 AS flag FROM range(100000)",
  );
  await page.keyboard.press('Escape');
  const q0 = Date.now();
  await page.keyboard.press('Control+Enter');
  await page.getByText('100,000 rows', { exact: false }).first().waitFor({ timeout: 120_000 });
  return Date.now() - q0;
}

/**
 * Scrolls the grid 60 px a frame from the top and records the rAF intervals (frame start to frame start),
 * and the long animation frames (Long Animation Frames API: frames of 50 ms or more) seen meanwhile.
 */
async function scrollFrames(page, { frames }) {
  return page.locator('.grid').evaluate(
    (grid, n) =>
      new Promise((resolve) => {
        grid.scrollTop = 0;
        const deltas = [];
        let longFrames = 0;
        const obs = new PerformanceObserver((list) => (longFrames += list.getEntries().length));
        obs.observe({ type: 'long-animation-frame' });
        let last = -1;
        let i = 0;
        const step = (t) => {
          if (last >= 0) deltas.push(t - last);
          last = t;
          grid.scrollTop += 60;
          if (++i < n) requestAnimationFrame(step);
          else {
            obs.disconnect();
            resolve({ deltas, longFrames });
          }
        };
        requestAnimationFrame(step);
      }),
    frames,
  );
}

/**
 * The same scroll under a Chromium trace: for each frame (BeginMainThreadFrame to the next), the main
 * thread's CPU time in its tasks (RunTask thread time, so a neighbour's load does not count), and the
 * frame's span from its first task to the end of its rendering (the trace's AnimationFrame, what the Long
 * Animation Frames API reports).
 */
async function tracedScroll(browser, page, frames) {
  await browser.startTracing(page, {
    categories: [
      'toplevel',
      'devtools.timeline',
      // RunTask (with its thread time) is only recorded in this one.
      'disabled-by-default-devtools.timeline',
      'disabled-by-default-devtools.timeline.frame',
    ],
  });
  await scrollFrames(page, { frames });
  const events = JSON.parse((await browser.stopTracing()).toString('utf8')).traceEvents;
  const mainThreads = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const main = events.filter((e) => mainThreads.has(`${e.pid}:${e.tid}`));
  const starts = main.filter((e) => e.name === 'BeginMainThreadFrame').map((e) => e.ts);
  starts.sort((a, b) => a - b);
  const tasks = main.filter((e) => e.name === 'RunTask' && e.ph === 'X').sort((a, b) => a.ts - b.ts);
  const cpu = [];
  let t = 0;
  for (let f = 0; f + 1 < starts.length; f++) {
    let us = 0;
    while (t < tasks.length && tasks[t].ts < starts[f]) t++;
    for (let k = t; k < tasks.length && tasks[k].ts < starts[f + 1]; k++) us += tasks[k].tdur ?? tasks[k].dur;
    cpu.push(us / 1000);
  }
  const open = new Map();
  const span = [];
  for (const e of main) {
    if (e.name !== 'AnimationFrame') continue;
    const id = e.id2?.local ?? e.id;
    if (e.ph === 'b') open.set(id, e.ts);
    else if (e.ph === 'e' && open.has(id)) {
      span.push((e.ts - open.get(id)) / 1000);
      open.delete(id);
    }
  }
  return { cpu, span };
}

async function pageLoad(browser, url, context) {
  const ctx = context ?? (await browser.newContext({ viewport: { width: 1400, height: 900 } }));
  const page = await ctx.newPage();
  let bytes = 0;
  page.on('response', (r) => {
    const len = Number(r.headers()['content-length'] ?? 0);
    bytes += len;
  });
  const t0 = Date.now();
  await page.goto(`${url}/ui/`);
  await page.locator('.monaco-editor').first().waitFor();
  const editorMs = Date.now() - t0;
  const fcp = await page.evaluate(
    () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
  );
  return { page, ctx, editorMs, fcp, bytes };
}

export async function run() {
  const { chromium } = createRequire(path.join(root, 'apps/ui/package.json'))('playwright-core');
  const exe = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  if (!exe) throw new Error('the ui scenario needs Debian chromium (/usr/bin/chromium)');
  const s = await startServer();
  const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox'] });
  try {
    const cold = [];
    const coldEditor = [];
    let wire = 0;
    for (let i = 0; i < 5; i++) {
      const r = await pageLoad(browser, s.url);
      cold.push(r.fcp);
      coldEditor.push(r.editorMs);
      wire = r.bytes;
      await r.ctx.close();
    }
    // Warm: the same browser context again, hashed assets from its cache (immutable), index revalidated.
    const first = await pageLoad(browser, s.url);
    const warm = [];
    const warmEditor = [];
    for (let i = 0; i < 5; i++) {
      const r = await pageLoad(browser, s.url, first.ctx);
      warm.push(r.fcp);
      warmEditor.push(r.editorMs);
      await r.page.close();
    }

    // The 60 Hz figure, kept for comparison with earlier runs: rAF intervals in the default (vsync) browser.
    await runHundredThousand(first.page);
    const vsync = await scrollFrames(first.page, { frames: 600 });
    await first.ctx.close();

    // The honest figures: the same scroll in a Chromium without frame-rate limit or vsync.
    const free = await chromium.launch({
      executablePath: exe,
      args: ['--no-sandbox', '--disable-frame-rate-limit', '--disable-gpu-vsync'],
    });
    let unlimited;
    let traced;
    let resultMs;
    try {
      const r = await pageLoad(free, s.url);
      resultMs = await runHundredThousand(r.page);
      unlimited = await scrollFrames(r.page, { frames: 600 });
      traced = await tracedScroll(free, r.page, 300);
      await r.ctx.close();
    } finally {
      await free.close();
    }
    return {
      // The machine's load while this ran: frame figures on a shared machine are pessimistic.
      load_average: os.loadavg().map((x) => +x.toFixed(1)),
      bundle: bundleSizes(path.join(root, 'apps/server/dist/ui')),
      cold_cache: {
        first_contentful_paint_ms_median: +median(cold).toFixed(1),
        first_contentful_paint_ms_all: cold.map((x) => +x.toFixed(1)),
        editor_ready_ms_median: median(coldEditor),
        bytes_on_wire: wire,
      },
      warm_cache: {
        first_contentful_paint_ms_median: +median(warm).toFixed(1),
        editor_ready_ms_median: median(warmEditor),
      },
      scroll_100k: {
        result_ready_ms: resultMs,
        px_per_frame: 60,
        raf_interval_60hz: summary(vsync.deltas),
        raf_interval_unlimited: summary(unlimited.deltas),
        long_animation_frames_unlimited: unlimited.longFrames,
        main_thread_cpu_per_frame: summary(traced.cpu),
        main_thread_span_per_frame: summary(traced.span),
      },
    };
  } finally {
    await browser.close();
    await s.stop();
  }
}
