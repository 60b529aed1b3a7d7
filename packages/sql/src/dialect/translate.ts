/**
 * Databricks SQL -> DuckDB SQL for one statement: parse (Databricks) -> rewrite the AST (catalog aliases,
 * :name parameters, Spark semantics through spark_* macros) -> generate -> polyglot's Databricks->DuckDB
 * transpile -> two token-level fixes on the output (CAST stays CAST, MERGE UPDATE SET *).
 * Translations are cached by text + namespace + parameter types, so repeated statements skip all of it.
 *
 * Pieces: translate/common.ts (options and signals), translate/text.ts (text and token steps),
 * translate/rewriter.ts (the AST rewrite), translate/names.ts (Spark column names).
 */
import { INTERNAL_COLUMNS } from '@minilake/tables';
import { polyglot } from './polyglot.js';
import {
  TranslationFailed,
  VolumesNeeded,
  type DeltaPruneTerm,
  type Json,
  type Node,
  type TranslateOptions,
  type Translated,
} from './translate/common.js';
import { nameProjections, sparkName } from './translate/names.js';
import { fn, ident, kindOf } from './translate/ast.js';
import { Rewriter } from './translate/rewriter.js';
import { typedProjections } from './translate/intervals.js';
import { fixTokens, ORDER_BY_ALL, typedLiterals } from './translate/text.js';

export {
  isVolumePath,
  TranslationFailed,
  VolumesNeeded,
  type TranslateOptions,
  type Translated,
} from './translate/common.js';
export { javaReplacement, javaToStrftime } from './translate/text.js';

const cache = new Map<string, Translated>();

const CACHE_MAX = 2000;

/**
 * avg(decimal) is DECIMAL(p + 4, s + 4) in Spark and DOUBLE in DuckDB. The outer SELECT's avg projections are
 * reported, probed by the executor (any_value(x) through DESCRIBE) and cast when their argument is a DECIMAL.
 */
function avgProjections(stmt: Node, o: TranslateOptions): { index: number; fn: 'avg' | 'sum' | 'div' }[] {
  const kd = kindOf(stmt);
  if (!kd || kd[0] !== 'select') return [];
  const exprs = kd[1].expressions as Json[] | undefined;
  if (!Array.isArray(exprs)) return [];
  const found: { index: number; fn: 'avg' | 'sum' | 'div' }[] = [];
  exprs.forEach((e, i) => {
    const ek = kindOf(e);
    const holder = ek?.[0] === 'alias' ? ek[1] : undefined;
    const inner = holder ? kindOf(holder.this) : ek;
    if (!inner) return;
    const avgNode = holder ? holder.this : e;
    let replacement: Json | undefined;
    if (inner[0] === 'avg' || inner[0] === 'sum') {
      found.push({ index: i, fn: inner[0] });
      if (o.avgProbe) replacement = fn('any_value', [inner[1].this]);
    } else if (inner[0] === 'function' && inner[1].name === 'spark_div') {
      // Decimal `/` is a DECIMAL in Spark, a DOUBLE in DuckDB: probe both operand types (aggregate operands
      // are left alone, DuckDB's sum/avg types differ from Spark's).
      const args = inner[1].args as Json[];
      if (args.some((a) => ['avg', 'sum'].includes(kindOf(a)?.[0] ?? ''))) return;
      // Without a Spark name for the column, keep DuckDB's DOUBLE rather than invent one.
      if (!holder && sparkName(e) === undefined) return;
      found.push({ index: i, fn: 'div' });
      if (o.avgProbe) replacement = fn('spark_pair', args);
    } else return;
    const to = o.avgDecimals?.get(i);
    if (to) replacement = { cast: { this: avgNode, to, trailing_comments: [], double_colon_syntax: false } };
    if (replacement === undefined) return;
    if (holder) holder.this = replacement;
    else
      exprs[i] = {
        alias: {
          this: replacement,
          alias: ident(sparkName(e) ?? 'avg'),
          column_aliases: [],
          alias_explicit_as: true,
          pre_alias_comments: [],
          trailing_comments: [],
        },
      };
  });
  return found;
}

export function translate(text: string, o: TranslateOptions): Translated {
  const avgKey = o.avgProbe
    ? 'probe'
    : [...(o.avgDecimals ?? [])].map(([i, t]) => `${i}:${JSON.stringify(t)}`).join(';');
  const deltaKey = [
    ...(o.deltaViews ?? []),
    ...[...(o.deltaTargets ?? [])].map(([k, v]) => [`>${k}`, v]),
    ...(o.deltaColumns ? [['*', o.deltaColumns.join('\u0002')]] : []),
    ...(o.deltaProbeView ? [['?', o.deltaProbeView]] : []),
  ]
    .map(([k, v]) => `${k}=${v}`)
    .join('\u0001');
  const volKey = o.volumes ? [...o.volumes].map(([k, v]) => `${k}=${v}`).join('\u0001') : '';
  const key = `${o.currentCatalog}\u0000${o.sessionSchema ?? ''}\u0000${o.user ?? ''}\u0000${[...o.paramTypes].map(([k, v]) => `${k}:${v ?? ''}`).join(',')}\u0000${avgKey}\u0000${volKey}\u0000${deltaKey}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const { parse, generate, transpile, Dialect } = polyglot();
  const r = parse(typedLiterals(text), Dialect.Databricks);
  if (!r.success || !r.ast || r.ast.length !== 1) throw new TranslationFailed(r.error ?? 'cannot parse');
  const rw = new Rewriter(o);
  rw.cteNames = cteNames(r.ast[0]);
  const root = r.ast[0] as Node;
  rw.insertNode = (root.insert ?? root.update ?? root.delete) as Node | undefined;
  rw.insertNode = rw.insertNode?.table as Node | undefined;
  rw.insertAliased = !!((root.update ?? root.delete) as Node | undefined)?.alias;
  if (root.merge) {
    // MERGE INTO t [AS x]: the target is the table node, alone or under its alias.
    const m = (root.merge as Node).this as Node | undefined;
    rw.insertNode = ((((m?.alias as Node | undefined)?.this as Node | undefined) ?? m)?.table ??
      undefined) as Node | undefined;
    rw.insertAliased = !!m?.alias;
    if (o.deltaColumns) expandMergeStars(root.merge as Node, o.deltaColumns);
  }
  if (rw.insertNode) rw.writeKind = Object.keys(root)[0]!.toUpperCase();
  // Read before the rewrite: it replaces interval literals with the single-unit forms DuckDB reads.
  const columnTypes = typedProjections(r.ast[0]);
  markOrderByAll(r.ast[0]);
  const stmt = rw.walk(r.ast[0]) as Node;
  if (rw.volumesNeeded.length > 0) throw new VolumesNeeded(rw.volumesNeeded);
  const staged = rw.insertTarget !== undefined && o.deltaTargets?.has(rw.insertTarget);
  if (staged && stmt.update) {
    // The staged table's marker of updated rows (@minilake/delta TOUCHED_COLUMN), as MERGE's updates set it.
    const set = (stmt.update as Node).set as Json[] | undefined;
    set?.push([ident(INTERNAL_COLUMNS.touched, false), { boolean: { value: true } }]);
  }
  const probeAst = staged && o.deltaProbeView ? deltaProbe(stmt, o.deltaProbeView) : undefined;
  const prune = staged ? pruneTerms(stmt) : [];
  nameProjections(stmt);
  const avgColumns = avgProjections(stmt, o);
  const g = generate([stmt], Dialect.Databricks);
  if (!g.success || !g.sql?.[0]) throw new TranslationFailed(g.error ?? 'cannot generate');
  const t = transpile(g.sql[0], Dialect.Databricks, Dialect.DuckDB);
  if (!t.success || !t.sql?.[0]) throw new TranslationFailed(t.error ?? 'cannot transpile');
  const out: Translated = { sql: fixTokens(t.sql[0]), params: rw.params, avgColumns, tables: rw.tables };
  if (columnTypes.size > 0) out.columnTypes = columnTypes;
  if (probeAst) {
    const pg = generate([probeAst], Dialect.Databricks);
    const pt =
      pg.success && pg.sql?.[0] ? transpile(pg.sql[0], Dialect.Databricks, Dialect.DuckDB) : undefined;
    // Without a probe every row is staged: slower, never wrong.
    if (pt?.success && pt.sql?.[0]) out.deltaProbe = fixTokens(pt.sql[0]);
  }
  if (prune.length) out.deltaPrune = prune;
  if (rw.insertTarget) out.insertTarget = rw.insertTarget;
  if (rw.functions.length) out.functions = rw.functions;
  if (rw.writeKind) out.writeKind = rw.writeKind;
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, out);
  return out;
}

const clone = <T>(n: T): T => structuredClone(n);

/**
 * `ORDER BY ALL` (every projection, in order; Databricks and DuckDB both have it): polyglot reads the ALL as
 * a column and prints it quoted, a column DuckDB cannot find. The bare word gets a marker name that
 * fixTokens turns back into the keyword. (A column really named `all` is written with backticks: quoted.)
 */
function markOrderByAll(n: Json): void {
  if (!n || typeof n !== 'object') return;
  if (Array.isArray(n)) {
    for (const x of n) markOrderByAll(x);
    return;
  }
  const ob = (n as Node).order_by as Node | undefined;
  if (ob && Array.isArray(ob.expressions) && ob.expressions.length === 1) {
    const col = ((ob.expressions[0] as Node).this as Node | undefined)?.column as Node | undefined;
    const name = col?.name as Node | undefined;
    if (name && !col!.table && !name.quoted && String(name.name).toUpperCase() === 'ALL')
      name.name = ORDER_BY_ALL;
  }
  for (const v of Object.values(n as Node)) markOrderByAll(v as Json);
}

/** A parsed template statement (Databricks dialect), cloned for each use. */
function template(text: string): Node {
  const { parse, Dialect } = polyglot();
  const r = parse(text, Dialect.Databricks);
  if (!r.success || !r.ast?.[0]) throw new TranslationFailed(r.error ?? 'cannot parse');
  return r.ast[0] as Node;
}

/**
 * The probe of a staged Delta UPDATE / DELETE / MERGE (Translated.deltaProbe), built on the rewritten AST: the
 * target's table node pointed at `view` (its alias kept, so the condition's column references resolve), and
 * the statement's WHERE; MERGE keeps the target rows for which its source has a row satisfying ON (only when
 * no WHEN NOT MATCHED BY SOURCE clause needs the other rows).
 */
function deltaProbe(stmt: Node, view: string): Node | undefined {
  const retarget = (n: Json): Json => {
    const c = clone(n) as Node;
    const t = ((c.table as Node | undefined) ??
      (((c.alias as Node | undefined)?.this as Node | undefined)?.table as Node | undefined)) as
      Node | undefined;
    if (!t) return c;
    t.name = ident(view);
    return c;
  };
  const dml = (stmt.update ?? stmt.delete) as Node | undefined;
  if (dml) {
    if (stmt.update && (dml.from_clause || (dml.from_joins as Json[] | undefined)?.length)) return undefined;
    if (stmt.delete && (dml.using as Json[] | undefined)?.length) return undefined;
    const probe = template('SELECT * FROM __ml_probe WHERE TRUE');
    const sel = probe.select as Node;
    const target = retarget({ table: dml.table }) as Node;
    if (stmt.delete && dml.alias) (target.table as Node).alias = clone(dml.alias);
    ((sel.from as Node).expressions as Json[])[0] = target;
    sel.where_clause = dml.where_clause ? clone(dml.where_clause) : null;
    return probe;
  }
  const merge = stmt.merge as Node | undefined;
  if (!merge) return undefined;
  const holder = merge.whens as Node | undefined;
  const whens = (((holder?.whens as Node | undefined) ?? holder)?.expressions ?? []) as Json[];
  const bySource = whens.some(
    (w) =>
      (((w as Node).when as Node | undefined)?.source as Node | undefined)?.boolean !== undefined &&
      (((((w as Node).when as Node).source as Node).boolean as Node).value as boolean) === true,
  );
  if (bySource || !merge.on || !merge.using) return undefined;
  const probe = template('SELECT * FROM __ml_probe WHERE EXISTS (SELECT 1 FROM __ml_source WHERE TRUE)');
  const sel = probe.select as Node;
  ((sel.from as Node).expressions as Json[])[0] = retarget(merge.this);
  const exists = ((sel.where_clause as Node).this as Node).exists as Node;
  const inner = (exists.this as Node).select as Node;
  ((inner.from as Node).expressions as Json[])[0] = clone(merge.using);
  (inner.where_clause as Node).this = clone(merge.on);
  return probe;
}

const FLIP: Record<string, DeltaPruneTerm['op']> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' };
const COMPARE: Record<string, DeltaPruneTerm['op']> = { eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' };

/**
 * The conjuncts of a staged UPDATE / DELETE's WHERE of the form `column op literal` (also IN lists, BETWEEN,
 * IS [NOT] NULL) on the target's own columns: what file pruning can judge from stats. Anything else is left
 * out, which only keeps more files.
 */
function pruneTerms(stmt: Node): DeltaPruneTerm[] {
  const dml = (stmt.update ?? stmt.delete) as Node | undefined;
  const where = (dml?.where_clause as Node | undefined)?.this;
  if (!dml || !where) return [];
  const table = dml.table as Node | undefined;
  const alias = ((dml.alias ?? table?.alias) as { name?: string } | null | undefined)?.name?.toLowerCase();
  const colOf = (n: Json): string | undefined => {
    const k = kindOf(n);
    if (k?.[0] === 'paren') return colOf(k[1].this);
    if (k?.[0] !== 'column') return undefined;
    const q = (k[1].table as { name?: string } | null)?.name?.toLowerCase();
    if (q !== undefined && q !== alias) return undefined;
    return (k[1].name as { name?: string } | undefined)?.name;
  };
  const valueOf = (n: Json): number | string | undefined => {
    const k = kindOf(n);
    if (!k) return undefined;
    if (k[0] === 'paren') return valueOf(k[1].this);
    if (k[0] === 'neg') {
      const v = valueOf(k[1].this);
      return typeof v === 'number' ? -v : undefined;
    }
    if (k[0] !== 'literal') return undefined;
    const { literal_type: t, value } = k[1] as { literal_type?: string; value?: string };
    if (typeof value !== 'string') return undefined;
    if (t === 'number') {
      const v = Number(value);
      return Number.isFinite(v) ? v : undefined;
    }
    if (t === 'string') return value;
    if (t === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
    return undefined;
  };
  const out: DeltaPruneTerm[] = [];
  const visit = (n: Json): void => {
    const k = kindOf(n);
    if (!k) return;
    const [kind, node] = k;
    if (kind === 'and') {
      visit(node.left);
      visit(node.right);
    } else if (kind === 'paren') visit(node.this);
    else if (COMPARE[kind]) {
      const [lc, rv, rc, lv] = [colOf(node.left), valueOf(node.right), colOf(node.right), valueOf(node.left)];
      if (lc !== undefined && rv !== undefined) out.push({ column: lc, op: COMPARE[kind]!, values: [rv] });
      else if (rc !== undefined && lv !== undefined)
        out.push({ column: rc, op: FLIP[COMPARE[kind]!]!, values: [lv] });
    } else if (kind === 'in' && !node.not && !node.query) {
      const c = colOf(node.this);
      const vs = ((node.expressions as Json[] | undefined) ?? []).map(valueOf);
      if (c !== undefined && vs.length && vs.every((v) => v !== undefined))
        out.push({ column: c, op: 'in', values: vs as (number | string)[] });
    } else if (kind === 'between' && !node.not) {
      const c = colOf(node.this);
      const [lo, hi] = [valueOf(node.low), valueOf(node.high)];
      if (c !== undefined && lo !== undefined) out.push({ column: c, op: '>=', values: [lo] });
      if (c !== undefined && hi !== undefined) out.push({ column: c, op: '<=', values: [hi] });
    } else if (kind === 'is_null') {
      const c = colOf(node.this);
      if (c !== undefined) out.push({ column: c, op: node.not ? 'notnull' : 'null', values: [] });
    }
  };
  visit(where);
  return out;
}

/** The name MERGE's source goes by: its alias, or the table's own name. */
function sourceName(using: Json): string | undefined {
  const k = kindOf(using);
  if (!k) return undefined;
  if (k[0] === 'alias') return (k[1].alias as { name?: string } | undefined)?.name;
  if (k[0] === 'subquery') return (k[1].alias as { name?: string } | undefined)?.name;
  if (k[0] === 'table') {
    const t = k[1];
    return ((t.alias as { name?: string } | null) ?? (t.name as { name?: string })).name;
  }
  return undefined;
}

const column = (name: string, table: string): Node => ({
  column: { name: ident(name), table: ident(table), join_mark: false, trailing_comments: [] },
});

/**
 * MERGE into a staged Delta target: `UPDATE SET *` and `INSERT *` become explicit lists over the table's
 * columns, by name from the source (Spark's meaning; DuckDB's star is positional and the staged table has
 * bookkeeping columns), an INSERT without a column list gets the table's columns, and every UPDATE sets the
 * staged table's touched marker.
 */
function expandMergeStars(merge: Node, columns: string[]): void {
  const holder = merge.whens as Node | undefined;
  const whens = (((holder?.whens as Node | undefined) ?? holder)?.expressions ?? []) as Json[];
  const src = sourceName(merge.using);
  for (const w of whens) {
    const then = ((w as Node).when as Node | undefined)?.then;
    const tk = kindOf(then);
    if (!tk || tk[0] !== 'tuple') continue;
    const parts = tk[1].expressions as Json[];
    const verb = (kindOf(parts[0])?.[1].this as string | undefined)?.toUpperCase();
    const star = kindOf(parts[1])?.[0] === 'star';
    if (star && !src) throw new TranslationFailed('MERGE ... * needs a named source');
    const assign = (name: string, value: Json): Node => ({
      eq: {
        left: { identifier: ident(name) },
        right: value,
        left_comments: [],
        operator_comments: [],
        trailing_comments: [],
      },
    });
    if (verb === 'UPDATE') {
      // Every update also sets the staged table's marker of updated rows (@minilake/delta TOUCHED_COLUMN).
      const marker = assign(INTERNAL_COLUMNS.touched, { boolean: { value: true } });
      if (star)
        parts[1] = { tuple: { expressions: [...columns.map((c) => assign(c, column(c, src!))), marker] } };
      else (kindOf(parts[1])?.[1].expressions as Json[] | undefined)?.push(marker);
    } else if (verb === 'INSERT' && star) {
      parts.splice(
        1,
        1,
        { tuple: { expressions: columns.map((c) => ({ identifier: ident(c) })) } },
        { tuple: { expressions: columns.map((c) => column(c, src!)) } },
      );
    } else if (verb === 'INSERT' && parts.length === 2) {
      parts.splice(1, 0, { tuple: { expressions: columns.map((c) => ({ identifier: ident(c) })) } });
    }
  }
}

/** Every CTE name defined anywhere in the statement (lower case). */
function cteNames(n: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(n)) for (const x of n) cteNames(x, out);
  else if (n && typeof n === 'object') {
    const ctes = ((n as Record<string, unknown>).with as { ctes?: unknown } | null | undefined)?.ctes;
    if (Array.isArray(ctes))
      for (const c of ctes) {
        const a = (c as { alias?: { name?: unknown } }).alias?.name;
        if (typeof a === 'string') out.add(a.toLowerCase());
      }
    for (const [k, v] of Object.entries(n)) if (k !== 'span') cteNames(v, out);
  }
  return out;
}
