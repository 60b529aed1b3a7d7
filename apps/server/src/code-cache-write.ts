/**
 * Build step: `node <outDir>/code-cache-write.js <outDir>` writes `main.cjs.cache` (code-cache.ts). Started
 * by tsup.config.ts in a child with a clean environment; the server it starts keeps the process alive, so it
 * exits once the cache is written. Kept out of code-cache.ts, which every start loads.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@minilake/engine-spark';
import { BUNDLE, CACHE, MAGIC, compile, digest, run, runtimeKey } from './code-cache.js';

/**
 * Build step (code-cache-write.ts, in a child process started by the build with a clean environment, so
 * its V8 options are a plain `node cli.js`'s): starts `dir`'s bundle to `ready` and writes the code V8
 * compiled on the way next to it. `MINILAKE_WASM_OPTIMIZE=1` keeps the CLI from setting `--liftoff-only`:
 * V8 stamps the cache with the flags of the moment and the CLI sets that flag only after the bundle
 * compiled, so a cache made after it would always be refused.
 */
async function writeCodeCache(outDir: string): Promise<void> {
  const dir = path.resolve(outDir);
  const file = path.join(dir, BUNDLE);
  const bundle = readFileSync(file);
  const script = compile(file, bundle);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'minilake-code-cache-'));
  const port = await freePort();
  for (const k of Object.keys(process.env)) if (k.startsWith('MINILAKE_')) delete process.env[k];
  Object.assign(process.env, {
    MINILAKE_DATA_DIR: dataDir,
    MINILAKE_WASM_OPTIMIZE: '1',
    MINILAKE_LOG_LEVEL: 'error',
  });
  process.argv = [process.execPath, file, '--port', String(port)];
  try {
    run(script, file);
    await ready(`http://127.0.0.1:${port}/_minilake/ready`);
    const data = script.createCachedData();
    const head = `${MAGIC}\n${runtimeKey()}\n${digest(bundle, data)}\n`;
    const tmp = path.join(dir, `${CACHE}.${process.pid}.tmp`);
    writeFileSync(tmp, Buffer.concat([Buffer.from(head, 'latin1'), data]));
    renameSync(tmp, path.join(dir, CACHE));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const status = await new Promise<number>((resolve) => {
      const req = request(url, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => resolve(0));
      req.end();
    });
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the server did not answer ${url} within 60 s`);
}

try {
  await writeCodeCache(process.argv[2] ?? '.');
  process.exit(0);
} catch (e) {
  process.stderr.write(`code cache not written: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
}
