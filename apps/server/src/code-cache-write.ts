/**
 * Build step: `node <outDir>/code-cache-write.js <outDir>` writes `main.cjs.cache` (code-cache.ts). Started
 * by tsup.config.ts in a child with a clean environment; the server it starts keeps the process alive, so it
 * exits once the cache is written.
 */
import { writeCodeCache } from './code-cache.js';

try {
  await writeCodeCache(process.argv[2] ?? '.');
  process.exit(0);
} catch (e) {
  process.stderr.write(`code cache not written: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
}
