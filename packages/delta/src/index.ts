/**
 * @minilake/delta: Delta Lake tables read (and later written) by MiniLake itself over DuckDB, with no JVM.
 * An engine-level library: no HTTP, no service; callers hand it something that runs DuckDB SQL.
 */
export { DeltaError } from './errors.js';
export * from './dv.js';
export * from './history.js';
export * from './log.js';
export * from './schema.js';
export * from './snapshot.js';
export * from './writer.js';
export * from './dml.js';
export * from './checkpoint.js';
export * from './maintenance.js';
export * from './prune.js';
