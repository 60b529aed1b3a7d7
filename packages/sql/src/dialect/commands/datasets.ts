/**
 * `CREATE [OR REFRESH | OR REPLACE] MATERIALIZED VIEW` / `STREAMING TABLE`, `REFRESH MATERIALIZED VIEW |
 * STREAMING TABLE <name> [FULL]` and `DROP MATERIALIZED VIEW`: Databricks SQL runs these as pipelines, and so
 * does MiniLake when its pipelines service is on (`Session.datasets`): the statement becomes the
 * pipeline's source, the dataset is a Unity Catalog MATERIALIZED_VIEW or STREAMING_TABLE (Delta), and the
 * statement ends when the pipeline's update does, with its error when it fails. Names resolve against the
 * session's current catalog and schema.
 */
import type { Cursor } from '../tokens.js';
import type { Session } from '../session.js';
import { sqlError } from '../sql-error.js';
import { emptyResult, type Outcome } from './common.js';

/** What the statement is, from its leading tokens; undefined when it is not a pipeline dataset statement. */
export function datasetStatement(c: Cursor):
  | {
      action: 'create' | 'upsert' | 'replace' | 'refresh' | 'drop';
      at: number;
      ifExists?: boolean;
      ifNotExists?: boolean;
    }
  | undefined {
  let k = 0;
  const is = (w: string) => c.is(w, k);
  if (is('CREATE')) {
    k++;
    // OR REFRESH: define (or redefine) and update; OR REPLACE: the same with a full refresh.
    let action: 'create' | 'upsert' | 'replace' = 'create';
    if (is('OR') && (c.is('REFRESH', k + 1) || c.is('REPLACE', k + 1))) {
      action = c.is('REPLACE', k + 1) ? 'replace' : 'upsert';
      k += 2;
    }
    if (is('MATERIALIZED') && c.is('VIEW', k + 1)) k += 2;
    else if (is('STREAMING') && c.is('TABLE', k + 1)) k += 2;
    else return undefined;
    const ifNotExists = is('IF') && c.is('NOT', k + 1) && c.is('EXISTS', k + 2);
    if (ifNotExists) k += 3;
    return { action, at: k, ifNotExists };
  }
  if (is('REFRESH')) {
    k++;
    if (is('MATERIALIZED') && c.is('VIEW', k + 1)) k += 2;
    else if (is('STREAMING') && c.is('TABLE', k + 1)) k += 2;
    else return undefined;
    return { action: 'refresh', at: k };
  }
  if (is('DROP') && c.is('MATERIALIZED', 1) && c.is('VIEW', 2)) {
    k = 3;
    const ifExists = c.is('IF', k) && c.is('EXISTS', k + 1);
    if (ifExists) k += 2;
    return { action: 'drop', at: k, ifExists };
  }
  return undefined;
}

export async function datasetCommand(c: Cursor, s: Session, text: string): Promise<Outcome> {
  const what = datasetStatement(c)!;
  c.i = what.at;
  const parts = c.qualifiedName();
  const full =
    parts.length === 3 ? parts : parts.length === 2 ? [s.catalog, ...parts] : [s.catalog, s.schema, ...parts];
  const rest = c.tokens.slice(c.i).map((t) => t.text.toUpperCase());
  try {
    await s.datasets!({
      action: what.action,
      full_name: full.join('.'),
      ...(what.action === 'create' || what.action === 'upsert' || what.action === 'replace'
        ? { statement: text }
        : {}),
      ...(what.action === 'refresh' ? { full_refresh: rest.includes('FULL') } : {}),
      ...(what.ifExists ? { if_exists: true } : {}),
      ...(what.ifNotExists ? { if_not_exists: true } : {}),
    });
  } catch (e) {
    const code = (e as { errorCode?: string }).errorCode ?? '';
    const msg = e instanceof Error ? e.message : String(e);
    if (code.endsWith('ALREADY_EXISTS')) throw sqlError('TABLE_OR_VIEW_ALREADY_EXISTS', '42P07', msg);
    if (code.endsWith('NOT_FOUND') || code.endsWith('DOES_NOT_EXIST'))
      throw sqlError('TABLE_OR_VIEW_NOT_FOUND', '42P01', msg);
    throw sqlError('PIPELINE_UPDATE_FAILED', 'KD000', msg);
  }
  return emptyResult(s);
}
