/**
 * DuckDB's own type vocabulary: one small neutral type tree, a reader for DuckDB type strings (as
 * information_schema and DuckDBType.toString() print them) and DuckDB DDL for a tree. What Databricks calls
 * these types (type_name, type_text, type_json, Spark DDL) lives in @minilake/unity-catalog, which reads Spark
 * type text into the same tree with the tokenizer exported here.
 */
import { ident } from './sql.js';

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
// Tokenizer shared by both grammars (DuckDB's, and the Spark DDL reader in unity-catalog).

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

// ---------------------------------------------------------------------------------------------------------
// DuckDB type strings (as information_schema / DuckDBType.toString() print them).

const duckPrimitives: Record<string, TypeNode> = {
  VARCHAR: { kind: 'primitive', name: 'string' },
  STRING: { kind: 'primitive', name: 'string' },
  TEXT: { kind: 'primitive', name: 'string' },
  CHAR: { kind: 'primitive', name: 'string' },
  BPCHAR: { kind: 'primitive', name: 'string' },
  UUID: { kind: 'primitive', name: 'string' },
  JSON: { kind: 'primitive', name: 'string' },
  TIME: { kind: 'primitive', name: 'string' },
  TIME_NS: { kind: 'primitive', name: 'string' },
  'TIME WITH TIME ZONE': { kind: 'primitive', name: 'string' },
  TIMETZ: { kind: 'primitive', name: 'string' },
  BIT: { kind: 'primitive', name: 'string' },
  BITSTRING: { kind: 'primitive', name: 'string' },
  BIGNUM: { kind: 'primitive', name: 'string' },
  VARINT: { kind: 'primitive', name: 'string' },
  BIGINT: { kind: 'primitive', name: 'bigint' },
  INT8: { kind: 'primitive', name: 'bigint' },
  LONG: { kind: 'primitive', name: 'bigint' },
  UINTEGER: { kind: 'primitive', name: 'bigint' },
  INTEGER: { kind: 'primitive', name: 'int' },
  INT: { kind: 'primitive', name: 'int' },
  INT4: { kind: 'primitive', name: 'int' },
  USMALLINT: { kind: 'primitive', name: 'int' },
  SMALLINT: { kind: 'primitive', name: 'smallint' },
  INT2: { kind: 'primitive', name: 'smallint' },
  UTINYINT: { kind: 'primitive', name: 'smallint' },
  TINYINT: { kind: 'primitive', name: 'tinyint' },
  INT1: { kind: 'primitive', name: 'tinyint' },
  HUGEINT: { kind: 'decimal', precision: 38, scale: 0 },
  UHUGEINT: { kind: 'decimal', precision: 38, scale: 0 },
  UBIGINT: { kind: 'decimal', precision: 20, scale: 0 },
  DOUBLE: { kind: 'primitive', name: 'double' },
  'DOUBLE PRECISION': { kind: 'primitive', name: 'double' },
  FLOAT8: { kind: 'primitive', name: 'double' },
  FLOAT: { kind: 'primitive', name: 'float' },
  FLOAT4: { kind: 'primitive', name: 'float' },
  REAL: { kind: 'primitive', name: 'float' },
  BOOLEAN: { kind: 'primitive', name: 'boolean' },
  BOOL: { kind: 'primitive', name: 'boolean' },
  DATE: { kind: 'primitive', name: 'date' },
  TIMESTAMPTZ: { kind: 'primitive', name: 'timestamp' },
  'TIMESTAMP WITH TIME ZONE': { kind: 'primitive', name: 'timestamp' },
  TIMESTAMP: { kind: 'primitive', name: 'timestamp_ntz' },
  DATETIME: { kind: 'primitive', name: 'timestamp_ntz' },
  TIMESTAMP_S: { kind: 'primitive', name: 'timestamp_ntz' },
  TIMESTAMP_MS: { kind: 'primitive', name: 'timestamp_ntz' },
  TIMESTAMP_NS: { kind: 'primitive', name: 'timestamp_ntz' },
  TIMESTAMP_US: { kind: 'primitive', name: 'timestamp_ntz' },
  BLOB: { kind: 'primitive', name: 'binary' },
  BYTEA: { kind: 'primitive', name: 'binary' },
  GEOMETRY: { kind: 'primitive', name: 'binary' },
  INTERVAL: { kind: 'primitive', name: 'interval', interval: 'day to second' },
  VARIANT: { kind: 'primitive', name: 'variant' },
  NULL: { kind: 'primitive', name: 'void' },
  '"NULL"': { kind: 'primitive', name: 'void' },
};

function parseDuckBase(c: TypeCursor): TypeNode {
  const t = c.next();
  if (t.t === 'qident' && t.v.toUpperCase() === 'NULL') return { kind: 'primitive', name: 'void' };
  if (t.t !== 'word') throw new TypeParseError(`Expected a type name in: ${c.text}`);
  const up = t.v.toUpperCase();
  if (up === 'STRUCT' || up === 'ROW') {
    c.expectP('(');
    const fields: StructFieldNode[] = [];
    for (;;) {
      const name = c.name();
      const type = parseDuck(c);
      fields.push({ name, type, nullable: true });
      if (c.isP(',')) {
        c.next();
        continue;
      }
      break;
    }
    c.expectP(')');
    return { kind: 'struct', fields };
  }
  if (up === 'MAP') {
    c.expectP('(');
    const key = parseDuck(c);
    c.expectP(',');
    const value = parseDuck(c);
    c.expectP(')');
    return { kind: 'map', key, value };
  }
  if (up === 'DECIMAL' || up === 'NUMERIC') return parseDecimalArgs(c, { precision: 18, scale: 3 });
  if (up === 'ENUM' || up === 'UNION') {
    // Spark has neither: an enum reads as its label, a union as its text form.
    let depth = 0;
    do {
      const x = c.next();
      if (x.t === 'p' && x.v === '(') depth++;
      if (x.t === 'p' && x.v === ')') depth--;
    } while (depth > 0);
    return { kind: 'primitive', name: 'string' };
  }
  // Multi-word names: TIMESTAMP WITH TIME ZONE, DOUBLE PRECISION, TIME WITH TIME ZONE.
  let name = up;
  while (c.peek()?.t === 'word') {
    const candidate = `${name} ${(c.peek() as { v: string }).v.toUpperCase()}`;
    if (!Object.keys(duckPrimitives).some((k) => k === candidate || k.startsWith(candidate + ' '))) break;
    name = candidate;
    c.next();
  }
  if ((up === 'VARCHAR' || up === 'CHAR') && c.isP('(')) {
    c.next();
    c.int();
    c.expectP(')');
  }
  const prim = duckPrimitives[name];
  if (!prim) throw new TypeParseError(`Unsupported DuckDB type '${name}' in: ${c.text}`);
  return prim;
}

function parseDuck(c: TypeCursor): TypeNode {
  let node = parseDuckBase(c);
  while (c.isP('[')) {
    c.next();
    if (!c.isP(']')) c.int();
    c.expectP(']');
    node = { kind: 'array', element: node };
  }
  return node;
}

/** Parses a DuckDB type string (`DECIMAL(10,2)`, `INTEGER[]`, `STRUCT("a" INTEGER)`, ...). */
export function parseDuckDbType(text: string): TypeNode {
  const c = TypeCursor.of(text);
  const node = parseDuck(c);
  c.done();
  return node;
}

// ---------------------------------------------------------------------------------------------------------
// DuckDB DDL.

const duckOf: Record<PrimitiveName, string> = {
  string: 'VARCHAR',
  bigint: 'BIGINT',
  int: 'INTEGER',
  smallint: 'SMALLINT',
  tinyint: 'TINYINT',
  double: 'DOUBLE',
  float: 'FLOAT',
  boolean: 'BOOLEAN',
  date: 'DATE',
  timestamp: 'TIMESTAMPTZ',
  timestamp_ntz: 'TIMESTAMP',
  binary: 'BLOB',
  interval: 'INTERVAL',
  variant: 'VARIANT',
  void: 'INTEGER',
};

/** DuckDB DDL for a type tree. */
export function toDuckDbTypeText(node: TypeNode): string {
  switch (node.kind) {
    case 'primitive':
      return duckOf[node.name];
    case 'decimal':
      return `DECIMAL(${node.precision},${node.scale})`;
    case 'array':
      return `${toDuckDbTypeText(node.element)}[]`;
    case 'map':
      return `MAP(${toDuckDbTypeText(node.key)}, ${toDuckDbTypeText(node.value)})`;
    case 'struct':
      if (node.fields.length === 0) throw new TypeParseError('DuckDB cannot store an empty struct');
      return `STRUCT(${node.fields.map((f) => `${ident(f.name)} ${toDuckDbTypeText(f.type)}`).join(', ')})`;
  }
}
