/**
 * The table layer: one format per kind of storage, and the one place that picks the format a descriptor's
 * data is in. Unity Catalog builds it (it owns the Delta reader and the clock) and hands it to its peers.
 */
import { permissionDenied } from '@minilake/core';
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

  /** The format holding a table's data (its writes refused with the reason when it is read-only). */
  of(t: TableDescriptor): TableFormat {
    const f = this[t.storage];
    return t.readOnly === undefined ? f : readOnly(f, t.readOnly);
  }
}

/** A format whose reads pass and whose writes answer PERMISSION_DENIED with `reason`. */
function readOnly(f: TableFormat, reason: string): TableFormat {
  return {
    storage: f.storage,
    scan: (t, at) => f.scan(t, at),
    history: (t, limit) => f.history(t, limit),
    detail: (t) => f.detail(t),
    columns: (t) => f.columns(t),
    append: async () => {
      throw permissionDenied(reason);
    },
    writer: () => {
      throw permissionDenied(reason);
    },
  };
}
