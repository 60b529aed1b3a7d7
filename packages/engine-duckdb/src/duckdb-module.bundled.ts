/**
 * The server bundle's `duckdb-module.ts` (apps/server/tsup.config.ts swaps it in): a static import the
 * bundler can follow, so `@duckdb/node-api`'s JavaScript is bundled; only its native binding
 * (`@duckdb/node-bindings`) is still loaded from node_modules. Not for unbundled use: there Node would
 * lex the package for named exports (see duckdb-module.ts).
 */
import * as duckdb from '@duckdb/node-api';

export { duckdb };
