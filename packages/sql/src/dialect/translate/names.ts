/** Spark's column names for projections that do not name themselves (`(5 % 2)`, `mod(5, 2)`, ...). */
import type { Json, Node } from './common.js';
import { fixedNames, ident, kindOf } from './ast.js';

/** Spark's auto-generated column name for simple expressions; undefined when we do not know it. */
export function sparkName(n: Json): string | undefined {
  if (n && typeof n === 'object' && fixedNames.has(n)) return fixedNames.get(n);
  const kd = kindOf(n);
  if (!kd) return undefined;
  const [k, d] = kd;
  if (k === 'literal') return String(d.value);
  if (k === 'null') return 'NULL';
  if (k === 'boolean') return d.value ? 'true' : 'false';
  if (k === 'column') return (d.name as { name: string }).name;
  if (k === 'count' && d.star) return 'count(1)';
  const args = (xs: Json[]): string | undefined => {
    const parts = xs.map(sparkName);
    return parts.every((p) => p !== undefined) ? parts.join(', ') : undefined;
  };
  // Wrappers the rewrite put around a CAST's operand keep the operand's name.
  if (
    k === 'function' &&
    ['spark_to_string', 'spark_int_src', 'spark_int_src_try'].includes(String(d.name)) &&
    Array.isArray(d.args) &&
    d.args.length >= 1
  )
    return sparkName(d.args[0]);
  if (k === 'function' && d.name === 'spark_div' && Array.isArray(d.args) && d.args.length === 2) {
    const [l, r] = [sparkName(d.args[0]), sparkName(d.args[1])];
    return l === undefined || r === undefined ? undefined : `(${l} / ${r})`;
  }
  if (k === 'cast') {
    const x = sparkName(d.this);
    const to = d.to as Node | undefined;
    const t = String(to?.data_type ?? '').toLowerCase();
    const simple: Record<string, string> = {
      int: 'INT',
      bigint: 'BIGINT',
      big_int: 'BIGINT',
      double: 'DOUBLE',
      string: 'STRING',
      date: 'DATE',
      boolean: 'BOOLEAN',
    };
    const tt =
      t === 'decimal' && typeof to?.precision === 'number'
        ? `DECIMAL(${to.precision},${typeof to.scale === 'number' ? to.scale : 0})`
        : simple[t];
    return x === undefined || tt === undefined ? undefined : `CAST(${x} AS ${tt})`;
  }
  if (k === 'function' || k === 'aggregate_function') {
    const a = args((d.args as Json[]) ?? []);
    // Our macros are named after the Spark function they implement.
    return a === undefined
      ? undefined
      : `${String(d.name)
          .toLowerCase()
          .replace(/^spark_/, '')}(${a})`;
  }
  const unary: Record<string, string> = {
    nvl: 'nvl',
    initcap: 'initcap',
    array_distinct: 'array_distinct',
    element_at: 'element_at',
    to_json: 'to_json',
    upper: 'upper',
    lower: 'lower',
    length: 'length',
    abs: 'abs',
    count: 'count',
    sum: 'sum',
    avg: 'avg',
    min: 'min',
    max: 'max',
    coalesce: 'coalesce',
    add_months: 'add_months',
  };
  if (k in unary) {
    const xs: Json[] = [];
    if (d.this !== undefined && d.this !== null) xs.push(d.this);
    if (d.expression !== undefined && d.expression !== null) xs.push(d.expression);
    if (Array.isArray(d.expressions)) xs.push(...(d.expressions as Json[]));
    if (d.distinct) return undefined;
    const a = args(xs);
    return a === undefined ? undefined : `${unary[k]}(${a})`;
  }
  return undefined;
}

/** Spark's name for a call the rewrite replaces, from its (already rewritten) arguments. */
export function writtenName(n: Node): string | undefined {
  const kd = kindOf(n);
  if (!kd) return undefined;
  const [k, d] = kd;
  const names = (xs: Json[]): string | undefined => {
    const parts = xs.map(sparkName);
    return parts.every((p) => p !== undefined) ? parts.join(', ') : undefined;
  };
  let inner: string | undefined;
  switch (k) {
    case 'function':
      if (!Array.isArray(d.args)) return undefined;
      inner = names(d.args as Json[]);
      return inner === undefined ? undefined : `${String(d.name).toLowerCase()}(${inner})`;
    case 'mod': {
      const [l, r] = [sparkName(d.left), sparkName(d.right)];
      return l === undefined || r === undefined ? undefined : `(${l} % ${r})`;
    }
    case 'year':
    case 'month':
    case 'day':
    case 'hour':
    case 'minute':
    case 'second':
      inner = sparkName(d.this);
      return inner === undefined ? undefined : `${k}(${inner})`;
    case 'mod_func':
    case 'array_position':
    case 'array_contains':
      inner = names([d.this, d.expression]);
      return inner === undefined ? undefined : `${k === 'mod_func' ? 'mod' : k}(${inner})`;
    default:
      return undefined;
  }
}

/** Gives unaliased projections of the outermost SELECT their Spark names. */
export function nameProjections(stmt: Node): void {
  const kd = kindOf(stmt);
  if (!kd || kd[0] !== 'select') return;
  const exprs = kd[1].expressions as Json[] | undefined;
  if (!Array.isArray(exprs)) return;
  kd[1].expressions = exprs.map((e) => {
    const ek = kindOf(e);
    if (!ek || ['alias', 'column', 'star'].includes(ek[0])) return e;
    if (ek[0] === 'literal' && ek[1].literal_type === 'number') return e;
    // Generators (explode, posexplode, inline, stack) name their own output columns.
    if (ek[0] === 'explode' || (ek[0] === 'function' && GENERATORS.has(String(ek[1].name).toLowerCase())))
      return e;
    const name = sparkName(e);
    if (!name) return e;
    return {
      alias: {
        this: e,
        alias: ident(name),
        column_aliases: [],
        alias_explicit_as: true,
        pre_alias_comments: [],
        trailing_comments: [],
      },
    };
  });
}

export const GENERATORS = new Set([
  'explode',
  'explode_outer',
  'posexplode',
  'posexplode_outer',
  'inline',
  'inline_outer',
  'stack',
]);
