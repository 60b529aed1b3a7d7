/**
 * Statement splitting and the small token cursor used by the commands MiniLake handles itself (commands.ts). Tokens come from
 * polyglot's tokenizer (quotes, comments and backticks handled there), so no SQL is ever cut with regexes.
 */
import { polyglot } from './polyglot.js';
import { syntaxError } from './sql-error.js';

export interface Token {
  type: string;
  text: string;
  start: number;
  end: number;
}

export interface SplitStatement {
  text: string;
  tokens: Token[];
  /** Where the statement starts in the text it was split from (code points): error positions count from there. */
  offset?: number;
}

/** The runtime object carries token_type; the published typings call it tokenType. */
export function tokenType(t: object): string {
  const o = t as { token_type?: string; tokenType?: string };
  return String(o.token_type ?? o.tokenType ?? '');
}

export function tokensOf(sql: string): Token[] {
  const { tokenize, Dialect } = polyglot();
  const r = tokenize(sql, Dialect.Databricks);
  if (!r.success || !r.tokens) {
    throw syntaxError(`Syntax error: ${r.error ?? 'cannot tokenize'}.`);
  }
  return r.tokens.map((t) => ({ type: tokenType(t), text: t.text, start: t.span.start, end: t.span.end }));
}

const splitCache = new Map<string, SplitStatement[]>();

/** splitStatements, memoised for repeated texts (the hot path: the same dashboard query again and again). */
export function splitStatementsCached(sql: string): SplitStatement[] {
  const hit = splitCache.get(sql);
  if (hit) return hit;
  const r = splitStatements(sql);
  if (sql.length <= 100_000) {
    if (splitCache.size >= 1000) splitCache.delete(splitCache.keys().next().value!);
    splitCache.set(sql, r);
  }
  return r;
}

/** Splits text on top-level semicolons; token spans are code point offsets. */
export function splitStatements(sql: string): SplitStatement[] {
  const tokens = tokensOf(sql);
  const cps = Array.from(sql);
  const out: SplitStatement[] = [];
  let cur: Token[] = [];
  const flush = (): void => {
    if (cur.length === 0) return;
    const first = cur[0]!;
    const last = cur[cur.length - 1]!;
    // A quoted token's span covers its quotes; cut on the spans of the original text.
    const text = cps.slice(first.start, last.end).join('');
    const base = first.start;
    out.push({
      text,
      offset: base,
      tokens: cur.map((t) => ({ ...t, start: t.start - base, end: t.end - base })),
    });
    cur = [];
  };
  for (const t of tokens) {
    if (t.type === 'SEMICOLON') flush();
    else cur.push(t);
  }
  flush();
  return out;
}

const WORDLESS = new Set([
  'STRING',
  'NUMBER',
  'COMMA',
  'DOT',
  'L_PAREN',
  'R_PAREN',
  'SEMICOLON',
  'STAR',
  'EQ',
  'COLON',
  'DOLLAR',
  'L_BRACKET',
  'R_BRACKET',
]);

/** A forward-only cursor over one statement's tokens. */
export class Cursor {
  i = 0;
  constructor(
    readonly tokens: Token[],
    readonly text: string,
  ) {}
  peek(o = 0): Token | undefined {
    return this.tokens[this.i + o];
  }
  done(): boolean {
    return this.i >= this.tokens.length;
  }
  /** Case-insensitive keyword check on the token text (keywords may tokenize as VAR or as their own type). */
  is(word: string, o = 0): boolean {
    const t = this.peek(o);
    return !!t && t.type !== 'STRING' && t.type !== 'QUOTED_IDENTIFIER' && t.text.toUpperCase() === word;
  }
  accept(...words: string[]): boolean {
    for (let k = 0; k < words.length; k++) if (!this.is(words[k]!, k)) return false;
    this.i += words.length;
    return true;
  }
  expect(...words: string[]): void {
    if (!this.accept(...words)) this.syntax(`expected ${words.join(' ')}`);
  }
  isIdent(o = 0): boolean {
    const t = this.peek(o);
    return !!t && (t.type === 'QUOTED_IDENTIFIER' || !WORDLESS.has(t.type));
  }
  ident(): string {
    const t = this.peek();
    if (!t || !this.isIdent()) this.syntax('expected a name');
    this.i++;
    return t!.text;
  }
  /** a, a.b or a.b.c */
  qualifiedName(): string[] {
    const parts = [this.ident()];
    while (this.peek()?.type === 'DOT') {
      this.i++;
      parts.push(this.ident());
    }
    return parts;
  }
  string(): string {
    const t = this.peek();
    if (!t || t.type !== 'STRING') this.syntax('expected a string literal');
    this.i++;
    return t!.text;
  }
  /** Skips a balanced parenthesised group starting at '(' and returns its inner token range. */
  group(): { from: number; to: number } {
    if (this.peek()?.type !== 'L_PAREN') this.syntax("expected '('");
    const from = this.i + 1;
    let depth = 0;
    for (; this.i < this.tokens.length; this.i++) {
      const ty = this.tokens[this.i]!.type;
      if (ty === 'L_PAREN') depth++;
      else if (ty === 'R_PAREN') {
        depth--;
        if (depth === 0) {
          const to = this.i;
          this.i++;
          return { from, to };
        }
      }
    }
    this.syntax("missing ')'");
  }
  /** Source text of tokens [from, to) (code point spans). */
  slice(from: number, to: number): string {
    if (to <= from) return '';
    this.cps ??= Array.from(this.text);
    return this.cps.slice(this.tokens[from]!.start, this.tokens[to - 1]!.end).join('');
  }
  private cps: string[] | undefined;
  rest(): string {
    return this.slice(this.i, this.tokens.length);
  }
  syntax(what: string): never {
    const t = this.peek();
    throw syntaxError(
      `Syntax error at or near '${t?.text ?? 'end of input'}': ${what}.`,
      t?.start ?? this.tokens[this.tokens.length - 1]?.end,
    );
  }
}
