/**
 * `pipeline_task`: starts an update of the pipeline (cause JOB_TASK, `full_refresh` as the task asks) and
 * waits for it; the task ends as the update does (COMPLETED → SUCCESS, FAILED → FAILED with the update's
 * error, CANCELED → CANCELED). Canceling the run stops the pipeline's update.
 */
import type { PipelinesApi } from '@minilake/pipelines';
import type { Json } from './settings.js';
import { fail, type ExecInput, type Outcome } from './tasks.js';

export type PipelinesPeer = Pick<PipelinesApi, 'startUpdate' | 'waitForUpdate' | 'stop'>;

export async function pipelineTask(
  pipelines: PipelinesPeer | undefined,
  input: ExecInput,
  pt: Json,
): Promise<Outcome> {
  if (!pipelines) return fail('pipeline_task needs the pipelines service, which is not enabled.');
  const id = typeof pt.pipeline_id === 'string' ? pt.pipeline_id : '';
  if (!id) return fail('pipeline_task.pipeline_id is required.');
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
}
