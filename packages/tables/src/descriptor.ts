/**
 * The words every layer uses for a table's data: what Unity Catalog resolves a name to (a descriptor), how a
 * table is named (by full name or by a Delta folder's path), time travel, a scan, and the connection a
 * format runs its SQL on. Metadata (ids, owners, comments, grants) is Unity Catalog's; none of it is here.
 */
import { fileURLToPath } from 'node:url';
import type { TypeNode } from '@minilake/datatypes';
import type { SqlRunner } from '@minilake/delta';

/** Where a table's data lives. */
export type TableStorage =
  /** A DuckDB table or view in its catalog's database file: the engine reads and writes it by name. */
  | 'duckdb'
  /** A Delta folder (EXTERNAL, or MANAGED under the storage root): MiniLake reads and writes the log. */
  | 'delta'
  /** Files at an EXTERNAL location in another format (PARQUET, CSV, ...): metadata only, never written. */
  | 'files';

/** A table as Unity Catalog resolves it: enough for a format to find and describe its data. */
export interface TableDescriptor {
  /** `catalog.schema.table` (lower case); null for a Delta folder named by its path (`delta.\`/path\``). */
  fullName: string | null;
  tableType: 'MANAGED' | 'EXTERNAL' | 'VIEW';
  /** Databricks' data_source_format (DELTA, PARQUET, ...); undefined for views. */
  dataSourceFormat?: string;
  storage: TableStorage;
  /** storage_location as the API reports it. */
  location?: string;
  /** The local folder of `location` (undefined for remote URIs and for engine objects). */
  root?: string;
  /** Partition column names, lower case, in partition order. */
  partitionColumns?: string[];
  /** Why the table cannot be written (a read-only catalog): writes through its format are refused with it. */
  readOnly?: string;
}

/** A table by its full name, or a Delta folder by path (`delta.\`/path\``, `/Volumes/...` included). */
export type TableRef = string | { path: string };

/** Time travel: a version, or `{ version }` / `{ timestamp }` (a commit time in ms since the epoch). */
export type AsOf = number | { version?: number; timestamp?: number };

/**
 * A table's data as a DuckDB SELECT, the version it reads, and (Delta) its columns' DuckDB types as the
 * SELECT casts them, so a writer can shape a staging table without binding the scan.
 */
export interface TableScan {
  sql: string;
  version: number;
  columns?: { name: string; type: string }[];
}

/**
 * The connection a format runs SQL on: the statement's own, passed explicitly, so staging and temporary
 * tables it creates are the ones the statement sees.
 */
export type SqlConnection = SqlRunner;

/** A column of a table's data as its format knows it (Delta: from the log, the physical truth). */
export interface TableColumn {
  name: string;
  type: TypeNode;
  nullable: boolean;
  comment?: string;
  partitionIndex?: number;
}

/** The local folder of a `file:` location (undefined for remote URIs, which MiniLake does not read). */
export function localPath(location: string | undefined | null): string | undefined {
  if (!location) return undefined;
  if (location.startsWith('file:'))
    return fileURLToPath(location.startsWith('file://') ? location : `file://${location.slice(5)}`);
  return location.startsWith('/') ? location : undefined;
}
