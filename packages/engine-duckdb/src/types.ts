/**
 * Type mapping both ways between Databricks (Spark DDL) type text and DuckDB types, through one small tree.
 * Databricks TIMESTAMP is an instant (DuckDB TIMESTAMPTZ); TIMESTAMP_NTZ is a wall-clock time (DuckDB
 * TIMESTAMP). DuckDB types Spark has no equivalent for map to the nearest wider Spark type (UBIGINT to
 * decimal(20,0), UUID to string, ...), so a table read back always yields a type the Spark connector parses.
 */
import type { DuckDBType } from '@duckdb/node-api';

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
// Tokenizer shared by both grammars.

type Tok =
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

function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
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

class Cursor {
  i = 0;
  constructor(
    readonly toks: Tok[],
    readonly text: string,
  ) {}
  peek(): Tok | undefined {
    return this.toks[this.i];
  }
  next(): Tok {
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

function checkDecimal(p: number, s: number, text: string): TypeNode {
  if (p < 1 || p > 38 || s < 0 || s > p)
    throw new TypeParseError(`Invalid decimal precision/scale (${p},${s}) in type: ${text}`);
  return { kind: 'decimal', precision: p, scale: s };
}

// ---------------------------------------------------------------------------------------------------------
// Databricks / Spark DDL type text.

const sparkPrimitives: Record<string, PrimitiveName> = {
  STRING: 'string',
  VARCHAR: 'string',
  CHAR: 'string',
  TEXT: 'string',
  BIGINT: 'bigint',
  LONG: 'bigint',
  INT: 'int',
  INTEGER: 'int',
  SMALLINT: 'smallint',
  SHORT: 'smallint',
  TINYINT: 'tinyint',
  BYTE: 'tinyint',
  DOUBLE: 'double',
  FLOAT: 'float',
  REAL: 'float',
  BOOLEAN: 'boolean',
  BOOL: 'boolean',
  DATE: 'date',
  TIMESTAMP: 'timestamp',
  TIMESTAMP_LTZ: 'timestamp',
  TIMESTAMP_NTZ: 'timestamp_ntz',
  BINARY: 'binary',
  VARIANT: 'variant',
  VOID: 'void',
  NULL: 'void',
};

const intervalUnits = new Set(['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND']);

function parseSpark(c: Cursor): TypeNode {
  const t = c.next();
  if (t.t !== 'word') throw new TypeParseError(`Expected a type name in: ${c.text}`);
  const up = t.v.toUpperCase();
  if (up === 'ARRAY') {
    c.expectP('<');
    const element = parseSpark(c);
    c.expectP('>');
    return { kind: 'array', element };
  }
  if (up === 'MAP') {
    c.expectP('<');
    const key = parseSpark(c);
    c.expectP(',');
    const value = parseSpark(c);
    c.expectP('>');
    return { kind: 'map', key, value };
  }
  if (up === 'STRUCT') {
    c.expectP('<');
    const fields: StructFieldNode[] = [];
    if (!c.isP('>')) {
      for (;;) {
        const name = c.name();
        if (c.isP(':')) c.next();
        const type = parseSpark(c);
        let nullable = true;
        let comment: string | undefined;
        if (c.isWord('NOT')) {
          c.next();
          const n = c.next();
          if (n.t !== 'word' || n.v.toUpperCase() !== 'NULL')
            throw new TypeParseError(`Expected NULL in: ${c.text}`);
          nullable = false;
        }
        if (c.isWord('COMMENT')) {
          c.next();
          const s = c.next();
          if (s.t !== 'str') throw new TypeParseError(`Expected a comment string in: ${c.text}`);
          comment = s.v;
        }
        fields.push(comment === undefined ? { name, type, nullable } : { name, type, nullable, comment });
        if (c.isP(',')) {
          c.next();
          continue;
        }
        break;
      }
    }
    c.expectP('>');
    return { kind: 'struct', fields };
  }
  if (up === 'DECIMAL' || up === 'DEC' || up === 'NUMERIC') {
    if (!c.isP('(')) return { kind: 'decimal', precision: 10, scale: 0 };
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
  if (up === 'INTERVAL') {
    const units: string[] = [];
    while (c.peek()?.t === 'word') {
      const w = (c.peek() as { v: string }).v.toUpperCase();
      if (w !== 'TO' && !intervalUnits.has(w)) break;
      units.push(w.toLowerCase());
      c.next();
    }
    return {
      kind: 'primitive',
      name: 'interval',
      interval: units.length ? units.join(' ') : 'day to second',
    };
  }
  const prim = sparkPrimitives[up];
  if (!prim) throw new TypeParseError(`Unsupported data type '${t.v}' in: ${c.text}`);
  if ((up === 'CHAR' || up === 'VARCHAR') && c.isP('(')) {
    c.next();
    c.int();
    c.expectP(')');
  }
  return { kind: 'primitive', name: prim };
}

/** Parses Databricks type text (`bigint`, `DECIMAL(10,2)`, `array<struct<a:int>>`, ...). */
export function parseDatabricksType(text: string): TypeNode {
  const c = new Cursor(tokenize(text), text);
  const node = parseSpark(c);
  c.done();
  return node;
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

function parseDuckBase(c: Cursor): TypeNode {
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
  if (up === 'DECIMAL' || up === 'NUMERIC') {
    if (!c.isP('(')) return { kind: 'decimal', precision: 18, scale: 3 };
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

function parseDuck(c: Cursor): TypeNode {
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
  const c = new Cursor(tokenize(text), text);
  const node = parseDuck(c);
  c.done();
  return node;
}

// ---------------------------------------------------------------------------------------------------------
// Rendering.

/** Always-quoted DuckDB identifier. */
export function quoteIdent(name: string): string {
  if (name.includes('\0')) throw new TypeParseError('Identifiers must not contain NUL bytes');
  return `"${name.replaceAll('"', '""')}"`;
}

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
      return `STRUCT(${node.fields.map((f) => `${quoteIdent(f.name)} ${toDuckDbTypeText(f.type)}`).join(', ')})`;
  }
}

const sparkFieldName = (name: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replaceAll('`', '``')}\``;

/** Spark DDL type text, lowercase like Databricks prints it (`decimal(10,2)`, `struct<a:int,b:string>`). */
export function toDatabricksTypeText(node: TypeNode): string {
  switch (node.kind) {
    case 'primitive':
      if (node.name === 'interval') return `interval ${node.interval ?? 'day to second'}`;
      return node.name;
    case 'decimal':
      return `decimal(${node.precision},${node.scale})`;
    case 'array':
      return `array<${toDatabricksTypeText(node.element)}>`;
    case 'map':
      return `map<${toDatabricksTypeText(node.key)},${toDatabricksTypeText(node.value)}>`;
    case 'struct':
      return `struct<${node.fields
        .map(
          (f) =>
            `${sparkFieldName(f.name)}:${toDatabricksTypeText(f.type)}${f.nullable ? '' : ' not null'}${f.comment !== undefined ? ` comment '${f.comment.replaceAll("'", "\\'")}'` : ''}`,
        )
        .join(',')}>`;
  }
}

const typeNameOf: Record<PrimitiveName, string> = {
  string: 'STRING',
  bigint: 'LONG',
  int: 'INT',
  smallint: 'SHORT',
  tinyint: 'BYTE',
  double: 'DOUBLE',
  float: 'FLOAT',
  boolean: 'BOOLEAN',
  date: 'DATE',
  timestamp: 'TIMESTAMP',
  timestamp_ntz: 'TIMESTAMP_NTZ',
  binary: 'BINARY',
  interval: 'INTERVAL',
  variant: 'VARIANT',
  void: 'NULL',
};

/** The Databricks ColumnTypeName enum value. */
export function toDatabricksTypeName(node: TypeNode): string {
  switch (node.kind) {
    case 'primitive':
      return typeNameOf[node.name];
    case 'decimal':
      return 'DECIMAL';
    case 'array':
      return 'ARRAY';
    case 'map':
      return 'MAP';
    case 'struct':
      return 'STRUCT';
  }
}

const sparkJsonName: Record<PrimitiveName, string> = {
  string: 'string',
  bigint: 'long',
  int: 'integer',
  smallint: 'short',
  tinyint: 'byte',
  double: 'double',
  float: 'float',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'timestamp',
  timestamp_ntz: 'timestamp_ntz',
  binary: 'binary',
  interval: 'interval',
  variant: 'variant',
  void: 'void',
};

/** The Spark DataType JSON value (a string for atomic types, an object for complex ones). */
export function sparkTypeJson(node: TypeNode): unknown {
  switch (node.kind) {
    case 'primitive':
      if (node.name === 'interval') return `interval ${node.interval ?? 'day to second'}`;
      return sparkJsonName[node.name];
    case 'decimal':
      return `decimal(${node.precision},${node.scale})`;
    case 'array':
      return { type: 'array', elementType: sparkTypeJson(node.element), containsNull: true };
    case 'map':
      return {
        type: 'map',
        keyType: sparkTypeJson(node.key),
        valueType: sparkTypeJson(node.value),
        valueContainsNull: true,
      };
    case 'struct':
      return {
        type: 'struct',
        fields: node.fields.map((f) => structField(f.name, f.type, f.nullable, f.comment)),
      };
  }
}

function structField(name: string, type: TypeNode, nullable: boolean, comment?: string) {
  return {
    name,
    type: sparkTypeJson(type),
    nullable,
    metadata: comment !== undefined ? { comment } : {},
  };
}

/** The Spark StructField JSON Databricks puts in a column's `type_json`. */
export function structFieldJson(
  name: string,
  type: TypeNode,
  opts: { nullable?: boolean; comment?: string } = {},
): string {
  return JSON.stringify(structField(name, type, opts.nullable ?? true, opts.comment));
}

export interface DatabricksTypeInfo {
  type_name: string;
  type_text: string;
  type_json: string;
  type_precision?: number;
  type_scale?: number;
}

/** Everything a Unity Catalog ColumnInfo carries about a type. */
export function databricksTypeInfo(
  node: TypeNode,
  field: { name?: string; nullable?: boolean; comment?: string } = {},
): DatabricksTypeInfo {
  const info: DatabricksTypeInfo = {
    type_name: toDatabricksTypeName(node),
    type_text: toDatabricksTypeText(node),
    type_json: structFieldJson(field.name ?? '', node, field),
  };
  if (node.kind === 'decimal') {
    info.type_precision = node.precision;
    info.type_scale = node.scale;
  }
  return info;
}

/** Databricks type text to DuckDB DDL: `DECIMAL(10,2)` stays, `array<int>` becomes `INTEGER[]`. */
export function databricksToDuckDbType(typeText: string): string {
  return toDuckDbTypeText(parseDatabricksType(typeText));
}

/** A DuckDB type (object or string) to Databricks type_name / type_text / type_json. */
export function duckDbTypeToDatabricks(
  t: DuckDBType | string,
  field: { name?: string; nullable?: boolean; comment?: string } = {},
): DatabricksTypeInfo {
  return databricksTypeInfo(parseDuckDbType(typeof t === 'string' ? t : t.toString()), field);
}

/** Normalises Databricks type text to the canonical lowercase form Databricks returns. */
export function normalizeDatabricksType(typeText: string): string {
  return toDatabricksTypeText(parseDatabricksType(typeText));
}
