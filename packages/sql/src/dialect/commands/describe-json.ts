/**
 * `DESCRIBE TABLE [EXTENDED] t AS JSON`: one row, one STRING column `json_metadata`, holding Databricks' JSON
 * document for the table (table_name, catalog_name, schema_name, namespace, type, columns with their type
 * trees, and with EXTENDED the provider, location, comment, properties, owner and times). Read from Unity
 * Catalog's record, so EXTERNAL Delta tables and views describe as the REST API shows them.
 */
import { type TypeNode, parseDatabricksType } from '@minilake/datatypes';
import { type ColumnInfo as UcColumn, type TableInfo as UcTable } from '@minilake/unity-catalog';
import { valuesResult, type Session } from '../session.js';
import {
  authorizeMetadataRead,
  columnsOf,
  resolveTable,
  sparkType,
  tableNotFound,
  type Outcome,
} from './common.js';

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/** A type tree as DESCRIBE AS JSON writes it: `{"name": "decimal", "precision": 10, "scale": 2}`, ... */
export function jsonType(t: TypeNode): { [k: string]: Json } {
  switch (t.kind) {
    case 'decimal':
      return { name: 'decimal', precision: t.precision, scale: t.scale };
    case 'array':
      return { name: 'array', element_type: jsonType(t.element), element_nullable: true };
    case 'map':
      return { name: 'map', key_type: jsonType(t.key), value_type: jsonType(t.value), value_nullable: true };
    case 'struct':
      return {
        name: 'struct',
        fields: t.fields.map((f) => ({
          name: f.name,
          type: jsonType(f.type),
          nullable: f.nullable,
          ...(f.comment ? { comment: f.comment } : {}),
        })),
      };
    case 'primitive':
      if (t.name === 'timestamp') return { name: 'timestamp_ltz' };
      if (t.name === 'string') return { name: 'string', collation: 'UTF8_BINARY' };
      if (t.name === 'interval') {
        const [start, , end] = (t.interval ?? 'day to second').toLowerCase().split(' ');
        return { name: 'interval', start_unit: start ?? 'day', end_unit: end ?? start ?? 'second' };
      }
      return { name: t.name };
  }
}

function typeOf(text: string): { [k: string]: Json } {
  try {
    return jsonType(parseDatabricksType(text));
  } catch {
    return { name: text.toLowerCase() };
  }
}

const bt = (n: string) => `\`${n.replace(/`/g, '``')}\``;
const iso = (ms: number | undefined) => (typeof ms === 'number' ? new Date(ms).toISOString() : undefined);

/** Databricks' `table_constraints` text: `[(name,PRIMARY KEY (`a`)), (fk,FOREIGN KEY (`x`) REFERENCES ...)]`. */
function constraintsText(t: UcTable): string | undefined {
  const parts = (t.table_constraints ?? []).flatMap((c) => {
    if (c.primary_key_constraint) {
      const k = c.primary_key_constraint;
      return [`(${k.name},PRIMARY KEY (${k.child_columns.map(bt).join(', ')}))`];
    }
    if (c.foreign_key_constraint) {
      const k = c.foreign_key_constraint;
      const parent = k.parent_table.split('.').map(bt).join('.');
      return [
        `(${k.name},FOREIGN KEY (${k.child_columns.map(bt).join(', ')}) REFERENCES ${parent} (${k.parent_columns.map(bt).join(', ')}))`,
      ];
    }
    return [];
  });
  return parts.length ? `[${parts.join(', ')}]` : undefined;
}

async function tempViewColumns(s: Session, name: string): Promise<UcColumn[] | undefined> {
  const r = await s.conn.runAndReadAll(
    `SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = 'temp' AND table_name = $t ORDER BY column_index`,
    { t: name },
  );
  const rows = r.getRows();
  if (rows.length === 0) return undefined;
  return rows.map((x) => ({ name: String(x[0]), type_text: sparkType(String(x[1])) }));
}

export async function describeJson(s: Session, parts: string[], extended: boolean): Promise<Outcome> {
  const ref = resolveTable(s, parts);
  const full = `${ref.catalog}.${ref.schema}.${ref.table}`;
  await authorizeMetadataRead(s, ref);
  // A session's temporary view (an unqualified name) is not in Unity Catalog: its columns come from the engine.
  const temp = parts.length === 1 ? await tempViewColumns(s, ref.table) : undefined;
  let t: UcTable | undefined;
  if (!temp && s.uc) {
    try {
      t = (await s.uc.getTable(full)) as UcTable;
    } catch (e) {
      if ((e as { status?: number }).status === 404) throw tableNotFound(full);
      throw e;
    }
  }
  const columns: UcColumn[] =
    temp ??
    t?.columns ??
    (await columnsOf(s, ref.catalog, ref.schema, ref.table)).map((c) => ({
      name: c.name,
      type_text: c.type,
      ...(c.comment !== null ? { comment: c.comment } : {}),
    }));
  if (temp) t = { name: ref.table, catalog_name: 'system', schema_name: 'session', table_type: 'VIEW' };
  const doc: { [k: string]: Json } = {
    table_name: t?.name ?? ref.table,
    catalog_name: t?.catalog_name ?? ref.catalog,
    schema_name: t?.schema_name ?? ref.schema,
    namespace: [t?.schema_name ?? ref.schema],
    type: t?.table_type ?? 'MANAGED',
    columns: columns.map((c) => ({
      name: c.name,
      type: typeOf(c.type_text ?? 'string'),
      ...(c.comment ? { comment: c.comment } : {}),
      nullable: c.nullable !== false,
    })),
  };
  const partitions = columns
    .filter((c) => typeof c.partition_index === 'number')
    .sort((a, b) => a.partition_index! - b.partition_index!)
    .map((c) => c.name);
  if (partitions.length) doc.partition_columns = partitions;
  if (extended) {
    const isView = t?.table_type === 'VIEW';
    if (!isView) doc.provider = (t?.data_source_format ?? 'delta').toLowerCase();
    if (t?.storage_location) doc.location = t.storage_location;
    if (isView && t?.view_definition !== undefined) {
      doc.view_text = t.view_definition;
      doc.view_original_text = t.view_definition;
    }
    if (t?.comment) doc.comment = t.comment;
    if (t?.owner) doc.owner = t.owner;
    const created = iso(t?.created_at);
    if (created) doc.created_time = created;
    doc.created_by = 'MiniLake';
    doc.last_access = 'UNKNOWN';
    if (t?.properties && Object.keys(t.properties).length) doc.table_properties = t.properties;
    const constraints = t ? constraintsText(t) : undefined;
    if (constraints) doc.table_constraints = constraints;
  }
  return valuesResult(s, [{ name: 'json_metadata', type: 'VARCHAR' }], [[JSON.stringify(doc)]]);
}
