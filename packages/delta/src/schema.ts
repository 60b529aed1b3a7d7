/**
 * Delta's schema: the Spark JSON `schemaString` of a metaData action, and its mapping to DuckDB types (for
 * reading) and back (for writing). Column mapping keeps the physical (file) name in a field's metadata.
 */
import { ident } from '@minilake/engine-duckdb';
import { DeltaError } from './errors.js';

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

export function parseSchemaString(schemaString: string): SparkSchema {
  let parsed: unknown;
  try {
    parsed = JSON.parse(schemaString);
  } catch {
    throw new DeltaError('DELTA_INVALID_SCHEMA', 'The table metadata holds a schemaString that is not JSON');
  }
  if (!parsed || typeof parsed !== 'object' || (parsed as SparkSchema).type !== 'struct') {
    throw new DeltaError('DELTA_INVALID_SCHEMA', 'The table schema is not a Spark struct type');
  }
  return parsed as SparkSchema;
}

const PRIMITIVE_TO_DUCKDB: Record<string, string> = {
  string: 'VARCHAR',
  long: 'BIGINT',
  integer: 'INTEGER',
  short: 'SMALLINT',
  byte: 'TINYINT',
  float: 'FLOAT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  binary: 'BLOB',
  date: 'DATE',
  // Spark's TIMESTAMP is an instant (UTC in the files); TIMESTAMP_NTZ is a wall-clock time.
  timestamp: 'TIMESTAMPTZ',
  timestamp_ntz: 'TIMESTAMP',
  void: 'VARCHAR',
};

/** The DuckDB type text for a Spark type (struct field names quoted for DuckDB). */
export function duckDbType(t: SparkType, nameOf: (f: SparkField) => string = (f) => f.name): string {
  if (typeof t === 'string') {
    const prim = PRIMITIVE_TO_DUCKDB[t];
    if (prim) return prim;
    const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
    if (dec) return `DECIMAL(${dec[1]},${dec[2]})`;
    if (t === 'decimal') return 'DECIMAL(10,0)';
    if (t === 'variant') {
      throw new DeltaError(
        'DELTA_UNSUPPORTED_FEATURES_FOR_READ',
        'The Delta type "variant" is not supported',
      );
    }
    throw new DeltaError('DELTA_UNSUPPORTED_DATA_TYPE', `The Delta type "${t}" is not supported`);
  }
  switch (t.type) {
    case 'struct':
      return `STRUCT(${t.fields.map((f) => `${ident(nameOf(f))} ${duckDbType(f.type, nameOf)}`).join(', ')})`;
    case 'array':
      return `${duckDbType(t.elementType, nameOf)}[]`;
    case 'map':
      return `MAP(${duckDbType(t.keyType, nameOf)}, ${duckDbType(t.valueType, nameOf)})`;
  }
}

/** Spark's SQL spelling of a type (`type_text` in Unity Catalog): bigint, struct<a:int>, array<string>. */
export function sparkTypeText(t: SparkType): string {
  if (typeof t === 'string') {
    const names: Record<string, string> = {
      long: 'bigint',
      integer: 'int',
      short: 'smallint',
      byte: 'tinyint',
    };
    return names[t] ?? t;
  }
  switch (t.type) {
    case 'struct':
      return `struct<${t.fields.map((f) => `${f.name}:${sparkTypeText(f.type)}`).join(',')}>`;
    case 'array':
      return `array<${sparkTypeText(t.elementType)}>`;
    case 'map':
      return `map<${sparkTypeText(t.keyType)},${sparkTypeText(t.valueType)}>`;
  }
}

/** Unity Catalog's type_name enum for a Spark type. */
export function ucTypeName(t: SparkType): string {
  if (typeof t !== 'string') return t.type.toUpperCase();
  if (t.startsWith('decimal')) return 'DECIMAL';
  const names: Record<string, string> = { integer: 'INT', void: 'NULL' };
  return names[t] ?? t.toUpperCase();
}

/** A DuckDB type (as DESCRIBE prints it) as a Spark type, for schemas MiniLake writes. */
export function sparkTypeFromDuckDb(duck: string): SparkType {
  const t = duck.trim().toUpperCase();
  const simple: Record<string, string> = {
    VARCHAR: 'string',
    BIGINT: 'long',
    INTEGER: 'integer',
    SMALLINT: 'short',
    TINYINT: 'byte',
    FLOAT: 'float',
    DOUBLE: 'double',
    BOOLEAN: 'boolean',
    BLOB: 'binary',
    DATE: 'date',
    'TIMESTAMP WITH TIME ZONE': 'timestamp',
    TIMESTAMPTZ: 'timestamp',
    TIMESTAMP: 'timestamp_ntz',
  };
  if (simple[t]) return simple[t];
  const dec = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(t);
  if (dec) return `decimal(${dec[1]},${dec[2]})`;
  if (t.endsWith('[]')) {
    return { type: 'array', elementType: sparkTypeFromDuckDb(duck.trim().slice(0, -2)), containsNull: true };
  }
  throw new DeltaError('DELTA_UNSUPPORTED_DATA_TYPE', `The DuckDB type ${duck} has no Delta type here`);
}

/** The name a column has in the Parquet files (differs from the logical name under column mapping). */
export function physicalName(f: SparkField, mappingMode: string): string {
  if (mappingMode === 'none') return f.name;
  const p = f.metadata['delta.columnMapping.physicalName'];
  if (typeof p !== 'string' || p === '') {
    throw new DeltaError(
      'DELTA_INVALID_SCHEMA',
      `Column ${f.name} has no physical name under column mapping`,
    );
  }
  return p;
}
