/**
 * The serialized dashboard (`serialized_dashboard`, the `.lvdash.json` format) as far as MiniLake reads it:
 * datasets (a SQL query each, optionally with a default catalog/schema and named parameters) and pages of
 * widgets placed on a 6-column grid. Every other key is kept as sent; these types only name what is read.
 * No Node imports: the web UI draws dashboards from the same definitions (apps/ui imports this file).
 */

export interface DatasetParameter {
  keyword: string;
  displayName?: string;
  dataType?: string;
  defaultSelection?: {
    values?: { dataType?: string; values?: { value?: string }[] };
    range?: { dataType?: string; min?: { value?: string }; max?: { value?: string } };
  };
}

export interface Dataset {
  name: string;
  displayName?: string;
  /** The query as one string (older exports) or as lines to concatenate (what Databricks writes now). */
  query?: string;
  queryLines?: string[];
  catalog?: string;
  schema?: string;
  parameters?: DatasetParameter[];
}

export interface Field {
  name: string;
  expression: string;
}

export interface WidgetQuery {
  datasetName: string;
  fields?: Field[];
  /** true: one row per dataset row (no grouping); false: grouped by the fields that are not aggregates. */
  disaggregated?: boolean;
  /** A filter bound to dataset parameters instead of columns (`{name, keyword}`). */
  parameters?: { name: string; keyword: string }[];
}

export interface Encoding {
  fieldName?: string;
  displayName?: string;
  scale?: { type?: string };
  axis?: { title?: string };
  /** Several measures on one axis (`y.fields`). */
  fields?: { fieldName: string; displayName?: string; queryName?: string }[];
  queryName?: string;
  format?: Record<string, unknown>;
}

export interface WidgetSpec {
  version?: number;
  widgetType?: string;
  encodings?: Record<string, unknown>;
  frame?: { showTitle?: boolean; title?: string; showDescription?: boolean; description?: string };
  selection?: {
    defaultSelection?: {
      values?: { dataType?: string; values?: { value?: string }[] };
      range?: { dataType?: string; min?: { value?: string }; max?: { value?: string } };
    };
  };
  [k: string]: unknown;
}

export interface Widget {
  name: string;
  queries?: { name: string; query: WidgetQuery }[];
  spec?: WidgetSpec;
  /** A text widget (markdown), in the two shapes Databricks has written. */
  textbox_spec?: string;
  multilineTextboxSpec?: { lines?: string[] };
}

export interface Position {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LayoutItem {
  widget: Widget;
  position: Position;
}

export interface Page {
  name: string;
  displayName?: string;
  /** PAGE_TYPE_CANVAS, or PAGE_TYPE_GLOBAL_FILTERS for filters that apply to every page. */
  pageType?: string;
  layout?: LayoutItem[];
}

export interface SerializedDashboard {
  datasets?: Dataset[];
  pages?: Page[];
  [k: string]: unknown;
}

/** The dataset's SQL text: `queryLines` joined as Databricks does (the lines carry their own newlines). */
export function datasetSql(d: Dataset): string {
  return d.queryLines ? d.queryLines.join('') : (d.query ?? '');
}

/** The widget types drawn from rows; filters and text are handled apart. */
export const CHART_TYPES = ['bar', 'line', 'area', 'scatter', 'pie'] as const;
export const FILTER_TYPES = [
  'filter-single-select',
  'filter-multi-select',
  'filter-date-range-picker',
  'filter-date-picker',
  'range-slider',
] as const;

export const isFilter = (w: Widget): boolean =>
  (FILTER_TYPES as readonly string[]).includes(w.spec?.widgetType ?? '');

export const textOf = (w: Widget): string | undefined =>
  w.textbox_spec ?? (w.multilineTextboxSpec ? (w.multilineTextboxSpec.lines ?? []).join('\n') : undefined);
