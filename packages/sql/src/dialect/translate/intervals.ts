/**
 * Spark's ANSI intervals on DuckDB's one INTERVAL type. Spark has two interval families, year-month
 * (`INTERVAL YEAR TO MONTH`, a count of months) and day-time (`INTERVAL DAY TO SECOND`, a count of
 * microseconds), each with a start and end field that names its type. DuckDB has a single
 * (months, days, micros) value and parses neither `'1-2' YEAR TO MONTH` nor `'1 02:03:04' DAY TO SECOND`.
 *
 * - `ansiInterval` turns an interval literal with a field range (read from the parsed literal, never from the
 *   statement text) into one DuckDB reads: months for year-month, microseconds for day-time.
 * - `intervalType` tells the Spark type of a projection from the parsed statement, so the result column is
 *   typed as Databricks types it; an INTERVAL column it cannot tell is DAY TO SECOND (what `ts - ts` gives).
 *   `typedProjections` also finds a bare `NULL` projection, Spark's VOID (DuckDB types it INTEGER).
 */
import { sqlError } from '../sql-error.js';
import type { Json, Node } from './common.js';
import { kindOf, str } from './ast.js';

export const YM_FIELDS = ['YEAR', 'MONTH'] as const;
export const DT_FIELDS = ['DAY', 'HOUR', 'MINUTE', 'SECOND'] as const;

/** A Spark interval type: its family and field range. */
export interface IntervalType {
  yearMonth: boolean;
  start: string;
  end: string;
}

/** Databricks type text: `INTERVAL YEAR TO MONTH`, `INTERVAL DAY` (a single field is named once). */
export function intervalTypeText(t: IntervalType): string {
  return t.start === t.end ? `INTERVAL ${t.start}` : `INTERVAL ${t.start} TO ${t.end}`;
}

/** The unit names polyglot gives interval literals, as Spark's fields. */
const UNIT_FIELD: Record<string, string> = {
  year: 'YEAR',
  month: 'MONTH',
  week: 'DAY',
  day: 'DAY',
  hour: 'HOUR',
  minute: 'MINUTE',
  second: 'SECOND',
  millisecond: 'SECOND',
  microsecond: 'SECOND',
};

const fieldOf = (u: unknown): string | undefined => UNIT_FIELD[String(u ?? '').toLowerCase()];

const order = (f: string): number =>
  (YM_FIELDS as readonly string[]).includes(f)
    ? (YM_FIELDS as readonly string[]).indexOf(f)
    : (DT_FIELDS as readonly string[]).indexOf(f);

function typeOfFields(start: string, end: string): IntervalType | undefined {
  const ym = (YM_FIELDS as readonly string[]).includes(start);
  if (ym !== (YM_FIELDS as readonly string[]).includes(end)) return undefined;
  return { yearMonth: ym, start, end };
}

/** The smallest interval type holding both (Spark widens `INTERVAL 1 DAY + INTERVAL 2 HOURS` to DAY TO HOUR). */
function widen(a: IntervalType, b: IntervalType): IntervalType | undefined {
  if (a.yearMonth !== b.yearMonth) return undefined;
  return {
    yearMonth: a.yearMonth,
    start: order(a.start) <= order(b.start) ? a.start : b.start,
    end: order(a.end) >= order(b.end) ? a.end : b.end,
  };
}

/** The Spark interval type of an expression of the parsed statement, when it is visibly an interval. */
export function intervalType(n: Json): IntervalType | undefined {
  const kd = kindOf(n);
  if (!kd) return undefined;
  const [k, d] = kd;
  switch (k) {
    case 'interval': {
      const u = d.unit as Node | undefined;
      if (!u) return undefined;
      if (u.type === 'span') {
        const [s, e] = [fieldOf(u.this), fieldOf(u.expression)];
        return s && e ? typeOfFields(s, e) : undefined;
      }
      const f = fieldOf(u.unit);
      return f ? typeOfFields(f, f) : undefined;
    }
    case 'alias':
    case 'paren':
    case 'neg':
      return intervalType(d.this);
    case 'add':
    case 'sub': {
      const [l, r] = [intervalType(d.left), intervalType(d.right)];
      return l && r ? widen(l, r) : undefined;
    }
    case 'mul':
      return intervalType(d.left) ?? intervalType(d.right);
    case 'div':
      return intervalType(d.left);
    default:
      return undefined;
  }
}

const MICROS = { DAY: 86_400_000_000n, HOUR: 3_600_000_000n, MINUTE: 60_000_000n, SECOND: 1_000_000n };

const badInterval = (value: string, t: IntervalType): Error =>
  sqlError(
    'INVALID_INTERVAL_FORMAT',
    '22006',
    `Error parsing '${value}' to interval: the string does not match the format of ${intervalTypeText(t)}.`,
  );

/** Seconds text (`4`, `04.5`, `4.000001`) as microseconds; undefined when not a number of seconds. */
function secondsMicros(s: string): bigint | undefined {
  const m = /^(\d+)(?:\.(\d{0,9}))?$/.exec(s);
  if (!m) return undefined;
  return BigInt(m[1]!) * 1_000_000n + BigInt(((m[2] ?? '') + '000000').slice(0, 6));
}

/**
 * The interval a literal with a field range stands for: months (year-month) or microseconds (day-time), in
 * Spark's forms (`[+|-]y-m`, `[+|-]d h:m:s.n` and their shorter ranges).
 */
export function parseAnsiInterval(value: string, t: IntervalType): { months?: bigint; micros?: bigint } {
  let v = value.trim();
  let sign = 1n;
  if (v.startsWith('-') || v.startsWith('+')) {
    if (v.startsWith('-')) sign = -1n;
    v = v.slice(1);
  }
  if (t.yearMonth) {
    const m = t.start === t.end ? /^(\d+)$/.exec(v) : /^(\d+)-(\d+)$/.exec(v);
    if (!m) throw badInterval(value, t);
    if (t.start === t.end) return { months: sign * BigInt(m[1]!) * (t.start === 'YEAR' ? 12n : 1n) };
    if (BigInt(m[2]!) > 11n) throw badInterval(value, t);
    return { months: sign * (BigInt(m[1]!) * 12n + BigInt(m[2]!)) };
  }
  // Day-time: the fields from start to end, the day separated by a space, the others by colons.
  const fields = DT_FIELDS.slice(order(t.start), order(t.end) + 1);
  const parts: string[] = [];
  let rest = v;
  if (fields[0] === 'DAY' && fields.length > 1) {
    const sp = /^(\d+)\s+(.*)$/.exec(rest);
    if (!sp) throw badInterval(value, t);
    parts.push(sp[1]!);
    rest = sp[2]!;
    parts.push(...rest.split(':'));
  } else parts.push(...rest.split(':'));
  if (parts.length !== fields.length) throw badInterval(value, t);
  let micros = 0n;
  fields.forEach((f, i) => {
    const p = parts[i]!;
    if (f === 'SECOND') {
      const us = secondsMicros(p);
      if (us === undefined || (i > 0 && us >= 60_000_000n)) throw badInterval(value, t);
      micros += us;
      return;
    }
    if (!/^\d+$/.test(p)) throw badInterval(value, t);
    const n = BigInt(p);
    if (i > 0 && n >= (f === 'HOUR' ? 24n : 60n)) throw badInterval(value, t);
    micros += n * MICROS[f as keyof typeof MICROS];
  });
  return { micros: sign * micros };
}

/**
 * An interval literal with a field range (`INTERVAL '1-2' YEAR TO MONTH`, `INTERVAL '1 02:03' DAY TO MINUTE`)
 * as a single-unit literal DuckDB reads; other interval nodes are left alone (undefined).
 */
export function ansiInterval(d: Node): Json | undefined {
  const u = d.unit as Node | undefined;
  if (!u || u.type !== 'span') return undefined;
  const t = intervalType({ interval: d });
  const lit = kindOf(d.this);
  if (!t || !lit || lit[0] !== 'literal' || lit[1].literal_type !== 'string') return undefined;
  const { months, micros } = parseAnsiInterval(String(lit[1].value), t);
  return {
    interval: {
      this: str(String(months ?? micros ?? 0n)),
      unit: { type: 'simple', unit: months !== undefined ? 'Month' : 'Microsecond', use_plural: false },
    },
  };
}

/** A bare NULL (possibly aliased or parenthesised): Spark's VOID, which DuckDB types INTEGER. */
function isNull(n: Json): boolean {
  const kd = kindOf(n);
  if (!kd) return false;
  if (kd[0] === 'null') return true;
  return (kd[0] === 'alias' || kd[0] === 'paren') && isNull(kd[1].this);
}

/** parse_json(...): Spark's VARIANT, which DuckDB holds as JSON text. */
function isVariant(n: Json): boolean {
  const kd = kindOf(n);
  if (!kd) return false;
  if (kd[0] === 'parse_json') return true;
  if (kd[0] === 'function') return String(kd[1].name).toLowerCase() === 'try_parse_json';
  return (kd[0] === 'alias' || kd[0] === 'paren') && isVariant(kd[1].this);
}

/**
 * Projections of the outer SELECT whose Spark type the engine's type does not tell: intervals (DuckDB has
 * one INTERVAL), a bare NULL (VOID) and parse_json (VARIANT): index -> Databricks type text.
 */
export function typedProjections(stmt: Json): Map<number, string> {
  const out = new Map<number, string>();
  const kd = kindOf(stmt);
  if (!kd || kd[0] !== 'select') return out;
  const exprs = kd[1].expressions as Json[] | undefined;
  if (!Array.isArray(exprs)) return out;
  // A star expands to columns this pass cannot see: positions after it are unknown.
  for (let i = 0; i < exprs.length; i++) {
    const k = kindOf(exprs[i])?.[0];
    if (k === 'star') break;
    if (isNull(exprs[i]!) || isVariant(exprs[i]!)) {
      out.set(i, isNull(exprs[i]!) ? 'VOID' : 'VARIANT');
      continue;
    }
    const t = intervalType(exprs[i]!);
    if (t) out.set(i, intervalTypeText(t));
  }
  return out;
}
