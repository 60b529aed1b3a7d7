/** Request schemas, named after the Databricks operations (sdk-go service/jobs/model.go). */
import { qBool, qInt, v } from '@minilake/core';

const id = () =>
  v.pipe(
    v.union([v.number(), v.string()]),
    v.check(
      (x) => (typeof x === 'number' ? Number.isInteger(x) : /^\d{1,16}$/.test(x)),
      'must be an integer',
    ),
    v.transform((x) => Number(x)),
  );
const opt = <S extends v.GenericSchema>(s: S) => v.optional(v.nullish(s));
const strMap = () => v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]));

export const CreateJob = v.looseObject({ tasks: opt(v.array(v.looseObject({}))) });
export const ResetJob = v.looseObject({ job_id: id(), new_settings: v.looseObject({}) });
export const UpdateJob = v.looseObject({
  job_id: id(),
  new_settings: opt(v.looseObject({})),
  fields_to_remove: opt(v.array(v.string())),
});
export const DeleteJob = v.looseObject({ job_id: id() });
export const GetJobRequest = v.looseObject({ job_id: id(), page_token: opt(v.string()) });
export const ListJobsRequest = v.looseObject({
  limit: opt(qInt()),
  offset: opt(qInt()),
  page_token: opt(v.string()),
  name: opt(v.string()),
  expand_tasks: opt(qBool()),
});

export const RunNow = v.looseObject({
  job_id: id(),
  job_parameters: opt(strMap()),
  python_params: opt(v.array(v.string())),
  notebook_params: opt(strMap()),
  python_named_params: opt(strMap()),
  jar_params: opt(v.array(v.string())),
  spark_submit_params: opt(v.array(v.string())),
  sql_params: opt(strMap()),
  idempotency_token: opt(v.string()),
  queue: opt(v.looseObject({ enabled: opt(v.boolean()) })),
  only: opt(v.array(v.string())),
});
export const SubmitRun = v.looseObject({
  tasks: opt(v.array(v.looseObject({}))),
  run_name: opt(v.string()),
  idempotency_token: opt(v.string()),
  timeout_seconds: opt(v.number()),
});
export const RunIdBody = v.looseObject({ run_id: id() });
export const CancelAllRuns = v.looseObject({ job_id: opt(id()), all_queued_runs: opt(v.boolean()) });
export const GetRunRequest = v.looseObject({
  run_id: id(),
  include_history: opt(qBool()),
  include_resolved_values: opt(qBool()),
  page_token: opt(v.string()),
});
export const GetRunOutputRequest = v.looseObject({ run_id: id() });
export const ExportRunRequest = v.looseObject({ run_id: id(), views_to_export: opt(v.string()) });
export const ListRunsRequest = v.looseObject({
  job_id: opt(id()),
  active_only: opt(qBool()),
  completed_only: opt(qBool()),
  offset: opt(qInt()),
  limit: opt(qInt()),
  run_type: opt(v.string()),
  expand_tasks: opt(qBool()),
  start_time_from: opt(qInt()),
  start_time_to: opt(qInt()),
  page_token: opt(v.string()),
});
export const RepairRun = v.looseObject({
  run_id: id(),
  rerun_tasks: opt(v.array(v.string())),
  rerun_all_failed_tasks: opt(v.boolean()),
  rerun_dependent_tasks: opt(v.boolean()),
  latest_repair_id: opt(id()),
  job_parameters: opt(strMap()),
  python_params: opt(v.array(v.string())),
  notebook_params: opt(strMap()),
  python_named_params: opt(strMap()),
});
