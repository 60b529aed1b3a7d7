/**
 * SQL functions in Unity Catalog: `CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] c.s.f(params) RETURNS type |
 * TABLE (cols) [LANGUAGE SQL] [[NOT] DETERMINISTIC] [CONTAINS SQL | READS SQL DATA | NO SQL] [COMMENT '...']
 * [SQL SECURITY DEFINER] RETURN body` and `DROP FUNCTION [IF EXISTS] c.s.f`. The body becomes a DuckDB macro
 * through the normal translation (a plain `CREATE FUNCTION ... RETURN body` without the clauses DuckDB has no
 * use for), and Unity Catalog records the function as Databricks describes it (parameters, return type,
 * `is_deterministic`, `sql_data_access`, `comment`, the body as written), so the Functions API lists it at
 * once. TEMPORARY functions belong to the session: they stay with the translation.
 */
import { databricksTypeInfo, parseDatabricksType } from '@minilake/datatypes';
import { Cursor } from '../tokens.js';
import { sqlError, unsupported } from '../sql-error.js';
import type { Session } from '../session.js';
import { type CommandStages, type Outcome, authorize, emptyResult, validNames } from './common.js';

/** Words that end a RETURNS type and start a characteristic (or the body). */
const CLAUSES = new Set([
  'LANGUAGE',
  'DETERMINISTIC',
  'NOT',
  'COMMENT',
  'CONTAINS',
  'READS',
  'MODIFIES',
  'NO',
  'SQL',
  'RETURN',
]);

interface Param {
  name: string;
  type: string;
  default?: string;
  comment?: string;
}

/** `a INT DEFAULT 1 COMMENT 'x', b STRING` inside a group: split on top-level commas. */
function params(c: Cursor, g: { from: number; to: number }): Param[] {
  const out: Param[] = [];
  let depth = 0;
  let from = g.from;
  const pieces: [number, number][] = [];
  for (let k = g.from; k < g.to; k++) {
    const ty = c.tokens[k]!.type;
    if (ty === 'L_PAREN' || ty === 'LT') depth++;
    else if (ty === 'R_PAREN' || ty === 'GT') depth--;
    else if (ty === 'COMMA' && depth === 0) {
      pieces.push([from, k]);
      from = k + 1;
    }
  }
  if (g.to > g.from) pieces.push([from, g.to]);
  for (const [a, b] of pieces) {
    const p = new Cursor(c.tokens.slice(a, b), c.text);
    const name = p.ident();
    let end = p.i;
    while (!p.done() && !p.is('DEFAULT') && !p.is('COMMENT')) p.i++;
    const type = p.slice(end, p.i).trim();
    if (!type) p.syntax(`expected a type for parameter ${name}`);
    const param: Param = { name, type };
    while (!p.done()) {
      if (p.accept('COMMENT')) param.comment = p.string();
      else if (p.accept('DEFAULT')) {
        end = p.i;
        while (!p.done() && !p.is('COMMENT')) p.i++;
        param.default = p.slice(end, p.i).trim();
      } else p.syntax('unexpected input');
    }
    out.push(param);
  }
  return out;
}

/** A parameter (or, for a table function, a result column: `parameter_type` COLUMN) as Unity Catalog lists it. */
const typeInfo = (p: Param, position: number, column = false) => {
  let node;
  try {
    node = parseDatabricksType(p.type);
  } catch (e) {
    throw sqlError(
      'UNSUPPORTED_DATATYPE',
      '0A000',
      `Unsupported data type ${p.type}: ${(e as Error).message}`,
    );
  }
  const t = databricksTypeInfo(node, {
    name: p.name,
    ...(p.comment !== undefined ? { comment: p.comment } : {}),
  });
  return {
    name: p.name,
    ...t,
    position,
    ...(column ? { parameter_type: 'COLUMN' } : { parameter_mode: 'IN', parameter_type: 'PARAM' }),
    ...(p.default !== undefined ? { parameter_default: p.default } : {}),
    ...(p.comment !== undefined ? { comment: p.comment } : {}),
  };
};

export async function createFunction(c: Cursor, s: Session, h: CommandStages): Promise<Outcome> {
  c.expect('CREATE');
  const orReplace = c.accept('OR', 'REPLACE');
  if (c.is('TEMPORARY') || c.is('TEMP')) return undefined;
  if (!c.accept('FUNCTION')) return undefined;
  const ifNot = c.accept('IF', 'NOT', 'EXISTS');
  const nameParts = c.qualifiedName();
  if (nameParts.length > 3) c.syntax('expected [catalog.][schema.]function');
  validNames(nameParts, 'function');
  const [cat, sch, fn] =
    nameParts.length === 3
      ? (nameParts as [string, string, string])
      : nameParts.length === 2
        ? [s.catalog, nameParts[0]!, nameParts[1]!]
        : [s.catalog, s.schema, nameParts[0]!];
  const g = c.group();
  const inputs = params(c, g);
  c.expect('RETURNS');
  let table: Param[] | undefined;
  let returns = '';
  if (c.is('TABLE')) {
    c.i++;
    table = c.peek()?.type === 'L_PAREN' ? params(c, c.group()) : [];
  } else {
    const from = c.i;
    let depth = 0;
    while (!c.done()) {
      const t = c.peek()!;
      if (t.type === 'L_PAREN' || t.type === 'LT') depth++;
      else if (t.type === 'R_PAREN' || t.type === 'GT') depth--;
      else if (depth === 0 && t.type !== 'STRING' && CLAUSES.has(t.text.toUpperCase())) break;
      c.i++;
    }
    returns = c.slice(from, c.i).trim();
    if (!returns) c.syntax('expected the return type');
  }
  let deterministic = true;
  let access = 'CONTAINS_SQL';
  let comment: string | undefined;
  let security = 'DEFINER';
  for (;;) {
    if (c.accept('LANGUAGE')) {
      const lang = c.ident().toUpperCase();
      if (lang !== 'SQL')
        throw unsupported(`CREATE FUNCTION ... LANGUAGE ${lang} (only SQL functions run here)`);
    } else if (c.accept('NOT', 'DETERMINISTIC')) deterministic = false;
    else if (c.accept('DETERMINISTIC')) deterministic = true;
    else if (c.accept('CONTAINS', 'SQL')) access = 'CONTAINS_SQL';
    else if (c.accept('READS', 'SQL', 'DATA')) access = 'READS_SQL_DATA';
    else if (c.accept('NO', 'SQL')) access = 'NO_SQL';
    else if (c.accept('MODIFIES', 'SQL', 'DATA')) throw unsupported('CREATE FUNCTION ... MODIFIES SQL DATA');
    else if (c.accept('COMMENT')) comment = c.string();
    else if (c.accept('SQL', 'SECURITY')) security = c.ident().toUpperCase();
    else break;
  }
  c.expect('RETURN');
  const body = c.rest().trim();
  if (!body) c.syntax('expected the function body after RETURN');
  if (!s.uc) return undefined;
  const full = `${cat}.${sch}.${fn}`;
  const existing = await s.uc.functionExists(full);
  if (existing && ifNot) return emptyResult(s);
  if (existing && !orReplace)
    throw sqlError(
      'ROUTINE_ALREADY_EXISTS',
      '42723',
      `Cannot create the routine \`${cat}\`.\`${sch}\`.\`${fn}\` because it already exists.`,
    );
  // MINILAKE_ENFORCE=1: before the engine's macro exists (the store checks the record again).
  await authorize(s, { on: 'schema', fullName: `${cat}.${sch}`, privilege: 'CREATE_FUNCTION' });
  // The engine's part: the body as a macro, through the translation every statement takes.
  const q = (x: string) => '`' + x.replace(/`/g, '``') + '`';
  const signature = inputs.map((p) => `${q(p.name)} ${p.type}`).join(', ');
  const ret = table ? `TABLE (${table.map((p) => `${q(p.name)} ${p.type}`).join(', ')})` : returns;
  await h.exec(
    `CREATE ${orReplace ? 'OR REPLACE ' : ''}FUNCTION ${q(cat)}.${q(sch)}.${q(fn)}(${signature}) RETURNS ${ret} RETURN ${body}`,
    true,
  );
  const out = table ? undefined : typeInfo({ name: 'result', type: returns }, 0);
  await s.uc.recordFunction(
    {
      name: fn,
      catalog_name: cat,
      schema_name: sch,
      input_params: { parameters: inputs.map((p, i) => typeInfo(p, i)) },
      ...(table
        ? {
            data_type: 'TABLE_TYPE',
            full_data_type: `TABLE (${table.map((p) => `${p.name} ${p.type}`).join(', ')})`,
            return_params: { parameters: table.map((p, i) => typeInfo(p, i, true)) },
          }
        : { data_type: out!.type_name, full_data_type: out!.type_text }),
      routine_body: 'SQL',
      routine_definition: body,
      parameter_style: 'S',
      is_deterministic: deterministic,
      sql_data_access: access,
      is_null_call: false,
      security_type: security,
      specific_name: fn,
      ...(comment !== undefined ? { comment } : {}),
    },
    { macro: table ? 'table' : 'scalar', replace: orReplace },
  );
  return emptyResult(s);
}

export async function dropFunction(c: Cursor, s: Session): Promise<Outcome> {
  c.expect('DROP');
  if (c.is('TEMPORARY') || c.is('TEMP')) return undefined;
  if (!c.accept('FUNCTION')) return undefined;
  const ifExists = c.accept('IF', 'EXISTS');
  const p = c.qualifiedName();
  if (!c.done() || !s.uc) return undefined;
  const full =
    p.length === 3
      ? p.join('.')
      : p.length === 2
        ? `${s.catalog}.${p.join('.')}`
        : `${s.catalog}.${s.schema}.${p[0]}`;
  if (!(await s.uc.functionExists(full))) {
    if (ifExists) return emptyResult(s);
    throw sqlError(
      'ROUTINE_NOT_FOUND',
      '42883',
      `The routine ${full} cannot be found. Verify the spelling and correctness of the schema and catalog.`,
    );
  }
  await s.uc.deleteFunction(full);
  return emptyResult(s);
}
