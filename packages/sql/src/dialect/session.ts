/** Per-request state shared by the pipeline stages and the commands MiniLake handles itself. */
import { ident } from '@minilake/engine-duckdb';
import type { Need, UnityCatalogApi } from '@minilake/unity-catalog';
import type {
  DatasetStatementRunner,
  DuckDBConnectionLike,
  DuckDBResultLike,
  DuckDbEngineLike,
} from './types.js';

export interface Session {
  conn: DuckDBConnectionLike;
  engine: DuckDbEngineLike;
  /** Absent when the server runs without Unity Catalog (statements on the engine alone). */
  uc: UnityCatalogApi | undefined;
  /** Pipeline dataset statements (commands/datasets.ts); absent when the pipelines service is off. */
  datasets?: DatasetStatementRunner;
  catalog: string;
  schema: string;
  /** The caller (current_user()). */
  user?: string;
  /** Refuses (throws a SqlError) when the caller lacks what `need` names: MINILAKE_ENFORCE=1. */
  authorize?: (need: Need) => Promise<void>;
  params: Map<string, { value: string | null; type: string | undefined }>;
  /** `SET key = value` of this statement text (lower-case keys), e.g. Delta's retention check for VACUUM. */
  conf: Map<string, string>;
  /** The DuckDB TimeZone in effect on the connection (the session time zone; UTC unless set). */
  timeZone: string;
  /** The text opened its own transaction (BEGIN) that is not yet committed or rolled back. */
  inTransaction: boolean;
  /** Applies catalog/schema to the connection (USE + search_path) when they changed. */
  applyNamespace(): Promise<void>;
}

export type Cell = string | number | boolean | bigint | null;

/**
 * A synthetic result as a real DuckDB result: VALUES with every cell bound as a parameter, cast per column.
 */
export async function valuesResult(
  s: Session,
  columns: { name: string; type: string }[],
  rows: Cell[][],
): Promise<DuckDBResultLike> {
  const values: Record<string, unknown> = {};
  const cols = columns.map((c) => ident(c.name));
  if (rows.length === 0) {
    const sel = columns.map((c, i) => `CAST(NULL AS ${c.type}) AS ${cols[i]}`).join(', ');
    return s.conn.stream(`SELECT ${sel} WHERE false`);
  }
  let n = 0;
  const tuples = rows.map(
    (r) =>
      `(${columns
        .map((c, i) => {
          const v = r[i] ?? null;
          const p = `p${n++}`;
          values[p] = v === null ? null : String(v);
          return `CAST($${p}::VARCHAR AS ${c.type})`;
        })
        .join(', ')})`,
  );
  return s.conn.stream(`SELECT * FROM (VALUES ${tuples.join(', ')}) AS t(${cols.join(', ')})`, values);
}
