/**
 * Step 2 of the dialect pipeline (index.ts), classify: is a statement handled by MiniLake itself (a command:
 * namespace, catalog listings, Unity Catalog DDL, Delta commands, EXPLAIN, SET) or translated to DuckDB?
 * Decided from the statement's tokens (polyglot's tokenizer), never from regexes over the text. Databricks
 * clauses DuckDB would only report as a syntax error are refused here with a clear UNSUPPORTED_FEATURE.
 *
 * A command handler may still decline a form it leaves to translation (CREATE TABLE without Unity Catalog
 * specifics, say) by answering undefined; the statement is then translated like any other.
 * Handlers: commands/catalog.ts (USE, SHOW, DESCRIBE), commands/ddl.ts (CREATE, DROP, ALTER, COMMENT,
 * INSERT OVERWRITE, GRANT), commands/functions.ts (CREATE/DROP FUNCTION through Unity Catalog),
 * commands/other.ts (COPY, OPTIMIZE, VACUUM, EXPLAIN, SET).
 */
import { Cursor, type SplitStatement } from './tokens.js';
import { unsupported } from './sql-error.js';
import type { Session } from './session.js';
import { describe, show, use } from './commands/catalog.js';
import { emptyResult, type CommandStages, type Outcome } from './commands/common.js';
import { alter, commentOn, create, drop, grant, insertOverwrite } from './commands/ddl.js';
import { truncate } from './commands/delta-write.js';
import { createFunction, dropFunction } from './commands/functions.js';
import { datasetCommand, datasetStatement } from './commands/datasets.js';
import { copy, explain, optimize, setCommand, vacuum } from './commands/other.js';

export { ensureCatalog, ensureSchema, sparkType, type CommandStages } from './commands/common.js';

/** A command: runs with the session and the pipeline's later stages (for the queries it embeds). */
export type Command = (s: Session, stages: CommandStages) => Promise<Outcome>;

/** Each handler reads the statement with its own cursor, from the first token. */
const at = (stmt: SplitStatement): Cursor => new Cursor(stmt.tokens, stmt.text);

export function classify(stmt: SplitStatement): Command | undefined {
  const c = new Cursor(stmt.tokens, stmt.text);
  // Delta time travel: `VERSION AS OF n` / `TIMESTAMP AS OF '...'` on a table name is kept on the AST
  // (EXTERNAL Delta tables read that snapshot, rewrite.ts); polyglot drops it after a table function.
  for (let k = 0; k + 2 < stmt.tokens.length; k++) {
    if ((c.is('VERSION', k) || c.is('TIMESTAMP', k)) && c.is('AS', k + 1) && c.is('OF', k + 2)) {
      if (stmt.tokens[k - 1]?.type === 'R_PAREN')
        throw unsupported('Delta time travel (VERSION/TIMESTAMP AS OF) after a table function');
    }
  }
  // Clear errors for Delta/Spark clauses DuckDB would only report as a syntax error.
  for (let k = 0; k + 1 < stmt.tokens.length; k++) {
    if ((c.is('SHALLOW', k) || c.is('DEEP', k)) && c.is('CLONE', k + 1))
      throw unsupported('SHALLOW/DEEP CLONE');
    if (c.is('AS', k) && c.is('IDENTITY', k + 1))
      throw unsupported('Identity columns (GENERATED ... AS IDENTITY)');
    if (c.is('REPLACE', k) && c.is('WHERE', k + 1)) throw unsupported('INSERT ... REPLACE WHERE');
    if ((c.is('SORT', k) || c.is('DISTRIBUTE', k)) && c.is('BY', k + 1))
      throw unsupported('SORT BY / DISTRIBUTE BY');
  }
  if (
    c.is('INSERT') &&
    !c.is('OVERWRITE', 1) &&
    stmt.tokens.some((t, k) => k > 0 && c.is('PARTITION', k) && stmt.tokens[k + 1]?.type === 'L_PAREN')
  )
    throw unsupported('INSERT ... PARTITION (...)');
  // A pipeline's dataset (CREATE MATERIALIZED VIEW / STREAMING TABLE, REFRESH, DROP MATERIALIZED VIEW) runs
  // as a pipeline when the pipelines service is on; otherwise the statement goes where it went before.
  if (datasetStatement(c)) {
    const fallback = classifyOther(stmt, c);
    return (s, h) =>
      s.datasets ? datasetCommand(at(stmt), s, stmt.text) : fallback ? fallback(s, h) : emptyResult(s);
  }
  return classifyOther(stmt, c);
}

function classifyOther(stmt: SplitStatement, c: Cursor): Command | undefined {
  const first = c.peek()?.text.toUpperCase();
  switch (first) {
    case 'USE':
      return (s) => use(at(stmt), s);
    case 'SHOW':
      return (s) => show(at(stmt), s);
    case 'DESCRIBE':
    case 'DESC':
      return (s) => describe(at(stmt), s);
    case 'CREATE':
      if (c.is('FUNCTION', 1) || (c.is('OR', 1) && c.is('REPLACE', 2) && c.is('FUNCTION', 3)))
        return (s, h) => createFunction(at(stmt), s, h);
      return (s, h) => create(at(stmt), s, h);
    case 'DROP':
      if (c.is('FUNCTION', 1)) return (s) => dropFunction(at(stmt), s);
      return (s) => drop(at(stmt), s);
    case 'ALTER':
      return (s, h) => alter(at(stmt), s, h);
    case 'COMMENT':
      return (s) => commentOn(at(stmt), s);
    case 'INSERT':
      return c.is('OVERWRITE', 1) ? (s, h) => insertOverwrite(at(stmt), s, h) : undefined;
    case 'TRUNCATE':
      return (s) => truncate(at(stmt), s);
    case 'OPTIMIZE':
      return (s) => optimize(at(stmt), s);
    case 'VACUUM':
      return (s) => vacuum(at(stmt), s);
    case 'GRANT':
    case 'REVOKE':
      return (s) => grant(at(stmt), s);
    case 'ANALYZE':
    case 'REFRESH':
    case 'CACHE':
    case 'UNCACHE':
    case 'MSCK':
      return (s) => emptyResult(s);
    case 'SET':
      return (s) => setCommand(at(stmt), s);
    case 'EXPLAIN':
      return (s, h) => explain(at(stmt), s, h);
    case 'COPY':
      // DuckDB's COPY ... TO/FROM runs (translated, volume paths mapped); Databricks' COPY INTO does not.
      if (c.is('INTO', 1))
        throw unsupported('COPY INTO (use INSERT INTO ... SELECT * FROM read_csv(...) / read_parquet(...))');
      return (s, h) => copy(at(stmt), s, h);
    default:
      return undefined;
  }
}
