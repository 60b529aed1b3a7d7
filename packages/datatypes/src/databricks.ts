/**
 * Databricks' spelling: Spark DDL type text (`bigint`, `decimal(10,2)`, `array<struct<a:int>>`) read into the
 * tree and written back lowercase as Databricks prints it, and the type_name / type_text / type_json a Unity
 * Catalog ColumnInfo carries (type_json is Spark's StructField JSON). DuckDB types cross over through
 * duckdb.ts, so `duckDbTypeToDatabricks` is what a DuckDB result column is called on the wire.
 */
import type { DuckDBType } from '@minilake/engine-duckdb';
import { parseDuckDbType, toDuckDbTypeText } from './duckdb.js';
import {
  parseDecimalArgs,
  TypeCursor,
  TypeParseError,
  type PrimitiveName,
  type StructFieldNode,
  type TypeNode,
} from './tree.js';
import { PRIMITIVES } from './vocabulary.js';

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

function parseSpark(c: TypeCursor): TypeNode {
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
  if (up === 'DECIMAL' || up === 'DEC' || up === 'NUMERIC')
    return parseDecimalArgs(c, { precision: 10, scale: 0 });
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
  const c = TypeCursor.of(text);
  const node = parseSpark(c);
  c.done();
  return node;
}

// ---------------------------------------------------------------------------------------------------------
// Databricks names for a type tree.

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

/** The Databricks ColumnTypeName enum value. */
export function toDatabricksTypeName(node: TypeNode): string {
  switch (node.kind) {
    case 'primitive':
      return PRIMITIVES[node.name].typeName;
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

/** The Spark DataType JSON value (a string for atomic types, an object for complex ones). */
export function sparkTypeJson(node: TypeNode): unknown {
  switch (node.kind) {
    case 'primitive':
      if (node.name === 'interval') return `interval ${node.interval ?? 'day to second'}`;
      return PRIMITIVES[node.name].sparkJson;
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
/**
 * DuckDB type text -> Databricks type text as DESCRIBE prints it: the tree's mapping when the text parses,
 * else a lenient spelling (unknown names lowercased) so DESCRIBE never fails on a type.
 */
export function duckDbToDatabricksText(t: string): string {
  try {
    return duckDbTypeToDatabricks(t).type_text;
  } catch {
    return lenientDatabricksText(t);
  }
}

function lenientDatabricksText(t: string): string {
  const u = t.trim();
  if (u.endsWith('[]')) return `array<${duckDbToDatabricksText(u.slice(0, -2))}>`;
  const up = u.toUpperCase();
  if (up.startsWith('DECIMAL')) return u.toLowerCase().replaceAll(' ', '');
  if (up.startsWith('MAP(') || up.startsWith('STRUCT(')) {
    const inner = u.slice(u.indexOf('(') + 1, -1);
    const parts: string[] = [];
    let depth = 0;
    let cur = '';
    for (const ch of inner) {
      if (ch === '(' || ch === '[') depth++;
      if (ch === ')' || ch === ']') depth--;
      if (ch === ',' && depth === 0) {
        parts.push(cur.trim());
        cur = '';
      } else cur += ch;
    }
    if (cur.trim()) parts.push(cur.trim());
    if (up.startsWith('MAP('))
      return `map<${duckDbToDatabricksText(parts[0] ?? '')},${duckDbToDatabricksText(parts[1] ?? '')}>`;
    const fields = parts.map((p) => {
      let name: string;
      let rest: string;
      if (p.startsWith('"')) {
        const end = p.indexOf('"', 1);
        name = p.slice(1, end);
        rest = p.slice(end + 1);
      } else {
        const sp = p.indexOf(' ');
        name = p.slice(0, sp);
        rest = p.slice(sp + 1);
      }
      return `${name}:${duckDbToDatabricksText(rest)}`;
    });
    return `struct<${fields.join(',')}>`;
  }
  // Every name the tree knows parsed above: what is left is a name Databricks does not have.
  return u.toLowerCase();
}

const KEYWORDS =
  /\b(string|bigint|int|smallint|tinyint|double|float|boolean|date|timestamp_ntz|timestamp|binary|interval|variant|void|decimal|array|map|struct|day|hour|minute|second|year|month|to)\b/gi;

/** Type text with its type keywords upper case, as the Statement API's manifest spells it (`ARRAY<INT>`). */
export function upperTypeText(text: string): string {
  return text.replace(KEYWORDS, (k) => k.toUpperCase());
}
