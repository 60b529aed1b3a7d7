/**
 * How the engine loads `@duckdb/node-api`. Required, not imported: the package is CommonJS, and an ESM import
 * of it makes Node lex each of the ~50 files it re-exports for named exports, ~0.17 s of CPU at every
 * start-up (bench/README.md, cold start). The server's bundle goes further: its build swaps this module for
 * `duckdb-module.bundled.ts`, so the package's JavaScript is one chunk of the bundle instead of ~50 files to
 * resolve, read and compile (apps/server/tsup.config.ts).
 */
import { createRequire } from 'node:module';

export const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
