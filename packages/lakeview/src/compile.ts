/**
 * A widget query (`fields[].expression` over a dataset) as one SQL statement, the way Databricks computes it:
 *
 *   SELECT <expression> AS `<name>`, ... FROM (<dataset SQL>) AS `_lakeview_dataset`
 *   [WHERE <filters>] [GROUP BY ALL] [ORDER BY ...] [LIMIT n]
 *
 * The expressions and the dataset SQL are the dashboard author's SQL, run as the user like any statement;
 * what MiniLake adds is quoted (field names as backquoted aliases) or bound (filter values and dataset
 * parameters are named statement parameters, never spliced into the text). `disaggregated: false` groups by
 * every field that is not an aggregate (`GROUP BY ALL`), so a widget of only aggregates gives one row.
 * No Node imports: the web UI compiles the same statements (apps/ui imports this file).
 */
import { datasetSql, type Dataset, type SerializedDashboard, type WidgetQuery } from './model.js';

export interface StatementParameter {
  name: string;
  value: string | null;
  type?: string;
}

/** A filter widget's selection on one dataset: the field it filters (by expression) and what is chosen. */
export interface FilterSelection {
  datasetName: string;
  /** The filter query's field expression for this dataset (`` `region` ``). */
  expression: string;
  /** Single or multi select: the chosen values (as strings; null is SQL NULL). */
  values?: (string | null)[];
  /** Date range: bounds (either may be open), inclusive. */
  range?: { min?: string; max?: string };
  /** The SQL type of the values (from the filter's own result), so they bind as that type. */
  type?: string;
}

export interface CompiledQuery {
  statement: string;
  parameters: StatementParameter[];
  catalog?: string;
  schema?: string;
}

export interface CompileOptions {
  /** Field names to sort by, ascending (a chart's x axis). */
  orderBy?: string[];
  /** At most this many rows (a table or chart of raw rows); no limit when absent. */
  limit?: number;
  /** Parameter values by keyword that replace the dataset's defaults (a parameter filter's selection). */
  parameters?: Record<string, string | null>;
}

/** Backquotes a name for Databricks SQL (a backquote inside is doubled). */
export const quoteName = (name: string): string => `\`${name.replaceAll('`', '``')}\``;

/**
 * Databricks accepts `` COUNT(`*`) `` (the dashboard editor writes it); elsewhere a backquoted `*` is a column
 * named `*`. `associative_filter_predicate_group` is the editor's column for "rows the other filters keep":
 * every row of the filtered dataset is such a row here.
 */
export function normalizeExpression(expression: string): string {
  return expression
    .replace(/\(\s*`\*`\s*\)/g, '(*)')
    .replace(/`associative_filter_predicate_group`/g, 'TRUE');
}

/** The dataset's SQL as a subquery: trailing semicolons dropped, a newline before `)` ends a `--` comment. */
export function datasetSubquery(d: Dataset): string {
  const sql = datasetSql(d)
    .trim()
    .replace(/;+\s*$/, '');
  return `(\n${sql}\n)`;
}

const DEFAULT_TYPES: Record<string, string> = {
  STRING: 'STRING',
  INTEGER: 'INT',
  DECIMAL: 'DECIMAL',
  DOUBLE: 'DOUBLE',
  DATE: 'DATE',
  DATETIME: 'TIMESTAMP',
  TIMESTAMP: 'TIMESTAMP',
  BOOLEAN: 'BOOLEAN',
};

/** The dataset's parameters with their default values (overridden by a parameter filter's selection). */
export function datasetParameters(
  d: Dataset,
  overrides: Record<string, string | null> = {},
): StatementParameter[] {
  return (d.parameters ?? []).map((p) => {
    const sel = p.defaultSelection;
    const value =
      p.keyword in overrides
        ? overrides[p.keyword]!
        : (sel?.values?.values?.[0]?.value ?? sel?.range?.min?.value ?? null);
    const type = DEFAULT_TYPES[(p.dataType ?? sel?.values?.dataType ?? 'STRING').toUpperCase()];
    return { name: p.keyword, value, ...(type ? { type } : {}) };
  });
}

export class DashboardError extends Error {}

export function findDataset(dashboard: SerializedDashboard, name: string): Dataset {
  const d = (dashboard.datasets ?? []).find((x) => x.name === name);
  if (!d) throw new DashboardError(`The widget's dataset ${name} is not in the dashboard.`);
  return d;
}

/** One widget query as a statement, with the filter selections that apply to its dataset. */
export function compileQuery(
  dashboard: SerializedDashboard,
  q: WidgetQuery,
  filters: FilterSelection[] = [],
  opts: CompileOptions = {},
): CompiledQuery {
  const d = findDataset(dashboard, q.datasetName);
  const fields = q.fields ?? [];
  const select = fields.length
    ? fields.map((f) => `${normalizeExpression(f.expression)} AS ${quoteName(f.name)}`).join(', ')
    : '*';
  const parameters = datasetParameters(d, opts.parameters);
  const where: string[] = [];
  let n = 0;
  const bind = (value: string | null, type?: string) => {
    const name = `lakeview_filter_${n++}`;
    parameters.push({ name, value, ...(type ? { type } : {}) });
    return `:${name}`;
  };
  for (const f of filters) {
    if (f.datasetName !== q.datasetName) continue;
    const expr = normalizeExpression(f.expression);
    if (f.values) {
      if (f.values.length === 0) continue; // nothing chosen: the filter keeps every row
      const present = f.values.filter((v): v is string => v !== null);
      const parts: string[] = [];
      if (present.length) parts.push(`${expr} IN (${present.map((v) => bind(v, f.type)).join(', ')})`);
      if (present.length < f.values.length) parts.push(`${expr} IS NULL`);
      where.push(parts.length > 1 ? `(${parts.join(' OR ')})` : parts[0]!);
    }
    if (f.range?.min !== undefined && f.range.min !== '')
      where.push(`${expr} >= ${bind(f.range.min, f.type)}`);
    if (f.range?.max !== undefined && f.range.max !== '')
      where.push(`${expr} <= ${bind(f.range.max, f.type)}`);
  }
  let sql = `SELECT ${select} FROM ${datasetSubquery(d)} AS \`_lakeview_dataset\``;
  if (where.length) sql += ` WHERE ${where.join(' AND ')}`;
  if (fields.length && q.disaggregated === false) sql += ' GROUP BY ALL';
  const order = (opts.orderBy ?? []).filter((name) => fields.some((f) => f.name === name));
  if (order.length) sql += ` ORDER BY ${order.map((name) => `${quoteName(name)} ASC NULLS LAST`).join(', ')}`;
  if (opts.limit !== undefined) sql += ` LIMIT ${Math.max(0, Math.floor(opts.limit))}`;
  return {
    statement: sql,
    parameters,
    ...(d.catalog ? { catalog: d.catalog } : {}),
    ...(d.schema ? { schema: d.schema } : {}),
  };
}
