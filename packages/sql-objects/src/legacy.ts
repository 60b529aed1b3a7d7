/**
 * The legacy Databricks SQL API (`/api/2.0/preview/sql/*`, the Redash-era shapes the Terraform provider's
 * databricks_sql_* resources and older SDK calls use) as an adapter over the current records: parameter,
 * alert option and operator conversions both ways, and the legacy renderings.
 */
import { invalidParameter } from '@minilake/core';
import {
  compact,
  iso,
  type AlertRecord,
  type DashboardRecord,
  type Json,
  type QueryRecord,
  type SqlObjectsStore,
  type VisualizationRecord,
  type WidgetRecord,
} from './store.js';

const PRECISION: Record<string, string> = {
  date: 'DAY_PRECISION',
  'datetime-local': 'MINUTE_PRECISION',
  'datetime-with-seconds': 'SECOND_PRECISION',
  'date-range': 'DAY_PRECISION',
  'datetime-range': 'MINUTE_PRECISION',
  'datetime-range-with-seconds': 'SECOND_PRECISION',
};
const LEGACY_DATE = Object.fromEntries(
  Object.entries(PRECISION)
    .filter(([k]) => !k.endsWith('range') && !k.includes('range-'))
    .map(([k, v]) => [v, k]),
);
const LEGACY_RANGE: Record<string, string> = {
  DAY_PRECISION: 'date-range',
  MINUTE_PRECISION: 'datetime-range',
  SECOND_PRECISION: 'datetime-range-with-seconds',
};

const asList = (v: unknown): string[] =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)];

/** A legacy parameter (`{name, title, type, value, enumOptions, queryId, multiValuesOptions}`) in the current shape. */
export function parameterFromLegacy(p: Json): Json {
  const base = compact({ name: p.name, title: p.title });
  const multi = p.multiValuesOptions as Json | undefined;
  switch (p.type) {
    case 'text':
    case undefined:
      return { ...base, text_value: compact({ value: p.value === undefined ? undefined : String(p.value) }) };
    case 'number':
      return {
        ...base,
        numeric_value: compact({ value: p.value === undefined ? undefined : Number(p.value) }),
      };
    case 'enum':
      return {
        ...base,
        enum_value: compact({
          enum_options: p.enumOptions,
          values: asList(p.value),
          multi_values_options: multi,
        }),
      };
    case 'query':
      return {
        ...base,
        query_backed_value: compact({
          query_id: p.queryId,
          values: asList(p.value),
          multi_values_options: multi,
        }),
      };
    default: {
      const precision = PRECISION[String(p.type)];
      if (!precision) throw invalidParameter(`Unknown query parameter type: ${String(p.type)}.`);
      if (String(p.type).includes('range')) {
        const value = (p.value ?? {}) as Json;
        return {
          ...base,
          date_range_value: compact({
            date_range_value: compact({ start: value.start, end: value.end }),
            precision,
          }),
        };
      }
      return { ...base, date_value: compact({ date_value: p.value, precision }) };
    }
  }
}

/** A current-API parameter in the legacy shape. */
export function parameterToLegacy(p: Json): Json {
  const base = compact({ name: p.name, title: p.title ?? p.name });
  if (p.numeric_value) return { ...base, type: 'number', value: (p.numeric_value as Json).value };
  if (p.enum_value) {
    const e = p.enum_value as Json;
    const values = (e.values as string[] | undefined) ?? [];
    return compact({
      ...base,
      type: 'enum',
      enumOptions: e.enum_options,
      multiValuesOptions: e.multi_values_options,
      value: e.multi_values_options ? values : values[0],
    });
  }
  if (p.query_backed_value) {
    const e = p.query_backed_value as Json;
    const values = (e.values as string[] | undefined) ?? [];
    return compact({
      ...base,
      type: 'query',
      queryId: e.query_id,
      multiValuesOptions: e.multi_values_options,
      value: e.multi_values_options ? values : values[0],
    });
  }
  if (p.date_value) {
    const d = p.date_value as Json;
    return {
      ...base,
      type: LEGACY_DATE[String(d.precision ?? 'DAY_PRECISION')] ?? 'date',
      value: d.date_value ?? d.dynamic_date_value,
    };
  }
  if (p.date_range_value) {
    const d = p.date_range_value as Json;
    return {
      ...base,
      type: LEGACY_RANGE[String(d.precision ?? 'DAY_PRECISION')] ?? 'date-range',
      value: d.date_range_value ?? d.dynamic_date_range_value,
    };
  }
  return { ...base, type: 'text', value: (p.text_value as Json | undefined)?.value ?? '' };
}

const OPS: Record<string, string> = {
  '>': 'GREATER_THAN',
  '>=': 'GREATER_THAN_OR_EQUAL',
  '<': 'LESS_THAN',
  '<=': 'LESS_THAN_OR_EQUAL',
  '==': 'EQUAL',
  '!=': 'NOT_EQUAL',
};
const LEGACY_OPS = Object.fromEntries(Object.entries(OPS).map(([k, v]) => [v, k]));

/** Legacy alert options as the current AlertCondition. */
export function conditionFromLegacy(o: Json): Json {
  const op = OPS[String(o.op)] ?? (Object.values(OPS).includes(String(o.op)) ? String(o.op) : undefined);
  if (!op)
    throw invalidParameter(
      `Invalid alert operator: ${String(o.op)} (use one of ${Object.keys(OPS).join(' ')}).`,
    );
  if (typeof o.column !== 'string' || o.column === '') throw invalidParameter('options.column is required.');
  const value = o.value;
  const threshold =
    typeof value === 'number'
      ? { double_value: value }
      : typeof value === 'boolean'
        ? { bool_value: value }
        : { string_value: String(value ?? '') };
  return compact({
    op,
    operand: { column: { name: o.column } },
    threshold: { value: threshold },
    empty_result_state:
      typeof o.empty_result_state === 'string' ? o.empty_result_state.toUpperCase() : undefined,
  });
}

function optionsOf(a: AlertRecord): Json {
  const c = a.condition;
  const t = ((c.threshold as Json | undefined)?.value as Json | undefined) ?? {};
  return compact({
    column: ((c.operand as Json | undefined)?.column as Json | undefined)?.name ?? '',
    op: LEGACY_OPS[String(c.op)] ?? String(c.op ?? ''),
    value: t.double_value ?? t.bool_value ?? t.string_value ?? '',
    empty_result_state:
      typeof c.empty_result_state === 'string' ? c.empty_result_state.toLowerCase() : undefined,
    custom_subject: a.custom_subject,
    custom_body: a.custom_body,
    muted: a.legacy?.muted ?? false,
  });
}

export interface LegacyContext {
  store: SqlObjectsStore;
  /** data_source_id of a warehouse (undefined when the warehouse is unknown). */
  dataSourceOf(warehouseId: string | undefined): string | undefined;
  userId: number;
}

function user(ctx: LegacyContext, name: string): Json {
  return { id: ctx.userId, name, email: name };
}

function queryOptions(q: QueryRecord): Json {
  const base: Json = q.legacy?.options
    ? { ...q.legacy.options }
    : { parameters: (q.parameters ?? []).map(parameterToLegacy) };
  if (q.catalog !== undefined) base.catalog = q.catalog;
  if (q.schema !== undefined) base.schema = q.schema;
  if (q.trashed_at !== undefined) base.moved_to_trash_at = iso(q.trashed_at);
  return base;
}

export function renderLegacyVisualization(v: VisualizationRecord): Json {
  return compact({
    id: v.id,
    type: v.type,
    name: v.name,
    description: v.description ?? '',
    options: v.options ?? {},
    created_at: iso(v.created_at),
    updated_at: iso(v.updated_at),
  });
}

export function renderLegacyQuery(ctx: LegacyContext, q: QueryRecord, withVisualizations = true): Json {
  return compact({
    id: q.id,
    name: q.display_name,
    description: q.description ?? '',
    query: q.query_text,
    data_source_id: q.legacy?.data_source_id ?? ctx.dataSourceOf(q.warehouse_id),
    options: queryOptions(q),
    schedule: q.legacy?.schedule ?? null,
    run_as_role: q.legacy?.run_as_role,
    tags: q.tags ?? [],
    parent: q.parent_path,
    is_archived: q.trashed_at !== undefined,
    is_draft: false,
    is_safe: true,
    is_favorite: false,
    can_edit: true,
    permission_tier: 'CAN_MANAGE',
    user: user(ctx, q.owner_user_name),
    user_id: ctx.userId,
    last_modified_by: user(ctx, q.last_modifier_user_name),
    last_modified_by_id: ctx.userId,
    created_at: iso(q.create_time),
    updated_at: iso(q.update_time),
    visualizations: withVisualizations
      ? ctx.store.visualizationsOf(q.id).map(renderLegacyVisualization)
      : undefined,
  });
}

export function renderLegacyAlert(ctx: LegacyContext, a: AlertRecord): Json {
  const q = ctx.store.queries.get(a.query_id);
  return compact({
    id: a.id,
    name: a.display_name,
    options: optionsOf(a),
    query: q ? renderLegacyQuery(ctx, q, false) : { id: a.query_id },
    rearm: a.seconds_to_retrigger,
    state: a.state.toLowerCase(),
    last_triggered_at: iso(a.trigger_time),
    parent: a.parent_path,
    user: user(ctx, a.owner_user_name),
    created_at: iso(a.create_time),
    updated_at: iso(a.update_time),
  });
}

export function renderLegacyWidget(ctx: LegacyContext, w: WidgetRecord): Json {
  const viz = w.visualization_id ? ctx.store.visualizations.get(w.visualization_id) : undefined;
  const q = viz ? ctx.store.queries.get(viz.query_id) : undefined;
  return compact({
    id: w.id,
    dashboard_id: w.dashboard_id,
    width: w.width,
    options: { ...w.options, created_at: iso(w.created_at), updated_at: iso(w.updated_at) },
    text: w.text,
    visualization_id: w.visualization_id,
    visualization: viz
      ? { ...renderLegacyVisualization(viz), query: q ? renderLegacyQuery(ctx, q, false) : undefined }
      : undefined,
  });
}

export function renderLegacyDashboard(ctx: LegacyContext, d: DashboardRecord, withWidgets = true): Json {
  return compact({
    id: d.id,
    slug: d.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, ''),
    name: d.name,
    tags: d.tags ?? [],
    parent: d.parent,
    run_as_role: d.run_as_role,
    dashboard_filters_enabled: d.dashboard_filters_enabled ?? false,
    is_archived: d.trashed_at !== undefined,
    is_draft: false,
    is_favorite: false,
    can_edit: true,
    permission_tier: 'CAN_MANAGE',
    options: compact({ moved_to_trash_at: iso(d.trashed_at) }),
    user: user(ctx, d.user),
    user_id: ctx.userId,
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
    widgets: withWidgets ? ctx.store.widgetsOf(d.id).map((w) => renderLegacyWidget(ctx, w)) : undefined,
  });
}
