/**
 * File pruning for DML: which data files can hold a row satisfying a conjunction of simple terms
 * (`column op literal`), judged from each add action's partition values and stats (min/max/nullCount).
 * Conservative: whatever cannot be judged (an unknown column or type, missing stats, non-ASCII strings whose
 * order could differ from Spark's byte order) keeps the file; DuckDB then filters the rows exactly.
 */
import type { AddAction } from './log.js';
import type { SparkSchema, SparkType } from './schema.js';

export type PruneValue = number | string;
export interface PruneTerm {
  column: string;
  op: '=' | '<' | '<=' | '>' | '>=' | 'in' | 'null' | 'notnull';
  values: PruneValue[];
}

interface Stats {
  numRecords?: number;
  minValues?: Record<string, unknown>;
  maxValues?: Record<string, unknown>;
  nullCount?: Record<string, unknown>;
}

const INTEGRAL = new Set(['long', 'integer', 'short', 'byte']);
const ascii = (s: string) => /^[\x20-\x7e]*$/.test(s);

/** A literal and a bound (or partition value) as comparable JS values of one kind, or undefined. */
function comparable(
  type: SparkType,
  bound: unknown,
  v: PruneValue,
): [number, number] | [string, string] | undefined {
  if (typeof type !== 'string') return undefined;
  // Floating point is left out: NaN sorts above everything in Spark but is not in the bounds.
  if (INTEGRAL.has(type)) {
    const b = typeof bound === 'string' ? Number(bound) : bound;
    if (typeof b !== 'number' || typeof v !== 'number' || !Number.isFinite(b) || !Number.isFinite(v))
      return undefined;
    if (Math.abs(b) >= 2 ** 53 || Math.abs(v) >= 2 ** 53) return undefined;
    return [b, v];
  }
  if (type === 'string' || type === 'date') {
    if (typeof bound !== 'string' || typeof v !== 'string' || !ascii(bound) || !ascii(v)) return undefined;
    if (type === 'date' && !(/^\d{4}-\d{2}-\d{2}$/.test(bound) && /^\d{4}-\d{2}-\d{2}$/.test(v)))
      return undefined;
    return [bound, v];
  }
  return undefined;
}

function cmp(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether `value` (a partition value, exact) can satisfy the term; undefined when it cannot be judged. */
function partitionMatches(type: SparkType, value: string | null, t: PruneTerm): boolean | undefined {
  if (t.op === 'null') return value === null;
  if (t.op === 'notnull') return value !== null;
  if (value === null) return false; // a comparison with NULL is never true
  const results = t.values.map((v) => {
    const c = comparable(type, value, v);
    if (!c) return undefined;
    const d = cmp(c[0], c[1]);
    switch (t.op) {
      case '=':
      case 'in':
        return d === 0;
      case '<':
        return d < 0;
      case '<=':
        return d <= 0;
      case '>':
        return d > 0;
      case '>=':
        return d >= 0;
    }
    return undefined;
  });
  if (results.some((r) => r === true)) return true;
  if (results.every((r) => r === false)) return false;
  return undefined;
}

/** Whether a file whose column lies in [min, max] (with nulls and rows counted) can satisfy the term. */
function statsMatch(type: SparkType, s: Stats, name: string, t: PruneTerm): boolean {
  const rows = s.numRecords;
  const nulls = typeof s.nullCount?.[name] === 'number' ? (s.nullCount[name] as number) : undefined;
  if (t.op === 'null') return nulls === undefined || nulls > 0;
  const allNull = rows !== undefined && nulls !== undefined && nulls >= rows;
  if (t.op === 'notnull') return !allNull;
  if (allNull) return false;
  const min = s.minValues?.[name];
  const max = s.maxValues?.[name];
  if (min === undefined || max === undefined || min === null || max === null) return true;
  return t.values.some((v) => {
    const lo = comparable(type, min, v);
    const hi = comparable(type, max, v);
    if (!lo || !hi) return true;
    switch (t.op) {
      case '=':
      case 'in':
        return cmp(lo[0], lo[1]) <= 0 && cmp(hi[0], hi[1]) >= 0;
      case '<':
        return cmp(lo[0], lo[1]) < 0;
      case '<=':
        return cmp(lo[0], lo[1]) <= 0;
      case '>':
        return cmp(hi[0], hi[1]) > 0;
      case '>=':
        return cmp(hi[0], hi[1]) >= 0;
    }
    return true;
  });
}

/**
 * Whether the file can hold a row satisfying every term. Column names match case-insensitively (as Spark
 * resolves them); partition values are exact, stats are bounds.
 */
export function mayMatch(
  f: AddAction,
  terms: PruneTerm[],
  o: { schema: SparkSchema; partitionColumns: string[] },
): boolean {
  let stats: Stats | undefined;
  for (const t of terms) {
    const field = o.schema.fields.find((x) => x.name.toLowerCase() === t.column.toLowerCase());
    if (!field) continue;
    if (o.partitionColumns.includes(field.name)) {
      const pv = f.partitionValues[field.name];
      if (partitionMatches(field.type, pv === undefined ? null : pv, t) === false) return false;
      continue;
    }
    if (stats === undefined) {
      try {
        stats = f.stats ? (JSON.parse(f.stats) as Stats) : {};
      } catch {
        stats = {};
      }
    }
    if (!statsMatch(field.type, stats, field.name, t)) return false;
  }
  return true;
}
