/**
 * The AST rewrite from Databricks to DuckDB semantics: catalog aliases, :name parameters, Spark functions
 * through spark_* macros, volume paths, types. One class walking polyglot's AST, every Spark-vs-DuckDB
 * difference it fixes a small case of the same walk (kept together so the cases stay next to each other).
 */
import { toDuckDbTypeText, type TypeNode, parseDatabricksType } from '@minilake/datatypes';
import { polyglot } from '../polyglot.js';
import { sqlError, unsupported } from '../sql-error.js';
import {
  DELTA_PATH,
  type Json,
  type Node,
  PATH_FUNCS,
  type TranslateOptions,
  type TravelSpec,
  isVolumePath,
  travelKey,
} from './common.js';
import { fixedNames, fn, ident, isIdent, isTableRef, kindOf, named, str } from './ast.js';
import { writtenName } from './names.js';
import { javaReplacement, javaToStrftime } from './text.js';
import { ansiInterval } from './intervals.js';

/** Databricks refuses a statement with both `?` and `:name` markers. */
function mixedParameters(): Error {
  return sqlError(
    'INVALID_QUERY_MIXED_QUERY_PARAMETERS',
    '42613',
    'Parameterized query must either use positional, or named parameters, but not both.',
  );
}

export const unsupportedIn = (what: string): Error => unsupported(what);

/** CAST(x AS TIMESTAMP): Spark's TIMESTAMP is an instant, TIMESTAMPTZ after translation. */
export function tsCast(x: Json): Node {
  return {
    cast: {
      this: x,
      to: { data_type: 'timestamp', precision: null, timezone: false },
      trailing_comments: [],
      double_colon_syntax: false,
    },
  };
}

/** DuckDB json_transform structure for a Spark type: field names to DuckDB type texts. */
export function jsonStructure(t: TypeNode): unknown {
  switch (t.kind) {
    case 'array':
      return [jsonStructure(t.element)];
    case 'struct':
      return Object.fromEntries(t.fields.map((f) => [f.name, jsonStructure(f.type)]));
    default:
      return toDuckDbTypeText(t);
  }
}

/** from_json(json, 'a INT, b STRING') with a literal DDL schema -> json_transform(json, '{"a":"INTEGER",...}'). */
export function fromJson(json: Json, schema: Json): Json {
  const k = kindOf(schema);
  if (!k || k[0] !== 'literal' || k[1].literal_type !== 'string')
    throw unsupported('from_json with a non-literal schema');
  const ddl = String(k[1].value).trim();
  let t: TypeNode;
  try {
    t = /^(struct|array|map)\s*</i.test(ddl)
      ? parseDatabricksType(ddl)
      : parseDatabricksType(`struct<${ddl}>`);
  } catch {
    throw unsupported(`from_json with the schema '${ddl}'`);
  }
  if (t.kind === 'map') throw unsupported('from_json into a MAP');
  return fn('json_transform', [
    json,
    { literal: { literal_type: 'string', value: JSON.stringify(jsonStructure(t)) } },
  ]);
}

/** DuckDB rejects `UPDATE SET t.col = ...` in MERGE; Spark allows the target qualifier. */
export function unqualifyMergeSets(merge: Node): void {
  const whens = ((merge.whens as Node | undefined)?.whens as Node | undefined)?.expressions;
  if (!Array.isArray(whens)) return;
  for (const w of whens) {
    const then = ((w as Node).when as Node | undefined)?.then as Node | undefined;
    const parts = (then?.tuple as Node | undefined)?.expressions as Json[] | undefined;
    if (!parts || parts.length !== 2) continue;
    const sets = ((parts[1] as Node).tuple as Node | undefined)?.expressions as Json[] | undefined;
    for (const a of sets ?? []) {
      const eq = (a as Node).eq as Node | undefined;
      const col = (eq?.left as Node | undefined)?.column as Node | undefined;
      if (col) col.table = null;
    }
  }
}

export function isLambda(n: Json, arity: number): boolean {
  const k = kindOf(n);
  return (
    !!k && k[0] === 'lambda' && Array.isArray(k[1].parameters) && (k[1].parameters as Json[]).length === arity
  );
}

export const DATE_FUNCS = new Set([
  'date_add',
  'date_sub',
  'to_date',
  'current_date',
  'last_day',
  'make_date',
  'add_months',
  'spark_date_add',
  'spark_date_sub',
  'spark_add_months',
  'spark_trunc',
  'spark_date_from_unix_date',
  'date_from_unix_date',
]);

/** Interval units whose DATE +/- keeps a DATE in Spark (year-month and whole-day intervals). */
export const DATE_UNITS = new Set(['year', 'quarter', 'month', 'week', 'day']);

export function isDateInterval(n: Json): boolean {
  const k = kindOf(n);
  if (!k || k[0] !== 'interval') return false;
  const u = k[1].unit as Node | undefined;
  return !!u && u.type === 'simple' && DATE_UNITS.has(String(u.unit).toLowerCase());
}

/** Calls (after the rewrite) whose result is visibly an array. */
export const ARRAY_FUNCS = new Set([
  'array',
  'list_value',
  'split',
  'spark_sequence',
  'spark_sequence_date',
  'spark_sort_array',
  'spark_array_sort',
  'spark_array_distinct',
  'spark_slice',
  'spark_flatten',
  'spark_concat_arr',
  'collect_list',
  'collect_set',
]);

export function visiblyArray(x: Json): boolean {
  const k = kindOf(x);
  if (!k) return false;
  if (k[0] === 'array' || k[0] === 'array_func' || k[0] === 'array_distinct') return true;
  return (
    (k[0] === 'function' || k[0] === 'aggregate_function') && ARRAY_FUNCS.has(String(k[1].name).toLowerCase())
  );
}

/** Spark's timestampdiff/datediff units -> DuckDB date_sub parts (whole units elapsed). */
export const DIFF_UNITS: Record<string, string> = {
  year: 'year',
  quarter: 'quarter',
  month: 'month',
  week: 'week',
  day: 'day',
  hour: 'hour',
  minute: 'minute',
  second: 'second',
  millisecond: 'millisecond',
  microsecond: 'microsecond',
};

/** Syntactically a DATE: a DATE literal, a CAST to DATE, or a function that returns DATE. */
export function isDateExpr([k, d]: [string, Node]): boolean {
  if (k === 'literal') return d.literal_type === 'date';
  if (k === 'cast') return String((d.to as Node | undefined)?.data_type ?? '').toLowerCase() === 'date';
  if (k === 'function') return DATE_FUNCS.has(String(d.name).toLowerCase());
  return k === 'last_day' || k === 'add_months' || k === 'current_date';
}

export const INTEGRAL = new Set([
  'int',
  'integer',
  'bigint',
  'big_int',
  'smallint',
  'small_int',
  'tinyint',
  'tiny_int',
]);

export class Rewriter {
  params: string[] = [];
  /** `?` markers seen so far (they are numbered in text order), and whether a `:name` marker was seen. */
  private positional = 0;
  private named = false;
  changed = false;
  /** Volume paths seen in file positions without a resolution in o.volumes. */
  volumesNeeded: string[] = [];
  /** Tables referenced, lower-case `catalog.schema.table` (see Translated.tables). */
  tables: string[] = [];
  /** Names the statement's WITH clauses define: an unqualified reference to one is not a table. */
  cteNames = new Set<string>();
  /** The INSERT statement's target node (written, not read: never pointed at a snapshot view). */
  insertNode: Node | undefined;
  insertTarget: string | undefined;
  /** INSERT, UPDATE, DELETE or MERGE: the statement that writes insertNode. */
  writeKind: string | undefined;
  /** The write target has an alias outside its table node (MERGE INTO t AS x). */
  insertAliased = false;
  constructor(private readonly o: TranslateOptions) {}

  /** A path argument (string literal or array of them): `/Volumes/c/s/v/...` -> the volume's directory. */
  private volumePath(arg: Json): Json {
    const k = kindOf(arg);
    if (!k) return arg;
    if (k[0] === 'literal' && k[1].literal_type === 'string' && typeof k[1].value === 'string') {
      const v = k[1].value;
      if (!isVolumePath(v)) return arg;
      const real = this.o.volumes?.get(v);
      if (real === undefined) {
        if (!this.volumesNeeded.includes(v)) this.volumesNeeded.push(v);
        return arg;
      }
      this.changed = true;
      return { literal: { ...k[1], value: real } };
    }
    if ((k[0] === 'array' || k[0] === 'array_func') && Array.isArray(k[1].expressions))
      return { [k[0]]: { ...k[1], expressions: k[1].expressions.map((e: Json) => this.volumePath(e)) } };
    if (k[0] === 'function' && String(k[1].name).toLowerCase() === 'array' && Array.isArray(k[1].args))
      return { function: { ...k[1], args: k[1].args.map((e: Json) => this.volumePath(e)) } };
    return arg;
  }

  walk(n: Json): Json {
    if (Array.isArray(n)) return n.map((x) => this.walk(x));
    if (!n || typeof n !== 'object') return n;
    const obj = n as Node;
    if (isTableRef(obj)) this.tableRef(obj);
    // Children in text order, so `?` markers are numbered as written: polyglot keeps a query's WITH clause
    // after its body.
    const keys = Object.keys(obj);
    if (keys.includes('with')) keys.sort((a, b) => Number(b === 'with') - Number(a === 'with'));
    for (const k of keys) {
      if (k === 'span') continue;
      obj[k] = this.walk(obj[k]);
    }
    const r = this.node(obj);
    // A rewritten call keeps the name Spark gives the call as written (`weekday(d)`, not `spark_weekday(d)`).
    if (r !== obj && r && typeof r === 'object' && !fixedNames.has(r)) {
      const name = writtenName(obj);
      if (name !== undefined) fixedNames.set(r, name);
    }
    return r;
  }

  private tableRef(t: Node): void {
    const cat = t.catalog as { name: string } | null;
    const sch = t.schema as { name: string } | null;
    const nameNode = t.name as { name: string; quoted?: boolean };
    const { name, at } = timeTravel(t, nameNode);
    // delta.`/path`: the Delta folder at that path (Unity Catalog checks and maps it, rewrite.ts).
    const isPath =
      !cat && sch?.name.toLowerCase() === 'delta' && !!nameNode.quoted && /^(\/|dbfs:\/|file:)/.test(name);
    if (isPath || cat || sch || !this.cteNames.has(name.toLowerCase())) {
      const full = isPath
        ? `${DELTA_PATH}${name}`
        : [cat?.name ?? this.o.currentCatalog, sch?.name ?? this.o.sessionSchema ?? 'default', name]
            .join('.')
            .toLowerCase();
      if (t === this.insertNode) {
        this.insertTarget = full;
        const staging = this.o.deltaTargets?.get(full);
        if (staging !== undefined) {
          // Rows go to a staging table first; the Delta commit appends them (rewrite.ts).
          this.changed = true;
          t.catalog = ident('temp');
          t.schema = ident('main');
          t.name = ident(staging);
          // UPDATE/DELETE/MERGE conditions may name the target by its table name: keep it as the alias.
          if (this.writeKind !== 'INSERT' && !t.alias && !this.insertAliased) t.alias = ident(name);
          return;
        }
      } else {
        // `t VERSION AS OF n`, `t TIMESTAMP AS OF '...'`, `t@v3`: that snapshot's own view.
        const key = travelKey(full, at);
        const view = this.o.deltaViews?.get(key);
        if (view !== undefined) {
          // The connection's temporary view over the table's Delta snapshot; the reference keeps its name as
          // the alias, so `events.id` still resolves.
          this.changed = true;
          if (!t.alias && !isPath) t.alias = ident(name);
          t.catalog = ident('temp');
          t.schema = ident('main');
          t.name = ident(view);
          t.version = null;
          return;
        }
        if (!this.tables.includes(key)) this.tables.push(key);
      }
    }
    if (cat) t.catalog = ident(this.o.alias(cat.name));
    else if (sch) t.catalog = ident(this.o.alias(this.o.currentCatalog));
  }

  /** A parameter marker bound by name, cast to its declared type (STRING stays VARCHAR). */
  private boundParameter(name: string, p: Node): Json {
    if (!this.params.includes(name)) this.params.push(name);
    const type = this.o.paramTypes.get(name);
    if (!type || type.toUpperCase() === 'STRING') return p;
    const alias: Record<string, string> = {
      LONG: 'BIGINT',
      SHORT: 'SMALLINT',
      BYTE: 'TINYINT',
      REAL: 'FLOAT',
    };
    const { parseDataType, Dialect } = polyglot();
    const dt = parseDataType(alias[type.trim().toUpperCase()] ?? type, Dialect.Databricks);
    if (!dt.success || !dt.dataType || (dt.dataType as Node).data_type === 'custom')
      throw sqlError(
        'UNSUPPORTED_DATATYPE',
        '0A000',
        `Unsupported data type ${JSON.stringify(type)} for the parameter :${name}.`,
      );
    return this.castNode(p, dt.dataType as Node);
  }

  private node(n: Node): Json {
    const kd = kindOf(n);
    if (!kd) return n;
    const [k, d] = kd;
    const hit = (r: Json): Json => {
      this.changed = true;
      return r;
    };
    switch (k) {
      case 'parameter': {
        if (d.style !== 'Colon' || typeof d.name !== 'string') return n;
        if (this.positional > 0) throw mixedParameters();
        this.named = true;
        return this.boundParameter(d.name, { parameter: { ...d, style: 'Dollar' } });
      }
      case 'placeholder': {
        // `?` markers bind by position: the n-th (in text order, see walk) is the parameter named `n`, which
        // the Thrift connectors send as ordinal parameters; DuckDB's `$n` is positional too.
        if (this.named) throw mixedParameters();
        const name = String(++this.positional);
        return this.boundParameter(name, {
          parameter: {
            name,
            index: null,
            style: 'Dollar',
            quoted: false,
            string_quoted: false,
            expression: null,
          },
        });
      }
      case 'literal':
        // TIMESTAMP '...' is Spark's TIMESTAMP (an instant, TIMESTAMPTZ), like CAST(... AS TIMESTAMP); polyglot
        // maps the literal to a wall-clock TIMESTAMP.
        if (d.literal_type === 'timestamp')
          return hit({
            cast: {
              this: { literal: { literal_type: 'string', value: d.value } },
              to: { data_type: 'timestamp', precision: null, timezone: false },
              trailing_comments: [],
              double_colon_syntax: false,
            },
          });
        return n;
      case 'year':
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second':
        return d.this === undefined ? n : hit(fn(`spark_${k}`, [d.this]));
      case 'interval': {
        const r = ansiInterval(d);
        return r ? hit(r) : n;
      }
      case 'subscript': {
        const idx = kindOf(d.index);
        if (idx && idx[0] === 'literal' && idx[1].literal_type === 'string') return n;
        return hit(fn('spark_subscript', [d.this, d.index]));
      }
      case 'element_at': {
        const idx = kindOf(d.expression);
        // A string key can only be a map lookup: DuckDB's map subscript returns the value itself.
        if (idx && idx[0] === 'literal' && idx[1].literal_type === 'string')
          return hit({ subscript: { this: d.this, index: d.expression } });
        return hit(fn('spark_element_at', [d.this, d.expression]));
      }
      case 'merge':
        unqualifyMergeSets(d);
        return n;
      case 'months_between':
        return hit(fn('spark_months_between', [d.this, d.expression]));
      case 'day_of_week':
        return hit(fn('spark_dayofweek', [d.this]));
      case 'extract': {
        // Spark: DOW is 1 = Sunday ... 7 = Saturday (DuckDB: 0 = Sunday); DOW_ISO 1 = Monday ... 7.
        const f = String(d.field).toLowerCase();
        if (f === 'dayofweek' || f === 'dow') return hit(fn('spark_dayofweek', [d.this]));
        if (f === 'dayofweekiso' || f === 'dow_iso') return hit(fn('spark_isodow', [d.this]));
        return n;
      }
      case 'mod':
        return hit(fn('spark_mod', [d.left, d.right]));
      case 'mod_func':
        return hit(fn('spark_mod', [d.this, d.expression]));
      case 'array_position':
        return hit(fn('spark_array_position', [d.this, d.expression]));
      case 'array_contains':
        return hit(fn('spark_array_contains', [d.this, d.expression]));
      case 'like':
      case 'i_like':
        // Spark's default LIKE escape character is the backslash; DuckDB has none.
        if (d.escape === null && !d.quantifier) return hit({ [k]: { ...d, escape: str('\\') } });
        return n;
      case 'typeof':
        throw unsupportedIn('typeof() (Spark type names)');
      case 'add':
      case 'sub': {
        // DATE +/- INTERVAL (year-month or whole days) is a DATE in Spark, a TIMESTAMP in DuckDB: fixed when the
        // left side is visibly a date.
        const l = kindOf(d.left);
        // DATE +/- INTERVAL n HOUR (a time part) is a TIMESTAMP in Spark (TIMESTAMPTZ here).
        if (kindOf(d.right)?.[0] === 'interval' && !isDateInterval(d.right) && l && isDateExpr(l))
          return hit(tsCast(n));
        if (isDateInterval(d.right) && l && isDateExpr(l)) {
          return hit({
            cast: { this: n, to: { data_type: 'date' }, trailing_comments: [], double_colon_syntax: false },
          });
        }
        return n;
      }
      case 'substring':
        return hit(fn('spark_substr', d.length ? [d.this, d.start, d.length] : [d.this, d.start]));
      case 'initcap':
        return hit(fn('spark_initcap', [d.this]));
      case 'array_distinct':
        return hit(fn('spark_array_distinct', [d.this]));
      case 'div':
        return hit(fn('spark_div', [d.left, d.right]));
      case 'concat':
        return hit(
          fn(visiblyArray(d.left) || visiblyArray(d.right) ? 'spark_concat_arr' : 'spark_concat', [
            d.left,
            d.right,
          ]),
        );
      case 'add_months':
        return hit(fn('spark_add_months', [d.this, d.expression]));
      case 'cast':
        return this.castNode(d.this, d.to as Node, true);
      case 'try_cast': {
        // Kept as TRY_CAST inside SPARK_TRY(...) (DuckDB's TRY after fixTokens), which turns every other TRY_CAST back
        // into CAST.
        const c = this.castNode(d.this, d.to as Node, true, true) as { cast: Node };
        return hit(fn('spark_try', [{ try_cast: c.cast }]));
      }
      case 'aggregate_function': {
        const name = String(d.name).toLowerCase();
        if (name === 'percentile') return hit({ aggregate_function: { ...d, name: 'quantile_cont' } });
        if (name === 'approx_percentile' || name === 'percentile_approx')
          return hit(fn('quantile_disc', (d.args as Json[]).slice(0, 2)));
        return n;
      }
      case 'method_call': {
        // `catalog.schema.fn(...)` parses as a method call on column `catalog.schema`: the catalog part is a
        // Unity Catalog name, aliased like a table's.
        const col = (kindOf(d.this)?.[0] === 'column' ? (d.this as Node).column : undefined) as
          Node | undefined;
        const cat = col?.table as { name: string; quoted: boolean } | null | undefined;
        if (col && cat && isIdent(cat) && isIdent(col.name)) {
          col.table = ident(this.o.alias(cat.name));
          this.changed = true;
        }
        return n;
      }
      case 'copy': {
        if (Array.isArray(d.files)) d.files = d.files.map((f: Json) => this.volumePath(f));
        return n;
      }
      case 'function': {
        const name = String(d.name).toLowerCase();
        const args = (d.args as Json[]) ?? [];
        if (PATH_FUNCS.has(name) && args.length > 0) args[0] = this.volumePath(args[0]);
        switch (name) {
          case 'current_timestamp':
          case 'current_date':
            // DuckDB knows these only without parentheses; Spark accepts both.
            return args.length === 0 && d.no_parens !== true
              ? hit({ function: { ...d, no_parens: true } })
              : n;
          case 'concat': {
            if (args.length < 2) return n;
            // Arrays concatenate as arrays; anything else as Spark's strings.
            const f = args.some(visiblyArray) ? 'spark_concat_arr' : 'spark_concat';
            return hit(args.slice(1).reduce((acc: Json, a) => fn(f, [acc, a]), args[0]));
          }
          case 'date_add':
          case 'dateadd':
            if (args.length === 3) return this.tsAdd(n, args);
            return args.length === 2 ? hit(fn('spark_date_add', args)) : n;
          case 'timestampadd':
            return args.length === 3 ? this.tsAdd(n, args) : n;
          case 'timestampdiff':
          case 'datediff':
          case 'date_diff': {
            if (args.length !== 3) return n;
            const u = kindOf(args[0]);
            const unit =
              u?.[0] === 'column'
                ? String((u[1].name as Node).name)
                : u?.[0] === 'literal'
                  ? String(u[1].value)
                  : u?.[0] === 'var'
                    ? String(u[1].this)
                    : '';
            const part = DIFF_UNITS[unit.toLowerCase()];
            if (!part) throw unsupported(`${name} with the unit ${unit || '(expression)'}`);
            return hit(fn('spark_tsdiff', [str(part), args[1], args[2]]));
          }
          case 'weekday':
            return args.length === 1 ? hit(fn('spark_weekday', args)) : n;
          case 'hash':
            throw unsupported('hash() (Spark murmur3 hash values)');
          case 'sort_array':
            if (args.length === 1) return hit(fn('spark_sort_array', args));
            return args.length === 2 ? hit(fn('spark_sort_array', args)) : n;
          case 'array_sort':
            return args.length === 1 ? hit(fn('spark_array_sort', args)) : n;
          case 'date_from_unix_date':
            return args.length === 1 ? hit(fn('spark_date_from_unix_date', args)) : n;
          case 'make_timestamp':
            if (args.length === 7) throw unsupported('make_timestamp with a time zone argument');
            return args.length === 6 ? hit(tsCast(n)) : n;
          case 'from_utc_timestamp':
          case 'to_utc_timestamp':
            return args.length === 2 ? hit(fn(`spark_${name}`, args)) : n;
          case 'current_user':
          case 'user':
          case 'session_user':
            return args.length === 0
              ? hit(named(fn('spark_str', [str(this.o.user ?? 'duckdb')]), `${name}()`))
              : n;
          case 'date_sub':
            return args.length === 2 ? hit(fn('spark_date_sub', args)) : n;
          case 'get_json_object':
            return hit(fn('spark_get_json_object', args));
          case 'pmod':
            return hit(fn('spark_pmod', args));
          case 'trunc':
            return args.length === 2 ? hit(fn('spark_trunc', args)) : n;
          case 'try_divide':
            return hit(fn('spark_try_divide', args));
          case 'try_element_at':
            return hit(fn('spark_try_element_at', args));
          case 'get':
            return args.length === 2 ? hit(fn('spark_get', args)) : n;
          case 'sign':
          case 'signum':
            return hit(fn('spark_sign', args));
          case 'hex':
            return hit(fn('spark_hex', args));
          // polyglot rewrites array()/map() only in some argument positions; DuckDB's own constructors work
          // everywhere.
          case 'array':
            return hit(fn('list_value', args));
          case 'map':
            if (args.length === 0 || args.length % 2 !== 0) return n;
            return hit(
              fn('spark_map', [
                fn(
                  'list_value',
                  args.filter((_, i) => i % 2 === 0),
                ),
                fn(
                  'list_value',
                  args.filter((_, i) => i % 2 === 1),
                ),
              ]),
            );
          case 'array_join':
            return args.length === 2 ? hit(fn('array_to_string', args)) : n;
          case 'uuid':
            return args.length === 0 ? hit(fn('spark_uuid', [])) : n;
          case 'range':
            return args.length >= 1 && args.length <= 3 ? hit(fn(`spark_range${args.length}`, args)) : n;
          case 'to_timestamp':
            if (args.length === 1) return hit(tsCast(args[0]));
            return args.length === 2 ? hit(tsCast(n)) : n;
          case 'from_unixtime':
            return args.length === 1 ? hit(fn('spark_from_unixtime', args)) : n;
          case 'date_format': {
            if (args.length !== 2) return n;
            const f = kindOf(args[1]);
            if (!f || f[0] !== 'literal' || f[1].literal_type !== 'string')
              throw unsupported('date_format with a non-literal pattern');
            return hit(
              fn('spark_strftime', [
                tsCast(args[0]),
                { literal: { literal_type: 'string', value: javaToStrftime(String(f[1].value)) } },
              ]),
            );
          }
          case 'concat_ws': {
            if (args.length < 2) return n;
            const sep = args[0];
            const parts = args.slice(1).map((a) => {
              const k = kindOf(a);
              const isArray =
                !!k &&
                k[0] === 'function' &&
                ['array', 'list_value', 'split', 'collect_list', 'collect_set'].includes(
                  String(k[1].name).toLowerCase(),
                );
              if (isArray || (k && (k[0] === 'aggregate_function' || k[0] === 'array_distinct')))
                return fn('spark_cw_array', [a, sep]);
              return fn('spark_cw_arg', [a]);
            });
            return hit(fn('concat_ws', [sep, ...parts]));
          }
          case 'elt':
            return args.length >= 2 ? hit(fn('spark_elt', [fn('list_value', args.slice(1)), args[0]])) : n;
          case 'from_json':
            return args.length === 2 ? hit(fromJson(args[0], args[1])) : n;
          case 'isnull':
            return args.length === 1 ? hit(fn('spark_isnull', args)) : n;
          case 'isnotnull':
            return args.length === 1 ? hit(fn('spark_isnotnull', args)) : n;
          case 'sha2':
            return args.length === 2 ? hit(fn('spark_sha2', args)) : n;
          case 'regexp_replace': {
            if (args.length !== 3) return n;
            // Java's replacement syntax ($1, \$) -> RE2's (\1); a non-literal replacement must not use either.
            const r = kindOf(args[2]);
            if (r && r[0] === 'literal' && r[1].literal_type === 'string') {
              const re2 = javaReplacement(String(r[1].value));
              if (re2 === undefined)
                throw unsupported('regexp_replace with this replacement ($name or $10+ group references)');
              return hit(fn('spark_regexp_replace', [args[0], args[1], str(re2)]));
            }
            return hit(fn('spark_regexp_replace_expr', args));
          }
          case 'flatten':
            return hit(fn('spark_flatten', args));
          case 'slice':
            return args.length === 3 ? hit(fn('spark_slice', args)) : n;
          case 'sequence': {
            if (args.length !== 2 && args.length !== 3) return n;
            // Dates make an ARRAY<DATE> in Spark (DuckDB: TIMESTAMP[]).
            const a0 = kindOf(args[0]);
            if (a0 && isDateExpr(a0)) return hit(fn('spark_sequence_date', args));
            return hit(fn('spark_sequence', args));
          }
          case 'arrays_overlap':
            return hit(fn('spark_arrays_overlap', args));
          case 'transform':
            return args.length === 2 && isLambda(args[1], 1) ? hit(fn('list_transform', args)) : n;
          case 'aggregate':
          case 'reduce':
            return args.length === 3 && isLambda(args[2], 2)
              ? hit(fn('list_reduce', [args[0], args[2], args[1]]))
              : n;
          case 'exists':
            return args.length === 2 && isLambda(args[1], 1)
              ? hit({
                  gt: {
                    left: fn('len', [fn('list_filter', args)]),
                    right: { literal: { literal_type: 'number', value: '0' } },
                    left_comments: [],
                    operator_comments: [],
                    trailing_comments: [],
                  },
                })
              : n;
          case 'unix_timestamp':
          case 'to_unix_timestamp':
            return args.length >= 1
              ? hit({
                  cast: {
                    this: n,
                    to: { data_type: 'big_int', length: null },
                    trailing_comments: [],
                    double_colon_syntax: false,
                  },
                })
              : n;
          case 'current_catalog':
            return args.length === 0
              ? hit(named(fn('spark_str', [str(this.o.sessionCatalog)]), 'current_catalog()'))
              : n;
          case 'current_database':
          case 'current_schema':
            return args.length === 0
              ? hit(named(fn('spark_str', [str(this.o.sessionSchema ?? 'default')]), `${name}()`))
              : n;
          case 'typeof':
            throw unsupportedIn('typeof() (Spark type names)');
          case 'percentile_approx':
          case 'approx_percentile':
            return hit(fn('quantile_disc', args.slice(0, 2)));
          default:
            return n;
        }
      }
      default:
        return n;
    }
  }

  /** timestampadd(unit, n, DATE) is a TIMESTAMP in Spark (DuckDB: a wall-clock TIMESTAMP); other inputs keep their type. */
  private tsAdd(n: Node, args: Json[]): Json {
    const k = kindOf(args[2]);
    if (!k || !isDateExpr(k)) return n;
    this.changed = true;
    return tsCast(n);
  }

  private castNode(expr: Json, to: Node, fromUser = false, tryCast = false): Node {
    const dt = String(to.data_type ?? '').toLowerCase();
    const t = dt === 'custom' ? String(to.name ?? '').toLowerCase() : dt;
    if (fromUser && (INTEGRAL.has(t) || t === 'long' || t === 'short' || t === 'byte')) {
      this.changed = true;
      expr = fn(tryCast ? 'spark_int_src_try' : 'spark_int_src', [expr]);
    }
    if (fromUser && (t === 'string' || t === 'varchar' || t === 'text')) {
      this.changed = true;
      expr = fn('spark_to_string', [expr]);
    }
    return { cast: { this: expr, to, trailing_comments: [], double_colon_syntax: false } };
  }
}

/**
 * A table reference's Delta time travel, from the parsed reference: `VERSION AS OF n`, `TIMESTAMP AS OF
 * '<timestamp>'`, or Databricks' suffixes on the (unquoted) name, `t@v3` and `t@yyyyMMddHHmmssSSS`.
 */
function timeTravel(
  t: Node,
  nameNode: { name: string; quoted?: boolean },
): { name: string; at: TravelSpec | undefined } {
  let name = nameNode.name;
  let at: TravelSpec | undefined;
  const suffix = nameNode.quoted ? null : /^(.+)@(?:v(\d+)|(\d{17}))$/i.exec(name);
  if (suffix) {
    name = suffix[1]!;
    if (suffix[2] !== undefined) at = { version: Number(suffix[2]) };
    else {
      const d = suffix[3]!;
      const [y, mo, da, h, mi, se, ms] = [
        d.slice(0, 4),
        d.slice(4, 6),
        d.slice(6, 8),
        d.slice(8, 10),
        d.slice(10, 12),
        d.slice(12, 14),
        d.slice(14),
      ].map(Number);
      const ts = Date.UTC(y!, mo! - 1, da!, h!, mi!, se!, ms!);
      if (Number.isNaN(ts) || new Date(ts).getUTCMonth() !== mo! - 1)
        throw sqlError(
          'DELTA_INVALID_TIMESTAMP_FORMAT',
          '22007',
          `The provided timestamp ${d} does not match the expected syntax yyyyMMddHHmmssSSS.`,
        );
      at = { timestamp: ts };
    }
  }
  const tv = t.version as { this?: { identifier?: { name?: string } }; expression?: Node } | null | undefined;
  if (!tv) return { name, at };
  if (at)
    throw sqlError(
      'DELTA_UNSUPPORTED_TIME_TRAVEL_MULTIPLE_FORMATS',
      '42613',
      'Cannot specify time travel in multiple formats.',
    );
  const kind = tv.this?.identifier?.name?.toUpperCase();
  const lit = literalOf(tv.expression);
  if (kind === 'VERSION') {
    // A parameter marker names the version too (bound when the statement runs, then checked).
    if (tv.expression && kindOf(tv.expression)?.[0] === 'parameter')
      return { name, at: { expr: travelExprText(tv.expression), kind: 'version' } };
    if (!lit || !/^\d+$/.test(lit.value))
      throw sqlError(
        'INVALID_TIME_TRAVEL_SPEC',
        '42K0E',
        'VERSION AS OF takes a non-negative integer literal.',
      );
    return { name, at: { version: Number(lit.value) } };
  }
  if (kind === 'TIMESTAMP') {
    // Any other expression (`current_timestamp() - INTERVAL 1 HOUR`, `date_sub(current_date(), 1)`, a cast,
    // a parameter marker) is evaluated once by the engine, as Spark constant-folds it (rewrite.ts).
    if (!lit || lit.type === 'number')
      return { name, at: { expr: travelExprText(tv.expression!), kind: 'timestamp' } };
    const ts = parseTimestampText(lit.value);
    if (ts === undefined)
      throw sqlError(
        'INVALID_TIME_TRAVEL_TIMESTAMP_EXPR',
        '42K0E',
        `The time travel timestamp expression '${lit.value}' is invalid: it cannot be cast to a valid timestamp.`,
      );
    return { name, at: { timestamp: ts } };
  }
  throw unsupported(`Time travel ${kind ?? ''} AS OF`);
}

/**
 * A time travel expression as Databricks SQL text, refused as Spark refuses it when it cannot be folded to
 * a constant: a column or a subquery (UNEVALUABLE), a non-deterministic function (NON_DETERMINISTIC).
 */
function travelExprText(e: Node): string {
  const { generate, Dialect } = polyglot();
  const g = generate([e], Dialect.Databricks);
  const text = g.success ? g.sql?.[0] : undefined;
  if (!text) throw unsupported('This time travel expression');
  const bad = (n: Json): 'UNEVALUABLE' | 'NON_DETERMINISTIC' | undefined => {
    if (Array.isArray(n)) {
      for (const x of n) {
        const r = bad(x);
        if (r) return r;
      }
      return undefined;
    }
    if (!n || typeof n !== 'object') return undefined;
    for (const [k, v] of Object.entries(n)) {
      if (k === 'column' || k === 'select' || k === 'subquery' || k === 'exists') return 'UNEVALUABLE';
      if (['rand', 'randn', 'random', 'uuid', 'shuffle'].includes(k)) return 'NON_DETERMINISTIC';
      if (k === 'function' && /^(rand|randn|random|uuid|shuffle)$/i.test(String((v as Node).name)))
        return 'NON_DETERMINISTIC';
      if (k === 'span') continue;
      const r = bad(v as Json);
      if (r) return r;
    }
    return undefined;
  };
  const why = bad(e as Json);
  if (why)
    throw sqlError(
      `INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.${why}`,
      '42K0E',
      `The time travel timestamp expression ${text} is invalid. ${why === 'UNEVALUABLE' ? 'Must be evaluable.' : 'Must be deterministic.'}`,
    );
  return text;
}

/** A literal (string, number, TIMESTAMP '...', or CAST('...' AS TIMESTAMP)) as its text and kind. */
function literalOf(e: Node | undefined): { value: string; type: string } | undefined {
  const k = e ? kindOf(e) : undefined;
  if (!k) return undefined;
  if (k[0] === 'literal') return { value: String(k[1].value), type: String(k[1].literal_type) };
  if (k[0] === 'cast') return literalOf(k[1].this as Node);
  return undefined;
}

/**
 * A timestamp string as Spark casts it (the session time zone is UTC): `yyyy-MM-dd`, `yyyy-MM-dd HH:mm[:ss[.f]]`
 * with ` ` or `T`, optionally `Z` or an offset. Undefined when it is not a timestamp.
 */
export function parseTimestampText(text: string): number | undefined {
  const m =
    /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$/i.exec(
      text,
    );
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => Number(x ?? 0));
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  let ts = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms);
  const check = new Date(ts);
  if (check.getUTCMonth() !== mo! - 1 || check.getUTCDate() !== d! || h! > 23 || mi! > 59 || s! > 59)
    return undefined;
  const z = m[8];
  if (z && z.toUpperCase() !== 'Z') {
    const sign = z.startsWith('-') ? -1 : 1;
    const digits = z.slice(1).replace(':', '');
    ts -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return ts;
}
