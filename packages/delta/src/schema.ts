/**
 * Delta's schema: the Spark JSON `schemaString` of a metaData action, read through the one type vocabulary
 * (@minilake/datatypes) into the DuckDB types a scan casts to. Column mapping keeps the physical (file) name
 * in a field's metadata.
 */
import {
  fromSparkJson,
  mapPrimitives,
  sparkTypeJson,
  toDatabricksTypeName,
  toDatabricksTypeText,
  toDuckDbTypeText,
  UnknownSparkType,
  type SparkField,
  type SparkSchema,
  type SparkType,
  type TypeNode,
} from '@minilake/datatypes';
import { DeltaError } from './errors.js';

export type { SparkField, SparkSchema, SparkType } from '@minilake/datatypes';

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

/**
 * The DuckDB type text a Spark type is read as (struct field names quoted for DuckDB, named by `nameOf`),
 * from the one vocabulary. A VOID column has no values in the files: it reads as NULL strings. MiniLake
 * reads no VARIANT (a reader feature) and no interval column (Delta has none).
 */
export function duckDbType(t: SparkType, nameOf: (f: SparkField) => string = (f) => f.name): string {
  let node: TypeNode;
  try {
    node = fromSparkJson(t, nameOf);
  } catch (e) {
    if (e instanceof UnknownSparkType)
      throw new DeltaError('DELTA_UNSUPPORTED_DATA_TYPE', `The Delta type "${e.sparkType}" is not supported`);
    throw e;
  }
  return toDuckDbTypeText(
    mapPrimitives(node, (p) => {
      if (p.name === 'variant')
        throw new DeltaError(
          'DELTA_UNSUPPORTED_FEATURES_FOR_READ',
          'The Delta type "variant" is not supported',
        );
      if (p.name === 'interval')
        throw new DeltaError(
          'DELTA_UNSUPPORTED_DATA_TYPE',
          `The Delta type "${sparkTypeJson(p)}" is not supported`,
        );
      return p.name === 'void' ? { kind: 'primitive', name: 'string' } : p;
    }),
  );
}

/** Spark's SQL spelling of a type (`type_text` in Unity Catalog): bigint, struct<a:int>, array<string>. */
export function sparkTypeText(t: SparkType): string {
  return toDatabricksTypeText(fromSparkJson(t));
}

/** Unity Catalog's type_name enum for a Spark type. */
export function ucTypeName(t: SparkType): string {
  return toDatabricksTypeName(fromSparkJson(t));
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
