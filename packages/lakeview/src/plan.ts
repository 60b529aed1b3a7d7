/**
 * Which statements a widget needs: one per widget query, compiled with the filter selections that apply and
 * the order and row cap its type draws with. Shared by the server's refresh (schedules, dashboard_task) and
 * the web UI's renderer, so both run the same SQL. No Node imports.
 */
import { compileQuery, type CompiledQuery, type FilterSelection } from './compile.js';
import {
  isFilter,
  type Encoding,
  type LayoutItem,
  type Page,
  type SerializedDashboard,
  type Widget,
} from './model.js';

/** Rows a table or a chart of raw rows draws at most (the statement says LIMIT). */
export const ROW_CAP = 10_000;

export interface PlannedQuery {
  /** The widget query's name (`main_query`, or a filter's per-dataset name). */
  name: string;
  datasetName: string;
  compiled: CompiledQuery;
}

/** A selection made on a filter widget, by the widget's name. */
export type Selections = Record<
  string,
  { values?: (string | null)[]; range?: { min?: string; max?: string }; type?: string }
>;

const enc = (w: Widget, key: string): Encoding | undefined =>
  (w.spec?.encodings as Record<string, Encoding> | undefined)?.[key];

/** Every widget of every page (global filter pages included), with its page. */
export function widgetsOf(d: SerializedDashboard): { page: Page; item: LayoutItem }[] {
  return (d.pages ?? []).flatMap((page) => (page.layout ?? []).map((item) => ({ page, item })));
}

/**
 * The filter selections in force for a widget: every filter widget's selection, on each dataset its queries
 * read (by their field's expression), except the widget's own (a filter lists all its values).
 */
export function filtersFor(
  d: SerializedDashboard,
  selections: Selections,
  except?: string,
): FilterSelection[] {
  const out: FilterSelection[] = [];
  for (const { item } of widgetsOf(d)) {
    const w = item.widget;
    const sel = selections[w.name];
    if (!sel || w.name === except || !isFilter(w)) continue;
    const fieldNames = new Set(
      ((enc(w, 'fields') as unknown as { fieldName: string; queryName?: string }[] | undefined) ?? []).map(
        (f) => `${f.queryName ?? ''}\u0000${f.fieldName}`,
      ),
    );
    for (const q of w.queries ?? []) {
      if (q.query.parameters?.length) continue; // parameter filters bind values, not rows
      const field =
        (q.query.fields ?? []).find((f) => fieldNames.has(`${q.name}\u0000${f.name}`)) ?? q.query.fields?.[0];
      if (!field) continue;
      out.push({
        datasetName: q.query.datasetName,
        expression: field.expression,
        ...(sel.values ? { values: sel.values } : {}),
        ...(sel.range ? { range: sel.range } : {}),
        ...(sel.type ? { type: sel.type } : {}),
      });
    }
  }
  return out;
}

/** Parameter values chosen on parameter filters (`query.parameters`), by dataset parameter keyword. */
export function parameterValues(
  d: SerializedDashboard,
  selections: Selections,
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const { item } of widgetsOf(d)) {
    const sel = selections[item.widget.name];
    if (!sel?.values?.length) continue;
    for (const q of item.widget.queries ?? [])
      for (const p of q.query.parameters ?? []) out[p.keyword] = sel.values[0] ?? null;
  }
  return out;
}

/** The x-axis field a chart is ordered by (bar, line, area), if any. */
function orderFor(w: Widget): string[] {
  const type = w.spec?.widgetType ?? '';
  if (['bar', 'line', 'area'].includes(type)) {
    const x = enc(w, 'x')?.fieldName;
    return x ? [x] : [];
  }
  if (isFilter(w)) {
    const f = (enc(w, 'fields') as unknown as { fieldName: string }[] | undefined)?.[0]?.fieldName;
    return f ? [f] : [];
  }
  return [];
}

/** The statements a widget runs with these selections (none for text and unknown widgets without queries). */
export function planWidget(d: SerializedDashboard, w: Widget, selections: Selections = {}): PlannedQuery[] {
  const type = w.spec?.widgetType ?? '';
  const filters = filtersFor(d, selections, w.name);
  const parameters = parameterValues(d, selections);
  const order = orderFor(w);
  return (w.queries ?? []).map((q) => {
    const raw = q.query.disaggregated !== false || !(q.query.fields ?? []).length;
    // A counter shows its first row: of raw rows, one is enough.
    const limit = type === 'counter' ? (raw ? 1 : undefined) : raw || type === 'table' ? ROW_CAP : undefined;
    return {
      name: q.name,
      datasetName: q.query.datasetName,
      compiled: compileQuery(d, q.query, filters, {
        orderBy: order.filter((f) => (q.query.fields ?? []).some((x) => x.name === f)),
        parameters,
        ...(limit !== undefined ? { limit } : {}),
      }),
    };
  });
}
