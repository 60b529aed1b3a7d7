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
  noExternal: [/^@minilake\//],
});
