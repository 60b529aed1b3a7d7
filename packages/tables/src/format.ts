/**
 * One interface for every table format. Each operation answers undefined where the engine does the work
 * itself (a DuckDB table is read, appended to and changed by name) or where the format cannot do it (files
 * read in place are never written); the caller then keeps its plain DuckDB behaviour or reports the gap.
 */
import type { DeltaTable, DetailRow, HistoryRow } from '@minilake/delta';
import type {
  AsOf,
  SqlConnection,
  TableColumn,
  TableDescriptor,
  TableScan,
  TableStorage,
} from './descriptor.js';

/**
 * Copy-on-write DML and maintenance on a table MiniLake writes itself: `stage` (the rows an UPDATE / DELETE /
 * MERGE can change, as a temporary table) and its `commit`, `overwrite` (INSERT OVERWRITE, TRUNCATE),
 * `replace` (CREATE OR REPLACE ... AS SELECT), `optimize`, `vacuum`. Delta's writer is the one there is.
 */
export type TableWriter = DeltaTable;
export type { StagedRewrite, HistoryRow, DetailRow, PruneTerm } from '@minilake/delta';

export interface TableFormat {
  readonly storage: TableStorage;
  /** A DuckDB SELECT over the table's data (at `at`); undefined: the engine reads the table by name. */
  scan(t: TableDescriptor, at?: AsOf): Promise<TableScan | undefined>;
  /** Appends a relation's rows (on `conn`) as one commit; undefined: the engine inserts itself. */
  append(
    t: TableDescriptor,
    source: string,
    conn: SqlConnection,
  ): Promise<{ rows: number; version: number | undefined } | undefined>;
  /** The writer for DML, overwrite and maintenance, whose temporary tables live on `conn`. */
  writer(t: TableDescriptor, conn: SqlConnection): TableWriter | undefined;
  /** DESCRIBE HISTORY rows, newest first. */
  history(t: TableDescriptor, limit?: number): Promise<HistoryRow[] | undefined>;
  /** DESCRIBE DETAIL. */
  detail(t: TableDescriptor): Promise<DetailRow | undefined>;
  /** The columns the data has now (Delta: its log), where they may differ from what was declared. */
  columns(t: TableDescriptor): Promise<TableColumn[] | undefined>;
}
