/**
 * The run's task graph as Databricks judges it: the latest attempt of each task, whether a blocked task may
 * run (its dependencies' results, outcome branches and run_if), and the run's result once every task ended.
 * Pure functions over the run record; the scheduler applies what they decide.
 */
import type { RunRecord, TaskRunRecord, Termination } from './store.js';
import type { LifeCycle } from './store.js';

const TERMINAL: readonly LifeCycle[] = ['TERMINATED', 'SKIPPED', 'INTERNAL_ERROR'];
export const isTerminal = (l: LifeCycle) => TERMINAL.includes(l);
const SUCCEEDED = ['SUCCESS', 'SUCCESS_WITH_FAILURES', 'EXCLUDED', 'DISABLED'];
const CANCELED = ['CANCELED', 'UPSTREAM_CANCELED'];
export const succeeded = (t: TaskRunRecord) => t.result !== undefined && SUCCEEDED.includes(t.result);
const canceled = (t: TaskRunRecord) => t.result !== undefined && CANCELED.includes(t.result);
const failed = (t: TaskRunRecord) => !succeeded(t) && !canceled(t);

export const WORKLOAD_FAILED = 'Workload failed, see run output for details';

/** The latest attempt of each task key (retries and repairs add attempts). */
export function latest(run: RunRecord): Map<string, TaskRunRecord> {
  const m = new Map<string, TaskRunRecord>();
  for (const t of run.tasks) {
    if (t.superseded) continue;
    const cur = m.get(t.task_key);
    if (!cur || t.attempt_number >= cur.attempt_number) m.set(t.task_key, t);
  }
  return m;
}

/** RUN, WAIT, or the result a blocked task ends with without running (EXCLUDED, UPSTREAM_FAILED, ...). */
export function decide(t: TaskRunRecord, byKey: Map<string, TaskRunRecord>): 'RUN' | 'WAIT' | string {
  const deps = t.spec.depends_on ?? [];
  if (t.spec.disabled) return 'DISABLED';
  if (deps.length === 0) return 'RUN';
  let s = 0;
  let f = 0;
  let c = 0;
  let x = 0;
  for (const d of deps) {
    const dt = byKey.get(d.task_key);
    if (!dt || !isTerminal(dt.life)) return 'WAIT';
    if (d.outcome !== undefined && dt.condition && succeeded(dt)) {
      if (dt.condition.outcome === d.outcome) s++;
      else x++;
    } else if (dt.result === 'EXCLUDED') x++;
    else if (succeeded(dt)) s++;
    else if (canceled(dt)) c++;
    else f++;
  }
  const n = deps.length;
  switch (t.spec.run_if ?? 'ALL_SUCCESS') {
    case 'ALL_DONE':
      return 'RUN';
    case 'NONE_FAILED':
      return f > 0 ? 'UPSTREAM_FAILED' : x === n ? 'EXCLUDED' : 'RUN';
    case 'AT_LEAST_ONE_SUCCESS':
      return s > 0 ? 'RUN' : f > 0 ? 'UPSTREAM_FAILED' : c > 0 ? 'UPSTREAM_CANCELED' : 'EXCLUDED';
    case 'ALL_FAILED':
      return f === n ? 'RUN' : 'EXCLUDED';
    case 'AT_LEAST_ONE_FAILED':
      return f > 0 ? 'RUN' : 'EXCLUDED';
    default:
      return f > 0 ? 'UPSTREAM_FAILED' : c > 0 ? 'UPSTREAM_CANCELED' : x > 0 ? 'EXCLUDED' : 'RUN';
  }
}

/** The message of a task that ends without running, for the result `decide` gave it. */
export function skipMessage(result: string, reason: 'USER' | 'TIMEOUT' | undefined): string {
  if (result === 'EXCLUDED') return 'This task was excluded: its run_if condition was not met.';
  if (result === 'DISABLED') return 'This task is disabled.';
  if (result === 'CANCELED') return reason === 'TIMEOUT' ? 'The run timed out.' : 'Run cancelled.';
  return `Upstream task ${result === 'UPSTREAM_FAILED' ? 'failed' : 'was canceled'}.`;
}

/**
 * The run's result and termination once every task ended: cancelled or timed out as the run was stopped;
 * else SUCCESS, SUCCESS_WITH_FAILURES (every leaf succeeded), or the first real failure's.
 */
export function runResult(
  r: RunRecord,
  reason: 'USER' | 'TIMEOUT' | undefined,
): { result: string; termination: Termination } {
  if (reason === 'USER')
    return {
      result: 'CANCELED',
      termination: { code: 'USER_CANCELED', type: 'SUCCESS', message: 'Run cancelled.' },
    };
  if (reason === 'TIMEOUT') {
    const message = `Run timed out after ${r.settings.timeout_seconds} seconds.`;
    return {
      result: 'TIMEDOUT',
      termination: { code: 'RUN_EXECUTION_ERROR', type: 'CLIENT_ERROR', message },
    };
  }
  const all = [...latest(r).values()];
  const dependedOn = new Set(all.flatMap((t) => (t.spec.depends_on ?? []).map((d) => d.task_key)));
  const leaves = all.filter((t) => !dependedOn.has(t.task_key));
  if (all.every(succeeded))
    return { result: 'SUCCESS', termination: { code: 'SUCCESS', type: 'SUCCESS', message: '' } };
  if (leaves.every(succeeded))
    return {
      result: 'SUCCESS_WITH_FAILURES',
      termination: {
        code: 'SUCCESS_WITH_FAILURES',
        type: 'SUCCESS',
        message: 'Some tasks failed, but every leaf task succeeded.',
      },
    };
  const bad =
    all.find((t) => failed(t) && !t.result?.startsWith('UPSTREAM')) ?? leaves.find((t) => !succeeded(t))!;
  const result = all.some((t) => failed(t))
    ? bad.result === 'TIMEDOUT'
      ? 'TIMEDOUT'
      : 'FAILED'
    : 'CANCELED';
  const message = `Task ${bad.task_key} failed with message: ${bad.message || WORKLOAD_FAILED}.`;
  return { result, termination: { code: 'RUN_EXECUTION_ERROR', type: 'CLIENT_ERROR', message } };
}
