import { defineConfig } from 'tsup';
import { dts } from '../../tsup.dts.js';

export default defineConfig({
  entry: ['src/index.ts', 'src/host.ts'],
  format: ['esm'],
  dts,
  clean: true,
  target: 'node20',
});
