/**
 * @minilake/datatypes: MiniLake's one type vocabulary. Every spelling of a Databricks type (Databricks type
 * text and Unity Catalog's type_name / type_json, DuckDB type strings and DDL, Spark JSON, TCLI and JDBC
 * codes; Arrow in `@minilake/datatypes/arrow`) is read into or written from one small tree, and the
 * per-type facts live in one table (vocabulary.ts). No service, no HTTP.
 */
export * from './tree.js';
export * from './vocabulary.js';
export * from './duckdb.js';
export * from './databricks.js';
export * from './spark-json.js';
