import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'tsup';

// The server bundles the workspace packages (@minilake/*) so its tarball runs alone; third-party
// dependencies stay external and are declared in package.json.
// MINILAKE_OUT_DIR builds a private copy (scripts/dev-build.sh) so parallel work never races on dist/.
const outDir = process.env.MINILAKE_OUT_DIR ?? 'dist';

export default defineConfig({
  entry: ['src/cli.ts', 'src/index.ts'],
  format: ['esm'],
  outDir,
  dts: outDir === 'dist' ? { entry: 'src/index.ts' } : false,
  clean: true,
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
  // The bundled CommonJS requires its binding: ESM has no `require`, so each chunk gets one.
  banner: {
    js: "import { createRequire as __mlCreateRequire } from 'node:module'; const require = __mlCreateRequire(import.meta.url);",
  },
  // The published server carries the built web UI (apps/ui builds first: it is a dev dependency, so turbo
  // orders it before this build). Without a UI build the server still starts and /ui says how to build it.
  onSuccess: async () => {
    const ui = '../ui/dist'; // tsup runs in apps/server
    if (existsSync(ui)) cpSync(ui, `${outDir}/ui`, { recursive: true });
  },
});
