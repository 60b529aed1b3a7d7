import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Static build served by @minilake/server at /ui/. Everything (Monaco, its worker, the codicon font) is
// bundled into dist/: the page never asks anything but the server that served it.
export default defineConfig({
  base: '/ui/',
  resolve: {
    // Monaco's package exports hide the per-contribution ESM files; the alias lets src/monaco.ts pick the
    // editor core and contributions without the ~80 other languages editor.main pulls in.
    alias: {
      'monaco-esm': fileURLToPath(new URL('./node_modules/monaco-editor/esm/vs', import.meta.url)),
    },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 4096,
    reportCompressedSize: false,
  },
  worker: { format: 'es' },
});
