/**
 * Databricks SQL objects with their own pages: alerts (/ui/alerts: the Alerts API's and Alerts V2's, their
 * state, last evaluation, condition, and Evaluate now) and SQL warehouses (/ui/warehouses: state, size,
 * auto stop, Start and Stop).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, qs } from '../api';
import { Bell, Play, Refresh, Server, Stop } from '../icons';
import { ErrorBox } from '../results';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

async function all(path: string, key: string): Promise<Json[]> {
  const out: Json[] = [];
  let token: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await api<Json>('GET', `${path}?${qs({ page_size: 100, page_token: token })}`);
    out.push(...((r[key] as Json[] | undefined) ?? []));
    token = r.next_page_token as string | undefined;
    if (!token) break;
  }
  return out;
}

interface AlertRow {
  id: string;
  kind: 'v1' | 'v2';
  name: string;
  state: string;
  lastEvaluated?: string;
  condition: string;
  query?: string;
}

const OPS: Record<string, string> = {
  GREATER_THAN: '>',
  GREATER_THAN_OR_EQUAL: '>=',
  LESS_THAN: '<',
  LESS_THAN_OR_EQUAL: '<=',
  EQUAL: '=',
  NOT_EQUAL: '!=',
  IS_NULL: 'is null',
  IS_NOT_NULL: 'is not null',
};
const value = (v?: Json) => (v ? String(v.double_value ?? v.string_value ?? v.bool_value ?? '') : '');

export function AlertsPage() {
  const [rows, setRows] = useState<AlertRow[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState('');
  const load = async () => {
    try {
      const v1 = await all('/api/2.0/sql/alerts', 'results').catch((e: unknown) =>
        e instanceof ApiError && e.status === 501 ? [] : Promise.reject(e),
      );
      const v2 = await all('/api/2.0/alerts', 'alerts').catch((e: unknown) =>
        e instanceof ApiError && e.status === 501 ? [] : Promise.reject(e),
      );
      setRows([
        ...v1.map((a): AlertRow => {
          const c = (a.condition ?? {}) as Json;
          return {
            id: a.id,
            kind: 'v1',
            name: a.display_name,
            state: a.state ?? 'UNKNOWN',
            ...(a.trigger_time ? { lastEvaluated: a.trigger_time } : {}),
            condition: `${c.operand?.column?.name ?? ''} ${OPS[c.op] ?? c.op ?? ''} ${value(c.threshold?.value)}`,
            ...(a.query_id ? { query: a.query_id } : {}),
          };
        }),
        ...v2.map((a): AlertRow => {
          const e = (a.evaluation ?? {}) as Json;
          const src = e.source?.aggregation ? `${e.source.aggregation}(${e.source.name})` : e.source?.name;
          return {
            id: a.id,
            kind: 'v2',
            name: a.display_name,
            state: e.state ?? 'UNKNOWN',
            ...(e.last_evaluated_at ? { lastEvaluated: e.last_evaluated_at } : {}),
            condition: `${src ?? ''} ${OPS[e.comparison_operator] ?? e.comparison_operator ?? ''} ${value(e.threshold?.value) || (e.threshold?.column?.name ?? '')}`,
            query: a.query_text,
          };
        }),
      ]);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void load(), []);
  const evaluate = async (a: AlertRow) => {
    try {
      const r = await api<Json>(
        'POST',
        a.kind === 'v2' ? `/_minilake/alerts/${a.id}/evaluate` : `/_minilake/sql/alerts/${a.id}/evaluate`,
      );
      const state = r.alert?.evaluation?.state ?? r.alert?.state ?? r.state ?? '';
      setNote(
        `“${a.name}” evaluated: ${state}${r.value !== undefined ? ` (value ${r.value})` : ''}${r.error ? ` — ${r.error}` : ''}`,
      );
    } catch (e) {
      setError(e);
    }
    void load();
  };
  return (
    <section class="view" aria-label="Alerts">
      <div class="page-head">
        <h2>
          <Bell size={18} /> Alerts
        </h2>
        <button type="button" aria-label="Refresh alerts" onClick={() => void load()}>
          <Refresh />
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {note && (
        <p class="note" role="status">
          {note}
        </p>
      )}
      {rows?.length === 0 && (
        <p class="note">No alerts (Alerts API /api/2.0/sql/alerts, Alerts V2 /api/2.0/alerts).</p>
      )}
      {rows && rows.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Condition</th>
              <th>Last evaluated</th>
              <th>API</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((a) => (
              <tr key={`${a.kind}:${a.id}`}>
                <td title={a.query}>{a.name}</td>
                <td>
                  <span class={`badge alert-${a.state.toLowerCase()}`}>{a.state}</span>
                </td>
                <td>
                  <code>{a.condition}</code>
                </td>
                <td>{a.lastEvaluated ? new Date(a.lastEvaluated).toLocaleString() : 'never'}</td>
                <td>{a.kind === 'v2' ? 'Alerts V2' : 'Alerts'}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => void evaluate(a)}
                    aria-label={`Evaluate ${a.name} now`}
                  >
                    Evaluate now
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

// ---- warehouses ---------------------------------------------------------------------------------------------

export function WarehousesPage() {
  const [items, setItems] = useState<Json[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async () => {
    try {
      const r = await api<{ warehouses?: Json[] }>('GET', '/api/2.0/sql/warehouses');
      setItems(r.warehouses ?? []);
      setError(null);
      return (r.warehouses ?? []).some((w) => ['STARTING', 'STOPPING'].includes(w.state));
    } catch (e) {
      setError(e);
      return false;
    }
  };
  useEffect(() => {
    let stop = false;
    const tick = async () => {
      const moving = await load();
      if (!stop && moving) setTimeout(() => void tick(), 1000);
    };
    void tick();
    return () => {
      stop = true;
    };
  }, []);
  const act = async (w: Json, what: 'start' | 'stop') => {
    try {
      await api('POST', `/api/2.0/sql/warehouses/${encodeURIComponent(w.id)}/${what}`);
    } catch (e) {
      setError(e);
    }
    const poll = async () => {
      if (await load()) setTimeout(() => void poll(), 500);
    };
    void poll();
  };
  return (
    <section class="view" aria-label="SQL warehouses">
      <div class="page-head">
        <h2>
          <Server size={18} /> SQL warehouses
        </h2>
        <button type="button" aria-label="Refresh warehouses" onClick={() => void load()}>
          <Refresh />
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {items && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Size</th>
              <th>Auto stop</th>
              <th>Id</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((w) => (
              <tr key={w.id}>
                <td>{w.name}</td>
                <td>
                  <span class={`badge wh-${String(w.state).toLowerCase()}`}>{w.state}</span>
                </td>
                <td>{w.cluster_size}</td>
                <td>{w.auto_stop_mins ? `${w.auto_stop_mins} min` : 'off'}</td>
                <td>
                  <code>{w.id}</code>
                </td>
                <td>
                  {['STOPPED', 'DELETED'].includes(w.state) ? (
                    <button type="button" onClick={() => void act(w, 'start')} aria-label={`Start ${w.name}`}>
                      <Play /> Start
                    </button>
                  ) : (
                    <button
                      type="button"
                      onClick={() => void act(w, 'stop')}
                      aria-label={`Stop ${w.name}`}
                      disabled={w.state === 'STOPPING'}
                    >
                      <Stop /> Stop
                    </button>
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
