/** The translator's options, results and signals, shared by translate.ts and the rewriter. */
import type { PruneTerm } from '@minilake/tables';

export type Node = Record<string, unknown>;

export type Json = unknown;

export interface TranslateOptions {
  alias: (catalog: string) => string;
  currentCatalog: string;
  /** The Databricks catalog name current_catalog() reports. */
  sessionCatalog: string;
  /** The schema current_database()/current_schema() report (default `default`). */
  sessionSchema?: string;
  /** The statement's identity, which current_user()/user()/session_user() report. */
  user?: string;
  /** Probe mode: top-level avg(x)/sum(x) projections become any_value(x), to learn x's DuckDB type. */
  avgProbe?: boolean;
  /** Casts for top-level avg/sum projections (by index) to Spark's result type (AST data type nodes). */
  avgDecimals?: Map<number, Record<string, unknown>>;
  /** Declared parameter types by name (undefined = STRING, bound as VARCHAR). */
  paramTypes: Map<string, string | undefined>;
  /** `/Volumes/...` path literals (in file-reading positions) -> the volume's real path, resolved by the caller. */
  volumes?: Map<string, string>;
  /**
   * Tables whose data is not an engine object (EXTERNAL Delta), by lower-case `catalog.schema.table` -> the
   * name of the connection's temporary view over their snapshot; references to them are rewritten to it.
   */
  deltaViews?: Map<string, string>;
  /** The INSERT target that is an EXTERNAL Delta table -> the connection's temporary staging table. */
  deltaTargets?: Map<string, string>;
  /** The staged Delta target's columns: MERGE's `SET *` / `INSERT *` are expanded over them. */
  deltaColumns?: string[];
  /**
   * The temporary view over the staged Delta target's snapshot that `Translated.deltaProbe` reads (the rows
   * an UPDATE / DELETE / MERGE can change are staged from it).
   */
  deltaProbeView?: string;
}

/** File-reading table functions whose first argument (a path or a list of paths) may name a volume. */
export const PATH_FUNCS = new Set([
  'read_csv',
  'read_csv_auto',
  'read_parquet',
  'parquet_scan',
  'read_json',
  'read_json_auto',
  'read_ndjson',
  'read_ndjson_auto',
  'read_text',
  'read_blob',
  'glob',
]);

export const isVolumePath = (p: string): boolean => /^(dbfs:)?\/Volumes\//.test(p);

/** The statement names volume paths that are not resolved yet: resolve them and translate again. */
export class VolumesNeeded extends Error {
  constructor(readonly paths: string[]) {
    super('volume paths to resolve');
  }
}

export interface Translated {
  sql: string;
  /** Parameter names referenced, in order of first use. */
  params: string[];
  /** The outer SELECT's avg(...)/sum(...) projections: index and function (Spark's type depends on the argument). */
  avgColumns: { index: number; fn: 'avg' | 'sum' | 'div' }[];
  /**
   * Every table read (not a CTE, not the write target), first use first: lower-case `catalog.schema.table`,
   * or `delta.\`/path\`` as DELTA_PATH + the path; with the time travel suffix (travelKey) when it has one.
   */
  tables: string[];
  /** Outer SELECT projections whose Databricks type DuckDB's does not tell: index -> `INTERVAL DAY`, `VOID`. */
  columnTypes?: Map<number, string>;
  /** The table an INSERT/UPDATE/DELETE/MERGE writes, lower-case `catalog.schema.table`. */
  insertTarget?: string;
  /** Unity Catalog functions the text calls (`c.s.f`). */
  functions?: string[];
  /** The statement kind that writes insertTarget (INSERT, UPDATE, DELETE, MERGE). */
  writeKind?: string;
  /**
   * With `deltaProbeView`: `SELECT * FROM <view> [AS alias] WHERE <the statement's condition>` in DuckDB SQL,
   * the rows of the staged Delta target the statement can change (MERGE: a semi-join with its source on the
   * ON condition). Absent when every row must be staged (MERGE ... WHEN NOT MATCHED BY SOURCE).
   */
  deltaProbe?: string;
  /**
   * The top-level conjuncts of a staged UPDATE / DELETE's WHERE that compare a target column with a literal:
   * files whose partition values or stats rule them out are not staged (@minilake/delta PruneTerm).
   */
  deltaPrune?: DeltaPruneTerm[];
}

/** A conjunct the Delta writer prunes files with (@minilake/delta's PruneTerm, through the table layer). */
export type DeltaPruneTerm = PruneTerm;

export class TranslationFailed extends Error {}

/** Key prefix of a `delta.\`/path\`` reference in Translated.tables (paths keep their case). */
export const DELTA_PATH = '\u0000path:';
const TRAVEL = '\u0000at:';

/**
 * `expr`: a TIMESTAMP AS OF expression (or a VERSION AS OF parameter marker) as Databricks SQL text, evaluated
 * once by the engine before the snapshot is chosen (rewrite.ts).
 */
export type TravelSpec =
  { version: number } | { timestamp: number } | { expr: string; kind: 'timestamp' | 'version' };

/** A table key with its time travel (VERSION AS OF / @vN: version; TIMESTAMP AS OF / @yyyyMMdd...: ms). */
export function travelKey(base: string, at: TravelSpec | undefined): string {
  if (!at) return base;
  if ('expr' in at) return `${base}${TRAVEL}e${at.kind === 'version' ? 'v' : 't'}${at.expr}`;
  return 'version' in at ? `${base}${TRAVEL}v${at.version}` : `${base}${TRAVEL}t${at.timestamp}`;
}

export function parseTravelKey(key: string): {
  table: string | undefined;
  path: string | undefined;
  at: TravelSpec | undefined;
} {
  const i = key.indexOf(TRAVEL);
  const base = i >= 0 ? key.slice(0, i) : key;
  const spec = i >= 0 ? key.slice(i + TRAVEL.length) : undefined;
  const at: TravelSpec | undefined =
    spec === undefined
      ? undefined
      : spec.startsWith('e')
        ? { expr: spec.slice(2), kind: spec[1] === 'v' ? 'version' : 'timestamp' }
        : spec.startsWith('v')
          ? { version: Number(spec.slice(1)) }
          : { timestamp: Number(spec.slice(1)) };
  return base.startsWith(DELTA_PATH)
    ? { table: undefined, path: base.slice(DELTA_PATH.length), at }
    : { table: base, path: undefined, at };
}
