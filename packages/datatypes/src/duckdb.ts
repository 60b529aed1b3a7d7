/**
 * DuckDB's spelling: type strings as information_schema and DuckDBType.toString() print them (read into the
 * tree, DuckDB-only types mapped to the nearest wider Databricks type so a table read back always has a type
 * Spark parses), and DDL for a tree.
 */
import { ident } from '@minilake/engine-duckdb';
import { parseDecimalArgs, TypeCursor, TypeParseError, type StructFieldNode, type TypeNode } from './tree.js';
import { PRIMITIVES } from './vocabulary.js';

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

/** DuckDB DDL for a type tree. */
export function toDuckDbTypeText(node: TypeNode): string {
  switch (node.kind) {
    case 'primitive':
      return PRIMITIVES[node.name].duckDb;
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
