/** The text resources and prompts agents read: what differs from Databricks, and how to work here. */

export const SQL_DIALECT_HEADER = `# MiniLake SQL dialect

Statements are Databricks SQL (the Spark SQL dialect of a SQL warehouse, ANSI mode on, session time zone
UTC). MiniLake parses them as Databricks SQL and runs them on DuckDB: you write Databricks SQL, not DuckDB SQL.
A construct MiniLake cannot run faithfully fails with an error naming it (UNSUPPORTED_FEATURE), never with a
wrong answer. Use the explain_sql tool to check a statement without running it.
`;

export const SQL_DIALECT_BODY = `## Names

- Three-part names \`catalog.schema.table\`; two-part names resolve in the current catalog; \`run_sql\`'s
  \`catalog\`/\`schema\` arguments (default \`main.default\`) set the namespace, as does \`USE CATALOG/SCHEMA\`.
- Quote identifiers with backticks: \`\`my table\`\`. Strings use single quotes.

## Works as on Databricks

- SELECT with joins (including LEFT SEMI/ANTI), CTEs, window functions, GROUP BY ALL/ROLLUP/GROUPING SETS,
  PIVOT, QUALIFY, LATERAL VIEW explode/posexplode, \`SELECT * EXCEPT\`, \`FILTER (WHERE)\`, \`max_by/min_by\`.
- DDL: CREATE/DROP CATALOG, SCHEMA, TABLE [USING fmt] [PARTITIONED BY] [COMMENT] [TBLPROPERTIES] [AS SELECT],
  CREATE VIEW, ALTER TABLE ADD COLUMNS / RENAME TO / SET TBLPROPERTIES: all visible in the Unity Catalog API.
- DML: INSERT INTO, INSERT OVERWRITE, UPDATE, DELETE, MERGE INTO (with UPDATE SET * / INSERT *): results
  carry \`num_affected_rows\` (and \`num_inserted_rows\`, ...).
- SHOW CATALOGS/SCHEMAS/TABLES/VIEWS/COLUMNS/TBLPROPERTIES, DESCRIBE [EXTENDED] table, DESCRIBE SCHEMA/CATALOG,
  EXPLAIN, GRANT/REVOKE (stored, not enforced), SET TIME ZONE, OPTIMIZE/VACUUM (real on Delta tables).
- Delta tables (\`CREATE TABLE ... USING DELTA LOCATION '...'\`, and every table of the \`samples\` catalog):
  time travel (\`VERSION AS OF 1\`, \`TIMESTAMP AS OF '2024-01-01'\`, \`t@v1\`), DESCRIBE HISTORY, DESCRIBE
  DETAIL. Try it: \`SELECT count(*) FROM samples.tpch.region VERSION AS OF 1\`.
- Sample data to query at once: \`samples.nyctaxi.trips\` and the TPC-H tables \`samples.tpch.*\` (customer,
  orders, lineitem, part, partsupp, supplier, nation, region); the \`samples\` catalog is read-only.
- Spark semantics: NULL-propagating concat, 0-based \`arr[i]\` with errors out of bounds, truncating integral
  casts, DIVIDE_BY_ZERO errors (\`try_divide\` gives NULL), \`date_add\` returning DATE, Java date_format
  patterns, \`from_json\` with a DDL schema, \`named_struct\`, \`transform/aggregate/exists\` lambdas,
  \`regexp_replace\` with \`$1\`, \`sum/avg\` of DECIMAL with Spark's result types.
- Files: \`read_csv('/Volumes/<catalog>/<schema>/<volume>/file.csv')\`, \`read_parquet\`, \`read_json\`,
  \`read_text\` read a volume's files (upload them with upload_file).
- Parameters: \`:name\` markers bound by the engine (run_sql's \`parameters\`).

## Refused (clear error)

- Time travel on a table that is not Delta (a plain \`CREATE TABLE t (...)\` is a DuckDB table unless the
  server runs with \`MINILAKE_MANAGED_FORMAT=delta\`), SHOW CREATE TABLE, SHOW GRANTS/PARTITIONS.
- COPY INTO (use \`INSERT INTO t SELECT * FROM read_csv(...)\`), CREATE VOLUME in SQL (use create_volume).
- INSERT ... PARTITION (...) on a table that is not Delta, REPLACE WHERE, SHALLOW/DEEP CLONE, identity
  columns, SORT BY / DISTRIBUTE BY, session variables, COMMENT ON anything but a table.
- Functions: the \`:\` JSON path operator (use \`get_json_object\`), \`typeof\`, \`format_number\`, \`conv\`,
  \`bround\`, \`str_to_map\`, \`find_in_set\`, \`nanvl\`, \`hash\` (murmur3), \`make_timestamp\` with a time zone.

## Known differences

- \`SHOW FUNCTIONS\` lists the engine's functions; \`percentile_approx\` ignores its accuracy argument.
- Nested \`avg\`/\`sum\`/decimal division inside a larger expression may return DOUBLE where Spark returns DECIMAL
  (top-level projections are exact).
- Result values come back as strings (as the Statement API's JSON_ARRAY format renders them): DECIMAL(10,2)
  2.5 is "2.50", booleans "true"/"false", dates "2024-01-04".
`;

export const PYSPARK_GUIDE = `# PySpark on MiniLake

\`run_python_script\` stages your script in the workspace, submits it as a one-time Jobs run with a
\`spark_python_task\`, waits for it and returns what it printed (stdout). It needs the jobs service (and Spark
installed where MiniLake runs).

- A \`spark\` session is ready, as on Databricks; create it yourself with
  \`SparkSession.builder.getOrCreate()\` if you prefer.
- Unity Catalog tables: \`spark.table("sales.store.orders")\`, \`spark.sql("SELECT ...")\`,
  \`df.write.saveAsTable("cat.sch.tbl")\`. Tables written by Spark are Delta tables SQL reads back.
- Volume files: \`spark.read.csv("/Volumes/<catalog>/<schema>/<volume>/file.csv", header=True)\`.
- \`dbutils.secrets.get(scope, key)\`, \`dbutils.fs.ls/put/head\`, \`dbutils.widgets.get\` (job parameters) work.
- Print what you want back: \`print(df.toPandas().to_string())\` or \`df.show()\`.
- \`delta: true\` configures the Delta Lake extension; \`packages\` installs PyPI requirements first.
- A failing script returns its error and error_trace; the run's life cycle and result state tell you whether
  it ran, failed or timed out (\`timeout_seconds\`).
- For SQL only, prefer \`run_sql\`: it is much faster than starting Spark.
`;

export const ERROR_GUIDE = `# Errors

Every tool failure comes back with \`isError: true\` and the text \`ERROR_CODE: message\` (and
\`structuredContent.error_code\`), exactly the Databricks error a REST client would get.

| error_code | meaning | what to do |
|---|---|---|
| RESOURCE_DOES_NOT_EXIST, CATALOG_DOES_NOT_EXIST, SCHEMA_DOES_NOT_EXIST, TABLE_DOES_NOT_EXIST | the object is missing | create it (setup_fixture, seed_table) or check the name |
| RESOURCE_ALREADY_EXISTS, CATALOG_ALREADY_EXISTS, TABLE_ALREADY_EXISTS | it is already there | use it, or delete it first |
| INVALID_PARAMETER_VALUE | a field is wrong; the message names it | fix the argument |
| TABLE_OR_VIEW_NOT_FOUND | SQL named a table that does not exist | check catalog.schema.table, or list_tables |
| PARSE_SYNTAX_ERROR | the SQL does not parse as Databricks SQL | fix the statement |
| UNSUPPORTED_FEATURE | valid Databricks SQL MiniLake refuses | read minilake://sql-dialect for the alternative |
| UNRESOLVED_COLUMN, UNRESOLVED_ROUTINE | unknown column / function | describe_table; see the dialect guide |
| DIVIDE_BY_ZERO, CAST_INVALID_INPUT | ANSI-mode runtime errors | try_divide / try_cast |
| NOT_IMPLEMENTED | the endpoint is not built in MiniLake | minilake://capabilities lists what is |
| DIRECTORY_NOT_EMPTY | a folder still has contents | pass recursive / force |
`;

export const AGENT_GUIDE = `# Working with MiniLake

MiniLake is the Databricks API on a laptop: Unity Catalog, SQL warehouses, Jobs, workspace files, volumes,
DBFS, secrets and clusters, all real and local. Nothing you do here costs money or touches a real workspace;
reset_state empties it.

A typical agent flow is three calls:

1. \`setup_fixture({"catalog": "sales", "schema": "store"})\`: catalog, schema and a warehouse (idempotent).
2. \`seed_table({"full_name": "sales.store.orders", "columns": [{"name": "id", "type_text": "BIGINT"},
   {"name": "amount", "type_text": "DECIMAL(10,2)"}], "rows": [[1, "10.50"], [2, "20.25"]]})\`.
3. \`run_sql({"statement": "SELECT SUM(amount) FROM sales.store.orders"})\`.

Then: \`describe_catalog_tree\` shows everything in a catalog at once; \`explain_sql\` checks a statement
before running it; \`run_python_script\` runs PySpark; \`query_history\` shows what ran.
`;
