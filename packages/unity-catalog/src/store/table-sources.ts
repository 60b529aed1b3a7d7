/**
 * The table source seam: where a table's data lives. Unity Catalog metadata (ids, owners, comments,
 * properties, grants) is the same for every table; what differs is how a create lays the data down and
 * what a delete removes. Each source serves the create requests it `handles`; the first match wins.
 *
 * - MANAGED tables live in their catalog's DuckDB database file (`ManagedDuckDbSource`).
 * - EXTERNAL tables are metadata over files at `storage_location` (`ExternalFilesSource`); nothing is read
 *   or written there by the API, and a delete leaves the files, as Databricks does.
 * - EXTERNAL Delta tables (`ExternalDeltaSource`, before ExternalFilesSource) create or check the
 *   `_delta_log` at the location; MANAGED Delta tables (`ManagedDeltaSource`, before ManagedDuckDbSource,
 *   only when enabled) write one in a folder Unity Catalog owns.
 *
 * Sources are the metadata side of creating and dropping a table; laying the data down and every read or
 * write of it is its format's (@minilake/tables): the store resolves a record to a TableDescriptor and the
 * format does the rest.
 */
import type { SparkSchema } from '@minilake/delta';
import { invalidParameter } from '@minilake/core';
import type { CatalogChange } from '@minilake/engine-duckdb';
import { engineRejected, tableExists } from '../errors.js';
import type { UcContext } from './context.js';
import { externalLocation } from './locations.js';
import { columnOut, type TableRecord, type TypedColumn } from './records.js';

/** A create request once its schema is resolved and its columns typed. */
export interface TableCreate {
  /** The folder of the staging table this MANAGED table was staged in (see Tables.stage). */
  stagedDir?: string;
  catalog: string;
  schema: string;
  name: string;
  /** `catalog.schema.name`. */
  fullName: string;
  /** Engine spelling of the schema. */
  engineSchema: string;
  tableType: 'MANAGED' | 'EXTERNAL' | 'MATERIALIZED_VIEW' | 'STREAMING_TABLE';
  /** Upper case, DELTA when the request named none. */
  format: string;
  storageLocation?: string | null;
  columns: TypedColumn[];
  /** Partition column names, lower case, in partition order. */
  partitions: string[];
  /** The record fields every source stores (ids, audit, comment, properties, partitions). */
  base: TableRecord;
  /** A Delta schema given as Spark fields (SQL DDL), for the sources that write a Delta log. */
  delta?: { schema: SparkSchema; partitionColumns: string[] };
}

export interface CreatedTable {
  record: TableRecord;
  /** The engine change the source made, announced once the record is stored. */
  change?: CatalogChange;
}

export interface TableSource {
  readonly name: string;
  /** `creating`: a create request (not a stored record) asks; `staged`: it names a staging table's folder. */
  handles(req: { tableType: string; format: string; creating?: boolean; staged?: boolean }): boolean;
  /** Lays the table's data down (or checks its location) and returns the record to store. */
  create(t: TableCreate): Promise<CreatedTable>;
  /** Removes what the source owns beyond the engine object and the record (nothing for these two). */
  drop?(record: TableRecord): Promise<void>;
}

/** MANAGED tables: a DuckDB table in the catalog's database, columns and comments set in one transaction. */
export class ManagedDuckDbSource implements TableSource {
  readonly name = 'managed-duckdb';
  constructor(private readonly ctx: UcContext) {}

  handles(req: { tableType: string }): boolean {
    return req.tableType === 'MANAGED';
  }

  async create(t: TableCreate): Promise<CreatedTable> {
    if (t.columns.length === 0) throw invalidParameter('A MANAGED table needs at least one column.');
    const comments: Record<string, string> = {};
    for (const c of t.columns) if (c.col.comment) comments[c.col.name] = c.col.comment;
    try {
      await this.ctx.formats.duckdb.create({
        catalog: t.catalog,
        schema: t.engineSchema,
        name: t.name,
        columns: t.columns.map((c) => ({
          name: c.col.name,
          type: c.node,
          nullable: c.col.nullable ?? true,
          ...(c.col.comment ? { comment: c.col.comment } : {}),
        })),
      });
    } catch (e) {
      // Two concurrent creates of one name: the loser sees DuckDB's conflict.
      if (/already exists|conflict/i.test(String((e as Error)?.message))) throw tableExists(t.fullName);
      throw engineRejected('Cannot create the table', e);
    }
    return {
      record: t.storageLocation ? { ...t.base, storage_location: t.storageLocation } : t.base,
      change: { catalog: t.catalog, schema: t.engineSchema, name: t.name, comments },
    };
  }
}

/** EXTERNAL tables: metadata over a checked storage_location, with the declared columns kept as given. */
export class ExternalFilesSource implements TableSource {
  readonly name = 'external-files';
  constructor(private readonly ctx: UcContext) {}

  handles(req: { tableType: string }): boolean {
    return req.tableType === 'EXTERNAL';
  }

  async create(t: TableCreate): Promise<CreatedTable> {
    const loc = await externalLocation(this.ctx, t.storageLocation, 'table');
    return {
      record: {
        ...t.base,
        storage_location: loc,
        metadata_only: true,
        columns: t.columns.map((c, i) => {
          const p = t.partitions.indexOf(c.col.name.toLowerCase());
          return columnOut(
            c.col.name,
            c.node,
            i,
            c.col.nullable ?? true,
            c.col.comment,
            p >= 0 ? p : undefined,
          );
        }),
      },
    };
  }
}
