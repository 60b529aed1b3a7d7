/**
 * Spark's DataType JSON (a Delta log's `schemaString`, Unity Catalog's `type_json`): its TypeScript shape, and
 * the reader into the tree (the writer is `sparkTypeJson` in databricks.ts). Atomic types are strings
 * (`"long"`, `"decimal(10,2)"`), complex ones objects.
 */
import { checkDecimal, TypeParseError, type PrimitiveName, type TypeNode } from './tree.js';
import { PRIMITIVES } from './vocabulary.js';

export type SparkType =
  | string // primitive: "long", "string", "decimal(10,2)", ...
  | { type: 'struct'; fields: SparkField[] }
  | { type: 'array'; elementType: SparkType; containsNull: boolean }
  | { type: 'map'; keyType: SparkType; valueType: SparkType; valueContainsNull: boolean };

export interface SparkField {
  name: string;
  type: SparkType;
  nullable: boolean;
  metadata: Record<string, unknown>;
}

export interface SparkSchema {
  type: 'struct';
  fields: SparkField[];
}

/** A Spark JSON atomic type no Databricks type has; `sparkType` names it. */
export class UnknownSparkType extends TypeParseError {
  constructor(readonly sparkType: string) {
    super(`The Spark type "${sparkType}" is not supported`);
  }
}

const byJsonName = new Map<string, PrimitiveName>(
  (Object.entries(PRIMITIVES) as [PrimitiveName, { sparkJson: string }][]).map(([k, v]) => [v.sparkJson, k]),
);

/**
 * Reads Spark JSON into the tree. `nameOf` names struct fields (Delta column mapping reads the physical
 * names from a field's metadata); a field's `comment` metadata is kept.
 */
export function fromSparkJson(t: SparkType, nameOf: (f: SparkField) => string = (f) => f.name): TypeNode {
  if (typeof t === 'string') {
    const prim = byJsonName.get(t);
    if (prim) return { kind: 'primitive', name: prim };
    const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
    if (dec) return checkDecimal(Number(dec[1]), Number(dec[2]), t);
    // Spark's bare `decimal` is DecimalType's default, (10,0).
    if (t === 'decimal') return { kind: 'decimal', precision: 10, scale: 0 };
    const interval =
      /^interval( (year|month|day|hour|minute|second)( to (year|month|day|hour|minute|second))?)?$/.exec(t);
    if (interval) return { kind: 'primitive', name: 'interval', interval: t.slice(9) || 'day to second' };
    throw new UnknownSparkType(t);
  }
  switch (t.type) {
    case 'struct':
      return {
        kind: 'struct',
        fields: t.fields.map((f) => {
          const comment = f.metadata?.comment;
          return {
            name: nameOf(f),
            type: fromSparkJson(f.type, nameOf),
            nullable: f.nullable,
            ...(typeof comment === 'string' ? { comment } : {}),
          };
        }),
      };
    case 'array':
      return { kind: 'array', element: fromSparkJson(t.elementType, nameOf) };
    case 'map':
      return {
        kind: 'map',
        key: fromSparkJson(t.keyType, nameOf),
        value: fromSparkJson(t.valueType, nameOf),
      };
  }
}
