/**
 * pipeline_task: starts an update of the pipeline (cause JOB_TASK, `full_refresh` as the task asks) through
 * the pipelines service's Api and waits for it; the task ends as the update does (COMPLETED → SUCCESS,
 * FAILED → FAILED with the update's error, CANCELED → CANCELED). Canceling the run stops the update.
 */
import { v } from '@minilake/core';
import { defineTask, fail, type Outcome } from './types.js';

export const pipelineTask = defineTask({
  field: 'pipeline_task',
  settings: v.looseObject({
    pipeline_id: v.optional(v.string()),
    full_refresh: v.optional(v.boolean()),
  }),
  resolveRefs: true,
  async run(d, input, pt): Promise<Outcome> {
    const pipelines = d.pipelines;
    if (!pipelines) return fail('pipeline_task needs the pipelines service, which is not enabled.');
    if (!pt.pipeline_id) return fail('pipeline_task.pipeline_id is required.');
    const id = pt.pipeline_id;
    let updateId: string;
    try {
      ({ update_id: updateId } = await pipelines.startUpdate(id, {
        fullRefresh: pt.full_refresh === true,
        cause: 'JOB_TASK',
      }));
    } catch (e) {
      return fail((e as Error).message);
    }
    input.register(() => void pipelines.stop(id).catch(() => undefined));
    const r = await pipelines.waitForUpdate(id, updateId);
    if (r.state === 'COMPLETED') return { result: 'SUCCESS', message: '', output: {} };
    if (r.state === 'CANCELED')
      return { result: 'CANCELED', message: `The pipeline update ${updateId} was canceled.`, output: {} };
    return fail(`The pipeline update ${updateId} failed${r.error ? `: ${r.error}` : '.'}`);
  },
});
