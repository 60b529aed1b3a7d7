/**
 * `POST /api/2.0/lakeview/dashboards/migrate`: a legacy Databricks SQL dashboard (read through sql-objects' Api,
 * as its public API `/api/2.0/preview/sql/dashboards/{id}` answers it) as a new Lakeview dashboard,
 * like the editor's "Clone to AI/BI dashboard": one dataset per query, one widget per visualization (charts by
 * their series type, counters, tables) or text box, placed where the legacy grid had them (both are 6 columns).
 * `update_parameter_syntax` turns `{{ name }}` into `:name`.
 */
import { DatabricksError, hexId, notFound } from '@minilake/core';
import type { Dashboards } from './dashboards.js';
import type { Dataset, LayoutItem, Widget } from './model.js';
import type { Json } from './store.js';

const CHART_TYPES: Record<string, string> = {
  column: 'bar',
  bar: 'bar',
  line: 'line',
  area: 'area',
  scatter: 'scatter',
  pie: 'pie',
};

const field = (name: string) => ({ name, expression: `\`${name.replaceAll('`', '``')}\`` });

/**
 * Where migrate reads from: sql-objects' legacy dashboards (absent when that service is not enabled) and the
 * SQL service's data sources (a legacy query names its warehouse by data source id).
 */
export interface LegacySource {
  dashboard: ((id: string) => Json) | undefined;
  dataSources: () => { id: string; warehouseId: string }[];
}

/** Reads the legacy dashboard (404 when it does not exist or sql-objects is not enabled). */
export function readLegacy(source: LegacySource, id: string): Json {
  const missing = () => notFound(`Unable to find legacy dashboard [${id}]`);
  if (!source.dashboard) throw missing();
  try {
    return source.dashboard(id);
  } catch (e) {
    if (e instanceof DatabricksError && e.status === 404) throw missing();
    throw e;
  }
}

export function convertLegacy(
  legacy: Json,
  updateParameterSyntax: boolean,
): { name: string; serialized: string } {
  const datasets = new Map<string, Dataset>();
  const layout: LayoutItem[] = [];
  let nextY = 0;
  for (const w of (legacy.widgets as Json[] | undefined) ?? []) {
    const opts = (w.options ?? {}) as Json;
    const pos = (opts.position ?? {}) as Json;
    const width = Math.max(1, Math.min(6, Number(pos.sizeX ?? 3)));
    const height = Math.max(1, Number(pos.sizeY ?? 4));
    const position = {
      x: Math.max(0, Math.min(6 - width, Number(pos.col ?? 0))),
      y: pos.row !== undefined ? Number(pos.row) : nextY,
      width,
      height,
    };
    nextY = Math.max(nextY, position.y + height);
    const viz = w.visualization as Json | undefined;
    let widget: Widget;
    if (!viz) {
      widget = { name: hexId(8), textbox_spec: String(w.text ?? '') };
    } else {
      const q = (viz.query ?? {}) as Json;
      const qid = String(q.id ?? hexId(8));
      if (!datasets.has(qid)) {
        let text = String(q.query ?? '');
        if (updateParameterSyntax) text = text.replace(/\{\{\s*([A-Za-z_][\w]*)\s*\}\}/g, ':$1');
        datasets.set(qid, { name: hexId(8), displayName: String(q.name ?? qid), queryLines: [text] });
      }
      widget = widgetFor(viz, datasets.get(qid)!.name);
    }
    layout.push({ widget, position });
  }
  const serialized = {
    datasets: [...datasets.values()],
    pages: [
      {
        name: hexId(8),
        displayName: String(legacy.name ?? 'Dashboard'),
        pageType: 'PAGE_TYPE_CANVAS',
        layout,
      },
    ],
  };
  return { name: String(legacy.name ?? 'Migrated dashboard'), serialized: JSON.stringify(serialized) };
}

function widgetFor(viz: Json, datasetName: string): Widget {
  const type = String(viz.type ?? '').toUpperCase();
  const o = (viz.options ?? {}) as Json;
  const title = String(viz.name ?? '');
  const frame = { showTitle: Boolean(title), title };
  if (type === 'COUNTER' && o.counterColName) {
    const col = String(o.counterColName);
    return {
      name: hexId(8),
      queries: [{ name: 'main_query', query: { datasetName, fields: [field(col)], disaggregated: true } }],
      spec: {
        version: 2,
        widgetType: 'counter',
        encodings: { value: { fieldName: col, displayName: col } },
        frame,
      },
    };
  }
  if (type === 'CHART') {
    const mapping = (o.columnMapping ?? {}) as Record<string, string>;
    const x = Object.keys(mapping).find((k) => mapping[k] === 'x');
    const ys = Object.keys(mapping).filter((k) => mapping[k] === 'y');
    const kind = CHART_TYPES[String(o.globalSeriesType ?? 'column')] ?? 'bar';
    if (x && ys.length) {
      const fields = [field(x), ...ys.map(field)];
      const encodings =
        kind === 'pie'
          ? { angle: { fieldName: ys[0], displayName: ys[0] }, color: { fieldName: x, displayName: x } }
          : {
              x: { fieldName: x, displayName: x },
              y:
                ys.length === 1
                  ? { fieldName: ys[0], displayName: ys[0] }
                  : { fields: ys.map((y) => ({ fieldName: y, displayName: y })) },
            };
      return {
        name: hexId(8),
        queries: [{ name: 'main_query', query: { datasetName, fields, disaggregated: true } }],
        spec: { version: 3, widgetType: kind, encodings, frame },
      };
    }
  }
  // A table of the query's columns (all of them when the legacy options do not list them).
  const cols = ((o.columns as Json[] | undefined) ?? []).map((c) => String(c.name)).filter(Boolean);
  return {
    name: hexId(8),
    queries: [{ name: 'main_query', query: { datasetName, fields: cols.map(field), disaggregated: true } }],
    spec: {
      version: 1,
      widgetType: 'table',
      encodings: { columns: cols.map((c) => ({ fieldName: c, displayName: c })) },
      frame,
    },
  };
}

/** The warehouse of the legacy dashboard's first query (through its data source), if any. */
function warehouseOf(source: LegacySource, legacy: Json): string | undefined {
  const first = ((legacy.widgets as Json[] | undefined) ?? [])
    .map((w) => ((w.visualization as Json | undefined)?.query as Json | undefined)?.data_source_id)
    .find((x) => x !== undefined);
  if (first === undefined) return undefined;
  return source.dataSources().find((s) => s.id === first)?.warehouseId;
}

export async function migrateDashboard(
  d: { dashboards: Dashboards; legacy: LegacySource },
  body: {
    source_dashboard_id: string;
    display_name?: string | undefined;
    parent_path?: string | undefined;
    update_parameter_syntax?: boolean | undefined;
  },
) {
  const legacy = readLegacy(d.legacy, body.source_dashboard_id);
  const { name, serialized } = convertLegacy(legacy, body.update_parameter_syntax ?? false);
  return d.dashboards.create({
    display_name: body.display_name || name,
    parent_path: body.parent_path,
    serialized_dashboard: serialized,
    warehouse_id: warehouseOf(d.legacy, legacy),
  });
}
