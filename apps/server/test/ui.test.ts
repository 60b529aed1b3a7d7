/** The /ui static routes: index and deep links, precompressed bodies, cache headers, no escape from the folder. */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { uiApp } from '../src/ui.js';

let dir: string;
const js = 'console.log("minilake");'.repeat(50);

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ml-ui-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><div id="app"></div>');
  writeFileSync(path.join(dir, 'assets/app-abc123.js'), js);
  writeFileSync(path.join(dir, 'assets/app-abc123.js.br'), brotliCompressSync(js));
  writeFileSync(path.join(dir, 'assets/app-abc123.js.gz'), gzipSync(js));
  writeFileSync(path.join(os.tmpdir(), 'ml-ui-secret.txt'), 'secret');
});

describe('/ui', () => {
  it('answers index.html at /ui, /ui/ and deep links, revalidated', async () => {
    const app = uiApp({ dir });
    for (const p of ['/ui', '/ui/', '/ui/history', '/ui/catalog/main/default']) {
      const res = await app.request(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('id="app"');
    }
    const first = await app.request('/ui/');
    const again = await app.request('/ui/', { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('sends hashed assets precompressed and immutable', async () => {
    const app = uiApp({ dir });
    const br = await app.request('/ui/assets/app-abc123.js', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('cache-control')).toContain('immutable');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    expect(br.headers.get('content-type')).toContain('text/javascript');
    const gz = await app.request('/ui/assets/app-abc123.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const plain = await app.request('/ui/assets/app-abc123.js');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(js);
  });

  it('never leaves the folder and 404s a missing hashed asset', async () => {
    const app = uiApp({ dir });
    expect((await app.request('/ui/assets/gone-000.js')).status).toBe(404);
    for (const p of [
      '/ui/../ml-ui-secret.txt',
      '/ui/%2e%2e/ml-ui-secret.txt',
      '/ui/assets/%2e%2e%2f..%2fml-ui-secret.txt',
    ]) {
      const body = await (await app.request(p)).text();
      expect(body, p).not.toContain('secret');
    }
  });

  it('says how to build the UI when it was not built', async () => {
    const res = await uiApp({ dir: undefined }).request('/ui/');
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('pnpm build');
  });
});
