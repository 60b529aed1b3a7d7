/**
 * Databricks SQL objects with their own pages: alerts (/ui/alerts: the Alerts API's and Alerts V2's, their
 * state, last evaluation, condition, and Evaluate now). SQL warehouses have theirs in warehouses.tsx.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, qs } from '../api';
import { Bell, Refresh } from '../icons';
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
