/**
 * EXTERNAL Delta tables: metadata over a Delta folder at `storage_location`. The columns and partitioning
 * the API reports come from the Delta log (the physical truth wins over what the request declared); a
 * location without a log yet keeps the declared columns until someone (Spark, MiniLake's SQL) writes one.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  append,
  type DeltaReader,
  type DeltaSnapshot,
  DeltaTable,
  LOG_DIR,
  type SqlRunner,
} from '@minilake/delta';
import { parseDuckDbType } from '@minilake/engine-duckdb';
import type { UcContext } from './context.js';
import { externalLocation } from './locations.js';
import { columnOut, type ColumnOut, type TableRecord } from './records.js';
import {
  ExternalFilesSource,
  type CreatedTable,
  type TableCreate,
  type TableSource,
} from './table-sources.js';

/** The local folder of a `file:` location (undefined for remote URIs, which MiniLake does not read). */
export function localPath(location: string | undefined | null): string | undefined {
  if (!location) return undefined;
  if (location.startsWith('file:'))
    return fileURLToPath(location.startsWith('file://') ? location : `file://${location.slice(5)}`);
  return location.startsWith('/') ? location : undefined;
}

/** Unity Catalog columns for a Delta snapshot's schema. */
export function deltaColumns(snap: DeltaSnapshot): ColumnOut[] {
  return snap
    .columns()
    .map((c, i) =>
      columnOut(c.name, parseDuckDbType(c.duckType), i, c.nullable, c.comment, c.partitionIndex),
    );
}

export class ExternalDeltaSource implements TableSource {
  readonly name = 'external-delta';
  private readonly files: ExternalFilesSource;

  constructor(
    private readonly ctx: UcContext,
    private readonly reader: DeltaReader,
  ) {
    this.files = new ExternalFilesSource(ctx);
  }

  handles(req: { tableType: string; format: string }): boolean {
    return req.tableType === 'EXTERNAL' && req.format === 'DELTA';
  }

  async create(t: TableCreate): Promise<CreatedTable> {
    const loc = await externalLocation(this.ctx, t.storageLocation, 'table');
    const dir = localPath(loc);
    if (!dir || !existsSync(path.join(dir, LOG_DIR))) return this.files.create(t);
    const snap = await this.reader.snapshot(dir);
    const record: TableRecord = {
      ...t.base,
      storage_location: loc,
      metadata_only: true,
      columns: deltaColumns(snap),
    };
    if (snap.partitionColumns.length)
      record.partition_columns = snap.partitionColumns.map((p) => p.toLowerCase());
    else delete record.partition_columns;
    return { record };
  }

  /** The log's schema now: a table Spark changed after registration reports its new columns at once. */
  async columns(record: TableRecord): Promise<ColumnOut[] | undefined> {
    const dir = localPath(record.storage_location);
    if (!dir || !existsSync(path.join(dir, LOG_DIR))) return undefined;
    return deltaColumns(await this.reader.snapshot(dir));
  }

  /** Appends the rows of `source` as one Delta commit (undefined when the record is not a local Delta table). */
  async append(
    record: TableRecord,
    source: string,
    sql: SqlRunner,
  ): Promise<{ rows: number; version: number | undefined } | undefined> {
    if (!this.handles({ tableType: record.table_type ?? '', format: record.data_source_format ?? '' }))
      return undefined;
    const dir = localPath(record.storage_location);
    if (!dir) return undefined;
    return append(sql, this.reader, dir, source, { now: () => this.ctx.clock.now() });
  }

  /** A writer for the table's Delta folder (DML, overwrite, OPTIMIZE, VACUUM), on the connection of `sql`. */
  deltaTable(record: TableRecord, sql: SqlRunner): DeltaTable | undefined {
    if (!this.handles({ tableType: record.table_type ?? '', format: record.data_source_format ?? '' }))
      return undefined;
    const dir = localPath(record.storage_location);
    if (!dir) return undefined;
    return new DeltaTable({ sql, reader: this.reader, root: dir, now: () => this.ctx.clock.now() });
  }

  /** The DuckDB SELECT over the table's snapshot, or undefined when the record is not a local Delta table. */
  async scan(record: TableRecord, version?: number): Promise<{ sql: string; version: number } | undefined> {
    if (!this.handles({ tableType: record.table_type ?? '', format: record.data_source_format ?? '' }))
      return undefined;
    const dir = localPath(record.storage_location);
    if (!dir) return undefined;
    const snap = await this.reader.snapshot(dir, version);
    return { sql: await this.reader.scanSql(snap), version: snap.version };
  }
}
