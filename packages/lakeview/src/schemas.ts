import { qBool, qInt, v } from '@minilake/core';

const str = () => v.optional(v.string());

/** The Dashboard body of create and update (output-only fields are accepted and ignored). */
export const DashboardBody = v.looseObject({
  display_name: str(),
  parent_path: str(),
  serialized_dashboard: str(),
  warehouse_id: str(),
  etag: str(),
});
export const DatasetQuery = v.object({ dataset_catalog: str(), dataset_schema: str() });
export const ListDashboardsRequest = v.object({
  page_size: v.optional(qInt()),
  page_token: str(),
  show_trashed: v.optional(qBool()),
  view: v.optional(v.picklist(['DASHBOARD_VIEW_BASIC'], 'view must be DASHBOARD_VIEW_BASIC')),
});
export const PublishRequest = v.object({
  embed_credentials: v.optional(v.boolean('embed_credentials must be a boolean')),
  warehouse_id: str(),
});
export const MigrateDashboardRequest = v.object({
  source_dashboard_id: v.pipe(v.string('source_dashboard_id is required'), v.minLength(1)),
  display_name: str(),
  parent_path: str(),
  update_parameter_syntax: v.optional(v.boolean()),
});
export const RevertDashboardRequest = v.object({ etag: str() });
export const ScheduleBody = v.looseObject({
  display_name: str(),
  cron_schedule: v.optional(v.looseObject({ quartz_cron_expression: str(), timezone_id: str() })),
  pause_status: v.optional(v.picklist(['PAUSED', 'UNPAUSED'], 'pause_status must be PAUSED or UNPAUSED')),
  warehouse_id: str(),
  etag: str(),
});
export const SubscriptionBody = v.looseObject({
  subscriber: v.optional(
    v.object({
      destination_subscriber: v.optional(v.object({ destination_id: str() })),
      user_subscriber: v.optional(v.object({ user_id: v.optional(v.number('user_id must be a number')) })),
    }),
  ),
  skip_notify: v.optional(v.boolean()),
});
export const PageQuery = v.object({ page_size: v.optional(qInt()), page_token: str() });
export const EtagQuery = v.object({ etag: str() });
/** MiniLake's refresh (the UI's button, tests): a warehouse and filter selections, optionally notifying. */
export const RefreshRequest = v.object({
  warehouse_id: str(),
  notify: v.optional(v.boolean()),
});
