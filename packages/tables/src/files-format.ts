/**
 * EXTERNAL tables over files in a format MiniLake does not write (PARQUET, CSV, JSON, ...): Unity Catalog
 * keeps their metadata and the declared columns; nothing reads or writes the files (a DROP leaves them, as
 * Databricks does). Every data operation answers undefined.
 */
import type { TableFormat } from './format.js';

export class FilesFormat implements TableFormat {
  readonly storage = 'files' as const;

  async scan() {
    return undefined;
  }
  async append() {
    return undefined;
  }
  writer() {
    return undefined;
  }
  async history() {
    return undefined;
  }
  async detail() {
    return undefined;
  }
  async columns() {
    return undefined;
  }
}
