/**
 * Spark semantics DuckDB lacks, as DuckDB macros. They live in their own in-memory attached database so that
 * they are shared by every connection of the engine and never collide with a user catalog or a DuckDB builtin
 * (builtins win name resolution, hence the spark_ prefix). The translator calls them unqualified; the
 * connection's search_path ends with this schema.
 */
import { literal } from '@minilake/engine-duckdb';
export const MACRO_DB = '__ml_spark';
export const MACRO_SCHEMA = `${MACRO_DB}.main`;

const DIVIDE_BY_ZERO =
  '[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead.';

// name(params) AS body. Bodies only use DuckDB builtins.
export const SPARK_MACROS: [string, string][] = [
  // Length of a list or a map (len() rejects maps, cardinality() rejects lists); JSON length binds for both.
  ['spark_len(x)', 'json_array_length(to_json(CASE WHEN true THEN x END))'],
  // Shortest digits and decimal exponent of DuckDB's shortest round-trip text (unsigned, finite, non-zero).
  [
    'spark_jd_digits(b)',
    "CASE WHEN contains(b, 'e') THEN replace(split_part(b, 'e', 1), '.', '') WHEN split_part(b, '.', 1) <> '0' " +
      "THEN rtrim(replace(b, '.', ''), '0') ELSE ltrim(rtrim(split_part(b, '.', 2), '0'), '0') END",
  ],
  [
    'spark_jd_exp(b)',
    "CASE WHEN contains(b, 'e') THEN CAST(split_part(b, 'e', 2) AS INTEGER) WHEN split_part(b, '.', 1) <> '0' " +
      "THEN length(split_part(b, '.', 1)) - 1 ELSE -(length(split_part(b, '.', 2)) - length(ltrim(split_part(b, '.', 2), '0')) + 1) END",
  ],
  [
    'spark_jd_sci(d, e)',
    "d[1] || '.' || CASE WHEN length(d) > 1 THEN d[2:] ELSE '0' END || 'E' || CAST(e AS VARCHAR)",
  ],
  [
    'spark_java_double(s, x)',
    "CASE WHEN x IS NULL THEN NULL WHEN isnan(x) THEN 'NaN' WHEN x = 'inf'::DOUBLE THEN 'Infinity' WHEN x = '-inf'::DOUBLE THEN '-Infinity' " +
      "WHEN x = 0 THEN CASE WHEN signbit(x) THEN '-0.0' ELSE '0.0' END " +
      'WHEN abs(x) >= 0.001 AND abs(x) < 10000000 THEN s ' +
      `ELSE CASE WHEN x < 0 THEN '-' ELSE '' END || ${MACRO_SCHEMA}.spark_jd_sci(${MACRO_SCHEMA}.spark_jd_digits(ltrim(s, '-')), ${MACRO_SCHEMA}.spark_jd_exp(ltrim(s, '-'))) END`,
  ],
  // CAST(x AS STRING) as Spark prints it: TIMESTAMP without its offset ('2024-01-02 03:04:05'), DOUBLE/FLOAT as
  // Java's Double.toString (1.0E7, 1.5E-5, NaN, Infinity). DuckDB's own text for everything else.
  [
    'spark_to_string(x)',
    `CASE WHEN typeof(x) = 'TIMESTAMP WITH TIME ZONE' THEN regexp_replace(CAST(x AS VARCHAR), '[+-][0-9][0-9](:[0-9][0-9])?$', '') ` +
      `WHEN typeof(x) IN ('DOUBLE', 'FLOAT') THEN ${MACRO_SCHEMA}.spark_java_double(CAST(x AS VARCHAR), CAST(x AS DOUBLE)) ` +
      `WHEN typeof(x) LIKE '%[]' OR typeof(x) LIKE 'MAP(%' OR typeof(x) LIKE 'STRUCT(%' THEN error('[UNSUPPORTED_FEATURE] Converting an array, map or struct column to a string (CAST or concat) is not supported by MiniLake; use array_join or to_json.') ` +
      'ELSE CAST(x AS VARCHAR) END',
  ],
  ['spark_concat_arr(a, b)', 'CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE list_concat(a, b) END'],
  // concat/|| : any NULL argument makes the result NULL (DuckDB's concat skips NULLs).
  [
    'spark_concat(a, b)',
    `CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE concat(${MACRO_SCHEMA}.spark_to_string(a), ${MACRO_SCHEMA}.spark_to_string(b)) END`,
  ],
  // arr[i] is 0-based on arrays; map[k] is a key lookup. typeof() is constant-folded, so only one branch runs.
  // Out of bounds is an error under ANSI (Databricks SQL's default), as in Spark.
  [
    'spark_subscript(x, i)',
    "CASE WHEN typeof(x) LIKE 'MAP(%' THEN x[i] WHEN x IS NULL OR i IS NULL THEN NULL WHEN i >= 0 AND i < spark_len(x) THEN x[i + 1] " +
      "ELSE error('[INVALID_ARRAY_INDEX] The index ' || i || ' is out of bounds. The array has ' || spark_len(x) || ' elements. Use the SQL function `get()` to tolerate accessing element at invalid index and return NULL instead.') END",
  ],
  // element_at is 1-based with negative indexes from the end, which is DuckDB's list subscript.
  [
    'spark_element_at(x, i)',
    "CASE WHEN typeof(x) LIKE 'MAP(%' THEN x[i] WHEN x IS NULL OR i IS NULL THEN NULL WHEN i <> 0 AND abs(i) <= spark_len(x) THEN x[i] " +
      "WHEN i = 0 THEN error('[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).') " +
      "ELSE error('[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] The index ' || i || ' is out of bounds. The array has ' || spark_len(x) || ' elements. Use `try_element_at` to tolerate accessing element at invalid index and return NULL instead.') END",
  ],
  [
    'spark_try_element_at(x, i)',
    "CASE WHEN typeof(x) LIKE 'MAP(%' THEN x[i] WHEN i <> 0 THEN x[i] ELSE NULL END",
  ],
  ['spark_get(x, i)', 'CASE WHEN i >= 0 THEN x[i + 1] ELSE NULL END'],
  ['spark_sign(x)', 'CAST(sign(x) AS DOUBLE)'],
  ['spark_hex(x)', 'upper(hex(x))'],
  // Spark: 1 = Sunday ... 7 = Saturday.
  ['spark_dayofweek(d)', 'dayofweek(CAST(d AS DATE)) + 1'],
  [
    'spark_months_between(a, b)',
    "round(CAST(date_diff('month', CAST(b AS DATE), CAST(a AS DATE)) AS DOUBLE) + CASE WHEN day(CAST(a AS DATE)) = day(CAST(b AS DATE)) " +
      'OR (CAST(a AS DATE) = last_day(CAST(a AS DATE)) AND CAST(b AS DATE) = last_day(CAST(b AS DATE))) THEN 0.0 ' +
      'ELSE (day(CAST(a AS DATE)) - day(CAST(b AS DATE))) / 31.0 END, 8)',
  ],
  ['spark_flatten(a)', 'flatten(a)'],
  [
    'spark_slice(a, s, l)',
    'CASE WHEN s > 0 THEN a[s : s + l - 1] WHEN s < 0 THEN a[len(a) + s + 1 : len(a) + s + l] ' +
      "ELSE error('[INVALID_PARAMETER_VALUE.START] The value of parameter(s) `start` in `slice` is invalid: Expects a positive or a negative value for `start`, but got 0.') END",
  ],
  // A DATE start only when visibly a date (spark_sequence_date); otherwise refused rather than TIMESTAMP[].
  [
    'spark_sequence(a, b)',
    "CASE WHEN typeof(a) = 'DATE' THEN error('[UNSUPPORTED_FEATURE] sequence over a DATE column is not supported by MiniLake; CAST it AS DATE explicitly.') ELSE generate_series(a, b) END",
  ],
  [
    'spark_sequence(a, b, st)',
    "CASE WHEN typeof(a) = 'DATE' THEN error('[UNSUPPORTED_FEATURE] sequence over a DATE column is not supported by MiniLake; CAST it AS DATE explicitly.') ELSE generate_series(a, b, st) END",
  ],
  [
    'spark_sequence_date(a, b)',
    "CAST(generate_series(CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP), CASE WHEN CAST(a AS DATE) <= CAST(b AS DATE) THEN INTERVAL '1 day' ELSE INTERVAL '-1 day' END) AS DATE[])",
  ],
  [
    'spark_sequence_date(a, b, st)',
    'CAST(generate_series(CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP), st) AS DATE[])',
  ],
  ['spark_arrays_overlap(a, b)', 'list_has_any(a, b)'],
  ['spark_substr(s, p)', 'substring(s, CASE WHEN p = 0 THEN 1 ELSE p END)'],
  ['spark_substr(s, p, l)', 'substring(s, CASE WHEN p = 0 THEN 1 ELSE p END, l)'],
  ['spark_date_add(d, n)', 'CAST(CAST(d AS DATE) + CAST(n AS INTEGER) AS DATE)'],
  ['spark_date_sub(d, n)', 'CAST(CAST(d AS DATE) - CAST(n AS INTEGER) AS DATE)'],
  ['spark_add_months(d, n)', 'CAST(CAST(d AS DATE) + to_months(CAST(n AS INTEGER)) AS DATE)'],
  ['spark_get_json_object(j, p)', 'json_extract_string(CAST(j AS VARCHAR), p)'],
  ['spark_pmod(a, b)', `CASE WHEN b = 0 THEN error(${literal(DIVIDE_BY_ZERO)}) ELSE ((a % b) + b) % b END`],
  ['spark_mod(a, b)', `CASE WHEN b = 0 THEN error(${literal(DIVIDE_BY_ZERO)}) ELSE a % b END`],
  // Spark: weekday is 0 = Monday ... 6 = Sunday; DOW_ISO 1 = Monday ... 7 = Sunday.
  ['spark_weekday(d)', 'CAST(isodow(CAST(d AS DATE)) - 1 AS INTEGER)'],
  ['spark_isodow(d)', 'CAST(isodow(CAST(d AS DATE)) AS INTEGER)'],
  // Whole units elapsed (DuckDB's date_sub), as Spark's timestampdiff / 3-argument datediff.
  // Months as Java's ChronoUnit.MONTHS.between: no end-of-month rule (DuckDB's date_sub counts Jan 31 -> Feb 29
  // as a month).
  [
    'spark_mdiff(a, b)',
    '(year(b) - year(a)) * 12 + month(b) - month(a) - CASE ' +
      "WHEN (year(b) - year(a)) * 12 + month(b) - month(a) > 0 AND day(b) * 86400000000 + epoch_us(b) - epoch_us(date_trunc('day', b)) < day(a) * 86400000000 + epoch_us(a) - epoch_us(date_trunc('day', a)) THEN 1 " +
      "WHEN (year(b) - year(a)) * 12 + month(b) - month(a) < 0 AND day(b) * 86400000000 + epoch_us(b) - epoch_us(date_trunc('day', b)) > day(a) * 86400000000 + epoch_us(a) - epoch_us(date_trunc('day', a)) THEN -1 ELSE 0 END",
  ],
  [
    'spark_tsdiff(u, a, b)',
    `CASE u WHEN 'month' THEN ${MACRO_SCHEMA}.spark_mdiff(CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP)) ` +
      `WHEN 'quarter' THEN CAST(trunc(${MACRO_SCHEMA}.spark_mdiff(CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP)) / 3) AS BIGINT) ` +
      `WHEN 'year' THEN CAST(trunc(${MACRO_SCHEMA}.spark_mdiff(CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP)) / 12) AS BIGINT) ` +
      'ELSE date_sub(u, CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP)) END',
  ],
  // 0 when absent (not NULL), NULL for a NULL array or element.
  [
    'spark_array_position(a, x)',
    'CASE WHEN a IS NULL OR x IS NULL THEN NULL ELSE CAST(coalesce(list_position(a, x), 0) AS BIGINT) END',
  ],
  // NULL (not false) when absent and the array holds a NULL.
  [
    'spark_array_contains(a, x)',
    'CASE WHEN a IS NULL OR x IS NULL THEN NULL WHEN list_contains(a, x) THEN true ' +
      'WHEN len(list_filter(a, e -> e IS NULL)) > 0 THEN NULL ELSE false END',
  ],
  // sort_array: NULLs first ascending, last descending; array_sort: NULLs last.
  ['spark_sort_array(a)', "list_sort(a, 'ASC', 'NULLS FIRST')"],
  [
    'spark_sort_array(a, up)',
    "CASE WHEN up THEN list_sort(a, 'ASC', 'NULLS FIRST') ELSE list_sort(a, 'DESC', 'NULLS LAST') END",
  ],
  ['spark_array_sort(a)', "list_sort(a, 'ASC', 'NULLS LAST')"],
  // Date-time fields in the session time zone (a TIMESTAMP_NTZ or DATE keeps its wall clock), as Spark's INT.
  ['spark_year(ts)', 'CAST(year(CAST(ts AS TIMESTAMPTZ)) AS INTEGER)'],
  ['spark_month(ts)', 'CAST(month(CAST(ts AS TIMESTAMPTZ)) AS INTEGER)'],
  ['spark_day(ts)', 'CAST(day(CAST(ts AS TIMESTAMPTZ)) AS INTEGER)'],
  ['spark_hour(ts)', 'CAST(hour(CAST(ts AS TIMESTAMPTZ)) AS INTEGER)'],
  ['spark_minute(ts)', 'CAST(minute(CAST(ts AS TIMESTAMPTZ)) AS INTEGER)'],
  ['spark_second(ts)', 'CAST(second(CAST(ts AS TIMESTAMPTZ)) AS INTEGER)'],
  // The instant whose UTC wall clock is ts's wall clock in tz (and back): independent of the session zone.
  ['spark_from_utc_timestamp(ts, tz)', "timezone('UTC', timezone(tz, CAST(ts AS TIMESTAMPTZ)))"],
  ['spark_to_utc_timestamp(ts, tz)', "timezone(tz, timezone('UTC', CAST(ts AS TIMESTAMPTZ)))"],
  ['spark_date_from_unix_date(n)', "CAST(DATE '1970-01-01' + CAST(n AS INTEGER) AS DATE)"],
  ['spark_str(x)', 'CAST(x AS VARCHAR)'],
  [
    'spark_initcap(s)',
    "array_to_string(list_transform(string_split(s, ' '), w -> upper(w[1]) || lower(w[2:])), ' ')",
  ],
  [
    'spark_trunc(d, f)',
    "CAST(date_trunc(CASE upper(f) WHEN 'YYYY' THEN 'year' WHEN 'YY' THEN 'year' WHEN 'MON' THEN 'month' WHEN 'MM' THEN 'month' ELSE lower(f) END, CAST(d AS DATE)) AS DATE)",
  ],
  // First occurrence order, one NULL kept.
  ['spark_array_distinct(a)', 'list_filter(a, (x, i) -> list_position(a, x) = i)'],
  // Probe of an `a / b` projection's operand types (DESCRIBE only).
  ['spark_pair(a, b)', "{'l': a, 'r': b}"],
  ['spark_div(a, b)', `CASE WHEN b = 0 THEN error(${literal(DIVIDE_BY_ZERO)}) ELSE a / b END`],
  ['spark_try_divide(a, b)', 'CASE WHEN b = 0 THEN NULL ELSE a / b END'],
  // CAST to an integral type truncates toward zero in Spark; DuckDB rounds. Every branch is bound for the
  // argument's real type and the result is DECIMAL(38, 0) (exact for every integral value); the caller casts it
  // to the integral type, which keeps DuckDB's overflow errors (ANSI).
  // `t` is the cast's target as Databricks names it (INT, BIGINT ...): a string that is no number fails with
  // Spark's CAST_INVALID_INPUT naming it (engine-errors.ts reads `[CAST_INVALID_INPUT] <t> <value>`).
  [
    'spark_int_src(x, t)',
    "CASE WHEN typeof(x) IN ('DOUBLE', 'FLOAT') THEN CAST(trunc(TRY_CAST(x AS DOUBLE)) AS DECIMAL(38, 0)) " +
      "WHEN typeof(x) = 'VARCHAR' AND x IS NOT NULL AND TRY_CAST(CAST(x AS VARCHAR) AS DECIMAL(38, 10)) IS NULL " +
      "THEN error('[CAST_INVALID_INPUT] ' || t || ' ' || CAST(x AS VARCHAR)) " +
      "WHEN typeof(x) LIKE 'DECIMAL%' OR typeof(x) = 'VARCHAR' THEN CAST(trunc(CAST(CAST(x AS VARCHAR) AS DECIMAL(38, 10))) AS DECIMAL(38, 0)) " +
      'ELSE CAST(CAST(x AS HUGEINT) AS DECIMAL(38, 0)) END',
  ],
  [
    'spark_int_src_try(x)',
    "CASE WHEN typeof(x) IN ('DOUBLE', 'FLOAT') THEN TRY_CAST(trunc(TRY_CAST(x AS DOUBLE)) AS DECIMAL(38, 0)) " +
      "WHEN typeof(x) LIKE 'DECIMAL%' OR typeof(x) = 'VARCHAR' THEN CAST(trunc(TRY_CAST(CAST(x AS VARCHAR) AS DECIMAL(38, 10))) AS DECIMAL(38, 0)) " +
      'ELSE CAST(TRY_CAST(x AS HUGEINT) AS DECIMAL(38, 0)) END',
  ],
  ['spark_isnull(x)', 'x IS NULL'],
  [
    'spark_elt(l, i)',
    'CASE WHEN i IS NULL THEN NULL WHEN i BETWEEN 1 AND len(l) THEN l[i] ' +
      "ELSE error('[INVALID_ARRAY_INDEX] The index ' || i || ' is out of bounds. The array has ' || len(l) || ' elements. Use `try_element_at` and increase the array index by 1(the starting array index is 1 for `try_element_at`) to tolerate accessing element at invalid index and return NULL instead.') END",
  ],
  ['spark_strftime(x, f)', 'strftime(x, f)'],
  ['spark_from_unixtime(x)', "strftime(to_timestamp(x), '%Y-%m-%d %H:%M:%S')"],
  // concat_ws flattens array arguments and skips NULLs (an empty array contributes nothing).
  ['spark_cw_array(a, sep)', 'CASE WHEN len(a) = 0 THEN NULL ELSE array_to_string(a, sep) END'],
  // Other arguments must not be arrays (DuckDB would print them as [a, b]): refuse instead.
  [
    'spark_cw_arg(x)',
    "CASE WHEN typeof(x) LIKE '%[]' THEN error('[UNSUPPORTED_FEATURE] concat_ws with an array column is not supported by MiniLake; use array_join.') " +
      `ELSE ${MACRO_SCHEMA}.spark_to_string(x) END`,
  ],
  ['spark_map(k, v)', 'map(k, v)'],
  ['spark_uuid()', 'CAST(uuid() AS VARCHAR)'],
  ['spark_isnotnull(x)', 'x IS NOT NULL'],
  [
    'spark_sha2(x, b)',
    "CASE WHEN b IN (0, 256) THEN sha256(x) ELSE error('[UNSUPPORTED_FEATURE] sha2 with ' || b || ' bits is not supported by MiniLake.') END",
  ],
  // Spark replaces every match.
  ['spark_regexp_replace(s, p, r)', "regexp_replace(s, p, r, 'g')"],
  // A replacement computed at run time: only plain text (Java's $n and \\ escapes are not translated).
  [
    'spark_regexp_replace_expr(s, p, r)',
    "CASE WHEN contains(r, '$') OR contains(r, '\\') THEN error('[UNSUPPORTED_FEATURE] regexp_replace with a non-literal replacement using $ or \\ is not supported by MiniLake.') ELSE regexp_replace(s, p, r, 'g') END",
  ],
  ['spark_size(a)', 'CASE WHEN a IS NULL THEN -1 ELSE len(a) END'],
  ['spark_nvl2(a, b, c)', 'CASE WHEN a IS NOT NULL THEN b ELSE c END'],
];

/** Table macros (FROM range(...)): Spark's range has one BIGINT column `id`. */
export const SPARK_TABLE_MACROS: [string, string][] = [
  ['spark_range1(a)', 'SELECT range AS id FROM range(a)'],
  ['spark_range2(a, b)', 'SELECT range AS id FROM range(a, b)'],
  ['spark_range3(a, b, c)', 'SELECT range AS id FROM range(a, b, c)'],
];

export function macroStatements(): string[] {
  // Overloads of one name (different arity) must be created in one statement.
  const byName = new Map<string, string[]>();
  for (const [sig, body] of SPARK_MACROS) {
    const name = sig.slice(0, sig.indexOf('('));
    const list = byName.get(name) ?? [];
    list.push(`${sig.slice(name.length)} AS ${body}`);
    byName.set(name, list);
  }
  return [
    `ATTACH IF NOT EXISTS ':memory:' AS ${MACRO_DB}`,
    ...[...byName].map(([name, defs]) => `CREATE OR REPLACE MACRO ${MACRO_SCHEMA}.${name}${defs.join(', ')}`),
    ...SPARK_TABLE_MACROS.map(
      ([sig, body]) => `CREATE OR REPLACE MACRO ${MACRO_SCHEMA}.${sig} AS TABLE ${body}`,
    ),
  ];
}
