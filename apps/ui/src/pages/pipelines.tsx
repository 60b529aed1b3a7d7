/**
 * Pipelines (Lakeflow Declarative Pipelines): the list with each pipeline's state and last update
 * (/ui/pipelines), and a pipeline (/ui/pipelines/<id>): the dataset graph of its latest update that defined
 * one (the event log's `dataset_definition` and `flow_definition` entries, each dataset coloured by its
 * flow's last `flow_progress`), its updates with states and durations, the event log with levels, Start and
 * Stop. Everything comes from the public Pipelines API (/api/2.0/pipelines); a page re-reads it every 2 s
 * while an update is active. An update's duration is read from the event log (its first event to its
 * terminal `update_progress`), since Databricks' UpdateInfo carries no end time.
 */
import { useState } from 'preact/hooks';
import { api, qs } from '../api';
import { Play, Refresh, Stop } from '../icons';
import { ErrorBox } from '../results';
import { href } from '../routes';
import { duration, layers, usePoll, when } from './jobs';

const PIPELINES = '/api/2.0/pipelines';
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELED']);

interface UpdateStatus {
  update_id: string;
  state?: string;
  creation_time?: string | number;
}
interface PipelineStatus {
  pipeline_id: string;
  name?: string;
  state?: string;
  creator_user_name?: string;
  latest_updates?: UpdateStatus[];
}
interface PipelineInfo extends PipelineStatus {
  spec?: { catalog?: string; schema?: string; target?: string; continuous?: boolean; development?: boolean };
  last_modified?: number;
}
interface UpdateInfo {
  update_id: string;
  state?: string;
  cause?: string;
  creation_time?: number;
  full_refresh?: boolean;
}
export interface PipelineEvent {
  id: string;
  timestamp: string;
  message?: string;
  level?: string;
  event_type?: string;
  origin?: { update_id?: string; flow_name?: string; dataset_name?: string };
  details?: {
    dataset_definition?: { dataset_type?: string };
    flow_definition?: { output_dataset?: string; flow_type?: string; input_datasets?: unknown[] };
    flow_progress?: { status?: string };
    update_progress?: { state?: string };
  };
  error?: { exceptions?: { message?: string }[] };
}

/** The colour class of a pipeline, update or flow state (the jobs page's classes). */
export const pipelineStateClass = (s?: string) =>
  !s
    ? ''
    : s === 'COMPLETED'
      ? 'finished'
      : /FAIL|CANCEL|ERROR/.test(s)
        ? 'failed'
        : /IDLE|SKIPPED|EXCLUDED/.test(s)
          ? ''
          : 'running';
const StateBadge = (p: { state?: string }) => (
  <span class={`badge st-${pipelineStateClass(p.state)}`}>{p.state || '—'}</span>
);
const ms = (t?: string | number) => (typeof t === 'number' ? t : t ? Date.parse(t) : undefined);

// ---- the list ------------------------------------------------------------------------------------------------

export function PipelinesList() {
  const [items, setItems] = useState<PipelineStatus[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  usePoll(async () => {
    try {
      const all: PipelineStatus[] = [];
      let token: string | undefined;
      do {
        const r = await api<{ statuses?: PipelineStatus[]; next_page_token?: string }>(
          'GET',
          `${PIPELINES}?${qs({ max_results: 100, order_by: 'name asc', page_token: token })}`,
        );
        all.push(...(r.statuses ?? []));
        token = r.next_page_token;
      } while (token && all.length < 1000);
      setItems(all);
      setError(null);
      return true; // updates started elsewhere (a job, the CLI) show while the page is open
    } catch (e) {
      setError(e);
      return false;
    }
  }, []);
  return (
    <section class="view" aria-label="Pipelines">
      <h2>Pipelines</h2>
      {error ? <ErrorBox error={error} /> : null}
      {items?.length === 0 && <p class="note">No pipelines yet (Pipelines API {PIPELINES}).</p>}
      {items && items.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Last update</th>
              <th>Started</th>
              <th>Creator</th>
            </tr>
          </thead>
          <tbody>
            {items.map((p) => {
              const last = p.latest_updates?.[0];
              return (
                <tr key={p.pipeline_id}>
                  <td>
                    <a href={href({ view: 'pipeline', id: p.pipeline_id })}>{p.name || p.pipeline_id}</a>
                  </td>
                  <td>
                    <StateBadge state={p.state} />
                  </td>
                  <td>{last ? <StateBadge state={last.state} /> : <span class="note">never run</span>}</td>
                  <td>{when(ms(last?.creation_time))}</td>
                  <td>{p.creator_user_name}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

// ---- a pipeline -----------------------------------------------------------------------------------------------

export interface GraphNode {
  name: string;
  type?: string;
  status?: string;
  inputs: string[];
}

/**
 * The datasets of the newest update that defined a graph, from its event log: each `dataset_definition` and
 * each flow's output, with the flow's last status; edges from a flow's `input_datasets` when it names them.
 */
export function datasetGraph(events: PipelineEvent[]): { updateId?: string; nodes: GraphNode[] } {
  const newestFirst = [...events].sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1));
  const updateId = newestFirst.find(
    (e) => e.event_type === 'flow_definition' || e.event_type === 'dataset_definition',
  )?.origin?.update_id;
  if (!updateId) return { nodes: [] };
  const mine = newestFirst.filter((e) => e.origin?.update_id === updateId).reverse();
  const nodes = new Map<string, GraphNode>();
  const node = (name: string) => {
    let n = nodes.get(name);
    if (!n) nodes.set(name, (n = { name, inputs: [] }));
    return n;
  };
  const flowTarget = new Map<string, string>();
  for (const e of mine) {
    const d = e.details ?? {};
    if (d.dataset_definition && e.origin?.dataset_name) {
      const n = node(e.origin.dataset_name);
      if (d.dataset_definition.dataset_type) n.type = d.dataset_definition.dataset_type;
    } else if (d.flow_definition) {
      const target = d.flow_definition.output_dataset ?? e.origin?.dataset_name;
      if (!target) continue;
      const n = node(target);
      if (e.origin?.flow_name) flowTarget.set(e.origin.flow_name, target);
      for (const i of d.flow_definition.input_datasets ?? []) {
        const name = typeof i === 'string' ? i : (i as { name?: string })?.name;
        if (name && !n.inputs.includes(name)) n.inputs.push(name);
      }
    } else if (d.flow_progress?.status) {
      const target =
        e.origin?.dataset_name ?? (e.origin?.flow_name ? flowTarget.get(e.origin.flow_name) : undefined);
      if (target && nodes.has(target)) node(target).status = d.flow_progress.status;
    }
  }
  for (const n of nodes.values()) n.inputs = n.inputs.filter((i) => nodes.has(i));
  return { updateId, nodes: [...nodes.values()] };
}

const NODE_W = 240;
const NODE_H = 52;
const GAP_X = 60;
const GAP_Y = 18;
const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function DatasetGraph(props: { nodes: GraphNode[] }) {
  const depth = layers(
    props.nodes.map((n) => ({
      run_id: 0,
      task_key: n.name,
      depends_on: n.inputs.map((task_key) => ({ task_key })),
    })),
  );
  const cols: GraphNode[][] = [];
  for (const n of props.nodes) (cols[depth.get(n.name) ?? 0] ??= []).push(n);
  const pos = new Map<string, { x: number; y: number }>();
  cols.forEach((col, c) =>
    col.forEach((n, r) => pos.set(n.name, { x: 10 + c * (NODE_W + GAP_X), y: 10 + r * (NODE_H + GAP_Y) })),
  );
  const width = 20 + cols.length * (NODE_W + GAP_X) - GAP_X;
  const height = 20 + Math.max(...cols.map((c) => c.length), 1) * (NODE_H + GAP_Y) - GAP_Y;
  return (
    <svg class="task-graph" width={width} height={height} role="group" aria-label="Dataset graph">
      {props.nodes.flatMap((n) =>
        n.inputs.map((i) => {
          const a = pos.get(i)!;
          const b = pos.get(n.name)!;
          const x1 = a.x + NODE_W;
          const y1 = a.y + NODE_H / 2;
          const x2 = b.x;
          const y2 = b.y + NODE_H / 2;
          const mx = (x1 + x2) / 2;
          return <path class="edge" d={`M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`} />;
        }),
      )}
      {props.nodes.map((n) => {
        const p = pos.get(n.name)!;
        return (
          <g
            class={`task-node st-${pipelineStateClass(n.status)}`}
            transform={`translate(${p.x},${p.y})`}
            role="img"
            aria-label={`Dataset ${n.name}: ${n.type ?? ''} ${n.status ?? ''}`.trim()}
          >
            {/* The table's own name on the node (its catalog and schema are the pipeline's), the full one on hover. */}
            <title>{n.name}</title>
            <rect width={NODE_W} height={NODE_H} rx="6" />
            <text x="10" y="20" class="task-key">
              {short(n.name.split('.').at(-1) ?? n.name, 26)}
            </text>
            <text x="10" y="40" class="task-state">
              {(n.type ?? '').replace(/_/g, ' ').toLowerCase()} {n.status ?? ''}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** Each update's duration: from its creation to its terminal `update_progress` event (or now if active). */
function durations(updates: UpdateInfo[], events: PipelineEvent[]): Map<string, number | undefined> {
  const ends = new Map<string, number>();
  for (const e of events) {
    const s = e.details?.update_progress?.state;
    if (e.origin?.update_id && s && TERMINAL.has(s)) ends.set(e.origin.update_id, Date.parse(e.timestamp));
  }
  return new Map(
    updates.map((u) => {
      const end = ends.get(u.update_id) ?? (TERMINAL.has(u.state ?? '') ? undefined : Date.now());
      return [u.update_id, end !== undefined && u.creation_time ? end - u.creation_time : undefined];
    }),
  );
}

export function PipelinePage(props: { id: string }) {
  const [p, setP] = useState<PipelineInfo | null>(null);
  const [updates, setUpdates] = useState<UpdateInfo[]>([]);
  const [events, setEvents] = useState<PipelineEvent[]>([]);
  const [level, setLevel] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const base = `${PIPELINES}/${encodeURIComponent(props.id)}`;
  usePoll(async () => {
    try {
      const info = await api<PipelineInfo>('GET', base);
      setP(info);
      const u = await api<{ updates?: UpdateInfo[] }>('GET', `${base}/updates?${qs({ max_results: 25 })}`);
      setUpdates(u.updates ?? []);
      const ev = await api<{ events?: PipelineEvent[] }>(
        'GET',
        `${base}/events?${qs({ max_results: 250, order_by: 'timestamp desc' })}`,
      );
      setEvents(ev.events ?? []);
      setError(null);
      return !(u.updates ?? []).every((x) => TERMINAL.has(x.state ?? ''));
    } catch (e) {
      setError(e);
      return false;
    }
  }, [props.id, tick]);
  const active = updates.some((u) => !TERMINAL.has(u.state ?? ''));
  const act = async (path: string, body?: unknown) => {
    try {
      await api('POST', `${base}${path}`, body);
    } catch (e) {
      setError(e);
    }
    setTick((n) => n + 1);
  };
  const graph = datasetGraph(events);
  const took = durations(updates, events);
  const shown = level ? events.filter((e) => e.level === level) : events;
  return (
    <section class="view" aria-label={`Pipeline ${p?.name ?? props.id}`}>
      <p class="crumbs">
        <a href="/ui/pipelines">Pipelines</a> /
      </p>
      <div class="page-head">
        <h2>{p?.name ?? props.id}</h2>
        <span class="type">pipeline</span>
        <StateBadge state={p?.state} />
        <span class="meta">
          {[p?.spec?.catalog, p?.spec?.schema ?? p?.spec?.target].filter(Boolean).join('.')}
          {p?.creator_user_name ? ` · ${p.creator_user_name}` : ''}
        </span>
        <button type="button" class="primary" disabled={active} onClick={() => void act('/updates', {})}>
          <Play /> Start
        </button>
        <button type="button" disabled={!active} onClick={() => void act('/stop')}>
          <Stop /> Stop
        </button>
        <button type="button" onClick={() => setTick((n) => n + 1)} aria-label="Refresh pipeline">
          <Refresh />
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      <h3>Graph</h3>
      {graph.nodes.length > 0 ? (
        <div class="graph-wrap">
          <DatasetGraph nodes={graph.nodes} />
        </div>
      ) : (
        <p class="note">No graph yet: an update defines the pipeline's datasets when it runs.</p>
      )}
      <h3>Updates</h3>
      {updates.length === 0 ? (
        <p class="note">No updates yet: Start runs one.</p>
      ) : (
        <table class="list" aria-label="Updates">
          <thead>
            <tr>
              <th>Update</th>
              <th>State</th>
              <th>Cause</th>
              <th>Started</th>
              <th>Duration</th>
            </tr>
          </thead>
          <tbody>
            {updates.map((u) => (
              <tr key={u.update_id} class={u.update_id === graph.updateId ? 'selected' : ''}>
                <td>
                  <code title={u.update_id}>{u.update_id.slice(0, 8)}</code>
                  {u.full_refresh ? ' (full refresh)' : ''}
                </td>
                <td>
                  <StateBadge state={u.state} />
                </td>
                <td>{u.cause}</td>
                <td>{when(u.creation_time)}</td>
                <td>{duration(took.get(u.update_id))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="page-head">
        <h3>Event log</h3>
        <label>
          Level{' '}
          <select value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
            <option value="">All</option>
            <option value="INFO">INFO</option>
            <option value="WARN">WARN</option>
            <option value="ERROR">ERROR</option>
            <option value="METRICS">METRICS</option>
          </select>
        </label>
      </div>
      {shown.length === 0 ? (
        <p class="note">No events.</p>
      ) : (
        <table class="list event-log" aria-label="Event log">
          <thead>
            <tr>
              <th>Time</th>
              <th>Level</th>
              <th>Type</th>
              <th>Message</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <tr key={e.id} class={`level-${(e.level ?? '').toLowerCase()}`}>
                <td>{when(Date.parse(e.timestamp))}</td>
                <td>
                  <span class={`badge ${e.level === 'ERROR' ? 'st-failed' : ''}`}>{e.level}</span>
                </td>
                <td>{e.event_type}</td>
                <td class="event-message">
                  {e.message}
                  {e.error?.exceptions?.[0]?.message && (
                    <pre class="trace">{e.error.exceptions[0].message}</pre>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
