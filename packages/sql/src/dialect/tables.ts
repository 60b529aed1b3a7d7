/**
 * Where SQL meets the table layer (@minilake/tables): Unity Catalog resolves a name (or a `delta.\`/path\``)
 * to a descriptor, and the descriptor's format scans, appends, writes and describes it on the statement's
 * own connection. A table whose format answers undefined (a DuckDB object) is the engine's business.
 */
import type { SqlConnection, TableDescriptor, TableFormat, TableRef } from '@minilake/tables';
import type { Session } from './session.js';

export interface TableData {
  descriptor: TableDescriptor;
  format: TableFormat;
}

/** A table's descriptor and format; undefined without Unity Catalog or for a name it does not know. */
export async function tableData(s: Session, ref: TableRef): Promise<TableData | undefined> {
  if (!s.uc) return undefined;
  const descriptor = await s.uc.describeTable(ref);
  return descriptor && { descriptor, format: s.uc.tables.of(descriptor) };
}

/** The statement's connection as the connection a format writes with (it sees the temporary tables). */
export function connRunner(s: Session): SqlConnection {
  return {
    all: async (q: string) => {
      const r = (await s.conn.runAndReadAll(q)) as unknown as {
        getRowObjectsJson(): Record<string, unknown>[];
      };
      return r.getRowObjectsJson();
    },
  };
}
