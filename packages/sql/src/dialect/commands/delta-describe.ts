/**
 * DESCRIBE HISTORY / DESCRIBE DETAIL on EXTERNAL Delta tables and `delta.\`/path\`` folders, answered from the
 * Delta log through the table layer (the table's format, found through Unity Catalog), with Databricks'
 * columns and types.
 */
import type { Cursor } from '../tokens.js';
import type { Session } from '../session.js';
import { sqlError, unsupported } from '../sql-error.js';
import type { DuckDBResultLike } from '../types.js';
import { tableData } from '../tables.js';
import { authorizeMetadataRead, resolveTable } from './common.js';

type Kind = 'scalar' | 'json' | 'millis';
interface Col {
  name: string;
  type: string;
  kind?: Kind;
}

const JOB_FIELDS = ['jobId', 'jobName', 'jobRunId', 'runId', 'jobOwnerId', 'triggerType'];

const HISTORY: Col[] = [
  { name: 'version', type: 'BIGINT' },
  { name: 'timestamp', type: 'TIMESTAMPTZ', kind: 'millis' },
  { name: 'userId', type: 'VARCHAR' },
  { name: 'userName', type: 'VARCHAR' },
  { name: 'operation', type: 'VARCHAR' },
  { name: 'operationParameters', type: 'MAP(VARCHAR, VARCHAR)', kind: 'json' },
  {
    name: 'job',
    type: `STRUCT(${JOB_FIELDS.map((f) => `"${f}" VARCHAR`).join(', ')})`,
    kind: 'json',
  },
  { name: 'notebook', type: 'STRUCT("notebookId" VARCHAR)', kind: 'json' },
  { name: 'clusterId', type: 'VARCHAR' },
  { name: 'readVersion', type: 'BIGINT' },
  { name: 'isolationLevel', type: 'VARCHAR' },
  { name: 'isBlindAppend', type: 'BOOLEAN' },
  { name: 'operationMetrics', type: 'MAP(VARCHAR, VARCHAR)', kind: 'json' },
  { name: 'userMetadata', type: 'VARCHAR' },
  { name: 'engineInfo', type: 'VARCHAR' },
];

const DETAIL: Col[] = [
  { name: 'format', type: 'VARCHAR' },
  { name: 'id', type: 'VARCHAR' },
  { name: 'name', type: 'VARCHAR' },
  { name: 'description', type: 'VARCHAR' },
  { name: 'location', type: 'VARCHAR' },
  { name: 'createdAt', type: 'TIMESTAMPTZ', kind: 'millis' },
  { name: 'lastModified', type: 'TIMESTAMPTZ', kind: 'millis' },
  { name: 'partitionColumns', type: 'VARCHAR[]', kind: 'json' },
  { name: 'clusteringColumns', type: 'VARCHAR[]', kind: 'json' },
  { name: 'numFiles', type: 'BIGINT' },
  { name: 'sizeInBytes', type: 'BIGINT' },
  { name: 'properties', type: 'MAP(VARCHAR, VARCHAR)', kind: 'json' },
  { name: 'minReaderVersion', type: 'INTEGER' },
  { name: 'minWriterVersion', type: 'INTEGER' },
  { name: 'tableFeatures', type: 'VARCHAR[]', kind: 'json' },
  { name: 'statistics', type: 'MAP(VARCHAR, BIGINT)', kind: 'json' },
];

/** After `DESCRIBE HISTORY` / `DESCRIBE DETAIL`: the table (or delta.`path`), then LIMIT n for history. */
export async function describeDelta(
  c: Cursor,
  s: Session,
  what: 'HISTORY' | 'DETAIL',
): Promise<DuckDBResultLike> {
  const parts = c.qualifiedName();
  const isPath =
    parts.length === 2 && parts[0]!.toLowerCase() === 'delta' && /^(\/|dbfs:\/|file:)/.test(parts[1]!);
  const t = isPath ? undefined : resolveTable(s, parts);
  const full = t ? [t.catalog, t.schema, t.table].join('.').toLowerCase() : undefined;
  const ref = isPath ? { path: parts[1]! } : full!;
  let limit: number | undefined;
  if (what === 'HISTORY' && c.accept('LIMIT')) {
    const n = c.peek();
    if (!n || !/^\d+$/.test(n.text)) c.syntax('expected a row count after LIMIT');
    c.i++;
    limit = Number(n.text);
  }
  if (!c.done()) c.syntax(`unexpected text after DESCRIBE ${what}`);
  if (t) await authorizeMetadataRead(s, t);
  if (!s.uc) throw unsupported(`DESCRIBE ${what} without Unity Catalog`);
  const data = await tableData(s, ref);
  if (what === 'HISTORY') {
    const rows = await data?.format.history(data.descriptor, limit);
    if (!rows) return notDelta(s, full!, what);
    return result(
      s,
      HISTORY,
      rows.map((r) => ({
        ...r,
        job: r.job
          ? Object.fromEntries(JOB_FIELDS.map((f) => [f, (r.job as Record<string, unknown>)[f] ?? null]))
          : null,
        notebook: r.notebook
          ? { notebookId: (r.notebook as Record<string, unknown>).notebookId ?? null }
          : null,
      })),
    );
  }
  const d = await data?.format.detail(data.descriptor);
  if (!d) return notDelta(s, full!, what);
  return result(s, DETAIL, [{ ...d }]);
}

async function notDelta(s: Session, full: string, what: string): Promise<never> {
  let exists = true;
  try {
    await s.uc!.getTable(full);
  } catch {
    exists = false;
  }
  if (!exists)
    throw sqlError(
      'TABLE_OR_VIEW_NOT_FOUND',
      '42P01',
      `The table or view \`${full.split('.').join('`.`')}\` cannot be found. Verify the spelling and correctness of the schema and catalog.`,
    );
  throw unsupported(
    `DESCRIBE ${what} on ${full}, which is not an EXTERNAL Delta table (MANAGED tables are DuckDB tables)`,
  );
}

/** Rows as a real DuckDB result: every cell a bound parameter (JSON for maps, structs and lists), cast per column. */
function result(s: Session, cols: Col[], rows: Record<string, unknown>[]): Promise<DuckDBResultLike> {
  const values: Record<string, unknown> = {};
  let n = 0;
  const cell = (col: Col, v: unknown): string => {
    if (v === null || v === undefined) return `CAST(NULL AS ${col.type})`;
    const p = `p${n++}`;
    if (col.kind === 'millis') {
      values[p] = String(v);
      return `make_timestamptz(CAST($${p}::VARCHAR AS BIGINT) * 1000)`;
    }
    if (col.kind === 'json') {
      values[p] = JSON.stringify(v);
      return `CAST(CAST($${p}::VARCHAR AS JSON) AS ${col.type})`;
    }
    values[p] = String(v);
    return `CAST($${p}::VARCHAR AS ${col.type})`;
  };
  const names = cols.map((c) => `"${c.name}"`).join(', ');
  if (rows.length === 0) {
    const sel = cols.map((c) => `CAST(NULL AS ${c.type}) AS "${c.name}"`).join(', ');
    return s.conn.stream(`SELECT ${sel} WHERE false`);
  }
  const tuples = rows.map((r) => `(${cols.map((c) => cell(c, r[c.name])).join(', ')})`);
  return s.conn.stream(`SELECT * FROM (VALUES ${tuples.join(', ')}) AS t(${names})`, values);
}
