/**
 * Delta time travel on a table reference, read from the parsed query: VERSION AS OF, TIMESTAMP AS OF (a
 * literal, or an expression the engine folds once), and Databricks' `t@v3` / `t@yyyyMMddHHmmssSSS` suffixes.
 */
import { polyglot } from '../polyglot.js';
import { sqlError, unsupported } from '../sql-error.js';
import { kindOf } from './ast.js';
import type { Json, Node, TravelSpec } from './common.js';

/**
 * A table reference's Delta time travel, from the parsed reference: `VERSION AS OF n`, `TIMESTAMP AS OF
 * '<timestamp>'`, or Databricks' suffixes on the (unquoted) name, `t@v3` and `t@yyyyMMddHHmmssSSS`.
 */
export function timeTravel(
  t: Node,
  nameNode: { name: string; quoted?: boolean },
): { name: string; at: TravelSpec | undefined } {
  let name = nameNode.name;
  let at: TravelSpec | undefined;
  const suffix = nameNode.quoted ? null : /^(.+)@(?:v(\d+)|(\d{17}))$/i.exec(name);
  if (suffix) {
    name = suffix[1]!;
    if (suffix[2] !== undefined) at = { version: Number(suffix[2]) };
    else {
      const d = suffix[3]!;
      const [y, mo, da, h, mi, se, ms] = [
        d.slice(0, 4),
        d.slice(4, 6),
        d.slice(6, 8),
        d.slice(8, 10),
        d.slice(10, 12),
        d.slice(12, 14),
        d.slice(14),
      ].map(Number);
      const ts = Date.UTC(y!, mo! - 1, da!, h!, mi!, se!, ms!);
      if (Number.isNaN(ts) || new Date(ts).getUTCMonth() !== mo! - 1)
        throw sqlError(
          'DELTA_INVALID_TIMESTAMP_FORMAT',
          '22007',
          `The provided timestamp ${d} does not match the expected syntax yyyyMMddHHmmssSSS.`,
        );
      at = { timestamp: ts };
    }
  }
  const tv = t.version as { this?: { identifier?: { name?: string } }; expression?: Node } | null | undefined;
  if (!tv) return { name, at };
  if (at)
    throw sqlError(
      'DELTA_UNSUPPORTED_TIME_TRAVEL_MULTIPLE_FORMATS',
      '42613',
      'Cannot specify time travel in multiple formats.',
    );
  const kind = tv.this?.identifier?.name?.toUpperCase();
  const lit = literalOf(tv.expression);
  if (kind === 'VERSION') {
    // A parameter marker names the version too (bound when the statement runs, then checked).
    if (tv.expression && kindOf(tv.expression)?.[0] === 'parameter')
      return { name, at: { expr: travelExprText(tv.expression), kind: 'version' } };
    if (!lit || !/^\d+$/.test(lit.value))
      throw sqlError(
        'INVALID_TIME_TRAVEL_SPEC',
        '42K0E',
        'VERSION AS OF takes a non-negative integer literal.',
      );
    return { name, at: { version: Number(lit.value) } };
  }
  if (kind === 'TIMESTAMP') {
    // Any other expression (`current_timestamp() - INTERVAL 1 HOUR`, `date_sub(current_date(), 1)`, a cast,
    // a parameter marker) is evaluated once by the engine, as Spark constant-folds it (rewrite.ts).
    if (!lit || lit.type === 'number')
      return { name, at: { expr: travelExprText(tv.expression!), kind: 'timestamp' } };
    const ts = parseTimestampText(lit.value);
    if (ts === undefined)
      throw sqlError(
        'INVALID_TIME_TRAVEL_TIMESTAMP_EXPR',
        '42K0E',
        `The time travel timestamp expression '${lit.value}' is invalid: it cannot be cast to a valid timestamp.`,
      );
    return { name, at: { timestamp: ts } };
  }
  throw unsupported(`Time travel ${kind ?? ''} AS OF`);
}

/**
 * A time travel expression as Databricks SQL text, refused as Spark refuses it when it cannot be folded to
 * a constant: a column or a subquery (UNEVALUABLE), a non-deterministic function (NON_DETERMINISTIC).
 */
function travelExprText(e: Node): string {
  const { generate, Dialect } = polyglot();
  const g = generate([e], Dialect.Databricks);
  const text = g.success ? g.sql?.[0] : undefined;
  if (!text) throw unsupported('This time travel expression');
  const bad = (n: Json): 'UNEVALUABLE' | 'NON_DETERMINISTIC' | undefined => {
    if (Array.isArray(n)) {
      for (const x of n) {
        const r = bad(x);
        if (r) return r;
      }
      return undefined;
    }
    if (!n || typeof n !== 'object') return undefined;
    for (const [k, v] of Object.entries(n)) {
      if (k === 'column' || k === 'select' || k === 'subquery' || k === 'exists') return 'UNEVALUABLE';
      if (['rand', 'randn', 'random', 'uuid', 'shuffle'].includes(k)) return 'NON_DETERMINISTIC';
      if (k === 'function' && /^(rand|randn|random|uuid|shuffle)$/i.test(String((v as Node).name)))
        return 'NON_DETERMINISTIC';
      if (k === 'span') continue;
      const r = bad(v as Json);
      if (r) return r;
    }
    return undefined;
  };
  const why = bad(e as Json);
  if (why)
    throw sqlError(
      `INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.${why}`,
      '42K0E',
      `The time travel timestamp expression ${text} is invalid. ${why === 'UNEVALUABLE' ? 'Must be evaluable.' : 'Must be deterministic.'}`,
    );
  return text;
}

/** A literal (string, number, TIMESTAMP '...', or CAST('...' AS TIMESTAMP)) as its text and kind. */
function literalOf(e: Node | undefined): { value: string; type: string } | undefined {
  const k = e ? kindOf(e) : undefined;
  if (!k) return undefined;
  if (k[0] === 'literal') return { value: String(k[1].value), type: String(k[1].literal_type) };
  if (k[0] === 'cast') return literalOf(k[1].this as Node);
  return undefined;
}

/**
 * A timestamp string as Spark casts it (the session time zone is UTC): `yyyy-MM-dd`, `yyyy-MM-dd HH:mm[:ss[.f]]`
 * with ` ` or `T`, optionally `Z` or an offset. Undefined when it is not a timestamp.
 */
export function parseTimestampText(text: string): number | undefined {
  const m =
    /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$/i.exec(
      text,
    );
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => Number(x ?? 0));
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  let ts = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms);
  const check = new Date(ts);
  if (check.getUTCMonth() !== mo! - 1 || check.getUTCDate() !== d! || h! > 23 || mi! > 59 || s! > 59)
    return undefined;
  const z = m[8];
  if (z && z.toUpperCase() !== 'Z') {
    const sign = z.startsWith('-') ? -1 : 1;
    const digits = z.slice(1).replace(':', '');
    ts -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return ts;
}
