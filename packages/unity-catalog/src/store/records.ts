/**
 * The records the Unity Catalog keeps in its collections, and the wire shapes shared by several securables.
 * Records are JSON data: they change only through `Collection.update` / `set`, so every change is journaled.
 */
import {
  databricksTypeInfo,
  parseDatabricksType,
  parseDuckDbType,
  typeTextOfTypeName,
  type TypeNode,
} from '@minilake/datatypes';
import { invalidParameter, namePattern } from '@minilake/core';
import type { ColumnInput } from '../schemas.js';

export type Props = Record<string, string>;

export interface Audit {
  owner: string;
  created_at: number;
  created_by: string;
  updated_at: number;
  updated_by: string;
}

/** The fields several securables' updates share. */
export interface RecordPatch {
  comment?: string | null;
  properties?: Props | null;
  owner?: string | null;
  enable_predictive_optimization?: string | null;
}

/**
 * Applies an update's shared fields the one way every securable does: null (or an empty owner) keeps the
 * old value, and properties merge into the old ones.
 */
export function applyPatch(
  x: Audit & { comment?: string; properties?: Props; enable_predictive_optimization?: string },
  u: RecordPatch,
): void {
  if (u.comment !== undefined && u.comment !== null) x.comment = u.comment;
  if (u.properties) x.properties = { ...x.properties, ...u.properties };
  if (u.owner) x.owner = u.owner;
  if (u.enable_predictive_optimization) x.enable_predictive_optimization = u.enable_predictive_optimization;
}

export interface CatalogRecord extends Audit {
  id: string;
  name: string;
  comment?: string;
  properties: Props;
  storage_root?: string;
  isolation_mode: string;
  enable_predictive_optimization?: string;
  /** hive_metastore and samples: provided by the workspace (store/builtin.ts), never dropped or renamed. */
  builtin?: boolean;
}

export interface SchemaRecord extends Audit {
  schema_id: string;
  catalog_name: string;
  name: string;
  comment?: string;
  properties: Props;
  storage_root?: string;
  enable_predictive_optimization?: string;
}

export interface ColumnOut {
  name: string;
  type_text: string;
  type_name: string;
  type_json: string;
  type_precision: number;
  type_scale: number;
  position: number;
  nullable: boolean;
  comment?: string;
  partition_index?: number;
}

export interface TableRecord extends Audit {
  table_id: string;
  catalog_name: string;
  schema_name: string;
  name: string;
  /** Declared type; engine objects without one report MANAGED (table) or VIEW (view). */
  table_type?: 'MANAGED' | 'EXTERNAL' | 'VIEW';
  data_source_format?: string;
  storage_location?: string;
  comment?: string;
  properties: Props;
  partition_columns?: string[];
  /** Only for EXTERNAL tables that exist as metadata alone (no engine object). */
  columns?: ColumnOut[];
  metadata_only?: boolean;
}

export interface VolumeRecord extends Audit {
  volume_id: string;
  catalog_name: string;
  schema_name: string;
  name: string;
  volume_type: 'MANAGED' | 'EXTERNAL';
  storage_location: string;
  comment?: string;
}

export interface FunctionRecord extends Audit {
  function_id: string;
  info: Record<string, unknown>;
  catalog_name: string;
  schema_name: string;
  name: string;
  /** The engine macro kind created for it, if any. */
  macro?: 'scalar' | 'table';
}

export interface TableMetadataInput {
  comment?: string;
  properties?: Props;
  data_source_format?: string;
  table_type?: 'MANAGED' | 'EXTERNAL' | 'VIEW';
  storage_location?: string;
  partition_columns?: string[];
}

export interface PermissionChange {
  principal: string;
  add?: string[] | null;
  remove?: string[] | null;
}

export const HIDDEN_SCHEMAS = new Set(['information_schema', 'pg_catalog']);

/** Names Databricks keeps for its own catalogs (system tables, the legacy metastore, the sample data). */
export const RESERVED_CATALOGS = new Set(['system', 'hive_metastore', 'samples']);

export const clean = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** Databricks leaves `properties` out of an object that has none (clients then plan no change to it). */
export const propertiesOut = (p: Props | undefined): Props | undefined =>
  p && Object.keys(p).length > 0 ? p : undefined;

/** Parses a column's declared type: type_text first, else type_name (+ precision/scale for DECIMAL). */
export function declaredType(col: {
  name: string;
  type_text?: string | null;
  type_name?: string | null;
  type_precision?: number | null;
  type_scale?: number | null;
}): TypeNode {
  let text = col.type_text ?? undefined;
  if (!text && col.type_name) {
    const tn = col.type_name.toUpperCase();
    text =
      tn === 'DECIMAL'
        ? `decimal(${col.type_precision || 10},${col.type_scale ?? 0})`
        : typeTextOfTypeName(tn);
  }
  if (!text) throw invalidParameter(`Column '${col.name}' needs a type_text.`);
  try {
    return parseDatabricksType(text);
  } catch (e) {
    throw invalidParameter(`Invalid type for column '${col.name}': ${(e as Error).message}`);
  }
}

export function columnOut(
  name: string,
  node: TypeNode,
  position: number,
  nullable: boolean,
  comment: string | null | undefined,
  partitionIndex: number | undefined,
): ColumnOut {
  const info = databricksTypeInfo(node, clean({ name, nullable, comment: comment ?? undefined }));
  return clean({
    name,
    type_text: info.type_text,
    type_name: info.type_name,
    type_json: info.type_json,
    type_precision: info.type_precision ?? 0,
    type_scale: info.type_scale ?? 0,
    position,
    nullable,
    comment: comment ?? undefined,
    partition_index: partitionIndex,
  });
}

/** A column as the engine describes it. */
export interface EngineColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  column_index: number;
  is_nullable: boolean;
  comment: string | null;
}

export function engineColumnOut(c: EngineColumn, partitions: string[] | undefined): ColumnOut {
  const name = c.column_name;
  const pIdx = partitions?.indexOf(name.toLowerCase());
  let node: TypeNode;
  try {
    node = parseDuckDbType(c.data_type);
  } catch {
    node = { kind: 'primitive', name: 'string' };
  }
  return columnOut(
    name,
    node,
    c.column_index - 1,
    c.is_nullable,
    c.comment,
    pIdx !== undefined && pIdx >= 0 ? pIdx : undefined,
  );
}

/** Typed, checked input columns of a create request, in position order, with partition columns named. */
export function typedColumns(columns: ColumnInput[] | null | undefined) {
  const cols = [...(columns ?? [])].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  const seen = new Set<string>();
  const typed = cols.map((col) => {
    if (typeof col.name !== 'string' || col.name === '' || col.name.includes('\0'))
      throw invalidParameter('Every column needs a name.');
    if (seen.has(col.name.toLowerCase())) throw invalidParameter(`Duplicate column name '${col.name}'.`);
    seen.add(col.name.toLowerCase());
    return { col, node: declaredType(col) };
  });
  const partitions = typed
    .filter((t) => t.col.partition_index !== undefined && t.col.partition_index !== null)
    .sort((a, b) => a.col.partition_index! - b.col.partition_index!)
    .map((t) => t.col.name.toLowerCase());
  return { typed, partitions };
}

export type TypedColumn = ReturnType<typeof typedColumns>['typed'][number];

export const likeToRegex = (pattern: string): RegExp => namePattern(pattern, 'sql');
