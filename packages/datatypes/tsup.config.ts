import { defineConfig } from 'tsup';
import { dts } from '../../tsup.dts.js';

export default defineConfig({
  // The Arrow mapping is its own entry: only the Thrift and Arrow result paths load apache-arrow.
  entry: ['src/index.ts', 'src/arrow.ts'],
  format: ['esm'],
  dts,
  clean: true,
  target: 'node20',
});
