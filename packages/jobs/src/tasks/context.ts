/** What several executors share: the task's reference context, secret references, and log redaction. */
import type { RefContext } from '../refs.js';
import { TaskFileError, type ExecDeps, type ExecInput } from './types.js';

export function refContext(d: Pick<ExecDeps, 'workspaceId' | 'selfUrl'>, input: ExecInput): RefContext {
  const { run, task } = input;
  const params: Record<string, string> = {};
  for (const p of run.job_parameters ?? []) params[p.name] = p.value;
  const tasks: RefContext['tasks'] = {};
  for (const t of run.tasks) {
    if (t.superseded) continue;
    const cur = tasks[t.task_key];
    if (cur && cur.executionCount > t.attempt_number) continue;
    tasks[t.task_key] = {
      runId: t.run_id,
      resultState: t.result,
      executionCount: t.attempt_number + 1,
      values: t.values ?? {},
    };
  }
  const nb = task.spec.notebook_task as { notebook_path?: string } | undefined;
  return {
    jobId: run.job_id,
    jobName: run.run_name,
    runId: run.run_id,
    repairCount: Math.max(0, run.repair_history.length - 1),
    startTime: run.start_time,
    triggerType: run.trigger === 'ONE_TIME' ? 'one_time' : run.trigger.toLowerCase(),
    parameters: params,
    task: {
      name: task.task_key,
      runId: task.run_id,
      executionCount: task.attempt_number + 1,
      ...(nb?.notebook_path ? { notebookPath: nb.notebook_path } : {}),
    },
    tasks,
    workspaceId: d.workspaceId,
    workspaceUrl: d.selfUrl() ?? '',
    ...(input.input !== undefined ? { input: input.input } : {}),
  };
}

/** `{{secrets/scope/key}}` in a value, resolved through the secrets service; the values are returned for redaction. */
export function resolveSecrets(
  d: Pick<ExecDeps, 'secrets'>,
  where: string,
  values: Record<string, string>,
  found: Set<string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    out[k] = String(v).replace(
      /\{\{\s*secrets\/([^/}\s]+)\/([^}\s]+)\s*\}\}/g,
      (_m, scope: string, key: string) => {
        if (!d.secrets)
          throw new TaskFileError(
            `${where} ${k} references a secret, but the secrets service is not enabled.`,
          );
        let value: string;
        try {
          value = d.secrets.readSecret(scope, key).toString('utf8');
        } catch {
          throw new TaskFileError(`${where} ${k} references secret ${scope}/${key}, which does not exist.`);
        }
        if (value) found.add(value);
        return value;
      },
    );
  }
  return out;
}

export function redact(text: string, secrets: Set<string>): string {
  let out = text;
  for (const s of secrets) if (s.length >= 1) out = out.split(s).join('[REDACTED]');
  return out;
}
