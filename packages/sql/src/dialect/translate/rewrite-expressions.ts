/**
 * Spark expressions other than function calls rewritten for DuckDB (one family of the AST rewrite,
 * rewriter.ts): literals and intervals, date parts, subscripts, arithmetic and string operators whose Spark
 * semantics differ, casts, aggregates, catalog-qualified calls and COPY paths.
 */
import { fn, ident, isIdent, kindOf, named, str } from './ast.js';
import { sparkName } from './names.js';
import type { Json, Node } from './common.js';
import { ansiInterval } from './intervals.js';
import type { NodeRewriter } from './rewriter.js';
import {
  isDateExpr,
  isDateInterval,
  tsCast,
  unqualifyMergeSets,
  unsupportedIn,
  visiblyArray,
} from './shapes.js';

/** An expression node of kind `k` (`d` its body) as DuckDB should run it; `n` itself when nothing changes. */
export function rewriteExpression(r: NodeRewriter, k: string, d: Node, n: Node): Json {
  const hit = (x: Json): Json => r.hit(x);
  switch (k) {
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
      return r.castNode(d.this, d.to as Node, true);
    case 'try_cast': {
      // Kept as TRY_CAST inside SPARK_TRY(...) (DuckDB's TRY after fixTokens), which turns every other TRY_CAST back
      // into CAST.
      const c = r.castNode(d.this, d.to as Node, true, true) as { cast: Node };
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
        // Its column is named as Databricks prints it (`c.default.f(41)`), not after the engine's alias.
        const method = d.method as { name?: unknown } | undefined;
        const args = ((d.args as Json[] | undefined) ?? []).map(sparkName);
        if (typeof method?.name === 'string' && args.every((a) => a !== undefined))
          named(n, `${cat.name}.${(col.name as { name: string }).name}.${method.name}(${args.join(', ')})`);
        if (typeof method?.name === 'string') {
          const full = `${cat.name}.${(col.name as { name: string }).name}.${method.name}`.toLowerCase();
          if (!r.functions.includes(full)) r.functions.push(full);
        }
        col.table = ident(r.o.alias(cat.name));
        r.changed = true;
      } else if (col && !cat && isIdent(col.name)) {
        // `schema.fn(...)`: a function of the current catalog (MINILAKE_ENFORCE=1 checks EXECUTE on it).
        const method = (d.method as { name?: unknown } | undefined)?.name;
        if (typeof method === 'string') {
          const full = `${r.o.currentCatalog}.${(col.name as { name: string }).name}.${method}`.toLowerCase();
          if (!r.functions.includes(full)) r.functions.push(full);
        }
      }
      return n;
    }
    case 'copy': {
      if (Array.isArray(d.files)) d.files = d.files.map((f: Json) => r.volumePath(f));
      return n;
    }
    default:
      return n;
  }
}
