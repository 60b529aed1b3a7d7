/**
 * Where a failed statement went wrong, as Databricks says it. Spark annotates an error with the position of
 * the fragment it is about, in three forms by the error's kind:
 *
 *   parse     `[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. SQLSTATE: 42601 (line 1, pos 0)` and the
 *             line with carets under it (`== SQL ==`)
 *   analysis  `[UNRESOLVED_COLUMN.WITH_SUGGESTION] ... SQLSTATE: 42703; line 1 pos 7`
 *   runtime   `[CAST_INVALID_INPUT] ... SQLSTATE: 22018` then `== SQL (line 1, position 8) ==` (position from 1)
 *             and the fragment with carets
 *
 * `line` counts from 1 and `pos` from 0 in that line, over the whole text the user sent (a statement after
 * others in the same text is placed where it is in that text).
 *
 * The engine runs a translation of the user's text, so its caret (DuckDB's `LINE n:` and `^`) points into
 * other text. It is carried back by the token it points at: the k-th occurrence of that token in the
 * translation is taken to be the k-th in the user's statement (translation keeps names, literals and
 * keywords in their order; it adds macro calls and aliases, which never spell a user's name). An engine
 * that ran the text as written (the fallback) points into it directly.
 */
import { catalogAliasToName } from '@minilake/engine-duckdb';
import type { SqlError, SqlPosition } from './sql-error.js';
import type { SplitStatement, Token } from './tokens.js';

type Kind = 'parse' | 'analysis' | 'runtime';

/** Error classes raised while the query runs (Spark prints the `== SQL (line, position) ==` block). */
const RUNTIME =
  /^(CAST_|DIVIDE_BY_ZERO|ARITHMETIC_OVERFLOW|INVALID_ARRAY_INDEX|INVALID_INDEX_OF_ZERO|NUMERIC_VALUE_OUT_OF_RANGE)/;

function kindOf(errorClass: string): Kind | undefined {
  if (errorClass.startsWith('PARSE_')) return 'parse';
  if (RUNTIME.test(errorClass)) return 'runtime';
  if (
    /^(UNRESOLVED_|TABLE_OR_VIEW_NOT_FOUND|SCHEMA_NOT_FOUND|NO_SUCH_CATALOG|DATATYPE_MISMATCH|AMBIGUOUS_|UC_VOLUME_NOT_FOUND)/.test(
      errorClass,
    )
  )
    return 'analysis';
  return undefined;
}

/**
 * Gives `e` the position of what it is about in `stmt` (at `base`, a code point offset, in the whole `text`)
 * and writes it into the message in Spark's form for the error's kind. An error that cannot be placed keeps
 * its message.
 */
export function locate(e: SqlError, stmt: SplitStatement & { offset?: number }, text: string): void {
  if (e.position) return;
  const kind = kindOf(e.errorClass);
  if (!kind) return;
  const at = findInStatement(e, stmt);
  if (!at) return;
  const cps = Array.from(text);
  const base = stmt.offset ?? 0;
  const start = Math.min(base + at.start, cps.length);
  const stop = Math.max(start, Math.min(base + at.end, cps.length) - 1);
  let lineStart = start;
  while (lineStart > 0 && cps[lineStart - 1] !== '\n') lineStart--;
  let line = 1;
  for (let i = 0; i < lineStart; i++) if (cps[i] === '\n') line++;
  const pos = start - lineStart;
  const fragment = cps.slice(start, stop + 1).join('');
  e.position = { line, pos, start, stop, fragment };
  const state = ` SQLSTATE: ${e.sqlState}`;
  const lineEnd = cps.indexOf('\n', start);
  const lineText = cps.slice(lineStart, lineEnd < 0 ? cps.length : lineEnd).join('');
  const marks = (n: number) => `${' '.repeat(pos)}${'^'.repeat(Math.max(1, n))}`;
  if (kind === 'parse')
    e.message = `${withStop(e.message)}${state} (line ${line}, pos ${pos})\n\n== SQL ==\n${lineText}\n${marks(3)}\n`;
  else if (kind === 'analysis') e.message = `${withStop(e.message)}${state}; line ${line} pos ${pos}`;
  else {
    const width = Math.min(stop + 1, lineStart + lineText.length) - start;
    e.message = `${withStop(e.message)}${state}\n== SQL (line ${line}, position ${pos + 1}) ==\n${lineText}\n${marks(width)}\n`;
  }
}

const withStop = (m: string): string => (/[.!?]$/.test(m) ? m : `${m}.`);

/** The fragment's token span (code point offsets in the statement), or undefined when it cannot be told. */
function findInStatement(e: SqlError, stmt: SplitStatement): { start: number; end: number } | undefined {
  const toks = stmt.tokens;
  if (e.subject?.statementOffset !== undefined) {
    const o = e.subject.statementOffset;
    const t = toks.find((x) => x.end > o);
    return t ? fragmentAt(toks, toks.indexOf(t), e) : { start: o, end: o + 1 };
  }
  if (e.engineAt) {
    const { sql, offset } = e.engineAt;
    // The engine ran the statement as written: its caret is in the user's text.
    if (sql === stmt.text) {
      const o = Array.from(sql.slice(0, offset)).length;
      const i = toks.findIndex((x) => x.end > o);
      if (i >= 0 && toks[i]!.start <= o) return fragmentAt(toks, i, e);
      if (e.errorClass.startsWith('PARSE_')) return { start: Math.min(o, stmt.text.length), end: o + 1 };
    }
    const target = engineToken(sql, offset);
    if (target) {
      const i = nth(toks, target.word, target.occurrence);
      if (i >= 0) return fragmentAt(toks, i, e);
    }
  }
  if (e.subject?.text !== undefined) {
    const i = nth(toks, norm(e.subject.text), 0);
    if (i >= 0) return fragmentAt(toks, i, e);
  }
  if (e.errorClass.startsWith('PARSE_') && /end of input/.test(e.message) && toks.length > 0) {
    const last = toks[toks.length - 1]!;
    return { start: last.end, end: last.end + 1 };
  }
  return undefined;
}

/** The fragment an error at token i is about: a qualified name whole, a CAST with its parentheses. */
function fragmentAt(toks: Token[], i: number, e: SqlError): { start: number; end: number } {
  let a = i;
  let b = i;
  if (!e.errorClass.startsWith('PARSE_')) {
    while (a >= 2 && toks[a - 1]!.type === 'DOT' && isWord(toks[a - 2]!)) a -= 2;
    while (b + 2 < toks.length && toks[b + 1]!.type === 'DOT' && isWord(toks[b + 2]!)) b += 2;
    // A value that failed a cast: the CAST( ... ) around it, as Spark shows the cast expression.
    if (e.errorClass.startsWith('CAST_') && toks[i]!.type === 'STRING') {
      for (let k = i - 1; k >= 1 && k >= i - 200; k--) {
        const up = toks[k - 1]!.text.toUpperCase();
        if (toks[k]!.type === 'L_PAREN' && (up === 'CAST' || up === 'TRY_CAST')) {
          const close = matching(toks, k);
          if (close > i) return { start: toks[k - 1]!.start, end: toks[close]!.end };
        }
      }
    }
    const up = toks[i]!.text.toUpperCase();
    if ((up === 'CAST' || up === 'TRY_CAST') && toks[i + 1]?.type === 'L_PAREN') {
      const close = matching(toks, i + 1);
      if (close > i) return { start: toks[i]!.start, end: toks[close]!.end };
    }
  }
  return { start: toks[a]!.start, end: toks[b]!.end };
}

function matching(toks: Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < toks.length; k++) {
    if (toks[k]!.type === 'L_PAREN') depth++;
    else if (toks[k]!.type === 'R_PAREN' && --depth === 0) return k;
  }
  return -1;
}

const isWord = (t: Token): boolean =>
  (t.type !== 'STRING' && /^[\p{L}\p{N}_$]+$/u.test(t.text)) || t.type === 'QUOTED_IDENTIFIER';

/** A token's comparable form: names case-folded, engine aliases (`main__ml`) as the user's catalog names. */
function norm(text: string): string {
  return catalogAliasToName(text).toLowerCase();
}

/** Index of the n-th (from 0) token spelling `word`, else the first, else -1. */
function nth(toks: Token[], word: string, n: number): number {
  let first = -1;
  let seen = 0;
  for (let i = 0; i < toks.length; i++) {
    if (norm(toks[i]!.text) !== word) continue;
    if (first < 0) first = i;
    if (seen++ === n) return i;
  }
  return first;
}

/**
 * The word at `offset` in engine SQL and how many times it occurs before (as a word: a name, a quoted name
 * or a string literal's content), read with a small scanner that knows quotes and comments.
 */
export function engineToken(sql: string, offset: number): { word: string; occurrence: number } | undefined {
  const words: { word: string; start: number; end: number }[] = [];
  const re =
    /--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'|"(?:[^"]|"")*"|[\p{L}_][\p{L}\p{N}_$]*|\d+(?:\.\d+)?|\S/gu;
  for (let m = re.exec(sql); m; m = re.exec(sql)) {
    const t = m[0];
    if (t.startsWith('--') || t.startsWith('/*')) continue;
    const word = t.startsWith("'")
      ? t.slice(1, -1).replace(/''/g, "'")
      : t.startsWith('"')
        ? t.slice(1, -1).replace(/""/g, '"')
        : t;
    words.push({ word: norm(word), start: m.index, end: m.index + t.length });
    if (m.index > offset) break;
  }
  const hit = words.find((w) => w.start <= offset && offset < w.end) ?? words.find((w) => w.start >= offset);
  if (!hit) return undefined;
  let occurrence = 0;
  for (const w of words) {
    if (w === hit) break;
    if (w.word === hit.word) occurrence++;
  }
  return { word: hit.word, occurrence };
}

/**
 * DuckDB's caret (`LINE 2: <the line, maybe cut with ...>` then spaces and `^`) -> an offset in `sql`.
 */
export function duckCaret(message: string, sql: string | undefined): number | undefined {
  if (sql === undefined) return undefined;
  const m = /\nLINE (\d+): (.*)\n( *)\^/.exec(message);
  if (!m) return undefined;
  const lineNo = Number(m[1]);
  let shown = m[2]!;
  let col = m[3]!.length - `LINE ${m[1]}: `.length;
  if (shown.startsWith('...')) {
    shown = shown.slice(3);
    col -= 3;
  }
  if (shown.endsWith('...')) shown = shown.slice(0, -3);
  const lines = sql.split('\n');
  const line = lines[lineNo - 1];
  if (line === undefined || col < 0) return undefined;
  let lineStart = 0;
  for (let i = 0; i < lineNo - 1; i++) lineStart += lines[i]!.length + 1;
  const at = line.indexOf(shown);
  if (at < 0) return undefined;
  return lineStart + at + col;
}

export type { SqlPosition };
