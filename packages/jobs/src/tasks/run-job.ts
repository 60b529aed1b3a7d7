/** run_job_task: runs another job as a child run and ends as that run ends. */
import { v } from '@minilake/core';
import { defineTask, fail, text, textMap, type Outcome } from './types.js';

export const runJobTask = defineTask({
  field: 'run_job_task',
  settings: v.looseObject({ job_id: v.optional(text), job_parameters: v.optional(textMap) }),
  resolveRefs: true,
  async run(d, input, rj): Promise<Outcome> {
    const jobId = Number(rj.job_id);
    if (rj.job_id === undefined || !Number.isInteger(jobId)) return fail('run_job_task.job_id is required.');
    let child;
    try {
      child = d.runJob(jobId, {
        ...(rj.job_parameters ? { job_parameters: rj.job_parameters } : {}),
        parent_task_run_id: input.task.run_id,
      });
    } catch (e) {
      return fail((e as Error).message);
    }
    input.register(() => child.cancel());
    const done = await child.done;
    const ok =
      done.result === 'SUCCESS' || done.result === 'SUCCESS_WITH_FAILURES' || done.life === 'SKIPPED';
    const result = ok
      ? 'SUCCESS'
      : done.result === 'CANCELED'
        ? 'CANCELED'
        : done.result === 'TIMEDOUT'
          ? 'TIMEDOUT'
          : 'FAILED';
    return {
      result,
      message: ok ? '' : `The triggered run ${child.runId} ended ${done.result ?? done.life}.`,
      output: {},
      runJobRunId: child.runId,
    };
  },
});
