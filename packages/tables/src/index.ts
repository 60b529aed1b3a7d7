/**
 * @minilake/tables: where a table's data lives and what SQL can do with it, behind one interface. A DuckDB
 * object, a Delta folder, or files at an EXTERNAL location; Unity Catalog resolves a name to a
 * TableDescriptor, and a TableFormat scans, appends, stages and rewrites (DML), and answers history and
 * detail, on the connection the caller passes. No service, no HTTP, no metadata of its own.
 */
export * from './descriptor.js';
export * from './format.js';
export { DeltaFormat, snapshotScan, type DeltaFormatOptions } from './delta-format.js';
export { DuckDbFormat } from './duckdb-format.js';
export { FilesFormat } from './files-format.js';
export { TableFormats } from './formats.js';
export { INTERNAL_COLUMNS } from './columns.js';
