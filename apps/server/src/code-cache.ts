/**
 * A V8 code cache for the CLI (issue 16, bench/README.md "Issue 16, cold start"). Node 20 has no compile cache
 * for ES modules, and compiling the server's bundle was the largest start-up cost we own. So the build also
 * emits the CLI as one CommonJS file (`main.cjs`) and, from a start of it to `ready` in a child process,
 * the code V8 compiled for it (`main.cjs.cache`). The bin (`cli.js`, bin.ts) compiles `main.cjs` through
 * `vm.Script` with that cache, which skips parsing and the lazy compiles of the start path.
 *
 * Anything unexpected falls back to the ES module build (`main.js`, what the bin ran before) without
 * compiling anything twice: no cache file, another Node or V8, other V8 options (`execArgv`,
 * `NODE_OPTIONS`), or a bundle or cache whose bytes are not the ones the build recorded together. The digest
 * matters: V8 checks only the source's length and its own version and flags, and release builds do not
 * verify the payload's checksum, so damaged bytes would crash it. Nothing is ever written at run time (the
 * install folder may be read-only); the build writes the cache next to the bundle.
 *
 * The bundle's `import()`s (ESM-only externals such as the SQL dialect, loaded on first use) call
 * `__mlImport` instead, a parameter of the wrapper (the build rewrites them, tsup.config.ts): on Node 20 a
 * script deserialized from a code cache loses its `importModuleDynamically` (even
 * `vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER`), so its own `import()` fails with
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING. This module's `import()` resolves from the same folder.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { debuglog } from 'node:util';
import vm from 'node:vm';

export const BUNDLE = 'main.cjs';
export const CACHE = 'main.cjs.cache';
export const MAGIC = 'minilake-code-cache 1';

/** NODE_DEBUG=minilake says which way the CLI was loaded. */
const debug = debuglog('minilake');

/** What V8's cache depends on besides the source: V8 itself and the options it runs with. */
export function runtimeKey(): string {
  return JSON.stringify([
    process.version,
    process.versions.v8,
    process.arch,
    process.platform,
    process.execArgv,
    process.env.NODE_OPTIONS ?? '',
  ]);
}

export function digest(bundle: Uint8Array, data: Uint8Array): string {
  return createHash('sha1').update(bundle).update(data).digest('hex');
}

/**
 * The bundle's text as V8 gets it. Read as Latin-1: decoding 2 MB of UTF-8 costs ~10 ms and Latin-1 ~1 ms.
 * The build sets esbuild's `charset: 'ascii'`, so every string, template and regular expression is ASCII;
 * the only non-ASCII bytes left are in comments, where a different decoding changes nothing. The hashbang
 * line is blanked (it is not JavaScript inside a function) so line numbers stay the same.
 */
function wrap(bundle: Buffer): string {
  let text = bundle.toString('latin1', 0, bundle.length);
  if (text.startsWith('#!')) text = text.slice(text.indexOf('\n'));
  return `(function (exports, require, module, __filename, __dirname, __mlImport) {${text}\n})`;
}

export function compile(file: string, bundle: Buffer, cachedData?: Buffer): vm.Script {
  return new vm.Script(wrap(bundle), { filename: file, cachedData });
}

export function run(script: vm.Script, file: string): void {
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {}, id: file, filename: file, loaded: false };
  const load = (specifier: string): Promise<unknown> => import(specifier);
  fn.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file), load);
}

/**
 * `dir`'s bundle and the V8 data of its cache, or why they cannot be used. The cheap checks come first, so
 * a fallback reads little.
 */
function cached(dir: string): { bundle: Buffer; data: Buffer } | string {
  let cache: Buffer;
  try {
    cache = readFileSync(path.join(dir, CACHE));
  } catch {
    return 'no cache file';
  }
  // MAGIC \n runtime key \n digest \n V8 data
  const a = cache.indexOf(10);
  const b = a < 0 ? -1 : cache.indexOf(10, a + 1);
  const c = b < 0 ? -1 : cache.indexOf(10, b + 1);
  if (c < 0 || cache.toString('latin1', 0, a) !== MAGIC) return 'not a cache file';
  if (cache.toString('latin1', a + 1, b) !== runtimeKey())
    return 'built for another Node or other V8 options';
  const bundle = readFileSync(path.join(dir, BUNDLE));
  const data = cache.subarray(c + 1);
  if (cache.toString('latin1', b + 1, c) !== digest(bundle, data))
    return 'bundle or cache changed since the build';
  return { bundle, data };
}

/**
 * Runs the CLI from `dir`'s bundle with its code cache and returns true, or returns false having run
 * nothing (the caller then imports the ES module build).
 */
export function runCached(dir: string): boolean {
  const file = path.join(dir, BUNDLE);
  let script: vm.Script;
  try {
    const found = cached(dir);
    if (typeof found === 'string') {
      debug('code cache not used: %s', found);
      return false;
    }
    script = compile(file, found.bundle, found.data);
  } catch (e) {
    debug('code cache not used: %s', String(e));
    return false;
  }
  // Compiled either way: a cache V8 refuses (it checks its own flags too) costs a normal compile, once.
  debug(script.cachedDataRejected ? 'code cache rejected by V8' : 'code cache used');
  run(script, file);
  return true;
}
