/**
 * EXTERNAL Delta tables: metadata over a Delta folder at `storage_location`. The columns and partitioning
 * the API reports come from the Delta log (the physical truth wins over what the request declared); a
 * location without a log yet keeps the declared columns until someone (Spark, MiniLake's SQL) writes one.
 * The folder itself is read and written through the Delta format (@minilake/tables).
 */
import path from 'node:path';
import { invalidParameter } from '@minilake/core';
import { structFieldJson } from '@minilake/datatypes';
import type { SparkSchema } from '@minilake/delta';
import { localPath, type TableColumn } from '@minilake/tables';
import type { UcContext } from './context.js';
import { externalLocation } from './locations.js';
import { columnOut, type ColumnOut, type TableRecord } from './records.js';
import {
  ExternalFilesSource,
  type CreatedTable,
  type TableCreate,
  type TableSource,
} from './table-sources.js';

/** Unity Catalog columns for the columns a format reports. */
export function columnsOut(columns: TableColumn[]): ColumnOut[] {
  return columns.map((c, i) => columnOut(c.name, c.type, i, c.nullable, c.comment, c.partitionIndex));
}

/** The record over a Delta folder: the log's columns and partitioning replace the declared ones. */
async function deltaRecord(ctx: UcContext, t: TableCreate, dir: string, location: string) {
  const layout = await ctx.formats.delta.layout(dir);
  const record: TableRecord = {
    ...t.base,
    storage_location: location,
    metadata_only: true,
    columns: columnsOut(layout.columns),
  };
  if (layout.partitionColumns.length)
    record.partition_columns = layout.partitionColumns.map((p) => p.toLowerCase());
  else delete record.partition_columns;
  return record;
}

export class ExternalDeltaSource implements TableSource {
  readonly name: string = 'external-delta';
  private readonly files: ExternalFilesSource;

  constructor(protected readonly ctx: UcContext) {
    this.files = new ExternalFilesSource(ctx);
  }

  handles(req: { tableType: string; format: string }): boolean {
    return req.tableType === 'EXTERNAL' && req.format === 'DELTA';
  }

  async create(t: TableCreate): Promise<CreatedTable> {
    const loc = await externalLocation(this.ctx, t.storageLocation, 'table');
    const dir = localPath(loc);
    if (!dir || !this.ctx.formats.delta.isDelta(dir)) return this.files.create(t);
    return { record: await deltaRecord(this.ctx, t, dir, loc) };
  }
}

/**
 * MANAGED Delta tables (`MINILAKE_MANAGED_FORMAT=delta`): a real Delta folder under the managed storage root,
 * `<root>/__unitystorage/schemas/<schema id>/tables/<table id>`, as Databricks lays managed tables out. Unity
 * Catalog owns the folder: the API reports it as the table's storage_location, and a drop deletes it.
 * Reads and writes are those of EXTERNAL Delta tables; only creation and drop differ.
 */
export class ManagedDeltaSource extends ExternalDeltaSource {
  override readonly name: string = 'managed-delta';

  override handles(req: {
    tableType: string;
    format: string;
    creating?: boolean;
    staged?: boolean;
  }): boolean {
    if (req.tableType !== 'MANAGED' || req.format !== 'DELTA' || this.ctx.managedDeltaDir === undefined)
      return false;
    // A new MANAGED table is Delta when asked for by default, or when Spark staged its folder; a stored
    // record is Delta when it is one (DuckDB tables have an engine object and never get this far).
    return !req.creating || req.staged === true || this.ctx.managedDeltaDefault;
  }

  /** The storage root this source's folders live under. */
  protected root(): string | undefined {
    return this.ctx.managedDeltaDir;
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
    const schemaId = this.ctx.c.schemas.get(`${t.catalog}.${t.schema}`)?.schema_id;
    const dir = this.ctx.managedTableDir(schemaId, t.base.table_id, this.root());
    await this.ctx.formats.delta.create(dir, {
      schema,
      partitionColumns: t.delta?.partitionColumns ?? t.partitions,
      configuration: t.base.properties ?? {},
      managed: true,
    });
    return { record: await deltaRecord(this.ctx, t, dir, `file://${dir}`) };
  }

  /** A staging table's folder, where Spark has written the first commit, becomes the table's. */
  private async adopt(t: TableCreate, dir: string): Promise<CreatedTable> {
    if (!this.ctx.formats.delta.isDelta(dir))
      throw invalidParameter(`The staging location of ${t.fullName} has no Delta table yet: ${dir}`);
    return { record: await deltaRecord(this.ctx, t, dir, `file://${dir}`) };
  }

  /** A managed table's data goes with it (the folder, never anything outside the managed root). */
  async drop(record: TableRecord): Promise<void> {
    const root = this.root();
    const dir = localPath(record.storage_location);
    if (root && dir && dir.startsWith(root + path.sep)) await this.ctx.formats.delta.drop(dir);
  }
}

/**
 * A declarative pipeline's datasets: MATERIALIZED_VIEW and STREAMING_TABLE, Delta folders Unity Catalog owns
 * (`<datasetsDir>/__unitystorage/...`, as MANAGED Delta tables), created for the pipeline that Spark writes
 * them from and dropped with their data. Reads are those of any Delta table.
 */
export class PipelineDatasetSource extends ManagedDeltaSource {
  override readonly name = 'pipeline-dataset';

  override handles(req: { tableType: string; format: string }): boolean {
    return (
      (req.tableType === 'MATERIALIZED_VIEW' || req.tableType === 'STREAMING_TABLE') &&
      req.format === 'DELTA' &&
      this.ctx.datasetsDir !== undefined
    );
  }

  protected override root(): string | undefined {
    return this.ctx.datasetsDir;
  }
}
