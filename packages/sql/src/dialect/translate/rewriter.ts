/**
 * The AST rewrite from Databricks to DuckDB semantics: catalog aliases, :name parameters, Spark functions
 * through spark_* macros, volume paths, types. One class walks polyglot's AST (table references, parameter
 * markers and casts here); the Spark-vs-DuckDB cases live by node family in rewrite-functions.ts (function
 * calls) and rewrite-expressions.ts (everything else), shapes they share in shapes.ts, time travel in
 * time-travel.ts.
 */
import { polyglot } from '../polyglot.js';
import { sqlError } from '../sql-error.js';
import {
  DELTA_PATH,
  type Json,
  type Node,
  type TranslateOptions,
  isVolumePath,
  travelKey,
} from './common.js';
import { fixedNames, fn, ident, isTableRef, kindOf, str } from './ast.js';
import { writtenName } from './names.js';
import { rewriteExpression } from './rewrite-expressions.js';
import { rewriteFunction } from './rewrite-functions.js';
import { INTEGRAL, isDateExpr, tsCast } from './shapes.js';
import { timeTravel } from './time-travel.js';

export { parseTimestampText } from './time-travel.js';

/** What a node family's rewrite uses of the walk. */
export type NodeRewriter = Pick<
  Rewriter,
  'o' | 'hit' | 'castNode' | 'tsAdd' | 'volumePath' | 'changed' | 'functions'
>;

/** Databricks refuses a statement with both `?` and `:name` markers. */
function mixedParameters(): Error {
  return sqlError(
    'INVALID_QUERY_MIXED_QUERY_PARAMETERS',
    '42613',
    'Parameterized query must either use positional, or named parameters, but not both.',
  );
}

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
  /** Unity Catalog functions the text calls (`c.s.f`, lower case): EXECUTE with MINILAKE_ENFORCE=1. */
  functions: string[] = [];
  /** Names the statement's WITH clauses define: an unqualified reference to one is not a table. */
  cteNames = new Set<string>();
  /** The INSERT statement's target node (written, not read: never pointed at a snapshot view). */
  insertNode: Node | undefined;
  insertTarget: string | undefined;
  /** INSERT, UPDATE, DELETE or MERGE: the statement that writes insertNode. */
  writeKind: string | undefined;
  /** The write target has an alias outside its table node (MERGE INTO t AS x). */
  insertAliased = false;
  constructor(readonly o: TranslateOptions) {}

  /** A path argument (string literal or array of them): `/Volumes/c/s/v/...` -> the volume's directory. */
  volumePath(arg: Json): Json {
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

  /** Spark-vs-DuckDB fixes for one node, by family: markers here, function calls, other expressions. */
  private node(n: Node): Json {
    const kd = kindOf(n);
    if (!kd) return n;
    const [k, d] = kd;
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
      case 'function':
        return rewriteFunction(this, n, d);
      default:
        return rewriteExpression(this, k, d, n);
    }
  }

  /** Marks the statement rewritten and answers `r`. */
  hit(r: Json): Json {
    this.changed = true;
    return r;
  }

  /** timestampadd(unit, n, DATE) is a TIMESTAMP in Spark (DuckDB: a wall-clock TIMESTAMP); other inputs keep their type. */
  tsAdd(n: Node, args: Json[]): Json {
    const k = kindOf(args[2]);
    if (!k || !isDateExpr(k)) return n;
    this.changed = true;
    return tsCast(n);
  }

  castNode(expr: Json, to: Node, fromUser = false, tryCast = false): Node {
    const dt = String(to.data_type ?? '').toLowerCase();
    const t = dt === 'custom' ? String(to.name ?? '').toLowerCase() : dt;
    if (fromUser && (INTEGRAL.has(t) || t === 'long' || t === 'short' || t === 'byte')) {
      this.changed = true;
      expr = tryCast
        ? fn('spark_int_src_try', [expr])
        : fn('spark_int_src', [expr, str(INTEGRAL_NAMES[t] ?? t.toUpperCase())]);
    }
    if (fromUser && (t === 'string' || t === 'varchar' || t === 'text')) {
      this.changed = true;
      expr = fn('spark_to_string', [expr]);
    }
    return { cast: { this: expr, to, trailing_comments: [], double_colon_syntax: false } };
  }
}

/** A cast's integral target as Databricks names it in errors. */
const INTEGRAL_NAMES: Record<string, string> = {
  int: 'INT',
  integer: 'INT',
  bigint: 'BIGINT',
  big_int: 'BIGINT',
  long: 'BIGINT',
  smallint: 'SMALLINT',
  small_int: 'SMALLINT',
  short: 'SMALLINT',
  tinyint: 'TINYINT',
  tiny_int: 'TINYINT',
  byte: 'TINYINT',
};
