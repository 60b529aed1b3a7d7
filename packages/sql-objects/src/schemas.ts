/** valibot schemas of the request bodies and query strings (null-valued fields are already dropped). */
import { qInt, v } from '@minilake/core';

export const str = () => v.optional(v.string());
export const strList = () => v.optional(v.array(v.string()));
export const obj = () => v.optional(v.looseObject({}));

export const OPS = [
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL',
  'EQUAL',
  'NOT_EQUAL',
  'IS_NULL',
] as const;
export const STATES = ['OK', 'TRIGGERED', 'UNKNOWN'] as const;

export const Parameter = v.looseObject({
  name: v.string(),
  title: str(),
  text_value: obj(),
  numeric_value: v.optional(v.looseObject({ value: v.optional(v.number()) })),
  enum_value: obj(),
  query_backed_value: obj(),
  date_value: obj(),
  date_range_value: obj(),
});

export const QueryFields = v.object({
  display_name: str(),
  description: str(),
  query_text: str(),
  warehouse_id: str(),
  catalog: str(),
  schema: str(),
  parameters: v.optional(v.array(Parameter)),
  tags: strList(),
  parent_path: str(),
  apply_auto_limit: v.optional(v.boolean()),
  run_as_mode: v.optional(v.picklist(['OWNER', 'VIEWER'])),
  owner_user_name: str(),
});

export const Condition = v.object({
  op: v.picklist(OPS),
  operand: v.object({ column: v.object({ name: v.string() }) }),
  threshold: v.optional(
    v.object({
      value: v.object({
        double_value: v.optional(v.number()),
        string_value: str(),
        bool_value: v.optional(v.boolean()),
      }),
    }),
  ),
  empty_result_state: v.optional(v.picklist(STATES)),
});

export const AlertFields = v.object({
  display_name: str(),
  query_id: str(),
  condition: v.optional(Condition),
  custom_body: str(),
  custom_subject: str(),
  notify_on_ok: v.optional(v.boolean()),
  seconds_to_retrigger: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  parent_path: str(),
  owner_user_name: str(),
});

export const Paging = v.object({ page_size: v.optional(qInt()), page_token: str() });
export const LegacyPaging = v.object({
  page: v.optional(qInt()),
  page_size: v.optional(qInt()),
  q: str(),
  order: str(),
});

export const LegacyQueryBody = v.object({
  data_source_id: str(),
  name: str(),
  description: str(),
  query: str(),
  options: obj(),
  schedule: v.optional(v.unknown()),
  run_as_role: str(),
  tags: strList(),
  parent: str(),
});

export const LegacyAlertBody = v.object({
  name: str(),
  options: obj(),
  query_id: str(),
  parent: str(),
  rearm: v.optional(v.number()),
});

export const DashboardBody = v.object({
  name: str(),
  tags: strList(),
  parent: str(),
  run_as_role: str(),
  dashboard_filters_enabled: v.optional(v.boolean()),
  is_draft: v.optional(v.boolean()),
});

export const idOrNumber = v.optional(v.pipe(v.union([v.string(), v.number()]), v.transform(String)));
export const WidgetBody = v.object({
  dashboard_id: str(),
  visualization_id: idOrNumber,
  text: str(),
  options: obj(),
  width: v.optional(v.number()),
});

export const VisualizationBody = v.object({
  query_id: str(),
  type: str(),
  name: str(),
  description: str(),
  options: v.optional(v.unknown()),
});

export const Subscriptions = v.optional(v.array(v.object({ destination_id: str(), user_name: str() })));
export const EvaluateBody = v.object({
  subscriptions: Subscriptions,
  pause_subscriptions: v.optional(v.boolean()),
});
export const RunBody = v.object({ parameters: v.optional(v.record(v.string(), v.string())) });
