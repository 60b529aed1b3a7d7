/**
 * EXTERNAL Delta tables: metadata over a Delta folder at `storage_location`. The columns and partitioning
 * the API reports come from the Delta log (the physical truth wins over what the request declared); a
 * location without a log yet keeps the declared columns until someone (Spark, MiniLake's SQL) writes one.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  append,
  createTable,
  type DeltaReader,
  type DeltaSnapshot,
  DeltaTable,
  duckDbType,
  LOG_DIR,
  type SparkSchema,
  type SqlRunner,
} from '@minilake/delta';
import { invalidParameter } from '@minilake/core';
import { parseDuckDbType } from '@minilake/engine-duckdb';
import { structFieldJson } from '../types.js';
import type { UcContext } from './context.js';
import { externalLocation } from './locations.js';
import { columnOut, type ColumnOut, type TableRecord } from './records.js';
import {
  ExternalFilesSource,
  type CreatedTable,
  type TableCreate,
  type TableScan,
  type TableSource,
} from './table-sources.js';

/** The local folder of a `file:` location (undefined for remote URIs, which MiniLake does not read). */
export function localPath(location: string | undefined | null): string | undefined {
  if (!location) return undefined;
  if (location.startsWith('file:'))
    return fileURLToPath(location.startsWith('file://') ? location : `file://${location.slice(5)}`);
  return location.startsWith('/') ? location : undefined;
}

/**
 * A snapshot's scan, with its columns' DuckDB types as the scan casts them: a writer shapes its staging table
 * from them without binding read_parquet over every file of the table. Catalog tables and `delta.`/path``
 * access both answer with it.
 */
export async function snapshotScan(reader: DeltaReader, snap: DeltaSnapshot): Promise<TableScan> {
  const columns = snap.schema.fields.map((f) => ({ name: f.name, type: duckDbType(f.type) }));
  return { sql: await reader.scanSql(snap), version: snap.version, columns };
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
  readonly name: string = 'external-delta';
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
  async scan(record: TableRecord, version?: number): Promise<TableScan | undefined> {
    if (!this.handles({ tableType: record.table_type ?? '', format: record.data_source_format ?? '' }))
      return undefined;
    const dir = localPath(record.storage_location);
    if (!dir) return undefined;
    return snapshotScan(this.reader, await this.reader.snapshot(dir, version));
  }
}

/**
 * MANAGED Delta tables (`MINILAKE_MANAGED_FORMAT=delta`): a real Delta folder under the managed storage root,
 * `<root>/__unitystorage/schemas/<schema id>/tables/<table id>`, as Databricks lays managed tables out. Unity
 * Catalog owns the folder: the API reports it as the table's storage_location, and a drop deletes it.
 * Reads and writes are those of EXTERNAL Delta tables; only creation and drop differ.
 */
export class ManagedDeltaSource extends ExternalDeltaSource {
  override readonly name = 'managed-delta';

  constructor(
    private readonly uc: UcContext,
    private readonly deltaReader: DeltaReader,
  ) {
    super(uc, deltaReader);
  }

  override handles(req: {
    tableType: string;
    format: string;
    creating?: boolean;
    staged?: boolean;
  }): boolean {
    if (req.tableType !== 'MANAGED' || req.format !== 'DELTA' || this.uc.managedDeltaDir === undefined)
      return false;
    // A new MANAGED table is Delta when asked for by default, or when Spark staged its folder; a stored
    // record is Delta when it is one (DuckDB tables have an engine object and never get this far).
    return !req.creating || req.staged === true || this.uc.managedDeltaDefault;
  }

  /** The first commit (from the declared columns) in a fresh folder, then the record over it. */
  override async create(t: TableCreate): Promise<CreatedTable> {
    if (t.stagedDir) return this.adopt(t, t.stagedDir);
    if (t.storageLocation)
      throw invalidParameter(
        `A MANAGED table cannot have a storage_location: its data lives under the catalog's managed storage (${t.fullName}).`,
      );
    const schema: SparkSchema = t.delta?.schema ?? {
      type: 'struct',
      fields: t.columns.map(
        (c) =>
          JSON.parse(
            structFieldJson(c.col.name, c.node, {
              nullable: c.col.nullable ?? true,
              ...(c.col.comment ? { comment: c.col.comment } : {}),
            }),
          ) as SparkSchema['fields'][number],
      ),
    };
    if (schema.fields.length === 0) throw invalidParameter('A MANAGED table needs at least one column.');
    const schemaId = this.uc.c.schemas.get(`${t.catalog}.${t.schema}`)?.schema_id;
    const dir = this.uc.managedTableDir(schemaId, t.base.table_id);
    if (!existsSync(path.join(dir, LOG_DIR)))
      await createTable(this.deltaReader, dir, {
        schema,
        partitionColumns: t.delta?.partitionColumns ?? t.partitions,
        configuration: t.base.properties ?? {},
        managed: true,
        now: this.uc.clock.now(),
      });
    const snap = await this.deltaReader.snapshot(dir);
    const record: TableRecord = {
      ...t.base,
      storage_location: `file://${dir}`,
      metadata_only: true,
      columns: deltaColumns(snap),
    };
    if (snap.partitionColumns.length)
      record.partition_columns = snap.partitionColumns.map((p) => p.toLowerCase());
    else delete record.partition_columns;
    return { record };
  }

  /** A staging table's folder, where Spark has written the first commit, becomes the table's. */
  private async adopt(t: TableCreate, dir: string): Promise<CreatedTable> {
    if (!existsSync(path.join(dir, LOG_DIR)))
      throw invalidParameter(`The staging location of ${t.fullName} has no Delta table yet: ${dir}`);
    const snap = await this.deltaReader.snapshot(dir);
    const record: TableRecord = {
      ...t.base,
      storage_location: `file://${dir}`,
      metadata_only: true,
      columns: deltaColumns(snap),
    };
    if (snap.partitionColumns.length)
      record.partition_columns = snap.partitionColumns.map((p) => p.toLowerCase());
    else delete record.partition_columns;
    return { record };
  }

  /** A managed table's data goes with it (the folder, never anything outside the managed root). */
  async drop(record: TableRecord): Promise<void> {
    const root = this.uc.managedDeltaDir;
    const dir = localPath(record.storage_location);
    if (root && dir && dir.startsWith(root + path.sep)) {
      await rm(dir, { recursive: true, force: true });
      this.deltaReader.forget(dir);
    }
  }
}
