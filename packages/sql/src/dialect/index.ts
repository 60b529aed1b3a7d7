// Databricks SQL on DuckDB: the one entry point the Statement Execution API calls.
// Contract first; translation, interception and Spark semantics land behind it.

/** Minimal shape of @duckdb/node-api's DuckDBConnection that the dialect layer needs. */
export interface DuckDBConnectionLike {
  stream(
    sql: string,
    values?: Record<string, unknown>,
    types?: Record<string, unknown>,
  ): Promise<DuckDBResultLike>;
  run(
    sql: string,
    values?: Record<string, unknown>,
    types?: Record<string, unknown>,
  ): Promise<DuckDBResultLike>;
}
/** Minimal shape of @duckdb/node-api's DuckDBResult (a streaming result). */
export interface DuckDBResultLike {
  readonly columnCount: number;
}

/** Minimal shape of @minilake/engine-duckdb's DuckDbEngine used here. */
export interface DuckDbEngineLike {
  /** Databricks catalog name -> DuckDB attached database alias (main -> main__ml). */
  alias(catalog: string): string;
}

/** Minimal shape of @minilake/unity-catalog's api used by intercepted DDL. */
export interface UnityCatalogApiLike {
  [op: string]: unknown;
}

export interface StatementParameter {
  name: string;
  value?: string | null;
  type?: string;
}

export interface ExecuteInput {
  statement: string;
  catalog?: string;
  schema?: string;
  parameters?: StatementParameter[];
}

export class SqlError extends Error {
  constructor(
    message: string,
    readonly errorCode: string,
    readonly sqlState: string,
  ) {
    super(message);
    this.name = 'SqlError';
  }
}

export async function executeDatabricksSql<R extends DuckDBResultLike>(
  conn: { stream(sql: string): Promise<R> } & Partial<DuckDBConnectionLike>,
  input: ExecuteInput,
  _env: { engine: DuckDbEngineLike; uc?: UnityCatalogApiLike },
): Promise<R> {
  try {
    return await conn.stream(input.statement);
  } catch (e) {
    throw new SqlError(e instanceof Error ? e.message : String(e), 'BAD_REQUEST', '42000');
  }
}
