/**
 * Step 3 of the dialect pipeline (index.ts), rewrite: Databricks SQL text -> DuckDB SQL and its bound values
 * (translate.ts), with the lookups translation needs from the engine: volume paths resolved through Unity
 * Catalog, and a DESCRIBE probe for Spark's result types of avg/sum/division over decimals. Text polyglot
 * cannot translate but DuckDB runs as written falls through unchanged (never with a /Volumes path).
 */
import { createHash } from 'node:crypto';
import { ident } from '@minilake/engine-duckdb';
import { polyglot } from './polyglot.js';
import type { Session } from './session.js';
import { expandReadFiles } from './read-files.js';
import { SqlError, sqlError, unsupported } from './sql-error.js';
import { tokenType } from './tokens.js';
import { parseTravelKey } from './translate/common.js';
import {
  isVolumePath,
  translate,
  TranslationFailed,
  VolumesNeeded,
  type TranslateOptions,
} from './translate.js';
import { resolveVolumes } from './volumes.js';
import { INTERNAL_COLUMNS, type StagedRewrite } from '@minilake/tables';
import type { DeltaPruneTerm } from './translate/common.js';
import { connRunner, tableData } from './tables.js';
import { informationSchemaTables, refuseWrite } from './information-schema.js';

export interface Prepared {
  sql: string;
  values: Record<string, unknown>;
  fallback: string | undefined;
  /** Runs once the statement succeeded (an INSERT into a Delta table commits its staged rows). */
  after?: () => Promise<void>;
  /** UPDATE/DELETE/MERGE on a staged EXTERNAL Delta table: what to return, and the commit of the result. */
  delta?: DeltaDml;
  /** Result columns whose Databricks type the engine's type does not tell (intervals): index -> type text. */
  columnTypes?: Map<number, string>;
  /**
   * The translation used no per-statement engine objects (Delta views, information_schema tables, staging,
   * volume lookups): its DuckDB plan may be kept in the connection's prepared-statement cache.
   */
  cacheable?: boolean;
}

/**
 * A copy-on-write statement on a staged Delta table: MERGE runs with `RETURNING <returning>` (each changed
 * row's action and row id), UPDATE and DELETE without (no returning: DuckDB's count of changed rows is all
 * they need), then `finish` commits and reports Databricks' counters.
 */
export interface DeltaDml {
  returning?: string;
  finish(
    result: { rows: unknown[][] } | { count: number },
  ): Promise<{ affected: number; updated: number; deleted: number; inserted: number }>;
  /** Drops the staged table, after the commit or a failure. */
  cleanup(): Promise<void>;
}

export async function prepare(text: string, s: Session): Promise<Prepared> {
  text = await expandReadFiles(text, s);
  const paramTypes = new Map<string, string | undefined>();
  for (const [k, v] of s.params) paramTypes.set(k, v.type);
  const o: TranslateOptions = {
    alias: (c: string) => s.engine.alias(c),
    currentCatalog: s.catalog,
    sessionCatalog: s.catalog,
    sessionSchema: s.schema,
    ...(s.user !== undefined ? { user: s.user } : {}),
    paramTypes,
  };
  let delta: DeltaDml | undefined;
  try {
    let t: ReturnType<typeof translate>;
    try {
      t = translate(text, o);
    } catch (e) {
      if (!(e instanceof VolumesNeeded)) throw e;
      o.volumes = await resolveVolumes(e.paths, s);
      t = translate(text, o);
    }
    refuseWrite(t.insertTarget, t.writeKind);
    // Privileges (MINILAKE_ENFORCE=1), before anything is touched: MODIFY on the table the text writes
    // (INSERT, UPDATE, DELETE, MERGE), SELECT on the tables it reads (MERGE's source among them).
    if (s.authorize) {
      if (t.insertTarget !== undefined && t.writeKind !== undefined)
        await s.authorize({ on: 'table', fullName: t.insertTarget, privilege: 'MODIFY' });
      for (const k of t.tables) {
        const table = parseTravelKey(k).table;
        if (table !== undefined) await s.authorize({ on: 'table', fullName: table, privilege: 'SELECT' });
      }
      for (const f of t.functions ?? [])
        await s.authorize({ on: 'function', fullName: f, privilege: 'EXECUTE' });
    }
    // information_schema views: temporary tables filled from Unity Catalog (information-schema.ts).
    const info = await informationSchemaTables(t.tables, s);
    if (info.size > 0) {
      o.deltaViews = info;
      t = translate(text, o);
    }
    let after: (() => Promise<void>) | undefined;
    // The tables the text names, before Delta views replace them (the type probe's cache key).
    const named = t.tables;
    if ((t.tables.length > 0 || t.insertTarget !== undefined) && s.uc) {
      const target = t.insertTarget;
      const views = await deltaViews(t.tables, s, o);
      const kind = t.writeKind;
      let staged:
        | {
            table: string;
            commit?: () => Promise<void>;
            dml?: DeltaDml;
            columns?: string[];
            view?: string;
            stage?: (probe: string | undefined, prune: DeltaPruneTerm[] | undefined) => Promise<void>;
          }
        | undefined;
      if (target !== undefined)
        staged =
          kind === 'INSERT'
            ? await deltaStaging(target, kind, s)
            : await deltaRewrite(target, kind as 'UPDATE' | 'DELETE' | 'MERGE', s);
      if (staged) {
        o.deltaTargets = new Map([[target!, staged.table]]);
        after = staged.commit;
        delta = staged.dml;
        if (kind === 'MERGE') o.deltaColumns = staged.columns;
        if (staged.view) o.deltaProbeView = staged.view;
      }
      if (views.size > 0 || staged) {
        o.deltaViews = new Map([...info, ...views]);
        t = translate(text, o);
      }
      // The rows the statement can change are staged once its condition is known (the probe).
      await staged?.stage?.(t.deltaProbe, t.deltaPrune);
    }
    const values = boundValues(t.params, s);
    if (t.avgColumns.length > 0) {
      // Cached only when every table the text names became a Delta view (none is left to the engine).
      const key = t.tables.length === 0 ? probeKey(text, o, named, s) : undefined;
      let decimals = key === undefined ? undefined : probeCache.get(key);
      if (!decimals) {
        decimals = await avgDecimalTypes(text, o, t.avgColumns, values, s);
        if (key !== undefined) {
          if (probeCache.size >= PROBE_CACHE_MAX) probeCache.delete(probeCache.keys().next().value!);
          probeCache.set(key, decimals);
        }
      }
      if (decimals.size > 0) t = translate(text, { ...o, avgDecimals: decimals });
    }
    for (const k of t.tables) {
      if (o.deltaViews?.has(k)) continue;
      const { table, path, at } = parseTravelKey(k);
      if (path !== undefined)
        throw sqlError('DELTA_MISSING_DELTA_TABLE', '42P01', `\`delta\`.\`${path}\` is not a Delta table.`);
      if (at) throw unsupported(`Delta time travel on ${table}, which is not a Delta table`);
    }
    if (delta) return { sql: t.sql, values, fallback: undefined, delta };
    if (after) return { sql: t.sql, values, fallback: undefined, after };
    const cacheable = o.volumes === undefined && o.deltaViews === undefined;
    if (t.columnTypes) return { sql: t.sql, values, fallback: text, columnTypes: t.columnTypes, cacheable };
    return { sql: t.sql, values, fallback: text, cacheable };
  } catch (e) {
    await delta?.cleanup();
    if (e instanceof SqlError) throw e;
    if (e instanceof TranslationFailed) {
      // Text that runs as written must not reach the host's /Volumes: its paths could not be mapped.
      if (namesVolume(text))
        throw unsupported(
          'This statement form with a /Volumes path (use read_csv/read_parquet/read_json/read_text or a simpler COPY)',
        );
      return { sql: text, values: {}, fallback: undefined };
    }
    throw e;
  }
}

/**
 * The avg/sum type probe's answers for statements that read only Delta tables, keyed by the text, the
 * namespace, the parameter types and each table's snapshot stamp (version and scan): the result types
 * depend on nothing else, so a repeated query on an unchanged table skips the DESCRIBE (which binds
 * read_parquet over every file of the snapshot).
 */
const probeCache = new Map<string, Map<number, Record<string, unknown>>>();
const PROBE_CACHE_MAX = 500;

function probeKey(text: string, o: TranslateOptions, tables: string[], s: Session): string | undefined {
  const made = viewsMade.get(s.conn);
  if (!made || tables.length === 0) return undefined;
  const h = createHash('sha256');
  h.update(`${o.currentCatalog}\u0000${o.sessionSchema ?? ''}\u0000`);
  for (const [k, v] of o.paramTypes) h.update(`${k}:${v ?? ''},`);
  h.update(`\u0000${text}`);
  for (const k of tables) {
    const view = o.deltaViews?.get(k);
    const stamp = view === undefined ? undefined : made.get(view);
    // Any other table (an engine table, a temporary view) could change type unseen here: no caching.
    if (stamp === undefined) return undefined;
    h.update(`\u0000${k}\u0000${stamp}`);
  }
  return h.digest('hex');
}

/** Temporary views, on the statement's connection, over the snapshots of this connection's Delta tables. */
const viewsMade = new WeakMap<object, Map<string, string>>();

/**
 * For each referenced table that is an EXTERNAL Delta table (or a `delta.\`/path\``): a temporary view over its
 * snapshot at the log's current version (checked on every statement, so a commit by Spark is seen at once),
 * or at the version / timestamp the reference travels to. A connection keeps the views it made, so an
 * unchanged table is not re-bound.
 */
async function deltaViews(tables: string[], s: Session, o: TranslateOptions): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let made = viewsMade.get(s.conn);
  if (!made) viewsMade.set(s.conn, (made = new Map()));
  for (const key of tables) {
    const { table, path, at: spec } = parseTravelKey(key);
    const ref = path !== undefined ? { path } : table!;
    const at = spec && 'expr' in spec ? await travelValue(spec, s, o) : spec;
    const data = await tableData(s, ref);
    const scan = await data?.format.scan(
      data.descriptor,
      at === undefined ? undefined : 'version' in at ? at.version : { timestamp: at.timestamp },
    );
    if (!scan) continue;
    const view = `__ml_delta_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
    const stamp = `${scan.version}\u0000${scan.sql}`;
    if (made.get(view) !== stamp) {
      await s.conn.run(`CREATE OR REPLACE TEMP VIEW ${ident(view)} AS ${scan.sql}`);
      made.set(view, stamp);
    }
    out.set(key, view);
  }
  return out;
}

/**
 * A time travel expression's value, folded once by the engine: the expression (Databricks SQL, parameter
 * markers bound from the statement) is translated and evaluated as `CAST(expr AS TIMESTAMP)` (ms since the
 * epoch; the session time zone is UTC) or, for VERSION AS OF, `CAST(expr AS BIGINT)`. What cannot be cast,
 * or is NULL, fails as Spark reports it.
 */
async function travelValue(
  spec: { expr: string; kind: 'timestamp' | 'version' },
  s: Session,
  o: TranslateOptions,
): Promise<{ version: number } | { timestamp: number }> {
  const version = spec.kind === 'version';
  const t = translate(`SELECT CAST((${spec.expr}) AS ${version ? 'BIGINT' : 'TIMESTAMP'}) AS v`, {
    ...o,
    deltaViews: new Map(),
  });
  const values = boundValues(t.params, s);
  const invalid = () =>
    version
      ? sqlError(
          'INVALID_TIME_TRAVEL_SPEC',
          '42K0E',
          `VERSION AS OF takes a non-negative integer; ${spec.expr} is not one.`,
        )
      : sqlError(
          'INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.INPUT',
          '42K0E',
          `The time travel timestamp expression ${spec.expr} is invalid. Cannot be casted to the "TIMESTAMP" type.`,
        );
  let v: unknown;
  try {
    const r = await s.conn.runAndReadAll(
      `SELECT ${version ? 'v' : 'epoch_ms(v)'} AS v FROM (${t.sql})`,
      Object.keys(values).length ? values : undefined,
    );
    v = r.getRows()[0]?.[0];
  } catch {
    throw invalid();
  }
  if (v === null || v === undefined) throw invalid();
  const n = Number(v);
  if (version) {
    if (!Number.isSafeInteger(n) || n < 0) throw invalid();
    return { version: n };
  }
  return { timestamp: n };
}

/**
 * INSERT into an EXTERNAL Delta table: DuckDB inserts into an empty temporary table shaped like the table
 * (so column lists, casts and defaults behave as for any INSERT), then the staged rows become one Delta
 * commit and the staging table is dropped.
 */
async function deltaStaging(
  full: string,
  kind: string | undefined,
  s: Session,
): Promise<{ table: string; commit: () => Promise<void> } | undefined> {
  const data = await tableData(s, full);
  const scan = await data?.format.scan(data.descriptor);
  if (!data || !scan) return undefined;
  if (kind !== 'INSERT')
    throw unsupported(`${kind ?? 'This statement'} on an EXTERNAL Delta table (INSERT INTO is supported)`);
  const table = `__ml_delta_ins_${createHash('sha256').update(full).digest('hex').slice(0, 16)}`;
  const ref = `temp.main.${ident(table)}`;
  // Shaped from the snapshot's column types when the scan tells them (the scan casts every column to
  // them); `SELECT * ... LIMIT 0` over the scan would bind read_parquet over every file of the table.
  const shape = scan.columns
    ? `(${scan.columns.map((c) => `${ident(c.name)} ${c.type}`).join(', ')})`
    : `AS SELECT * FROM (${scan.sql}) LIMIT 0`;
  await s.conn.run(`CREATE OR REPLACE TEMP TABLE ${ident(table)} ${shape}`);
  const runner = connRunner(s);
  return {
    table,
    commit: async () => {
      try {
        await data.format.append(data.descriptor, ref, runner);
      } finally {
        await s.conn.run(`DROP TABLE IF EXISTS ${ref}`);
      }
    },
  };
}

/**
 * UPDATE / DELETE / MERGE on an EXTERNAL Delta table: the statement is translated against a temporary table
 * named here, then `stage` fills it with the rows it can change (the probe, Translated.deltaProbe, over a
 * view of the snapshot; every row without one). DuckDB runs the statement on it returning what it changed,
 * and one Delta commit rewrites the files that held changed rows, or marks them in deletion vectors
 * (@minilake/delta DeltaTable).
 */
async function deltaRewrite(
  full: string,
  kind: 'UPDATE' | 'DELETE' | 'MERGE',
  s: Session,
): Promise<
  | {
      table: string;
      view: string;
      dml: DeltaDml;
      columns: string[];
      stage: (probe: string | undefined, prune: DeltaPruneTerm[] | undefined) => Promise<void>;
    }
  | undefined
> {
  const data = await tableData(s, full);
  const dt = data?.format.writer(data.descriptor, connRunner(s));
  if (!dt) return undefined;
  const table = `__ml_delta_dml_${createHash('sha256').update(full).digest('hex').slice(0, 16)}`;
  const view = `${table}_scan`;
  const columns = await dt.columnNames();
  let staged: StagedRewrite | undefined;
  // commitInfo.operationParameters: Spark prints its analysed predicates there; MiniLake has no such form, so
  // the keys Databricks readers look for are present and empty rather than filled with something else.
  const dml: DeltaDml = {
    // The staged table tells which rows changed (deleted, or marked by the update). UPDATE and DELETE only
    // need their count, which DuckDB answers itself (10,000 row ids read into JavaScript just to be counted
    // cost more); MERGE returns each row's action (its counters) and row id (a target row updated twice).
    ...(kind === 'MERGE' ? { returning: `merge_action, ${INTERNAL_COLUMNS.row}` } : {}),
    cleanup: async () => {
      await staged?.drop();
    },
    finish: async (result) => {
      if (!staged) throw new Error('deltaRewrite: the statement ran before its rows were staged');
      const n = { UPDATE: 0, DELETE: 0, INSERT: 0 } as Record<string, number>;
      const updatedRows = new Set<string>();
      const rows = 'rows' in result ? result.rows : [];
      if ('count' in result) n[kind] = result.count;
      for (const r of rows) {
        const action = kind === 'MERGE' ? String(r[0]) : kind;
        const row = kind === 'MERGE' ? r[1] : r[0];
        n[action] = (n[action] ?? 0) + 1;
        if (kind === 'MERGE' && action === 'UPDATE' && row !== null && row !== undefined) {
          const key = String(row);
          if (updatedRows.has(key))
            throw sqlError(
              'DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE',
              '21506',
              'Cannot perform Merge as multiple source rows matched and attempted to modify the same target row in the Delta table in possibly conflicting ways. By SQL semantics of Merge, when multiple source rows match on the same target row, the result may be ambiguous as it is unclear which source row should be used to update or delete the matching target row. You can preprocess the source table to eliminate the possibility of multiple matches.',
            );
          updatedRows.add(key);
        }
      }
      const counts = { updated: n.UPDATE ?? 0, deleted: n.DELETE ?? 0, inserted: n.INSERT ?? 0 };
      await staged.commit({
        operation: kind,
        touched: [],
        counts,
        parameters:
          kind === 'MERGE'
            ? {
                predicate: '[]',
                matchedPredicates: '[]',
                notMatchedPredicates: '[]',
                notMatchedBySourcePredicates: '[]',
              }
            : { predicate: '[]' },
      });
      return { affected: 'count' in result ? result.count : rows.length, ...counts };
    },
  };
  return {
    table,
    view,
    dml,
    columns,
    stage: async (probe, prune) => {
      staged = await dt.stage(table, {
        ...(probe === undefined ? {} : { probe, view }),
        ...(prune ? { prune } : {}),
      });
    },
  };
}

export function namesVolume(text: string): boolean {
  const { tokenize, Dialect } = polyglot();
  const r = tokenize(text, Dialect.Databricks);
  return !!r.tokens?.some((t) => tokenType(t) === 'STRING' && isVolumePath(t.text));
}

/**
 * DESCRIBE of the probe query tells the DuckDB type of each avg/sum argument, giving Spark's result type:
 * avg(DECIMAL(p, s)) = DECIMAL(p + 4, s + 4); sum(DECIMAL(p, s)) = DECIMAL(p + 10, s); sum(integral) = BIGINT
 * (DuckDB: DOUBLE, DECIMAL(38, s), HUGEINT).
 */
export async function avgDecimalTypes(
  text: string,
  o: Parameters<typeof translate>[1],
  columns: { index: number; fn: 'avg' | 'sum' | 'div' }[],
  values: Record<string, unknown>,
  s: Session,
): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>();
  try {
    const probe = translate(text, { ...o, avgProbe: true });
    const r = await s.conn.runAndReadAll(
      `DESCRIBE ${probe.sql}`,
      Object.keys(values).length > 0 ? values : undefined,
    );
    const rows = r.getRows();
    for (const { index, fn } of columns) {
      const type = String(rows[index]?.[1] ?? '');
      if (fn === 'div') {
        const t = sparkDivisionType(type);
        if (t) out.set(index, t);
        continue;
      }
      const m = type.match(/^DECIMAL\((\d+),\s*(\d+)\)$/);
      if (m) {
        const [p, sc] = [Number(m[1]), Number(m[2])];
        out.set(
          index,
          fn === 'avg'
            ? { data_type: 'decimal', precision: Math.min(38, p + 4), scale: Math.min(38, sc + 4) }
            : { data_type: 'decimal', precision: Math.min(38, p + 10), scale: sc },
        );
      } else if (fn === 'sum' && ['INTEGER', 'BIGINT', 'SMALLINT', 'TINYINT'].includes(type)) {
        out.set(index, { data_type: 'big_int', length: null });
      }
    }
  } catch {
    // The real statement reports its own error.
  }
  return out;
}

/** Spark's integral types as decimals when they meet a DECIMAL in arithmetic. */
export const INTEGRAL_DECIMAL: Record<string, [number, number]> = {
  TINYINT: [3, 0],
  SMALLINT: [5, 0],
  INTEGER: [10, 0],
  BIGINT: [20, 0],
};

/**
 * Spark's type of `a / b` from the probe's `STRUCT(<type of a>, <type of b>)`: when a DECIMAL meets a DECIMAL
 * or an integral type, DECIMAL(p1 - s1 + s2 + max(6, s1 + p2 + 1), max(6, s1 + p2 + 1)) bounded to 38 digits
 * as Spark bounds it (keeping at least 6 fraction digits). Anything else stays as DuckDB computes it.
 */
export function sparkDivisionType(struct: string): Record<string, unknown> | undefined {
  const m = struct.match(
    /^STRUCT\((?:"?\w*"?\s+)?([A-Z]+(?:\(\d+,\s*\d+\))?),\s*(?:"?\w*"?\s+)?([A-Z]+(?:\(\d+,\s*\d+\))?)\)$/,
  );
  if (!m) return undefined;
  const dec = (t: string): [number, number] | undefined => {
    const d = t.match(/^DECIMAL\((\d+),\s*(\d+)\)$/);
    return d ? [Number(d[1]), Number(d[2])] : INTEGRAL_DECIMAL[t];
  };
  const [a, b] = [dec(m[1]!), dec(m[2]!)];
  if (!a || !b || (!m[1]!.startsWith('DECIMAL') && !m[2]!.startsWith('DECIMAL'))) return undefined;
  const [[p1, s1], [p2, s2]] = [a, b];
  let scale = Math.max(6, s1 + p2 + 1);
  let precision = p1 - s1 + s2 + scale;
  if (precision > 38) {
    const intDigits = precision - scale;
    scale = Math.max(38 - intDigits, Math.min(scale, 6));
    precision = 38;
  }
  return { data_type: 'decimal', precision, scale };
}

/** The values of a statement's parameter markers, or Databricks' error naming the first one left unbound. */
function boundValues(names: readonly string[], s: Session): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const p of names) {
    const v = s.params.get(p);
    if (!v)
      throw sqlError(
        'UNBOUND_SQL_PARAMETER',
        '42P02',
        `Found the unbound parameter: ${p}. Please, fix \`args\` and provide a mapping of the parameter to either a SQL literal or collection constructor functions such as \`map()\`, \`array()\`, \`struct()\`.`,
      );
    values[p] = v.value;
  }
  return values;
}
