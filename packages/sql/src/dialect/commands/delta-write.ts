/**
 * Commands on EXTERNAL Delta tables written by MiniLake itself (the table layer's Delta writer, found
 * through Unity Catalog): INSERT OVERWRITE [PARTITION (...)], TRUNCATE TABLE, OPTIMIZE [ZORDER BY], VACUUM [RETAIN n
 * HOURS] [DRY RUN], and the rows of CTAS into a Delta location. Each answers undefined for any other table,
 * so the caller keeps its DuckDB behaviour for MANAGED tables.
 */
import { parseDatabricksType, structFieldJson } from '@minilake/datatypes';
import type { TableWriter } from '@minilake/tables';
import { createHash } from 'node:crypto';
import { ident } from '@minilake/engine-duckdb';
import type { Cursor } from '../tokens.js';
import { sqlError, unsupported } from '../sql-error.js';
import { valuesResult, type Session } from '../session.js';
import { connRunner, tableData } from '../tables.js';
import {
  authorizeTable,
  type CommandStages,
  emptyResult,
  type Outcome,
  resolveTable,
  sparkType,
} from './common.js';

/** The writer of a table named in SQL, or undefined when its format has none (not a Delta table). */
export async function deltaTableOf(s: Session, parts: string[]): Promise<TableWriter | undefined> {
  const t = resolveTable(s, parts);
  const data = await tableData(s, `${t.catalog}.${t.schema}.${t.table}`.toLowerCase());
  return data?.format.writer(data.descriptor, connRunner(s));
}

const stagingName = (key: string, what: string) =>
  `__ml_delta_${what}_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/** A static partition spec `(k = v, ...)`: the values as Delta's partitionValues strings. */
function partitionSpec(c: Cursor): Record<string, string | null> {
  const g = c.group();
  const spec: Record<string, string | null> = {};
  let k = g.from;
  while (k < g.to) {
    const name = c.tokens[k]!.text;
    if (c.tokens[k + 1]?.type !== 'EQ')
      throw unsupported('INSERT OVERWRITE ... PARTITION with a dynamic partition column (give k = value)');
    k += 2;
    let t = c.tokens[k]!;
    // DATE'...' / TIMESTAMP'...' literals: the string is the partition value.
    if (t.type !== 'STRING' && c.tokens[k + 1]?.type === 'STRING') t = c.tokens[++k]!;
    if (t.text.toUpperCase() === 'NULL' && t.type !== 'STRING') spec[name] = null;
    else if (t.type === 'STRING' || t.type === 'NUMBER') spec[name] = t.text;
    else if (t.text.toUpperCase() === 'TRUE' || t.text.toUpperCase() === 'FALSE')
      spec[name] = t.text.toLowerCase();
    else throw unsupported(`The partition value ${t.text} in INSERT OVERWRITE ... PARTITION`);
    k++;
    if (c.tokens[k]?.type === 'COMMA') k++;
  }
  c.i = g.to + 1;
  return spec;
}

/**
 * Stages the rows of a query (Databricks SQL text) in a temporary table on the connection, shaped like the
 * Delta table's columns minus `omit`, so casts and column order behave as for any INSERT.
 */
async function stageQuery(
  s: Session,
  h: CommandStages,
  full: string,
  query: string,
  omit: string[],
): Promise<{ table: string; rows: number; drop: () => Promise<void> }> {
  const data = await tableData(s, full);
  const scan = await data?.format.scan(data.descriptor);
  if (!scan) throw unsupported(`Writing ${full}: it is not an EXTERNAL Delta table`);
  const input = `temp.main.${ident(stagingName(full, 'ow'))}`;
  const shape = await s.conn.runAndReadAll(`DESCRIBE SELECT * FROM (${scan.sql})`);
  const cols = shape
    .getRows()
    .map((r) => String(r[0]))
    .filter((c) => !omit.includes(c));
  await s.conn.run(
    `CREATE OR REPLACE TEMP TABLE ${ident(stagingName(full, 'ow'))} AS SELECT ${cols.map((c) => ident(c)).join(', ')} FROM (${scan.sql}) LIMIT 0`,
  );
  const drop = async () => void (await s.conn.run(`DROP TABLE IF EXISTS ${input}`));
  try {
    const t = await h.translateOnly(query);
    const r = await s.conn.runAndReadAll(
      `INSERT INTO ${input} ${t.sql}`,
      Object.keys(t.values).length ? t.values : undefined,
    );
    return { table: input, rows: Number(r.getRows()[0]?.[0] ?? 0), drop };
  } catch (e) {
    await drop();
    throw e;
  }
}

const affectedInserted = (s: Session, n: number) =>
  valuesResult(
    s,
    [
      { name: 'num_affected_rows', type: 'BIGINT' },
      { name: 'num_inserted_rows', type: 'BIGINT' },
    ],
    [[n, n]],
  );

/** INSERT OVERWRITE [TABLE] t [PARTITION (k = v, ...)] query, on an EXTERNAL Delta table. */
export async function deltaInsertOverwrite(
  c: Cursor,
  s: Session,
  h: CommandStages,
  parts: string[],
): Promise<Outcome> {
  const dt = await deltaTableOf(s, parts);
  if (!dt) return undefined;
  const spec = c.is('PARTITION') ? (c.i++, partitionSpec(c)) : undefined;
  if (c.is('REPLACE')) throw unsupported('INSERT ... REPLACE WHERE');
  if (c.peek()?.type === 'L_PAREN' && !c.is('SELECT', 1) && !c.is('WITH', 1))
    throw unsupported('INSERT OVERWRITE with a column list on a Delta table');
  const t = resolveTable(s, parts);
  const full = `${t.catalog}.${t.schema}.${t.table}`.toLowerCase();
  const staged = await stageQuery(s, h, full, c.rest(), Object.keys(spec ?? {}));
  try {
    await dt.overwrite(staged.table, spec ? { partition: spec } : {});
  } finally {
    await staged.drop();
  }
  return affectedInserted(s, staged.rows);
}

/** TRUNCATE TABLE t: one commit removing every file (Delta's TRUNCATE), for an EXTERNAL Delta table. */
export async function truncate(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('TRUNCATE');
  c.accept('TABLE');
  const parts = c.qualifiedName();
  if (c.is('PARTITION')) throw unsupported('TRUNCATE TABLE ... PARTITION');
  // Any table (a DuckDB one runs translated after this): MODIFY, MINILAKE_ENFORCE=1.
  await authorizeTable(s, parts, 'MODIFY');
  const dt = await deltaTableOf(s, parts);
  if (!dt) return undefined;
  await dt.overwrite(undefined, { operation: 'TRUNCATE' });
  return emptyResult(s);
}

/** OPTIMIZE t [WHERE ...] [ZORDER BY (cols)] on an EXTERNAL Delta table: bin-packing compaction. */
export async function deltaOptimize(c: Cursor, s: Session, parts: string[]): Promise<Outcome> {
  const dt = await deltaTableOf(s, parts);
  if (!dt) return undefined;
  if (c.is('WHERE')) throw unsupported('OPTIMIZE ... WHERE on a Delta table (OPTIMIZE the whole table)');
  const zOrderBy: string[] = [];
  if (c.accept('ZORDER', 'BY')) {
    // ZORDER BY is accepted as plain compaction (no multi-dimensional clustering of the rows).
    const g = c.peek()?.type === 'L_PAREN' ? c.group() : { from: c.i, to: c.tokens.length };
    for (let k = g.from; k < g.to; k++) if (c.tokens[k]!.type !== 'COMMA') zOrderBy.push(c.tokens[k]!.text);
  }
  const { metrics: m } = await dt.optimize({ zOrderBy });
  const t = resolveTable(s, parts);
  const sizes = (x: typeof m.filesAdded) =>
    `{'min': ${x.min ?? 'NULL'}::BIGINT, 'max': ${x.max ?? 'NULL'}::BIGINT, 'avg': ${x.avg}::DOUBLE, 'totalFiles': ${x.totalFiles}::BIGINT, 'totalSize': ${x.totalSize}::BIGINT}`;
  return s.conn.stream(
    `SELECT $p AS path, {'numFilesAdded': ${m.numFilesAdded}::BIGINT, 'numFilesRemoved': ${m.numFilesRemoved}::BIGINT, 'filesAdded': ${sizes(m.filesAdded)}, 'filesRemoved': ${sizes(m.filesRemoved)}, 'partitionsOptimized': ${m.partitionsOptimized}::BIGINT, 'zOrderStats': NULL, 'numBatches': 1::BIGINT, 'totalConsideredFiles': ${m.totalConsideredFiles}::BIGINT, 'totalFilesSkipped': ${m.totalFilesSkipped}::BIGINT} AS metrics`,
    { p: dt.root || `${t.catalog}.${t.schema}.${t.table}` },
  );
}

/** VACUUM t [RETAIN n HOURS] [DRY RUN] on an EXTERNAL Delta table. */
export async function deltaVacuum(c: Cursor, s: Session, parts: string[]): Promise<Outcome> {
  const dt = await deltaTableOf(s, parts);
  if (!dt) return undefined;
  let retainHours: number | undefined;
  let dryRun = false;
  while (!c.done()) {
    if (c.accept('RETAIN')) {
      const t = c.peek();
      if (t?.type !== 'NUMBER') c.syntax('expected a number of hours');
      retainHours = Number(t!.text);
      c.i++;
      c.expect('HOURS');
    } else if (c.accept('DRY', 'RUN')) dryRun = true;
    else if (c.accept('LITE') || c.accept('FULL')) continue;
    else c.syntax('expected RETAIN n HOURS or DRY RUN');
  }
  const check = s.conf.get('spark.databricks.delta.retentiondurationcheck.enabled');
  const r = await dt.vacuum({
    ...(retainHours !== undefined ? { retainHours } : {}),
    dryRun,
    retentionCheck: check === undefined || check.toLowerCase() !== 'false',
  });
  // Databricks: DRY RUN lists the files it would delete; a real run answers the table's path.
  const rows = dryRun ? r.files.map((f) => [`file:${f}`]) : [[`file:${dt.root}`]];
  return valuesResult(s, [{ name: 'path', type: 'VARCHAR' }], rows);
}

/**
 * CREATE [OR REPLACE] TABLE t [PARTITIONED BY (...)] LOCATION '...' AS query, into a Delta location: the
 * query's rows are staged, their types become the Delta schema, the first commit (or, with OR REPLACE on an
 * existing Delta table, a commit replacing schema and files) is written and the table registered.
 */
export async function deltaCtas(
  s: Session,
  h: CommandStages,
  o: {
    nameParts: string[];
    query: string;
    /** Absent: a MANAGED Delta table (MINILAKE_MANAGED_FORMAT=delta). */
    location?: string;
    partitionColumns: string[];
    orReplace: boolean;
    comment?: string;
    properties?: Record<string, string>;
  },
): Promise<Outcome> {
  const t = resolveTable(s, o.nameParts);
  const full = `${t.catalog}.${t.schema}.${t.table}`;
  const name = stagingName(full.toLowerCase(), 'ctas');
  const ref = `temp.main.${ident(name)}`;
  const q = await h.translateOnly(o.query);
  await s.conn.run(
    `CREATE OR REPLACE TEMP TABLE ${ident(name)} AS ${q.sql}`,
    Object.keys(q.values).length ? q.values : undefined,
  );
  try {
    const shape = (await s.conn.runAndReadAll(`DESCRIBE ${ref}`)).getRows();
    const fields = shape.map((r) =>
      JSON.parse(
        structFieldJson(String(r[0]), parseDatabricksType(sparkType(String(r[1]))), { nullable: true }),
      ),
    );
    const missing = o.partitionColumns.find((p) => !fields.some((f) => f.name === p));
    if (missing) throw unsupported(`PARTITIONED BY ${missing}: the query has no such column`);
    const existing = await deltaTableOf(s, o.nameParts).catch(() => undefined);
    if (existing && !o.orReplace)
      throw sqlError(
        'TABLE_OR_VIEW_ALREADY_EXISTS',
        '42P07',
        `Cannot create table or view \`${full}\` because it already exists.`,
      );
    let rows: number;
    if (existing) {
      rows = (
        await existing.replace(ref, {
          fields,
          partitionColumns: o.partitionColumns,
          ...(o.properties ? { configuration: o.properties } : {}),
        })
      ).rows;
    } else {
      await s.uc!.createDeltaTable({
        catalog_name: t.catalog,
        schema_name: t.schema,
        name: t.table,
        ...(o.location !== undefined ? { storage_location: o.location } : {}),
        fields,
        partition_columns: o.partitionColumns,
        ...(o.comment ? { comment: o.comment } : {}),
        ...(o.properties ? { properties: o.properties } : {}),
      });
      try {
        const data = await tableData(s, full.toLowerCase());
        const r = await data?.format.append(data.descriptor, ref, connRunner(s));
        rows = r?.rows ?? 0;
      } catch (e) {
        // A CTAS that failed leaves no table behind: the record (and a MANAGED table's folder) it just made.
        await s.uc!.deleteTable(full.toLowerCase()).catch(() => undefined);
        throw e;
      }
    }
    return affectedInserted(s, rows);
  } finally {
    await s.conn.run(`DROP TABLE IF EXISTS ${ref}`);
  }
}
