/**
 * The one type tree every spelling is read into and written from (Databricks type text, DuckDB type strings,
 * Spark JSON), and the tokenizer both text grammars share. A primitive's name is its Databricks type text.
 */

export type PrimitiveName =
  | 'string'
  | 'bigint'
  | 'int'
  | 'smallint'
  | 'tinyint'
  | 'double'
  | 'float'
  | 'boolean'
  | 'date'
  | 'timestamp'
  | 'timestamp_ntz'
  | 'binary'
  | 'interval'
  | 'variant'
  | 'void';

export interface StructFieldNode {
  name: string;
  type: TypeNode;
  nullable: boolean;
  comment?: string;
}

export type TypeNode =
  | { kind: 'primitive'; name: PrimitiveName; interval?: string }
  | { kind: 'decimal'; precision: number; scale: number }
  | { kind: 'array'; element: TypeNode }
  | { kind: 'map'; key: TypeNode; value: TypeNode }
  | { kind: 'struct'; fields: StructFieldNode[] };

export class TypeParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TypeParseError';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Tokenizer shared by both grammars (DuckDB's and Databricks').

export type TypeToken =
  { t: 'word'; v: string } | { t: 'qident'; v: string } | { t: 'str'; v: string } | { t: 'p'; v: string };

/**
 * Reads the quoted token that opens at `start`: a doubled quote is a literal quote, and in string literals
 * (single quotes) a backslash escapes the next character. Returns the value and the index after the token.
 */
function readQuoted(text: string, start: number): [string, number] {
  const quote = text[start]!;
  let v = '';
  let i = start + 1;
  for (;;) {
    if (i >= text.length) {
      throw new TypeParseError(`Unterminated ${quote === "'" ? 'string' : 'quoted name'} in type: ${text}`);
    }
    const c = text[i]!;
    if (quote === "'" && c === '\\' && i + 1 < text.length) {
      v += text[i + 1];
      i += 2;
    } else if (c === quote && text[i + 1] === quote) {
      v += quote;
      i += 2;
    } else if (c === quote) {
      return [v, i + 1];
    } else {
      v += c;
      i++;
    }
  }
}

export function tokenizeType(text: string): TypeToken[] {
  const out: TypeToken[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '`' || ch === '"' || ch === "'") {
      const [v, next] = readQuoted(text, i);
      out.push({ t: ch === "'" ? 'str' : 'qident', v });
      i = next;
      continue;
    }
    if ('<>(),:[]'.includes(ch)) {
      out.push({ t: 'p', v: ch });
      i++;
      continue;
    }
    const m = /^[\p{L}\p{N}_$]+/u.exec(text.slice(i));
    if (!m) throw new TypeParseError(`Unexpected character ${JSON.stringify(ch)} in type: ${text}`);
    out.push({ t: 'word', v: m[0] });
    i += m[0].length;
  }
  return out;
}

/** A read position over type tokens, with the checks both grammars need. */
export class TypeCursor {
  static of(text: string): TypeCursor {
    return new TypeCursor(tokenizeType(text), text);
  }

  i = 0;
  constructor(
    readonly toks: TypeToken[],
    readonly text: string,
  ) {}
  peek(): TypeToken | undefined {
    return this.toks[this.i];
  }
  next(): TypeToken {
    const t = this.toks[this.i++];
    if (!t) throw new TypeParseError(`Unexpected end of type: ${this.text}`);
    return t;
  }
  isP(v: string): boolean {
    const t = this.peek();
    return t?.t === 'p' && t.v === v;
  }
  isWord(v: string): boolean {
    const t = this.peek();
    return t?.t === 'word' && t.v.toUpperCase() === v;
  }
  expectP(v: string): void {
    const t = this.next();
    if (t.t !== 'p' || t.v !== v) throw new TypeParseError(`Expected '${v}' in type: ${this.text}`);
  }
  int(): number {
    const t = this.next();
    if (t.t !== 'word' || !/^\d+$/.test(t.v))
      throw new TypeParseError(`Expected a number in type: ${this.text}`);
    return Number(t.v);
  }
  name(): string {
    const t = this.next();
    if (t.t === 'word' || t.t === 'qident') return t.v;
    throw new TypeParseError(`Expected a field name in type: ${this.text}`);
  }
  done(): void {
    if (this.i < this.toks.length) throw new TypeParseError(`Unexpected trailing text in type: ${this.text}`);
  }
}

export function checkDecimal(p: number, s: number, text: string): TypeNode {
  if (p < 1 || p > 38 || s < 0 || s > p)
    throw new TypeParseError(`Invalid decimal precision/scale (${p},${s}) in type: ${text}`);
  return { kind: 'decimal', precision: p, scale: s };
}

/**
 * A decimal's optional `(precision[, scale])` after its name, checked; `defaults` when it has none (DuckDB's
 * and Spark's bare DECIMAL differ).
 */
export function parseDecimalArgs(c: TypeCursor, defaults: { precision: number; scale: number }): TypeNode {
  if (!c.isP('(')) return { kind: 'decimal', ...defaults };
  c.next();
  const p = c.int();
  let s = 0;
  if (c.isP(',')) {
    c.next();
    s = c.int();
  }
  c.expectP(')');
  return checkDecimal(p, s, c.text);
}

/** The tree with every primitive replaced by `fn`'s answer (decimals and nesting kept). */
export function mapPrimitives(
  node: TypeNode,
  fn: (p: Extract<TypeNode, { kind: 'primitive' }>) => TypeNode,
): TypeNode {
  switch (node.kind) {
    case 'primitive':
      return fn(node);
    case 'decimal':
      return node;
    case 'array':
      return { kind: 'array', element: mapPrimitives(node.element, fn) };
    case 'map':
      return { kind: 'map', key: mapPrimitives(node.key, fn), value: mapPrimitives(node.value, fn) };
    case 'struct':
      return { kind: 'struct', fields: node.fields.map((f) => ({ ...f, type: mapPrimitives(f.type, fn) })) };
  }
}
