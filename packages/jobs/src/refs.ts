/**
 * Dynamic value references (`{{job.id}}`, `{{tasks.t.values.k}}`, ...), resolved as Databricks documents
 * them. `{{secrets/...}}` is left alone here: the secrets service resolves it, and only where Databricks
 * allows it (spark_conf and spark_env_vars). An unknown reference is left as written, as the real service does
 * for text it does not recognise.
 */
export interface RefContext {
  jobId?: number;
  jobName: string;
  runId: number;
  repairCount: number;
  startTime: number;
  triggerType: string;
  parameters: Record<string, string>;
  task?: { name: string; runId: number; executionCount: number; notebookPath?: string };
  tasks: Record<
    string,
    { runId: number; resultState?: string; executionCount: number; values: Record<string, unknown> }
  >;
  workspaceId: string;
  workspaceUrl: string;
  input?: string;
}

function timeField(ms: number, field: string): string | undefined {
  const d = new Date(ms);
  const iso = d.toISOString();
  switch (field) {
    case 'iso_datetime':
      return iso.slice(0, 19);
    case 'iso_date':
      return iso.slice(0, 10);
    case 'timestamp_ms':
      return String(ms);
    case 'year':
      return String(d.getUTCFullYear());
    case 'month':
      return String(d.getUTCMonth() + 1);
    case 'day':
      return String(d.getUTCDate());
    case 'hour':
      return String(d.getUTCHours());
    case 'minute':
      return String(d.getUTCMinutes());
    case 'second':
      return String(d.getUTCSeconds());
    case 'iso_weekday':
      return String(((d.getUTCDay() + 6) % 7) + 1);
    case 'is_weekday':
      return String(d.getUTCDay() !== 0 && d.getUTCDay() !== 6);
    default:
      return undefined;
  }
}

const stringify = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function lookup(ref: string, c: RefContext): string | undefined {
  const parts = ref.split('.');
  const [head, ...rest] = parts;
  const tail = rest.join('.');
  switch (head) {
    case 'job':
      if (tail === 'id') return c.jobId === undefined ? '' : String(c.jobId);
      if (tail === 'name') return c.jobName;
      if (tail === 'run_id') return String(c.runId);
      if (tail === 'repair_count') return String(c.repairCount);
      if (tail === 'trigger.type') return c.triggerType;
      if (rest[0] === 'start_time' && rest.length === 2) return timeField(c.startTime, rest[1]!);
      if (rest[0] === 'trigger' && rest[1] === 'time' && rest.length === 3)
        return timeField(c.startTime, rest[2]!);
      if (rest[0] === 'parameters' && rest.length >= 2) return c.parameters[rest.slice(1).join('.')];
      return undefined;
    case 'task':
      if (!c.task) return undefined;
      if (tail === 'name') return c.task.name;
      if (tail === 'run_id') return String(c.task.runId);
      if (tail === 'execution_count') return String(c.task.executionCount);
      if (tail === 'notebook_path') return c.task.notebookPath;
      return undefined;
    case 'tasks': {
      const t = c.tasks[rest[0] ?? ''];
      if (!t) return undefined;
      const what = rest.slice(1).join('.');
      if (what === 'run_id') return String(t.runId);
      if (what === 'result_state') return t.resultState ?? '';
      if (what === 'execution_count') return String(t.executionCount);
      if (rest[1] === 'values' && rest.length >= 3) {
        const key = rest.slice(2).join('.');
        return key in t.values ? stringify(t.values[key]) : undefined;
      }
      return undefined;
    }
    case 'workspace':
      if (tail === 'id') return c.workspaceId;
      if (tail === 'url') return c.workspaceUrl;
      return undefined;
    case 'input':
      if (c.input === undefined) return undefined;
      if (rest.length === 0) return c.input;
      try {
        let v: unknown = JSON.parse(c.input);
        for (const k of rest) v = (v as Record<string, unknown>)?.[k];
        return v === undefined ? undefined : stringify(v);
      } catch {
        return undefined;
      }
    // The deprecated variables older jobs still use.
    case 'job_id':
      return c.jobId === undefined ? '' : String(c.jobId);
    case 'run_id':
      return String(c.task?.runId ?? c.runId);
    case 'parent_run_id':
      return String(c.runId);
    case 'task_key':
      return c.task?.name;
    case 'start_date':
      return timeField(c.startTime, 'iso_date');
    case 'start_time':
      return String(c.startTime);
    default:
      return undefined;
  }
}

export function resolveRefs(text: string, c: RefContext): string {
  return text.replace(/\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g, (m, ref: string) => lookup(ref, c) ?? m);
}

export function resolveAll<T>(value: T, c: RefContext): T {
  if (typeof value === 'string') return resolveRefs(value, c) as T;
  if (Array.isArray(value)) return value.map((v) => resolveAll(v, c)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveAll(v, c)])) as T;
  }
  return value;
}
