/** The result area under the editor: grid or chart, whole-result export, and errors as Databricks reports them. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Cell, type Column } from './api';
import { downloadBlob, toCsv, toJson } from './export';
import { Grid } from './grid';

export function ErrorBox(props: { error: unknown }) {
  const e = props.error;
  if (e instanceof ApiError)
    return (
      <div class="error" role="alert">
        <div class="error-head">
          <b>{e.errorCode}</b>
          {e.sqlState && <span class="sqlstate">SQLSTATE: {e.sqlState}</span>}
          {e.status >= 400 && <span class="sqlstate">HTTP {e.status}</span>}
        </div>
        <pre>{e.message}</pre>
      </div>
    );
  return (
    <div class="error" role="alert">
      <pre>{String((e as Error)?.message ?? e)}</pre>
    </div>
  );
}

// ECharts loads with the first chart, not with the page.
type ChartModule = typeof import('./chart');
let chartModule: ChartModule | undefined;
function LazyChart(props: { columns: Column[]; rows: Cell[][] }) {
  const [mod, setMod] = useState(chartModule);
  useEffect(() => {
    if (!mod) void import('./chart').then((m) => setMod((chartModule = m)));
  }, []);
  if (!mod) return <div class="note">Loading charts…</div>;
  return <mod.ChartPanel columns={props.columns} rows={props.rows} />;
}

export interface ResultState {
  statementId?: string;
  columns: Column[];
  rows: Cell[][];
  totalRows: number;
  truncated: boolean;
  loading: boolean;
  ms?: number;
  canceled?: boolean;
}

export function ResultsPanel(props: { result: ResultState | null; error: unknown; running: boolean }) {
  const [view, setView] = useState<'table' | 'chart'>('table');
  const { result, error } = props;
  if (error) return <ErrorBox error={error} />;
  if (!result) return <div class="empty">Run a statement (Ctrl/Cmd+Enter) to see its result here.</div>;
  if (result.canceled) return <div class="empty">Statement {result.statementId} was canceled.</div>;
  const { columns, rows } = result;
  return (
    <div class="results">
      <div class="results-bar" role="toolbar" aria-label="Result actions">
        <div class="seg" role="tablist">
          <button type="button" role="tab" aria-selected={view === 'table'} onClick={() => setView('table')}>
            Table
          </button>
          <button type="button" role="tab" aria-selected={view === 'chart'} onClick={() => setView('chart')}>
            Chart
          </button>
        </div>
        <span class="meta">
          {result.loading
            ? `fetching… ${rows.length.toLocaleString()} of ${result.totalRows.toLocaleString()} rows`
            : `${result.totalRows.toLocaleString()} row${result.totalRows === 1 ? '' : 's'}${result.truncated ? ' (truncated)' : ''}${result.ms !== undefined ? ` in ${Math.round(result.ms)} ms` : ''}`}
          {result.statementId && <span class="sid"> · {result.statementId}</span>}
        </span>
        <button
          type="button"
          disabled={result.loading}
          onClick={() => downloadBlob('result.csv', 'text/csv', toCsv(columns, rows))}
        >
          Export CSV
        </button>
        <button
          type="button"
          disabled={result.loading}
          onClick={() => downloadBlob('result.json', 'application/json', toJson(columns, rows))}
        >
          Export JSON
        </button>
      </div>
      {columns.length === 0 ? (
        <div class="empty">The statement succeeded and returned no columns.</div>
      ) : view === 'table' ? (
        <Grid columns={columns} rows={rows} />
      ) : (
        <LazyChart columns={columns} rows={rows} />
      )}
    </div>
  );
}
