/** Per-request state shared by the pipeline stages and the commands MiniLake handles itself. */
import { ident } from '@minilake/engine-duckdb';
import type { Caller, Need, SecurableKind, UnityCatalogApi } from '@minilake/unity-catalog';
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
  /** What of Unity Catalog the caller may see (SHOW, information_schema): MINILAKE_ENFORCE=1; absent, all. */
  visibility?: Visibility;
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

/**
 * The caller's view of Unity Catalog, as its REST lists filter (UnityCatalogApi.sees / seesGrant, bound to the
 * statement's caller): SHOW CATALOGS/SCHEMAS/TABLES and information_schema rows show only what it may see.
 */
export interface Visibility {
  sees(on: SecurableKind, fullName: string): boolean;
  /** A grant to `grantee` on a securable the caller sees (a `*_privileges` row). */
  seesGrant(on: SecurableKind, fullName: string, grantee: string): boolean;
}

/** Unity Catalog's visibility rule bound to one caller (the statement's, not whoever sends the next request). */
export function visibilityOf(uc: UnityCatalogApi, who: Caller): Visibility {
  return {
    sees: (on, fullName) => uc.sees(who, on, fullName),
    seesGrant: (on, fullName, grantee) => uc.seesGrant(who, on, fullName, grantee),
  };
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
