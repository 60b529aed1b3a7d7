/**
 * Serves the web SQL workspace (apps/ui's build) at /ui and /ui/: files from the built folder, deep links
 * answered with index.html, the precompressed .br/.gz twins sent when the browser accepts them, hashed
 * assets cached as immutable and index.html revalidated. Without a build the routes answer a page saying
 * how to build it, and the rest of the server runs as usual.
 */
import { readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Where the built UI is: next to the server's bundle (dist/ui, what the published package carries), else
 * the workspace's apps/ui/dist (running from source, as the in-process tests do).
 */
export function defaultUiDir(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'ui'), path.resolve(here, '../../ui/dist')];
  return candidates.find((d) => existsSync(path.join(d, 'index.html')));
}

interface Entry {
  body: Uint8Array;
  br?: Uint8Array;
  gz?: Uint8Array;
  type: string;
  etag: string;
  immutable: boolean;
}

const notBuilt = `<!doctype html><html lang="en"><meta charset="utf-8"><title>MiniLake UI not built</title>
<body style="font:15px system-ui;max-width:42em;margin:3em auto">
<h1>The MiniLake web UI is not built</h1>
<p>This server runs from a checkout where <code>apps/ui</code> has not been built yet. The API works as usual.</p>
<p>Build it with <code>pnpm build</code> (or <code>pnpm --filter @minilake/ui build</code>) and reload this page.</p>
</body></html>`;

export function uiApp(opts: { dir: string | undefined }): Hono {
  const app = new Hono();
  const dir = opts.dir;
  // Files are small and fixed once built: each is read once, then served from memory.
  const cache = new Map<string, Promise<Entry | undefined>>();

  const load = (rel: string): Promise<Entry | undefined> => {
    let hit = cache.get(rel);
    if (!hit) {
      hit = (async () => {
        const file = path.join(dir!, rel);
        const info = await stat(file).catch(() => undefined);
        if (!info?.isFile()) return undefined;
        const optional = (p: string) => readFile(p).catch(() => undefined);
        const [body, br, gz] = await Promise.all([
          readFile(file),
          optional(`${file}.br`),
          optional(`${file}.gz`),
        ]);
        return {
          body,
          br,
          gz,
          type: TYPES[path.extname(file)] ?? 'application/octet-stream',
          etag: `"${info.size.toString(36)}-${Math.trunc(info.mtimeMs).toString(36)}"`,
          immutable: rel.startsWith('assets/'),
        };
      })();
      cache.set(rel, hit);
    }
    return hit;
  };

  const send = (e: Entry, accept: string, ifNoneMatch: string | undefined, head: boolean): Response => {
    const headers: Record<string, string> = {
      'content-type': e.type,
      etag: e.etag,
      vary: 'Accept-Encoding',
      'cache-control': e.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
    };
    if (ifNoneMatch === e.etag) return new Response(null, { status: 304, headers });
    let body = e.body;
    if (e.br && /\bbr\b/.test(accept)) {
      body = e.br;
      headers['content-encoding'] = 'br';
    } else if (e.gz && /\bgzip\b/.test(accept)) {
      body = e.gz;
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = String(body.byteLength);
    return new Response(head ? null : (body as Uint8Array<ArrayBuffer>), { status: 200, headers });
  };

  app.on(['GET', 'HEAD'], ['/ui', '/ui/*'], async (c) => {
    if (!dir) return c.html(notBuilt, 404);
    const rel = decodeURIComponent(c.req.path.replace(/^\/ui\/?/, ''));
    // Only plain relative paths inside the folder; anything else is a deep link answered by index.html.
    const safe = rel !== '' && !rel.split('/').some((p) => p === '..' || p === '' || p.startsWith('.'));
    const accept = c.req.header('accept-encoding') ?? '';
    const inm = c.req.header('if-none-match');
    const head = c.req.method === 'HEAD';
    const entry = safe ? await load(rel) : undefined;
    if (entry) return send(entry, accept, inm, head);
    // A missing hashed asset is a real 404 (a stale page asking for an old build), not the app shell.
    if (rel.startsWith('assets/')) return c.text('Not found', 404);
    const index = await load('index.html');
    if (!index) return c.html(notBuilt, 404);
    return send(index, accept, inm, head);
  });
  return app;
}
