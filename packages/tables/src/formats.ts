/**
 * The table layer: one format per kind of storage, and the one place that picks the format a descriptor's
 * data is in. Unity Catalog builds it (it owns the Delta reader and the clock) and hands it to its peers.
 */
import type { DeltaReader } from '@minilake/delta';
import type { DuckDbEngine } from '@minilake/engine-duckdb';
import type { TableDescriptor } from './descriptor.js';
import { DeltaFormat } from './delta-format.js';
import { DuckDbFormat } from './duckdb-format.js';
import { FilesFormat } from './files-format.js';
import type { TableFormat } from './format.js';

export class TableFormats {
  readonly duckdb: DuckDbFormat;
  readonly delta: DeltaFormat;
  readonly files: FilesFormat;

  constructor(o: { engine: DuckDbEngine; deltaReader: DeltaReader; now: () => number }) {
    this.duckdb = new DuckDbFormat(o.engine);
    this.delta = new DeltaFormat({ reader: o.deltaReader, now: o.now });
    this.files = new FilesFormat();
  }

  /** The format holding a table's data. */
  of(t: TableDescriptor): TableFormat {
    return this[t.storage];
  }
}
