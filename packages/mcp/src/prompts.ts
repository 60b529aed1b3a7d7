/** Prompts: the rules an agent should follow for the four common jobs, stated before it starts. */
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

const user = (text: string) => ({
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
});

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'explore_data',
    {
      title: 'Explore data',
      description:
        'Answer a question about the data in MiniLake: find the tables, check their columns, then query.',
      argsSchema: {
        question: z.string().describe('what you want to know'),
        catalog: z.string().optional().describe('catalog to look in (default: all)'),
      },
    },
    ({ question, catalog }) =>
      user(
        `Answer this question with the data in MiniLake: ${question}\n\n` +
          `1. ${catalog ? `Call describe_catalog_tree({"catalog": "${catalog}"})` : 'Call list_catalogs, then describe_catalog_tree for the likely catalog'} to see the schemas, tables and column types.\n` +
          '2. Read minilake://sql-dialect once: statements are Databricks SQL (backticks for names, three-part names catalog.schema.table).\n' +
          '3. Use preview_table to see a few rows before aggregating; then run_sql. Use explain_sql if unsure a construct is supported.\n' +
          '4. If a tool returns isError, read the error_code (minilake://error-codes) and fix the call; do not guess table names.\n' +
          '5. Answer with the numbers run_sql returned and the statement you ran.',
      ),
  );
  server.registerPrompt(
    'run_spark_job',
    {
      title: 'Run a Spark job',
      description:
        'Write and run a PySpark script on MiniLake with run_python_script, and report its output.',
      argsSchema: { goal: z.string().describe('what the Spark job should do') },
    },
    ({ goal }) =>
      user(
        `Write a PySpark script that does this, and run it on MiniLake: ${goal}\n\n` +
          '- Read minilake://pyspark-guide first: `spark` and `dbutils` are available; tables are spark.table("catalog.schema.table"); volume files are /Volumes/<catalog>/<schema>/<volume>/...\n' +
          '- Make sure the input tables exist (describe_catalog_tree); create test data with setup_fixture and seed_table if needed.\n' +
          '- Run it with run_python_script({"script": ..., "timeout_seconds": 600}); print() what you need back.\n' +
          '- If result_state is not SUCCESS, read error and error_trace, fix the script and run again.\n' +
          '- Check the result with run_sql when the job writes a table.',
      ),
  );
  server.registerPrompt(
    'diagnose_error',
    {
      title: 'Diagnose an error',
      description: 'Explain a Databricks/MiniLake error message and what to change.',
      argsSchema: { error_text: z.string().describe('the error as you got it (error_code: message)') },
    },
    ({ error_text }) =>
      user(
        `Diagnose this error from MiniLake (the Databricks API on a laptop):\n\n${error_text}\n\n` +
          '- Identify the error_code and read minilake://error-codes for what it means.\n' +
          '- For SQL errors (TABLE_OR_VIEW_NOT_FOUND, UNSUPPORTED_FEATURE, PARSE_SYNTAX_ERROR, UNRESOLVED_COLUMN) read minilake://sql-dialect and check the names with describe_catalog_tree or table_exists.\n' +
          '- NOT_IMPLEMENTED means the endpoint is not built in MiniLake (minilake://capabilities): say so instead of retrying.\n' +
          '- Propose the corrected call and, if it is safe, try it.',
      ),
  );
  server.registerPrompt(
    'seed_test_fixture',
    {
      title: 'Seed a test fixture',
      description:
        'Create a catalog, schema, warehouse and tables with test rows for a scenario, in a few calls.',
      argsSchema: { scenario: z.string().describe('the test scenario the data is for') },
    },
    ({ scenario }) =>
      user(
        `Create a MiniLake test fixture for this scenario: ${scenario}\n\n` +
          '1. setup_fixture({"catalog": ..., "schema": ...}) once (idempotent; reset: true starts from an empty catalog).\n' +
          '2. For each table: seed_table({"full_name": "catalog.schema.table", "columns": [{"name", "type_text"}], "rows": [[...]]}) with Databricks types (BIGINT, STRING, DECIMAL(10,2), DATE, TIMESTAMP, BOOLEAN). Pass decimals and dates as strings.\n' +
          '3. Include edge cases the scenario needs (NULLs, duplicates, empty strings, boundary dates).\n' +
          '4. Verify with run_sql (SELECT count(*) ...) and describe_catalog_tree, then list what you created.',
      ),
  );
}
