/**
 * Jobs: the list with each job's last runs (/ui/jobs), a job's runs with Run now (/ui/jobs/<job>), and a run
 * (/ui/jobs/<job>/runs/<run>): its task graph (drawn from `depends_on`), each task's state and duration, and
 * the selected task's output and error; cancel while it runs. Pages re-read the Jobs API every 2 s while a run
 * is not finished, so states move live.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, qs } from '../api';
import { Play, Refresh, Stop } from '../icons';
import { ErrorBox } from '../results';
import { href } from '../routes';

const JOBS = '/api/2.2/jobs';

interface RunState {
  life_cycle_state?: string;
  result_state?: string;
  state_message?: string;
}
interface Status {
  state?: string;
  termination_details?: { code?: string; message?: string; type?: string };
}
export interface TaskRun {
  run_id: number;
  task_key: string;
  depends_on?: { task_key: string }[];
  state?: RunState;
  status?: Status;
  start_time?: number;
  end_time?: number;
  run_duration?: number;
  [k: string]: unknown;
}
export interface Run {
  run_id: number;
  job_id?: number;
  run_name?: string;
  state?: RunState;
  status?: Status;
  start_time?: number;
  end_time?: number;
  run_duration?: number;
  trigger?: string;
  tasks?: TaskRun[];
}
interface Job {
  job_id: number;
  settings?: {
    name?: string;
    tasks?: { task_key: string }[];
    schedule?: { quartz_cron_expression?: string };
  };
  created_time?: number;
  creator_user_name?: string;
}

const FINISHED = new Set(['TERMINATED', 'SKIPPED', 'INTERNAL_ERROR']);
const finished = (r?: { state?: RunState; status?: Status }) =>
  FINISHED.has(r?.state?.life_cycle_state ?? '') || r?.status?.state === 'TERMINATED';

/** The state a person reads: the result once finished (SUCCESS, FAILED, CANCELED), else the life cycle. */
export function stateLabel(r?: { state?: RunState; status?: Status }): string {
  if (!r) return '';
  return (
    r.state?.result_state ??
    r.status?.termination_details?.code ??
    r.state?.life_cycle_state ??
    r.status?.state ??
    ''
  );
}
export const stateClass = (label: string) =>
  /SUCCESS/.test(label)
    ? 'finished'
    : /FAIL|ERROR|TIMEDOUT|CANCEL/.test(label)
      ? 'failed'
      : /RUNNING|PENDING|QUEUED|BLOCKED|TERMINATING/.test(label)
        ? 'running'
        : '';

export function duration(ms?: number): string {
  if (!ms || ms < 0) return '';
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s % 60)} s`;
}
export const when = (ms?: number) => (ms ? new Date(ms).toLocaleString() : '');

export function Badge(props: { r?: { state?: RunState; status?: Status } }) {
  const l = stateLabel(props.r);
  return <span class={`badge st-${stateClass(l)}`}>{l || '—'}</span>;
}

/** Calls `load` now, then every 2 s for as long as it answers true (and the page is open). */
export function usePoll(load: () => Promise<boolean>, deps: unknown[]) {
  useEffect(() => {
    let stop = false;
    let t: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      const again = await load().catch(() => true);
      if (!stop && again) t = setTimeout(() => void tick(), 2000);
    };
    void tick();
    return () => {
      stop = true;
      if (t) clearTimeout(t);
    };
  }, deps);
}

// ---- the list ------------------------------------------------------------------------------------------------

export function JobsList() {
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [last, setLast] = useState<Record<number, Run[]>>({});
  const [error, setError] = useState<unknown>(null);
  usePoll(async () => {
    try {
      const r = await api<{ jobs?: Job[] }>('GET', `${JOBS}/list?limit=100`);
      setJobs(r.jobs ?? []);
      const runs = await api<{ runs?: Run[] }>('GET', `${JOBS}/runs/list?${qs({ limit: 25 })}`);
      const by: Record<number, Run[]> = {};
      for (const run of runs.runs ?? []) if (run.job_id !== undefined) (by[run.job_id] ??= []).push(run);
      setLast(by);
      setError(null);
      return true; // runs started elsewhere (a schedule, the API) appear while the page is open
    } catch (e) {
      setError(e);
      return false;
    }
  }, []);
  return (
    <section class="view" aria-label="Jobs">
      <h2>Jobs</h2>
      {error ? <ErrorBox error={error} /> : null}
      {jobs?.length === 0 && <p class="note">No jobs yet (Jobs API /api/2.2/jobs).</p>}
      {jobs && jobs.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Tasks</th>
              <th>Schedule</th>
              <th>Last runs</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.job_id}>
                <td>
                  <a href={href({ view: 'job', jobId: j.job_id })}>{j.settings?.name ?? j.job_id}</a>
                </td>
                <td>{j.settings?.tasks?.length ?? ''}</td>
                <td>
                  <code>{j.settings?.schedule?.quartz_cron_expression ?? ''}</code>
                </td>
                <td class="last-runs">
                  {(last[j.job_id] ?? []).slice(0, 5).map((r) => (
                    <a
                      href={href({ view: 'run', jobId: j.job_id, runId: r.run_id })}
                      class={`run-dot st-${stateClass(stateLabel(r))}`}
                      title={`Run ${r.run_id}: ${stateLabel(r)} ${when(r.start_time)}`}
                      aria-label={`Run ${r.run_id} ${stateLabel(r)}`}
                    />
                  ))}
                </td>
                <td>{when(j.created_time)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

// ---- a job's runs ---------------------------------------------------------------------------------------------

export function JobPage(props: { jobId: number; go: (path: string) => void }) {
  const [job, setJob] = useState<Job | null>(null);
  const [runs, setRuns] = useState<Run[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  usePoll(async () => {
    try {
      setJob(await api<Job>('GET', `${JOBS}/get?job_id=${props.jobId}`));
      const r = await api<{ runs?: Run[] }>(
        'GET',
        `${JOBS}/runs/list?${qs({ job_id: props.jobId, limit: 25 })}`,
      );
      setRuns(r.runs ?? []);
      setError(null);
      return true; // runs started elsewhere (a schedule, the API) appear while the page is open
    } catch (e) {
      setError(e);
      return false;
    }
  }, [props.jobId, tick]);
  const runNow = async () => {
    try {
      const r = await api<{ run_id: number }>('POST', `${JOBS}/run-now`, { job_id: props.jobId });
      props.go(href({ view: 'run', jobId: props.jobId, runId: r.run_id }));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="view" aria-label={`Job ${job?.settings?.name ?? props.jobId}`}>
      <p class="crumbs">
        <a href="/ui/jobs">Jobs</a> /
      </p>
      <div class="page-head">
        <h2>{job?.settings?.name ?? `Job ${props.jobId}`}</h2>
        <span class="type">job {props.jobId}</span>
        <button type="button" class="primary" onClick={() => void runNow()}>
          <Play /> Run now
        </button>
        <button type="button" onClick={() => setTick((n) => n + 1)} aria-label="Refresh runs">
          <Refresh />
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      <table class="list">
        <thead>
          <tr>
            <th>Run</th>
            <th>State</th>
            <th>Trigger</th>
            <th>Started</th>
            <th>Duration</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.run_id}>
              <td>
                <a href={href({ view: 'run', jobId: props.jobId, runId: r.run_id })}>{r.run_id}</a>
              </td>
              <td>
                <Badge r={r} />
              </td>
              <td>{r.trigger}</td>
              <td>{when(r.start_time)}</td>
              <td>{duration(r.run_duration)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.length === 0 && <p class="note">No runs yet: Run now starts one.</p>}
    </section>
  );
}

// ---- a run --------------------------------------------------------------------------------------------------

/** Each task's column in the graph: one more than the deepest task it depends on. */
export function layers(tasks: TaskRun[]): Map<string, number> {
  const by = new Map(tasks.map((t) => [t.task_key, t]));
  const depth = new Map<string, number>();
  const visit = (k: string, seen: Set<string>): number => {
    if (depth.has(k)) return depth.get(k)!;
    if (seen.has(k)) return 0; // a cycle cannot run; draw it flat rather than loop
    seen.add(k);
    const deps = (by.get(k)?.depends_on ?? []).filter((d) => by.has(d.task_key));
    const d = deps.length ? Math.max(...deps.map((x) => visit(x.task_key, seen))) + 1 : 0;
    depth.set(k, d);
    return d;
  };
  for (const t of tasks) visit(t.task_key, new Set());
  return depth;
}

const NODE_W = 180;
const NODE_H = 52;
const GAP_X = 60;
const GAP_Y = 18;

function TaskGraph(props: { tasks: TaskRun[]; selected?: string; onSelect: (key: string) => void }) {
  const depth = layers(props.tasks);
  const cols: TaskRun[][] = [];
  for (const t of props.tasks) (cols[depth.get(t.task_key) ?? 0] ??= []).push(t);
  const pos = new Map<string, { x: number; y: number }>();
  cols.forEach((col, c) =>
    col.forEach((t, r) =>
      pos.set(t.task_key, { x: 10 + c * (NODE_W + GAP_X), y: 10 + r * (NODE_H + GAP_Y) }),
    ),
  );
  const width = 20 + cols.length * (NODE_W + GAP_X) - GAP_X;
  const height = 20 + Math.max(...cols.map((c) => c.length), 1) * (NODE_H + GAP_Y) - GAP_Y;
  return (
    <svg class="task-graph" width={width} height={height} role="group" aria-label="Task graph">
      {props.tasks.flatMap((t) =>
        (t.depends_on ?? [])
          .filter((d) => pos.has(d.task_key))
          .map((d) => {
            const a = pos.get(d.task_key)!;
            const b = pos.get(t.task_key)!;
            const x1 = a.x + NODE_W;
            const y1 = a.y + NODE_H / 2;
            const x2 = b.x;
            const y2 = b.y + NODE_H / 2;
            const mx = (x1 + x2) / 2;
            return <path class="edge" d={`M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`} />;
          }),
      )}
      {props.tasks.map((t) => {
        const p = pos.get(t.task_key)!;
        const label = stateLabel(t);
        return (
          <g
            class={`task-node st-${stateClass(label)}${props.selected === t.task_key ? ' selected' : ''}`}
            transform={`translate(${p.x},${p.y})`}
            role="button"
            tabIndex={0}
            aria-label={`Task ${t.task_key}: ${label}`}
            onClick={() => props.onSelect(t.task_key)}
            onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && props.onSelect(t.task_key)}
          >
            <rect width={NODE_W} height={NODE_H} rx="6" />
            <text x="10" y="20" class="task-key">
              {t.task_key.length > 22 ? `${t.task_key.slice(0, 21)}…` : t.task_key}
            </text>
            <text x="10" y="40" class="task-state">
              {label} {duration(t.run_duration)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

interface Output {
  logs?: string;
  logs_truncated?: boolean;
  error?: string;
  error_trace?: string;
  notebook_output?: { result?: string };
  sql_output?: unknown;
  dashboard_output?: unknown;
  metadata?: unknown;
}

export function RunPage(props: { jobId?: number; runId: number }) {
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [output, setOutput] = useState<Output | { failure: unknown } | null>(null);
  const [tick, setTick] = useState(0);
  usePoll(async () => {
    try {
      const r = await api<Run>('GET', `${JOBS}/runs/get?run_id=${props.runId}`);
      setRun(r);
      setError(null);
      return !finished(r);
    } catch (e) {
      setError(e);
      return false;
    }
  }, [props.runId, tick]);
  const tasks = run?.tasks ?? [];
  const task = tasks.find((t) => t.task_key === selected) ?? (tasks.length === 1 ? tasks[0] : undefined);
  const taskDone = finished(task);
  useEffect(() => {
    if (!task) return setOutput(null);
    api<Output>('GET', `${JOBS}/runs/get-output?run_id=${task.run_id}`).then(setOutput, (e: unknown) =>
      setOutput({ failure: e }),
    );
  }, [task?.run_id, taskDone]);
  const cancel = async () => {
    await api('POST', `${JOBS}/runs/cancel`, { run_id: props.runId }).catch(setError);
    setTick((n) => n + 1);
  };
  const jobId = run?.job_id ?? props.jobId;
  return (
    <section class="view" aria-label={`Run ${props.runId}`}>
      <p class="crumbs">
        <a href="/ui/jobs">Jobs</a> /{' '}
        {jobId !== undefined && <a href={href({ view: 'job', jobId })}>{`Job ${jobId}`}</a>} /
      </p>
      <div class="page-head">
        <h2>{run?.run_name ?? `Run ${props.runId}`}</h2>
        <span class="type">run {props.runId}</span>
        <Badge r={run ?? undefined} />
        <span class="meta">
          {when(run?.start_time)} {duration(run?.run_duration)}
        </span>
        {run && !finished(run) && (
          <button type="button" onClick={() => void cancel()}>
            <Stop /> Cancel run
          </button>
        )}
      </div>
      {run?.state?.state_message && <p class="errmsg">{run.state.state_message}</p>}
      {error ? <ErrorBox error={error} /> : null}
      {tasks.length > 0 && (
        <div class="graph-wrap">
          <TaskGraph tasks={tasks} {...(task ? { selected: task.task_key } : {})} onSelect={setSelected} />
        </div>
      )}
      {tasks.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Task</th>
              <th>State</th>
              <th>Depends on</th>
              <th>Started</th>
              <th>Duration</th>
            </tr>
          </thead>
          <tbody>
            {tasks.map((t) => (
              <tr key={t.task_key} class={t.task_key === task?.task_key ? 'selected' : ''}>
                <td>
                  <button type="button" class="link" onClick={() => setSelected(t.task_key)}>
                    {t.task_key}
                  </button>
                </td>
                <td>
                  <Badge r={t} />
                </td>
                <td>{(t.depends_on ?? []).map((d) => d.task_key).join(', ')}</td>
                <td>{when(t.start_time)}</td>
                <td>{duration(t.run_duration)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {task && <TaskOutput task={task} output={output} />}
      {!task && tasks.length > 1 && <p class="note">Pick a task to see its output.</p>}
    </section>
  );
}

function TaskOutput(props: { task: TaskRun; output: Output | { failure: unknown } | null }) {
  const o = props.output;
  return (
    <section class="task-output" aria-label={`Output of ${props.task.task_key}`}>
      <h3>Output of {props.task.task_key}</h3>
      {!o && <p class="note">Loading…</p>}
      {o && 'failure' in o ? (
        o.failure instanceof ApiError && o.failure.status === 400 && !finished(props.task) ? (
          <p class="note">The task has not produced output yet.</p>
        ) : (
          <ErrorBox error={o.failure} />
        )
      ) : null}
      {o && !('failure' in o) && (
        <>
          {o.error && (
            <div class="error" role="alert">
              <div class="error-head">
                <b>Error</b>
              </div>
              <pre>{o.error}</pre>
              {o.error_trace && <pre class="trace">{o.error_trace}</pre>}
            </div>
          )}
          {o.notebook_output?.result !== undefined && (
            <>
              <h4>Notebook result</h4>
              <pre class="output">{o.notebook_output.result}</pre>
            </>
          )}
          {o.logs !== undefined && (
            <>
              <h4>Logs{o.logs_truncated ? ' (truncated)' : ''}</h4>
              <pre class="output">{o.logs || '(empty)'}</pre>
            </>
          )}
          <details>
            <summary>Whole get-output answer</summary>
            <pre class="output">{JSON.stringify(o, null, 2)}</pre>
          </details>
        </>
      )}
    </section>
  );
}
