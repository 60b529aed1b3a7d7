import { defineConfig } from 'tsup';

// The server bundles the workspace packages (@minilake/*) so its tarball runs alone; third-party
// dependencies stay external and are declared in package.json.

export default defineConfig({
  entry: ['src/cli.ts', 'src/index.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  target: 'node20',
  noExternal: [/^@minilake\//],
});
