/**
 * Spark function calls rewritten for DuckDB (one family of the AST rewrite, rewriter.ts): Spark's argument
 * orders, result types and semantics through spark_* macros, volume paths in file-reading functions, and the
 * session's identity and namespace for current_user() / current_catalog() / current_schema().
 */
import { unsupported } from '../sql-error.js';
import { fn, kindOf, named, str } from './ast.js';
import { type Json, type Node, PATH_FUNCS } from './common.js';
import type { NodeRewriter } from './rewriter.js';
import { DIFF_UNITS, fromJson, isDateExpr, isLambda, tsCast, unsupportedIn, visiblyArray } from './shapes.js';
import { javaReplacement, javaToStrftime } from './text.js';

/** A `function` node (`d` its body) as DuckDB should run it; `n` itself when nothing changes. */
export function rewriteFunction(r: NodeRewriter, n: Node, d: Node): Json {
  const hit = (x: Json): Json => r.hit(x);
  const name = String(d.name).toLowerCase();
  const args = (d.args as Json[]) ?? [];
  // A Unity Catalog table function in FROM (`c.s.f(3)` parses as one dotted name): its catalog part is
  // aliased like a table's; `s.f(3)` is in the current catalog.
  const dotted = String(d.name).split('.');
  if (dotted.length === 3 || dotted.length === 2) {
    const [cat, sch, f] = dotted.length === 3 ? dotted : [r.o.currentCatalog, ...dotted];
    const full = `${cat}.${sch}.${f}`.toLowerCase();
    if (!r.functions.includes(full)) r.functions.push(full);
    // Quoted for the Databricks text the AST is generated as (backticks), then transpiled.
    const q = (x: string) => `\`${x.replace(/`/g, '``')}\``;
    return hit({ function: { ...d, name: `${q(r.o.alias(cat!))}.${q(sch!)}.${q(f!)}` } });
  }
  if (PATH_FUNCS.has(name) && args.length > 0) args[0] = r.volumePath(args[0]);
  switch (name) {
    case 'current_timestamp':
    case 'current_date':
      // DuckDB knows these only without parentheses; Spark accepts both.
      return args.length === 0 && d.no_parens !== true ? hit({ function: { ...d, no_parens: true } }) : n;
    case 'concat': {
      if (args.length < 2) return n;
      // Arrays concatenate as arrays; anything else as Spark's strings.
      const f = args.some(visiblyArray) ? 'spark_concat_arr' : 'spark_concat';
      return hit(args.slice(1).reduce((acc: Json, a) => fn(f, [acc, a]), args[0]));
    }
    case 'date_add':
    case 'dateadd':
      if (args.length === 3) return r.tsAdd(n, args);
      return args.length === 2 ? hit(fn('spark_date_add', args)) : n;
    case 'timestampadd':
      return args.length === 3 ? r.tsAdd(n, args) : n;
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
      return args.length === 0 ? hit(named(fn('spark_str', [str(r.o.user ?? 'duckdb')]), `${name}()`)) : n;
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
        ? hit(named(fn('spark_str', [str(r.o.sessionCatalog)]), 'current_catalog()'))
        : n;
    case 'current_database':
    case 'current_schema':
      return args.length === 0
        ? hit(named(fn('spark_str', [str(r.o.sessionSchema ?? 'default')]), `${name}()`))
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
