/**
 * Databricks SQL for Monaco: a Monarch tokenizer (backquoted identifiers, `--`/`/* *\/` comments, r'raw'
 * strings, `${param}`/`:param` markers) and completion of catalogs, schemas, tables, volumes and columns read
 * from Unity Catalog's REST API, plus the dialect's keywords and functions.
 */
import type * as Monaco from 'monaco-esm/editor/editor.api.js';
import { uc, type UcColumn } from './api';

export const LANGUAGE_ID = 'databricks-sql';

export const KEYWORDS =
  `ADD ALL ALTER ANALYZE AND ANTI ANY ARRAY AS ASC AT BETWEEN BOTH BY CACHE CASCADE CASE CAST CATALOG
CATALOGS CHANGE CHECK CLONE CLUSTER COLLATE COLUMN COLUMNS COMMENT COMMIT COMPUTE CONSTRAINT CONVERT COPY CREATE
CROSS CUBE CURRENT DATA DATABASE DATABASES DEFAULT DEEP DELETE DELTA DESC DESCRIBE DETAIL DISTINCT DISTRIBUTE DROP
ELSE END ESCAPE EXCEPT EXISTS EXPLAIN EXTENDED EXTERNAL FALSE FETCH FILTER FIRST FOLLOWING FOR FOREIGN FORMAT FROM
FULL FUNCTION FUNCTIONS GENERATED GRANT GROUP GROUPING HAVING HISTORY IDENTIFIER IF ILIKE IN INNER INSERT INTERSECT
INTERVAL INTO IS JOIN KEY LAST LATERAL LEFT LIKE LIMIT LOCATION MATCHED MERGE MINUS NATURAL NOT NULL NULLS OF OFFSET
ON OPTIMIZE OPTIONS OR ORDER OUTER OVER OVERWRITE PARTITION PARTITIONED PIVOT PRECEDING PRIMARY QUALIFY RANGE
RECURSIVE REFERENCES RENAME REPLACE RESTORE REVOKE RIGHT RLIKE ROLLUP ROW ROWS SCHEMA SCHEMAS SELECT SEMI SET SHALLOW
SHOW SOME SORT TABLE TABLES TABLESAMPLE TBLPROPERTIES TEMPORARY THEN TIMESTAMP TO TRUE TRUNCATE UNION UNIQUE UNPIVOT
UPDATE USE USING VACUUM VALUES VERSION VIEW VIEWS VOLUME VOLUMES WHEN WHERE WINDOW WITH ZORDER`.split(/\s+/);

export const TYPES =
  `BIGINT BINARY BOOLEAN DATE DECIMAL DOUBLE FLOAT INT INTEGER LONG MAP SMALLINT STRING STRUCT TINYINT
TIMESTAMP_NTZ VARIANT VOID`.split(/\s+/);

export const FUNCTIONS =
  `abs acos add_months aggregate any_value approx_count_distinct approx_percentile array_agg
array_contains array_distinct array_except array_join array_max array_min array_position array_remove array_repeat
array_size array_sort array_union arrays_zip ascii avg base64 bin bit_and bit_or bool_and bool_or bround btrim cardinality
cbrt ceil ceiling char_length coalesce collect_list collect_set concat concat_ws contains conv corr cos count count_if
covar_pop cume_dist current_catalog current_database current_date current_schema current_timestamp current_user
date_add date_diff date_format date_from_unix_date date_part date_sub date_trunc dateadd datediff day dayofmonth
dayofweek dayofyear decode degrees dense_rank element_at endswith every exists exp explode explode_outer expm1 extract
factorial filter first first_value flatten floor forall format_number format_string from_json from_unixtime
from_utc_timestamp get_json_object greatest hash hex hour ifnull ilike initcap inline instr is_account_group_member
isnan isnotnull isnull json_array_length json_object_keys kurtosis lag last last_day last_value lcase lead least left
len length levenshtein ln locate log log10 log2 lower lpad ltrim make_date make_interval make_timestamp map
map_concat map_contains_key map_entries map_filter map_from_arrays map_keys map_values max max_by md5 mean median min
min_by minute mod monotonically_increasing_id month months_between named_struct nanvl negative next_day now
nth_value ntile nullif nvl nvl2 octet_length overlay parse_json percent_rank percentile percentile_approx pi pmod posexplode
position positive pow power quarter radians rand randn random range rank regexp_count regexp_extract
regexp_extract_all regexp_like regexp_replace repeat replace reverse right rint round row_number rpad rtrim schema_of_json
second sequence sha1 sha2 shuffle sign signum sin size skewness slice sort_array soundex space split split_part sqrt
stack startswith std stddev stddev_pop stddev_samp string struct substr substring substring_index sum tan to_char
to_date to_json to_number to_timestamp to_unix_timestamp to_utc_timestamp transform translate trim trunc try_add
try_cast try_divide try_element_at try_multiply try_subtract try_to_number try_to_timestamp typeof ucase unbase64
unhex unix_date unix_timestamp upper uuid var_pop var_samp variance version weekday weekofyear when width_bucket
window xxhash64 year zip_with`.split(/\s+/);

/**
 * A short cache of Unity Catalog listings, so one completion session does not list the same schema ten
 * times; `invalidate()` runs after every statement (any of them may be DDL), so a table created a moment
 * ago is offered on the next completion.
 */
export class CatalogCache {
  private entries = new Map<string, { at: number; value: Promise<unknown> }>();
  constructor(private ttlMs = 3000) {}
  invalidate(): void {
    this.entries.clear();
  }
  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && performance.now() - hit.at < this.ttlMs) return hit.value as Promise<T>;
    const value = load().catch((e: unknown) => {
      this.entries.delete(key);
      throw e;
    });
    this.entries.set(key, { at: performance.now(), value });
    return value;
  }
  catalogs = () => this.get(`c`, () => uc.catalogs());
  schemas = (c: string) => this.get(`s:${c}`, () => uc.schemas(c));
  tables = (c: string, s: string) => this.get(`t:${c}.${s}`, () => uc.tables(c, s));
  volumes = (c: string, s: string) => this.get(`v:${c}.${s}`, () => uc.volumes(c, s).catch(() => []));
  columns = (c: string, s: string, t: string): Promise<UcColumn[]> =>
    this.get(`col:${c}.${s}.${t}`, async () => (await uc.table(`${c}.${s}.${t}`)).columns ?? []);
}

/** The one cache the editor's completion and the runs that invalidate it share. */
export const catalogCache = new CatalogCache();

/** Splits `a.`b c`.d` (the dotted name ending at the cursor) into its parts; the last is the partial word. */
export function dottedPrefix(textBefore: string): string[] {
  const part = '(?:`(?:[^`]|``)*`|[A-Za-z_]\\w*)';
  const m = new RegExp(`((?:${part}\\s*\\.\\s*)*)(\`(?:[^\`]|\`\`)*|[A-Za-z_]\\w*)?$`).exec(textBefore);
  const parts = [...(m?.[1] ?? '').matchAll(new RegExp(part, 'g'))].map((p) => unquote(p[0]));
  parts.push(unquote(m?.[2] ?? ''));
  return parts;
}
const unquote = (p: string) => (p.startsWith('`') ? p.slice(1).replace(/`$/, '').replaceAll('``', '`') : p);

/** Three-part table names written in the text (FROM/JOIN targets), whose columns completion offers. */
export function referencedTables(text: string): [string, string, string][] {
  const out: [string, string, string][] = [];
  const name = '(`[^`]+`|[A-Za-z_]\\w*)';
  const re = new RegExp(`\\b(?:FROM|JOIN|UPDATE|INTO)\\s+${name}\\.${name}\\.${name}`, 'gi');
  for (const m of text.matchAll(re)) out.push([unquote(m[1]!), unquote(m[2]!), unquote(m[3]!)]);
  return out.slice(0, 8);
}

export function registerDatabricksSql(monaco: typeof Monaco, cache: CatalogCache): void {
  monaco.languages.register({ id: LANGUAGE_ID, aliases: ['Databricks SQL'] });
  monaco.languages.setLanguageConfiguration(LANGUAGE_ID, {
    comments: { lineComment: '--', blockComment: ['/*', '*/'] },
    brackets: [
      ['(', ')'],
      ['[', ']'],
    ],
    autoClosingPairs: [
      { open: '(', close: ')' },
      { open: '[', close: ']' },
      { open: "'", close: "'", notIn: ['string'] },
      { open: '"', close: '"', notIn: ['string'] },
      { open: '`', close: '`', notIn: ['string'] },
    ],
  });
  monaco.languages.setMonarchTokensProvider(LANGUAGE_ID, {
    ignoreCase: true,
    defaultToken: '',
    keywords: KEYWORDS.map((k) => k.toLowerCase()),
    types: TYPES.map((k) => k.toLowerCase()),
    functions: FUNCTIONS,
    tokenizer: {
      root: [
        [/--.*$/, 'comment'],
        [/\/\*/, 'comment', '@comment'],
        [/[rR]'[^']*'/, 'string'],
        [/'/, 'string', '@sq'],
        [/"/, 'string', '@dq'],
        [/`/, 'identifier.quote', '@bq'],
        [/\$\{[^}]*\}|:[A-Za-z_]\w*/, 'variable'],
        [/\d+(\.\d+)?([eE][-+]?\d+)?[LSYDBF]?(BD)?\b/, 'number'],
        [
          /[A-Za-z_]\w*(?=\s*\()/,
          { cases: { '@functions': 'predefined', '@keywords': 'keyword', '@default': 'identifier' } },
        ],
        [/[A-Za-z_]\w*/, { cases: { '@keywords': 'keyword', '@types': 'type', '@default': 'identifier' } }],
        [/[<>=!|&+\-*/%^~]+/, 'operator'],
        [/[;,.]/, 'delimiter'],
        [/[()[\]]/, '@brackets'],
      ],
      comment: [
        [/\*\//, 'comment', '@pop'],
        [/./, 'comment'],
      ],
      sq: [
        [/\\./, 'string.escape'],
        [/'/, 'string', '@pop'],
        [/[^'\\]+/, 'string'],
      ],
      dq: [
        [/\\./, 'string.escape'],
        [/"/, 'string', '@pop'],
        [/[^"\\]+/, 'string'],
      ],
      bq: [
        [/``/, 'identifier'],
        [/`/, 'identifier.quote', '@pop'],
        [/[^`]+/, 'identifier'],
      ],
    },
  } as Monaco.languages.IMonarchLanguage);

  const K = monaco.languages.CompletionItemKind;
  const quote = (n: string) => (/^[A-Za-z_]\w*$/.test(n) ? n : `\`${n.replaceAll('`', '``')}\``);
  monaco.languages.registerCompletionItemProvider(LANGUAGE_ID, {
    triggerCharacters: ['.'],
    async provideCompletionItems(model, position) {
      const line = model.getValueInRange({
        startLineNumber: position.lineNumber,
        startColumn: 1,
        endLineNumber: position.lineNumber,
        endColumn: position.column,
      });
      const parts = dottedPrefix(line);
      const word = model.getWordUntilPosition(position);
      const range = {
        startLineNumber: position.lineNumber,
        endLineNumber: position.lineNumber,
        startColumn: word.startColumn,
        endColumn: word.endColumn,
      };
      const item = (
        label: string,
        kind: Monaco.languages.CompletionItemKind,
        detail: string,
        sort: string,
      ) => ({
        label,
        kind,
        detail,
        insertText: quote(label),
        range,
        sortText: `${sort}${label}`,
      });
      const items: Monaco.languages.CompletionItem[] = [];
      const qualifiers = parts.slice(0, -1);
      try {
        if (qualifiers.length === 1) {
          const [c] = qualifiers as [string];
          const schemas = await cache.schemas(c).catch(() => []);
          for (const s of schemas) items.push(item(s.name, K.Module, `schema in ${c}`, '0'));
        } else if (qualifiers.length === 2) {
          const [c, s] = qualifiers as [string, string];
          const [tables, volumes] = await Promise.all([
            cache.tables(c, s).catch(() => []),
            cache.volumes(c, s),
          ]);
          for (const t of tables)
            items.push(
              item(t.name, K.Struct, `${(t.table_type ?? 'table').toLowerCase()} in ${c}.${s}`, '0'),
            );
          for (const v of volumes) items.push(item(v.name, K.Folder, `volume in ${c}.${s}`, '1'));
        } else if (qualifiers.length === 3) {
          const [c, s, t] = qualifiers as [string, string, string];
          for (const col of await cache.columns(c, s, t).catch(() => []))
            items.push(item(col.name, K.Field, col.type_text ?? col.type_name ?? '', '0'));
        } else if (qualifiers.length === 0) {
          const text = model.getValue();
          const cols = await Promise.all(
            referencedTables(text).map(([c, s, t]) =>
              cache.columns(c, s, t).then(
                (cs) => cs.map((col) => ({ col, from: `${c}.${s}.${t}` })),
                () => [],
              ),
            ),
          );
          for (const { col, from } of cols.flat())
            items.push(item(col.name, K.Field, `${col.type_text ?? ''} (${from})`, '0'));
          for (const c of await cache.catalogs().catch(() => []))
            items.push(item(c.name, K.Module, 'catalog', '1'));
          for (const k of KEYWORDS) items.push({ ...item(k, K.Keyword, 'keyword', '2'), insertText: k });
          for (const f of FUNCTIONS)
            items.push({
              ...item(f, K.Function, 'function', '3'),
              insertText: `${f}($0)`,
              insertTextRules: monaco.languages.CompletionItemInsertTextRule.InsertAsSnippet,
            });
          for (const t of TYPES) items.push({ ...item(t, K.TypeParameter, 'type', '4'), insertText: t });
        }
      } catch {
        // Completion must never throw into the editor; an unreachable listing just offers nothing.
      }
      return { suggestions: items };
    },
  });
}
