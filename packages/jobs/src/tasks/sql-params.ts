/**
 * `{{name}}` in a SQL file task's text, as the default-sql template writes it (`USE CATALOG {{catalog}};`,
 * `USE IDENTIFIER({{schema}});`, `WHERE {{bundle_target}} = "prod"`). Databricks puts a text parameter's value
 * into the text as a string literal; that is what the template's IDENTIFIER(...) and comparisons need. Where
 * the text expects a name instead (after USE, FROM, TABLE ..., or as a part of a dotted name such as
 * `{{catalog}}.default.t`) the value goes in as a quoted name, so it can never be more than one name either
 * way. A `{{...}}` naming no parameter is left as written (the statement then fails saying where).
 */

/** Keywords after which the text names an object: the value is a name there. */
const NAME_BEFORE =
  /(?:\bUSE(?:\s+(?:CATALOG|SCHEMA|DATABASE|NAMESPACE))?|\b(?:FROM|JOIN|INTO|UPDATE|TABLE|VIEW|SCHEMA|CATALOG|DATABASE|FUNCTION|VOLUME)(?:\s+IF(?:\s+NOT)?\s+EXISTS)?)\s*$/i;

const quoteName = (value: string) => '`' + value.replace(/`/g, '``') + '`';
const quoteText = (value: string) => "'" + value.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'";

export function substituteParameters(sql: string, values: Record<string, string>): string {
  return sql.replace(/\{\{\s*([A-Za-z_]\w*)\s*\}\}/g, (m: string, name: string, at: number) => {
    const value = values[name];
    if (value === undefined) return m;
    const before = sql.slice(0, at);
    const after = sql.slice(at + m.length);
    const dotted = /\.\s*$/.test(before) || /^\s*\.(?!\d)/.test(after);
    return dotted || NAME_BEFORE.test(before) ? quoteName(value) : quoteText(value);
  });
}
