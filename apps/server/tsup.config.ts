import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build, defineConfig, type Options } from 'tsup';
import ts from 'typescript';

// The server bundles the workspace packages (@minilake/*) so its tarball runs alone; third-party
// dependencies stay external and are declared in package.json.
// MINILAKE_OUT_DIR builds a private copy (scripts/dev-build.sh) so parallel work never races on dist/.
const outDir = process.env.MINILAKE_OUT_DIR ?? 'dist';

const bundled: Options = {
  target: 'node20',
  // @duckdb/node-api's JavaScript is bundled too: ~50 CommonJS files resolved, read and compiled one by one
  // were ~60 ms of CPU of every start (bench/README.md, cold start). Its native binding stays external.
  // So are Hono (~27 ESM files at start), its Node adapter and valibot: one module each resolved by the ESM
  // loader (package exports lookups, a file read and a module compile per file) cost tens of ms per start.
  noExternal: [
    /^@minilake\//,
    /^@duckdb\/node-api$/,
    /^hono(\/|$)/,
    /^@hono\/node-server(\/|$)/,
    /^valibot$/,
  ],
  esbuildPlugins: [
    {
      // The engine loads DuckDB through duckdb-module.ts (a `require` the bundler cannot follow); the
      // bundle takes its twin with a static import instead.
      name: 'duckdb-bundled',
      setup(build) {
        build.onResolve({ filter: /\/duckdb-module\.js$/ }, (args) => ({
          path: path.join(args.resolveDir, 'duckdb-module.bundled.ts'),
        }));
      },
    },
  ],
};

/**
 * The CLI again as one CommonJS file, main.cjs, for the V8 code cache (src/code-cache.ts), then the cache
 * itself: a child process starts main.cjs to `ready` and saves what V8 compiled. A failure leaves no cache
 * and the bin runs the ES module build as before, so it warns and does not fail the build.
 */
async function buildCodeCache(): Promise<void> {
  await build({
    ...bundled,
    config: false,
    silent: true,
    entry: { main: 'src/cli.ts' },
    format: ['cjs'],
    outDir,
    clean: false,
    splitting: false,
    dts: false,
    // ESM code in a CommonJS wrapper: keep its strictness, and import.meta.url as the file's URL.
    define: { 'import.meta.url': '__mlImportMetaUrl' },
    banner: {
      js: "'use strict'; const __mlImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    // code-cache.ts reads the bundle as Latin-1: only comments may hold anything but ASCII.
    esbuildOptions: (o) => void (o.charset = 'ascii'),
  });
  redirectDynamicImports(path.join(outDir, 'main.cjs'));
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // the cache must match a plain `node cli.js` (code-cache.ts, runtimeKey)
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(outDir, 'code-cache-write.js'), outDir], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', () => resolve(null));
    child.on('exit', resolve);
  });
  if (code !== 0)
    process.stderr.write('warning: no V8 code cache for the CLI; it will start ~50 ms slower\n');
}

/**
 * `import(x)` -> `__mlImport(x)` in the CommonJS bundle, found by TypeScript's parser (never by a pattern
 * over the text): a script run from a V8 code cache cannot `import()` on Node 20, so the loader passes a
 * function that does it (src/code-cache.ts).
 */
function redirectDynamicImports(file: string): void {
  const text = readFileSync(file, 'latin1');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const at: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      at.push(node.expression.getStart(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = '';
  let from = 0;
  for (const pos of at) {
    out += `${text.slice(from, pos)}__mlImport`;
    from = pos + 'import'.length;
  }
  writeFileSync(file, out + text.slice(from), 'latin1');
}

export default defineConfig({
  ...bundled,
  // cli.js is the bin (bin.ts): it runs main.cjs with the code cache, or main.js (cli.ts) without.
  entry: {
    cli: 'src/bin.ts',
    main: 'src/cli.ts',
    index: 'src/index.ts',
    'code-cache-write': 'src/code-cache-write.ts',
  },
  format: ['esm'],
  outDir,
  dts: outDir === 'dist' ? { entry: 'src/index.ts' } : false,
  clean: true,
  // The bundled CommonJS requires its binding: ESM has no `require`, so each chunk gets one.
  banner: {
    js: "import { createRequire as __mlCreateRequire } from 'node:module'; const require = __mlCreateRequire(import.meta.url);",
  },
  // The published server carries the built web UI (apps/ui builds first: it is a dev dependency, so turbo
  // orders it before this build). Without a UI build the server still starts and /ui says how to build it.
  onSuccess: async () => {
    const ui = '../ui/dist'; // tsup runs in apps/server
    if (existsSync(ui)) cpSync(ui, `${outDir}/ui`, { recursive: true });
    await buildCodeCache();
  },
});
