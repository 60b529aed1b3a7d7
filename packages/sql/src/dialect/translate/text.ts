/**
 * Translation steps on text and tokens rather than the AST: Java date patterns and regexp replacements, typed
 * literals before parsing, and the token-level fixes on polyglot's DuckDB output (CAST stays CAST, MERGE SET *).
 */
import { polyglot } from '../polyglot.js';
import { tokenType } from '../tokens.js';
import { unsupported } from '../sql-error.js';

/** Java DateTimeFormatter pattern (as Spark's date_format uses it) to strftime; unknown letters are refused. */
export function javaToStrftime(p: string): string {
  const map: Record<string, string> = {
    yyyy: '%Y',
    yy: '%y',
    y: '%Y',
    MMMM: '%B',
    MMM: '%b',
    MM: '%m',
    M: '%-m',
    dd: '%d',
    d: '%-d',
    HH: '%H',
    H: '%-H',
    hh: '%I',
    h: '%-I',
    mm: '%M',
    m: '%-M',
    ss: '%S',
    s: '%-S',
    SSSSSS: '%f',
    SSS: '%g',
    a: '%p',
    EEEE: '%A',
    EEE: '%a',
    E: '%a',
    DDD: '%j',
  };
  let out = '';
  for (let i = 0; i < p.length;) {
    const ch = p[i]!;
    if (ch === "'") {
      const end = p.indexOf("'", i + 1);
      if (end === i + 1) {
        out += "'";
        i += 2;
        continue;
      }
      const lit = end < 0 ? p.slice(i + 1) : p.slice(i + 1, end);
      out += lit.replaceAll('%', '%%');
      i = end < 0 ? p.length : end + 1;
      continue;
    }
    if (/[A-Za-z]/.test(ch)) {
      let j = i;
      while (j < p.length && p[j] === ch) j++;
      const run = p.slice(i, j);
      const f = map[run] ?? (ch === 'y' ? '%Y' : undefined);
      if (!f) throw unsupported(`date_format pattern letter '${run}'`);
      out += f;
      i = j;
      continue;
    }
    out += ch === '%' ? '%%' : ch;
    i++;
  }
  return out;
}

/**
 * A Java regex replacement (`$1`, `\$` escapes) as an RE2 rewrite string (`\1`); undefined when it uses a form
 * we cannot translate exactly (named groups).
 */
export function javaReplacement(r: string): string | undefined {
  let out = '';
  for (let i = 0; i < r.length; i++) {
    const ch = r[i]!;
    if (ch === '\\') {
      const next = r[i + 1];
      if (next === undefined) return undefined;
      out += next === '\\' ? '\\\\' : next;
      i++;
    } else if (ch === '$') {
      const d = r[i + 1];
      if (d === undefined || !/[0-9]/.test(d)) return undefined;
      // Java reads as many digits as still name an existing group; more than 9 groups is refused.
      if (/[0-9]/.test(r[i + 2] ?? '')) return undefined;
      out += `\\${d}`;
      i++;
    } else out += ch;
  }
  return out;
}

/**
 * `TIMESTAMP_NTZ '...'` / `TIMESTAMP_LTZ '...'` literals (polyglot cannot parse them) as CASTs, and the schema
 * name `default` inside a qualified name (`cat.default.t`), which polyglot reads as the DEFAULT keyword in an
 * UPDATE target: quoted, it is the identifier Spark sees.
 */
export function typedLiterals(text: string): string {
  const upper = text.toUpperCase();
  const likeEscapes = text.includes('\\_') || text.includes('\\%');
  const defaults = upper.includes('DEFAULT') && upper.trimStart().startsWith('UPDATE');
  if (!likeEscapes && !defaults && !upper.includes('TIMESTAMP_NTZ') && !upper.includes('TIMESTAMP_LTZ'))
    return text;
  const { tokenize, Dialect } = polyglot();
  const tk = tokenize(text, Dialect.Databricks);
  if (!tk.success || !tk.tokens) return text;
  const cps = Array.from(text);
  const out: string[] = [];
  let pos = 0;
  const toks = tk.tokens;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const kw = t.text.toUpperCase();
    if (defaults && tokenType(t) === 'DEFAULT' && (toks[i - 1]?.text === '.' || toks[i + 1]?.text === '.')) {
      out.push(cps.slice(pos, t.span.start).join(''), '`default`');
      pos = t.span.end;
      continue;
    }
    // Spark keeps `\_` and `\%` in string literals (for LIKE patterns); polyglot drops the backslash.
    if (likeEscapes && tokenType(t) === 'STRING') {
      const raw = cps.slice(t.span.start, t.span.end).join('');
      if (raw.startsWith("'") || raw.startsWith('"')) {
        let fixed = '';
        for (let k = 0; k < raw.length; k++) {
          const ch = raw[k]!;
          const next = raw[k + 1];
          if (ch === '\\' && (next === '_' || next === '%')) fixed += '\\\\' + next;
          else if (ch === '\\' && next !== undefined) fixed += ch + next;
          else {
            fixed += ch;
            continue;
          }
          k++;
        }
        if (fixed !== raw) {
          out.push(cps.slice(pos, t.span.start).join(''), fixed);
          pos = t.span.end;
        }
      }
      continue;
    }
    if (
      (kw === 'TIMESTAMP_NTZ' || kw === 'TIMESTAMP_LTZ') &&
      i + 1 < toks.length &&
      tokenType(toks[i + 1]!) === 'STRING'
    ) {
      const lit = toks[i + 1]!;
      out.push(cps.slice(pos, t.span.start).join(''));
      out.push(
        `CAST(${cps.slice(lit.span.start, lit.span.end).join('')} AS ${kw === 'TIMESTAMP_NTZ' ? 'TIMESTAMP_NTZ' : 'TIMESTAMP'})`,
      );
      pos = lit.span.end;
      i++;
    }
  }
  out.push(cps.slice(pos).join(''));
  return out.join('');
}

/** The name ORDER BY ALL's ALL travels under through polyglot (translate.ts markOrderByAll). */
export const ORDER_BY_ALL = '__ml_order_by_all';

/**
 * polyglot turns every CAST into TRY_CAST (non-ANSI Spark); Databricks SQL is ANSI, so a bad cast must fail.
 * User try_cast was already wrapped in TRY(...). It also prints MERGE's `UPDATE SET *` as `UPDATE *`.
 */
export function fixTokens(sql: string): string {
  const { tokenize, Dialect } = polyglot();
  const tk = tokenize(sql, Dialect.DuckDB);
  if (!tk.success || !tk.tokens) return sql;
  const cps = Array.from(sql);
  const edits: { start: number; end: number; text: string }[] = [];
  const toks = tk.tokens;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const next = toks[i + 1];
    // User try_cast arrives as SPARK_TRY(TRY_CAST(...)) (polyglot folds a plain TRY(...) away): DuckDB's TRY.
    if (t.text.toUpperCase() === 'SPARK_TRY' && next?.text === '(')
      edits.push({ start: t.span.start, end: t.span.end, text: 'TRY' });
    const insideTry = toks[i - 1]?.text === '(' && toks[i - 2]?.text.toUpperCase() === 'SPARK_TRY';
    if (t.text.toUpperCase() === 'TRY_CAST' && next && tokenType(next) === 'L_PAREN' && !insideTry)
      edits.push({ start: t.span.start, end: t.span.end, text: 'CAST' });
    if (
      t.text.toUpperCase() === 'UPDATE' &&
      next &&
      tokenType(next) === 'STAR' &&
      toks[i - 1]?.text.toUpperCase() === 'THEN'
    )
      edits.push({ start: t.span.end, end: t.span.end, text: ' SET' });
    // ORDER BY ALL, marked before the rewrite (translate.ts), is DuckDB's ORDER BY ALL.
    if (t.text.replace(/"/g, '').toLowerCase() === ORDER_BY_ALL)
      edits.push({ start: t.span.start, end: t.span.end, text: 'ALL' });
    // Spark's LEFT SEMI / LEFT ANTI JOIN are DuckDB's SEMI / ANTI JOIN.
    const nx = next?.text.toUpperCase();
    if (
      t.text.toUpperCase() === 'LEFT' &&
      (nx === 'SEMI' || nx === 'ANTI') &&
      toks[i + 2]?.text.toUpperCase() === 'JOIN'
    )
      edits.push({ start: t.span.start, end: next!.span.start, text: '' });
  }
  const structEdits: typeof edits = [];
  // NAMED_STRUCT('k', v, ...) that polyglot left untranslated (nested in another call or followed by .field)
  // becomes DuckDB's struct literal {'k': v, ...}.
  for (let i = 0; i < toks.length; i++) {
    if (toks[i]!.text.toUpperCase() !== 'NAMED_STRUCT' || toks[i + 1]?.text !== '(') continue;
    let depth = 0;
    let j = i + 1;
    const cuts: number[] = [];
    for (; j < toks.length; j++) {
      const x = toks[j]!.text;
      if (x === '(' || x === '[' || x === '{') depth++;
      else if (x === ')' || x === ']' || x === '}') {
        depth--;
        if (depth === 0) break;
      } else if (x === ',' && depth === 1) cuts.push(j);
    }
    if (j >= toks.length) break;
    const bounds = [i + 1, ...cuts, j];
    const args: string[] = [];
    for (let k = 0; k + 1 < bounds.length; k++) {
      const a = toks[bounds[k]! + 1]!;
      const b = toks[bounds[k + 1]! - 1]!;
      args.push(cps.slice(a.span.start, b.span.end).join(''));
    }
    const keysOk = args.length % 2 === 0 && args.every((a, k) => k % 2 === 1 || /^'[^']*'$/.test(a));
    if (!keysOk) continue;
    const fields: string[] = [];
    for (let k = 0; k < args.length; k += 2) fields.push(`${args[k]}: ${fixTokens(args[k + 1]!)}`);
    structEdits.push({ start: toks[i]!.span.start, end: toks[j]!.span.end, text: `{${fields.join(', ')}}` });
    i = j;
  }
  // The struct's values were fixed recursively: drop edits inside a replaced range.
  const all = edits
    .filter((e) => !structEdits.some((r) => e.start >= r.start && e.start < r.end))
    .concat(structEdits)
    .sort((a, b) => a.start - b.start);
  edits.length = 0;
  edits.push(...all);
  if (edits.length === 0) return sql;
  // Token spans are code point offsets.
  const parts: string[] = [];
  let pos = 0;
  for (const e of edits) {
    parts.push(cps.slice(pos, e.start).join(''), e.text);
    pos = e.end;
  }
  parts.push(cps.slice(pos).join(''));
  return parts.join('');
}
