/**
 * for_each_task: runs its nested task once per input, `concurrency` at a time. Every iteration is a task run
 * of its own, as on Databricks: its own run_id, state and output, listed as `iterations` by runs/get of the
 * for-each task's run id; all are scheduled (PENDING) up front.
 */
import { v } from '@minilake/core';
import { resolveRefs } from '../refs.js';
import type { TaskSpec } from '../settings.js';
import { termination, type TaskRunRecord } from '../store.js';
import { defineTask, fail, type Outcome } from './types.js';

export const forEachTask = defineTask({
  field: 'for_each_task',
  settings: v.looseObject({
    inputs: v.optional(v.unknown()),
    concurrency: v.optional(v.number()),
    task: v.optional(v.looseObject({ task_key: v.string() })),
  }),
  async run(d, input, fe, refs): Promise<Outcome> {
    if (!fe.task) return fail('for_each_task.task is required.');
    const nested = fe.task as TaskSpec;
    let items: unknown[];
    try {
      const raw = typeof fe.inputs === 'string' ? JSON.parse(resolveRefs(fe.inputs, refs)) : fe.inputs;
      if (!Array.isArray(raw)) throw new Error('not an array');
      items = raw;
    } catch {
      return fail('for_each_task.inputs must be a JSON array (or a reference that resolves to one).');
    }
    const concurrency = Math.max(1, Math.min(100, fe.concurrency ?? 1));
    const stats = { total: items.length, succeeded: 0, failed: 0, completed: 0 };
    const cancels = new Set<() => void>();
    let canceled = false;
    input.register(() => {
      canceled = true;
      for (const c of cancels) c();
    });
    const logs: string[] = [];
    let active = 0;
    const statsNow = () => ({
      task_run_stats: {
        total_iterations: stats.total,
        completed_iterations: stats.completed,
        succeeded_iterations: stats.succeeded,
        failed_iterations: stats.failed,
        active_iterations: active,
        scheduled_iterations: stats.total,
      },
    });
    const iterations: TaskRunRecord[] = items.map(() => ({
      run_id: d.store.newRunId(),
      task_key: nested.task_key,
      spec: { ...nested },
      attempt_number: 0,
      life: 'PENDING',
      message: '',
      start_time: 0,
      end_time: 0,
    }));
    const update = (i: number, change: (it: TaskRunRecord) => void) =>
      d.store.updateRun(input.run.run_id, (r) => {
        const parent = r.tasks.find((t) => t.run_id === input.task.run_id);
        if (!parent) return;
        if (i >= 0) {
          const it = parent.iterations?.find((x) => x.run_id === iterations[i]!.run_id);
          if (it) change(it);
        }
        parent.for_each_stats = statsNow();
      });
    d.store.updateRun(input.run.run_id, (r) => {
      const parent = r.tasks.find((t) => t.run_id === input.task.run_id);
      if (parent) {
        parent.iterations = iterations.map((x) => ({ ...x }));
        parent.for_each_stats = statsNow();
      }
    });
    let next = 0;
    const worker = async () => {
      while (next < items.length && !canceled) {
        const i = next++;
        const item = items[i];
        const iterInput = typeof item === 'string' ? item : JSON.stringify(item);
        const start = d.clock.now();
        active++;
        update(i, (it) => {
          it.life = 'RUNNING';
          it.start_time = start;
        });
        const out = await d.execute({
          ...input,
          task: { ...iterations[i]!, life: 'RUNNING', start_time: start },
          input: iterInput,
          workDir: `${input.workDir}/iteration-${i}`,
          register: (c) => cancels.add(c),
        });
        active--;
        stats.completed++;
        if (out.result === 'SUCCESS') stats.succeeded++;
        else stats.failed++;
        if (out.output.logs) logs.push(out.output.logs);
        d.store.setOutput(iterations[i]!.run_id, out.output);
        update(i, (it) => {
          it.life = 'TERMINATED';
          it.result = out.result;
          it.message = out.message;
          it.end_time = d.clock.now();
          it.termination = termination(out.result, out.message);
          if (out.values && Object.keys(out.values).length) it.values = out.values;
          if (out.condition) it.condition = out.condition;
          if (out.clusterId) it.cluster_id = out.clusterId;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
    // Iterations never started (a cancel) end as the run does.
    if (canceled) {
      for (let i = next; i < items.length; i++) {
        update(i, (it) => {
          it.life = 'TERMINATED';
          it.result = 'CANCELED';
          it.message = 'Run cancelled.';
          it.termination = termination('CANCELED', 'Run cancelled.');
        });
      }
    }
    const forEachStats = statsNow();
    if (canceled) return { result: 'CANCELED', message: 'Run cancelled.', output: {}, forEachStats };
    if (stats.failed > 0) {
      return { ...fail(`${stats.failed} of ${stats.total} iterations failed.`), forEachStats };
    }
    return {
      result: 'SUCCESS',
      message: '',
      output: { logs: logs.join(''), logs_truncated: false },
      forEachStats,
    };
  },
});
