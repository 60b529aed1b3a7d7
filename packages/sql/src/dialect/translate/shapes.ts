/**
 * Shapes of Spark expressions the AST rewrite recognises and builds (rewriter.ts and its families): what is
 * visibly a date or an array, lambdas, Spark's date units, integral type names, and a few node builders.
 */
import { parseDatabricksType, toDuckDbTypeText, type TypeNode } from '@minilake/datatypes';
import { unsupported } from '../sql-error.js';
import { fn, kindOf } from './ast.js';
import type { Json, Node } from './common.js';

export const unsupportedIn = (what: string): Error => unsupported(what);

/** CAST(x AS TIMESTAMP): Spark's TIMESTAMP is an instant, TIMESTAMPTZ after translation. */
export function tsCast(x: Json): Node {
  return {
    cast: {
      this: x,
      to: { data_type: 'timestamp', precision: null, timezone: false },
      trailing_comments: [],
      double_colon_syntax: false,
    },
  };
}

/** DuckDB json_transform structure for a Spark type: field names to DuckDB type texts. */
export function jsonStructure(t: TypeNode): unknown {
  switch (t.kind) {
    case 'array':
      return [jsonStructure(t.element)];
    case 'struct':
      return Object.fromEntries(t.fields.map((f) => [f.name, jsonStructure(f.type)]));
    default:
      return toDuckDbTypeText(t);
  }
}

/** from_json(json, 'a INT, b STRING') with a literal DDL schema -> json_transform(json, '{"a":"INTEGER",...}'). */
export function fromJson(json: Json, schema: Json): Json {
  const k = kindOf(schema);
  if (!k || k[0] !== 'literal' || k[1].literal_type !== 'string')
    throw unsupported('from_json with a non-literal schema');
  const ddl = String(k[1].value).trim();
  let t: TypeNode;
  try {
    t = /^(struct|array|map)\s*</i.test(ddl)
      ? parseDatabricksType(ddl)
      : parseDatabricksType(`struct<${ddl}>`);
  } catch {
    throw unsupported(`from_json with the schema '${ddl}'`);
  }
  if (t.kind === 'map') throw unsupported('from_json into a MAP');
  return fn('json_transform', [
    json,
    { literal: { literal_type: 'string', value: JSON.stringify(jsonStructure(t)) } },
  ]);
}

/** DuckDB rejects `UPDATE SET t.col = ...` in MERGE; Spark allows the target qualifier. */
export function unqualifyMergeSets(merge: Node): void {
  const whens = ((merge.whens as Node | undefined)?.whens as Node | undefined)?.expressions;
  if (!Array.isArray(whens)) return;
  for (const w of whens) {
    const then = ((w as Node).when as Node | undefined)?.then as Node | undefined;
    const parts = (then?.tuple as Node | undefined)?.expressions as Json[] | undefined;
    if (!parts || parts.length !== 2) continue;
    const sets = ((parts[1] as Node).tuple as Node | undefined)?.expressions as Json[] | undefined;
    for (const a of sets ?? []) {
      const eq = (a as Node).eq as Node | undefined;
      const col = (eq?.left as Node | undefined)?.column as Node | undefined;
      if (col) col.table = null;
    }
  }
}

export function isLambda(n: Json, arity: number): boolean {
  const k = kindOf(n);
  return (
    !!k && k[0] === 'lambda' && Array.isArray(k[1].parameters) && (k[1].parameters as Json[]).length === arity
  );
}

export const DATE_FUNCS = new Set([
  'date_add',
  'date_sub',
  'to_date',
  'current_date',
  'last_day',
  'make_date',
  'add_months',
  'spark_date_add',
  'spark_date_sub',
  'spark_add_months',
  'spark_trunc',
  'spark_date_from_unix_date',
  'date_from_unix_date',
]);

/** Interval units whose DATE +/- keeps a DATE in Spark (year-month and whole-day intervals). */
export const DATE_UNITS = new Set(['year', 'quarter', 'month', 'week', 'day']);

export function isDateInterval(n: Json): boolean {
  const k = kindOf(n);
  if (!k || k[0] !== 'interval') return false;
  const u = k[1].unit as Node | undefined;
  return !!u && u.type === 'simple' && DATE_UNITS.has(String(u.unit).toLowerCase());
}

/** Calls (after the rewrite) whose result is visibly an array. */
export const ARRAY_FUNCS = new Set([
  'array',
  'list_value',
  'split',
  'spark_sequence',
  'spark_sequence_date',
  'spark_sort_array',
  'spark_array_sort',
  'spark_array_distinct',
  'spark_slice',
  'spark_flatten',
  'spark_concat_arr',
  'collect_list',
  'collect_set',
]);

export function visiblyArray(x: Json): boolean {
  const k = kindOf(x);
  if (!k) return false;
  if (k[0] === 'array' || k[0] === 'array_func' || k[0] === 'array_distinct') return true;
  return (
    (k[0] === 'function' || k[0] === 'aggregate_function') && ARRAY_FUNCS.has(String(k[1].name).toLowerCase())
  );
}

/** Spark's timestampdiff/datediff units -> DuckDB date_sub parts (whole units elapsed). */
export const DIFF_UNITS: Record<string, string> = {
  year: 'year',
  quarter: 'quarter',
  month: 'month',
  week: 'week',
  day: 'day',
  hour: 'hour',
  minute: 'minute',
  second: 'second',
  millisecond: 'millisecond',
  microsecond: 'microsecond',
};

/** Syntactically a DATE: a DATE literal, a CAST to DATE, or a function that returns DATE. */
export function isDateExpr([k, d]: [string, Node]): boolean {
  if (k === 'literal') return d.literal_type === 'date';
  if (k === 'cast') return String((d.to as Node | undefined)?.data_type ?? '').toLowerCase() === 'date';
  if (k === 'function') return DATE_FUNCS.has(String(d.name).toLowerCase());
  return k === 'last_day' || k === 'add_months' || k === 'current_date';
}

export const INTEGRAL = new Set([
  'int',
  'integer',
  'bigint',
  'big_int',
  'smallint',
  'small_int',
  'tinyint',
  'tiny_int',
]);
