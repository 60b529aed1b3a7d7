import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/render-entry.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node20',
});
