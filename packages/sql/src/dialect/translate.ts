/**
 * Databricks SQL -> DuckDB SQL for one statement: parse (Databricks) -> rewrite the AST (catalog aliases,
 * :name parameters, Spark semantics through spark_* macros) -> generate -> polyglot's Databricks->DuckDB
 * transpile -> two token-level fixes on the output (CAST stays CAST, MERGE UPDATE SET *).
 * Translations are cached by text + namespace + parameter types, so repeated statements skip all of it.
 *
 * Pieces: translate/common.ts (options and signals), translate/text.ts (text and token steps),
 * translate/rewriter.ts (the AST rewrite), translate/names.ts (Spark column names).
 */
import { polyglot } from './polyglot.js';
import {
  TranslationFailed,
  VolumesNeeded,
  type Json,
  type Node,
  type TranslateOptions,
  type Translated,
} from './translate/common.js';
import { nameProjections, sparkName } from './translate/names.js';
import { fn, ident, kindOf } from './translate/ast.js';
import { Rewriter } from './translate/rewriter.js';
import { fixTokens, typedLiterals } from './translate/text.js';

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
  const deltaKey = [...(o.deltaViews ?? []), ...[...(o.deltaTargets ?? [])].map(([k, v]) => [`>${k}`, v])]
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
  if (root.merge) {
    // MERGE INTO t [AS x]: the target is the table node, alone or under its alias.
    const m = (root.merge as Node).this as Node | undefined;
    rw.insertNode = ((((m?.alias as Node | undefined)?.this as Node | undefined) ?? m)?.table ??
      undefined) as Node | undefined;
  }
  if (rw.insertNode) rw.writeKind = Object.keys(root)[0]!.toUpperCase();
  const stmt = rw.walk(r.ast[0]) as Node;
  if (rw.volumesNeeded.length > 0) throw new VolumesNeeded(rw.volumesNeeded);
  nameProjections(stmt);
  const avgColumns = avgProjections(stmt, o);
  const g = generate([stmt], Dialect.Databricks);
  if (!g.success || !g.sql?.[0]) throw new TranslationFailed(g.error ?? 'cannot generate');
  const t = transpile(g.sql[0], Dialect.Databricks, Dialect.DuckDB);
  if (!t.success || !t.sql?.[0]) throw new TranslationFailed(t.error ?? 'cannot transpile');
  const out: Translated = { sql: fixTokens(t.sql[0]), params: rw.params, avgColumns, tables: rw.tables };
  if (rw.insertTarget) out.insertTarget = rw.insertTarget;
  if (rw.writeKind) out.writeKind = rw.writeKind;
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, out);
  return out;
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
