import { cpSync, existsSync } from 'node:fs';
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
  // The published server carries the built web UI (apps/ui builds first: it is a dev dependency, so turbo
  // orders it before this build). Without a UI build the server still starts and /ui says how to build it.
  onSuccess: async () => {
    const ui = '../ui/dist'; // tsup runs in apps/server
    if (existsSync(ui)) cpSync(ui, `${outDir}/ui`, { recursive: true });
  },
});
