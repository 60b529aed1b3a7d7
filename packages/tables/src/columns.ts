/**
 * Column names the layers agree on when SQL runs DML on a staged Delta table: the translator writes them into
 * the statement, the writer reads them back. Named once here (from @minilake/delta, which defines them).
 */
import { FILE_COLUMN, POS_COLUMN, ROW_COLUMN, TOUCHED_COLUMN } from '@minilake/delta';

export const INTERNAL_COLUMNS = {
  /** The data file a staged row came from (NULL for a new row). */
  file: FILE_COLUMN,
  /** A staged row's id: MERGE returns it to find a target row updated twice. */
  row: ROW_COLUMN,
  /** A staged row's index in its file (what a deletion vector names). */
  pos: POS_COLUMN,
  /** Set true by every UPDATE action of a MERGE (RETURNING cannot tell NOT MATCHED BY SOURCE updates). */
  touched: TOUCHED_COLUMN,
} as const;
