/** Delta and session commands handled by MiniLake itself: COPY (DuckDB's), OPTIMIZE, VACUUM, EXPLAIN, SET. */
import { literal, qualified } from '@minilake/engine-duckdb';
import { Cursor } from '../tokens.js';
import { unsupported } from '../sql-error.js';
import { applyZone, duckZone, invalidTimeZone } from '../namespace.js';
import { valuesResult, type Session } from '../session.js';
import { isVolumePath } from '../translate.js';
import { resolveVolumes } from '../volumes.js';
import { deltaOptimize, deltaVacuum } from './delta-write.js';
import { type CommandStages, type Outcome, resolveTable, tableExists, tableNotFound } from './common.js';

/**
 * DuckDB's `COPY <table | (query)> TO | FROM '<path>' [options]`: the query is translated, the table name
 * resolved like any table, a `/Volumes/...` path mapped to the volume's directory; options pass as written.
 */
export async function copy(c: Cursor, s: Session, h: CommandStages): Promise<Outcome> {
  c.expect('COPY');
  let source: string;
  let values: Record<string, unknown> = {};
  if (c.peek()?.type === 'L_PAREN') {
    const g = c.group();
    const t = await h.translateOnly(c.slice(g.from, g.to));
    source = `(${t.sql})`;
    values = t.values;
  } else {
    const t = resolveTable(s, c.qualifiedName());
    source = qualified(s.engine.alias(t.catalog), t.schema, t.table);
    if (c.peek()?.type === 'L_PAREN') {
      const g = c.group();
      source += ` (${c.slice(g.from, g.to)})`;
    }
  }
  const dir = c.accept('TO') ? 'TO' : c.accept('FROM') ? 'FROM' : c.syntax('expected TO or FROM');
  let file = c.string();
  if (isVolumePath(file)) file = (await resolveVolumes([file], s)).get(file)!;
  const sql = `COPY ${source} ${dir} ${literal(file)} ${c.rest()}`;
  return s.conn.stream(sql, Object.keys(values).length > 0 ? values : undefined);
}

export async function optimize(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('OPTIMIZE');
  const parts = c.qualifiedName();
  const delta = await deltaOptimize(c, s, parts);
  if (delta) return delta;
  const t = resolveTable(s, parts);
  if (!(await tableExists(s, t.catalog, t.schema, t.table))) throw tableNotFound(parts.join('.'));
  // Delta compaction has nothing to do on DuckDB storage: report zero files touched.
  const r = await s.conn.stream(
    `SELECT $p AS path, {'numFilesAdded': 0::BIGINT, 'numFilesRemoved': 0::BIGINT, 'filesAdded': {'min': NULL::BIGINT, 'max': NULL::BIGINT, 'avg': 0.0::DOUBLE, 'totalFiles': 0::BIGINT, 'totalSize': 0::BIGINT}, 'partitionsOptimized': 0::BIGINT, 'totalConsideredFiles': 0::BIGINT, 'totalFilesSkipped': 0::BIGINT} AS metrics`,
    { p: `${t.catalog}.${t.schema}.${t.table}` },
  );
  return r;
}

export async function vacuum(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('VACUUM');
  const parts = c.qualifiedName();
  const delta = await deltaVacuum(c, s, parts);
  if (delta) return delta;
  const t = resolveTable(s, parts);
  if (!(await tableExists(s, t.catalog, t.schema, t.table))) throw tableNotFound(parts.join('.'));
  return valuesResult(s, [{ name: 'path', type: 'VARCHAR' }], [[`${t.catalog}.${t.schema}.${t.table}`]]);
}

/** EXPLAIN [EXTENDED|FORMATTED|COST|CODEGEN] stmt: one `plan` column, as Databricks answers. */
export async function explain(c: Cursor, s: Session, h: CommandStages): Promise<Outcome> {
  c.expect('EXPLAIN');
  while (['EXTENDED', 'FORMATTED', 'COST', 'CODEGEN'].some((w) => c.is(w))) c.i++;
  const t = await h.translateOnly(c.rest());
  const r = await s.conn.runAndReadAll(
    `EXPLAIN ${t.sql}`,
    Object.keys(t.values).length ? t.values : undefined,
  );
  const plan = r
    .getRows()
    .map((row) => String(row[row.length - 1] ?? ''))
    .join('\n');
  return valuesResult(s, [{ name: 'plan', type: 'VARCHAR' }], [[`== Physical Plan ==\n${plan}`]]);
}

const TZ_KEY = 'spark.sql.session.timeZone';

/**
 * The session time zone for the rest of the text (a Thrift session keeps it for its later statements):
 * TIMESTAMP literals without an offset are read in it, and timestamps shown in it, as in Databricks.
 */
async function setTimeZone(s: Session, value: string): Promise<Outcome> {
  const zone = duckZone(value);
  if (zone === undefined) throw invalidTimeZone(value);
  await applyZone(s.conn, zone);
  s.timeZone = zone;
  s.conf.set(TZ_KEY.toLowerCase(), value);
  return valuesResult(
    s,
    [
      { name: 'key', type: 'VARCHAR' },
      { name: 'value', type: 'VARCHAR' },
    ],
    [[TZ_KEY, value]],
  );
}

export async function setCommand(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('SET');
  if (c.is('TIME') && c.is('ZONE', 1)) {
    c.i += 2;
    // SET TIME ZONE LOCAL | 'zone' (an INTERVAL offset is not supported).
    if (c.accept('LOCAL')) return setTimeZone(s, 'Etc/UTC');
    if (c.peek()?.type === 'STRING') return setTimeZone(s, c.string());
    throw unsupported('SET TIME ZONE with an interval');
  }
  if (c.is('TIME') || c.is('VARIABLE') || c.is('VAR'))
    throw unsupported(`SET ${c.peek()!.text.toUpperCase()}`);
  const from = c.i;
  while (!c.done() && c.peek()!.type !== 'EQ') c.i++;
  const key = c.slice(from, c.i).replaceAll(' ', '');
  let value = '';
  if (!c.done()) {
    c.i++;
    value = c.rest();
    if (value.startsWith("'") && value.endsWith("'")) value = value.slice(1, -1);
    if (key.toLowerCase() === TZ_KEY.toLowerCase()) return setTimeZone(s, value);
    s.conf.set(key.toLowerCase(), value);
  }
  return valuesResult(
    s,
    [
      { name: 'key', type: 'VARCHAR' },
      { name: 'value', type: 'VARCHAR' },
    ],
    [[key, value || '<undefined>']],
  );
}
