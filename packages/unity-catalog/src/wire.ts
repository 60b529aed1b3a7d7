/**
 * The JSON Unity Catalog answers with, as readers outside this package consume it (the SQL layer's
 * information_schema and DESCRIBE AS JSON, Thrift's metadata calls): named and spelled as the Databricks SDKs
 * name them (TableInfo, ColumnInfo, ...). Fields a reader may meet absent are optional, because a record
 * made by another writer (the REST API, SQL DDL, Spark) need not carry them. Types only: the store builds
 * these documents; this is the one declaration of their shape for everyone who reads them.
 */

/** owner, comment and the audit fields every securable carries. */
export interface SecurableAudit {
  owner?: string;
  comment?: string;
  created_at?: number;
  created_by?: string;
  updated_at?: number;
  updated_by?: string;
}

export interface CatalogInfo extends SecurableAudit {
  name: string;
  properties?: Record<string, string>;
}

export interface SchemaInfo extends SecurableAudit {
  name: string;
  catalog_name: string;
  full_name?: string;
  properties?: Record<string, string>;
}

export interface ColumnInfo {
  name: string;
  type_text?: string;
  type_name?: string;
  type_json?: string;
  type_precision?: number;
  type_scale?: number;
  position?: number;
  nullable?: boolean;
  comment?: string;
  partition_index?: number;
}

export interface PrimaryKeyConstraint {
  name: string;
  child_columns: string[];
}

export interface ForeignKeyConstraint {
  name: string;
  child_columns: string[];
  parent_table: string;
  parent_columns: string[];
}

export interface TableConstraint {
  primary_key_constraint?: PrimaryKeyConstraint;
  foreign_key_constraint?: ForeignKeyConstraint;
}

export interface TableInfo extends SecurableAudit {
  name: string;
  catalog_name: string;
  schema_name: string;
  full_name?: string;
  table_type?: string;
  data_source_format?: string;
  storage_location?: string;
  view_definition?: string;
  table_id?: string;
  pipeline_id?: string;
  properties?: Record<string, string>;
  columns?: ColumnInfo[];
  table_constraints?: TableConstraint[];
}

export interface FunctionParameterInfo {
  name: string;
  type_text?: string;
  position?: number;
  comment?: string;
}

export interface FunctionInfo extends SecurableAudit {
  name: string;
  catalog_name: string;
  schema_name: string;
  data_type?: string;
  full_data_type?: string;
  routine_body?: string;
  routine_definition?: string;
  external_language?: string;
  is_deterministic?: boolean;
  sql_data_access?: string;
  is_null_call?: boolean;
  security_type?: string;
  specific_name?: string;
  input_params?: { parameters?: FunctionParameterInfo[] };
}

export interface VolumeInfo extends SecurableAudit {
  name: string;
  catalog_name: string;
  schema_name: string;
  volume_type?: string;
  storage_location?: string;
}
