import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Options } from 'tsup';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * tsup's declaration build for a package under packages/: its @minilake/* imports are typed from their built
 * dist/index.d.ts (turbo builds a package's dependencies first), not from their sources, which the workspace
 * exports point at. Otherwise each package's declaration build loads and checks every workspace package it
 * imports, again: @minilake/jobs took 17 s that way, 5 s this way, with the same output. A subpath import
 * (@minilake/thrift/arrow) or a package not built yet has no such file and resolves as before. The sources are
 * type-checked once, by the root `pnpm typecheck`.
 */
export const dts: Options['dts'] = {
  compilerOptions: { baseUrl: root, paths: { '@minilake/*': ['packages/*/dist/index.d.ts'] } },
};
