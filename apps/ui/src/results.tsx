/** The result area under the editor: grid or chart, whole-result export, and errors as Databricks reports them. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Cell, type Column } from './api';
import { errorClass, type ErrorPosition } from './error-position';
import { downloadBlob, toCsv, toJson } from './export';
import { Grid } from './grid';

/** An error's position: as the message gave it (line, column) and where that is in the editor's model. */
export interface ErrorAt extends ErrorPosition {
  lineNumber: number;
  editorColumn: number;
}

/**
 * A failed statement as Databricks reports it: the error class leading the message, the wire error_code
 * when it differs (BAD_REQUEST for SQL errors), the SQLSTATE and, when the message gives one, the position
 * (written the Databricks way, pos from 0), which moves the editor's cursor there.
 */
export function ErrorBox(props: { error: unknown; errorAt?: ErrorAt; onJump?: (at: ErrorAt) => void }) {
  const e = props.error;
  const at = props.errorAt;
  if (e instanceof ApiError) {
    const cls = errorClass(e.message);
    return (
      <div class="error" role="alert">
        <div class="error-head">
          <b>{cls ?? e.errorCode}</b>
          {cls && cls !== e.errorCode && <span class="sqlstate">error_code: {e.errorCode}</span>}
          {e.sqlState && <span class="sqlstate">SQLSTATE: {e.sqlState}</span>}
          {e.status >= 400 && <span class="sqlstate">HTTP {e.status}</span>}
          {at && (
            <button
              type="button"
              class="pos"
              title="Show this position in the editor"
              onClick={() => props.onJump?.(at)}
            >
              line {at.line}, pos {at.column - 1}
            </button>
          )}
        </div>
        <pre>{e.message}</pre>
      </div>
    );
  }
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

export function ResultsPanel(props: {
  result: ResultState | null;
  error: unknown;
  errorAt?: ErrorAt;
  onJump?: (at: ErrorAt) => void;
  running: boolean;
}) {
  const [view, setView] = useState<'table' | 'chart'>('table');
  const { result, error } = props;
  if (error) return <ErrorBox error={error} errorAt={props.errorAt} onJump={props.onJump} />;
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
