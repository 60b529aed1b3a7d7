/**
 * Delta folders, read and written by MiniLake itself (@minilake/delta): snapshot scans with time travel,
 * one-commit appends, the copy-on-write writer, DESCRIBE HISTORY / DETAIL, the log's schema. The reader
 * (its snapshot cache) is the host's one, shared with every other user of Delta.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { parseDuckDbType } from '@minilake/datatypes';
import {
  append,
  createTable,
  DeltaTable,
  duckDbType,
  LOG_DIR,
  type DeltaReader,
  type DeltaSnapshot,
  type DetailRow,
  type HistoryRow,
  type SparkSchema,
} from '@minilake/delta';
import type { AsOf, SqlConnection, TableColumn, TableDescriptor, TableScan } from './descriptor.js';
import type { TableFormat } from './format.js';

export interface DeltaFormatOptions {
  reader: DeltaReader;
  /** The injected clock's time, for commit timestamps. */
  now: () => number;
}

export class DeltaFormat implements TableFormat {
  readonly storage = 'delta' as const;
  readonly reader: DeltaReader;
  private readonly now: () => number;

  constructor(o: DeltaFormatOptions) {
    this.reader = o.reader;
    this.now = o.now;
  }

  /** Whether a folder holds a Delta log. */
  isDelta(root: string): boolean {
    return existsSync(path.join(root, LOG_DIR));
  }

  /** The version a time-travel spec names (undefined: the latest). */
  async versionAt(root: string, at: AsOf | undefined): Promise<number | undefined> {
    if (at === undefined || typeof at === 'number') return at;
    if (at.timestamp !== undefined) return this.reader.commitLog.versionAt(root, at.timestamp);
    return at.version;
  }

  async scan(t: TableDescriptor, at?: AsOf): Promise<TableScan | undefined> {
    if (!t.root) return undefined;
    return snapshotScan(this.reader, await this.reader.snapshot(t.root, await this.versionAt(t.root, at)));
  }

  async append(
    t: TableDescriptor,
    source: string,
    conn: SqlConnection,
  ): Promise<{ rows: number; version: number | undefined } | undefined> {
    if (!t.root) return undefined;
    return append(conn, this.reader, t.root, source, { now: this.now });
  }

  writer(t: TableDescriptor, conn: SqlConnection): DeltaTable | undefined {
    if (!t.root) return undefined;
    return new DeltaTable({ sql: conn, reader: this.reader, root: t.root, now: this.now });
  }

  async history(t: TableDescriptor, limit?: number): Promise<HistoryRow[] | undefined> {
    return t.root ? this.reader.history(t.root, limit) : undefined;
  }

  async detail(t: TableDescriptor): Promise<DetailRow | undefined> {
    if (!t.root) return undefined;
    return this.reader.detail(t.root, { name: t.fullName, location: t.location ?? `file:${t.root}` });
  }

  /** The log's schema now (a table Spark changed reports its new columns at once); undefined: no log yet. */
  async columns(t: TableDescriptor): Promise<TableColumn[] | undefined> {
    if (!t.root || !this.isDelta(t.root)) return undefined;
    return snapshotColumns(await this.reader.snapshot(t.root));
  }

  /** The log's columns and partitioning at a folder (which must hold a log). */
  async layout(root: string): Promise<{ columns: TableColumn[]; partitionColumns: string[] }> {
    const snap = await this.reader.snapshot(root);
    return { columns: snapshotColumns(snap), partitionColumns: snap.partitionColumns };
  }

  /** Writes a table's first commit at `root`, unless a log is already there. */
  async create(
    root: string,
    o: {
      schema: SparkSchema;
      partitionColumns: string[];
      configuration?: Record<string, string>;
      /** A MANAGED table (Databricks' managed-table properties in the first commit). */
      managed?: boolean;
    },
  ): Promise<void> {
    if (this.isDelta(root)) return;
    await createTable(this.reader, root, {
      schema: o.schema,
      partitionColumns: o.partitionColumns,
      configuration: o.configuration ?? {},
      ...(o.managed ? { managed: true } : {}),
      now: this.now(),
    });
  }

  /** Deletes a table's folder (a MANAGED table's data goes with it; the caller checks the folder is its own). */
  async drop(root: string): Promise<void> {
    await rm(root, { recursive: true, force: true });
    this.reader.forget(root);
  }
}

/**
 * A snapshot's scan, with its columns' DuckDB types as the scan casts them: a writer shapes its staging table
 * from them without binding read_parquet over every file of the table.
 */
export async function snapshotScan(reader: DeltaReader, snap: DeltaSnapshot): Promise<TableScan> {
  const columns = snap.schema.fields.map((f) => ({ name: f.name, type: duckDbType(f.type) }));
  return { sql: await reader.scanSql(snap), version: snap.version, columns };
}

/** A snapshot's columns, typed as a scan reads them (the DuckDB type a column is cast to, read back). */
function snapshotColumns(snap: DeltaSnapshot): TableColumn[] {
  return snap.columns().map((c) => ({
    name: c.name,
    type: parseDuckDbType(c.duckType),
    nullable: c.nullable,
    ...(c.comment !== undefined ? { comment: c.comment } : {}),
    ...(c.partitionIndex !== undefined ? { partitionIndex: c.partitionIndex } : {}),
  }));
}
