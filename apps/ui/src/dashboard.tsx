/**
 * An AI/BI (Lakeview) dashboard drawn with live data: `/ui/dashboards/<id>` (the draft) and
 * `/ui/dashboards/<id>/published` (the published revision, on its warehouse). Each widget's statements are
 * compiled by `@minilake/lakeview/render` (the same code the server's refresh runs) and sent through the
 * Statement Execution API, so query history has them. Page tabs, the 6-column layout grid, global filters;
 * a filter's selection re-queries the widgets it applies to. Unknown widget types get a labelled placeholder.
 * Timings (queries, drawing) are kept on `window.__minilakeDashboard` for the benchmark and the tests.
 */
import {
  isFilter,
  planWidget,
  textOf,
  type Page,
  type Selections,
  type SerializedDashboard,
  type Widget,
} from '@minilake/lakeview/render';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, runStatement, type Cell, type Column } from './api';
import { DashboardChart } from './dash-chart';
import { Grid } from './grid';
import { Markdown } from './markdown';
import { ErrorBox } from './results';
import { activeWarehouse } from './workspace';

interface QueryResult {
  columns: Column[];
  rows: Cell[][];
  error?: unknown;
}
type WidgetResults = Record<string, QueryResult>;

interface Loaded {
  name: string;
  warehouseId: string;
  content: SerializedDashboard;
  etag?: string;
  updated?: string;
}

export interface DashboardTimings {
  statements: number;
  /** When the statements were sent, in ms since the navigation started (page load, app, dashboard JSON). */
  startMs: number;
  queriesMs: number;
  drawMs: number;
  totalMs: number;
  /** Each widget's first query result (at most 100 rows): what was drawn, for tests to compare. */
  widgets: Record<string, { columns: string[]; rows: Cell[][] }>;
}
declare global {
  interface Window {
    __minilakeDashboard?: DashboardTimings;
  }
}

const CHARTS = new Set(['bar', 'line', 'area', 'scatter', 'pie']);
const DRAWN = new Set([...CHARTS, 'counter', 'table']);
const ROW_PX = 52;

const enc = (w: Widget, key: string) =>
  (
    w.spec?.encodings as Record<string, { fieldName?: string; displayName?: string } | undefined> | undefined
  )?.[key];

/** A counter's number: integers with separators, others to at most four decimals; text as it is. */
export function formatValue(v: Cell): string {
  if (v === null) return 'null';
  if (v.trim() !== '' && !isNaN(Number(v))) {
    const n = Number(v);
    return Number.isInteger(n)
      ? n.toLocaleString('en-US')
      : n.toLocaleString('en-US', { maximumFractionDigits: 4 });
  }
  return v;
}

async function load(id: string, published: boolean): Promise<Loaded> {
  const d = await api<Record<string, string>>(
    'GET',
    `/api/2.0/lakeview/dashboards/${encodeURIComponent(id)}`,
  );
  if (published) {
    const p = await api<Record<string, string>>(
      'GET',
      `/_minilake/lakeview/dashboards/${encodeURIComponent(id)}/published/content`,
    );
    return {
      name: p.display_name ?? d.display_name ?? id,
      warehouseId: p.warehouse_id || d.warehouse_id || activeWarehouse(),
      content: JSON.parse(p.serialized_dashboard ?? '{}') as SerializedDashboard,
    };
  }
  return {
    name: d.display_name ?? id,
    warehouseId: d.warehouse_id || activeWarehouse(),
    content: JSON.parse(d.serialized_dashboard ?? '{}') as SerializedDashboard,
    ...(d.etag ? { etag: d.etag } : {}),
    ...(d.update_time ? { updated: d.update_time } : {}),
  };
}

export function DashboardPage(props: {
  id: string;
  published: boolean;
  page?: string;
  onPage: (name: string) => void;
}) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [selections, setSelections] = useState<Selections>({});
  const [results, setResults] = useState<Record<string, WidgetResults>>({});
  const [running, setRunning] = useState(0);
  const [reload, setReload] = useState(0);
  const generation = useRef(0);

  useEffect(() => {
    setLoaded(null);
    setError(null);
    setResults({});
    setSelections({});
    load(props.id, props.published).then(setLoaded, setError);
  }, [props.id, props.published]);

  const pages = (loaded?.content.pages ?? []).filter((p) => p.pageType !== 'PAGE_TYPE_GLOBAL_FILTERS');
  const globals = (loaded?.content.pages ?? []).filter((p) => p.pageType === 'PAGE_TYPE_GLOBAL_FILTERS');
  const page: Page | undefined = pages.find((p) => p.name === props.page) ?? pages[0];
  const widgets = useMemo(
    () => [...(page?.layout ?? []), ...globals.flatMap((g) => g.layout ?? [])].map((i) => i.widget),
    [loaded, page?.name],
  );

  // Run every widget's statements for this page and these selections; draw when all are in.
  useEffect(() => {
    if (!loaded) return;
    const gen = ++generation.current;
    const t0 = performance.now();
    const jobs: Promise<void>[] = [];
    const next: Record<string, WidgetResults> = {};
    let statements = 0;
    for (const w of widgets) {
      let planned;
      try {
        planned = planWidget(loaded.content, w, selections);
      } catch (e) {
        next[w.name] = { '': { columns: [], rows: [], error: e } };
        continue;
      }
      next[w.name] = {};
      for (const q of planned) {
        statements++;
        jobs.push(
          runStatement(q.compiled.statement, {
            warehouseId: loaded.warehouseId,
            ...(q.compiled.catalog ? { catalog: q.compiled.catalog } : {}),
            ...(q.compiled.schema ? { schema: q.compiled.schema } : {}),
            parameters: q.compiled.parameters,
            waitTimeout: '10s',
          }).done.then(
            (r) => void (next[w.name]![q.name] = { columns: r.columns, rows: r.rows }),
            (e: unknown) => void (next[w.name]![q.name] = { columns: [], rows: [], error: e }),
          ),
        );
      }
    }
    setRunning(statements);
    void Promise.all(jobs).then(() => {
      if (gen !== generation.current) return;
      const tq = performance.now();
      setResults(next);
      setRunning(0);
      // Drawn: after the render this state causes and the frame that paints it.
      requestAnimationFrame(() =>
        setTimeout(() => {
          const td = performance.now();
          const drawn: DashboardTimings['widgets'] = {};
          for (const [name, r] of Object.entries(next)) {
            const first = Object.values(r)[0];
            if (first && !first.error)
              drawn[name] = { columns: first.columns.map((c) => c.name), rows: first.rows.slice(0, 100) };
          }
          window.__minilakeDashboard = {
            statements,
            startMs: Math.round(t0),
            queriesMs: Math.round(tq - t0),
            drawMs: Math.round(td - tq),
            totalMs: Math.round(td - t0),
            widgets: drawn,
          };
        }, 0),
      );
    });
  }, [loaded, widgets, selections, reload]);

  if (error)
    return (
      <section class="view dashboard" aria-label="Dashboard">
        {error instanceof ApiError && error.status === 404 ? (
          <p class="note">
            {props.published ? 'This dashboard is not published.' : 'No dashboard with this id.'}{' '}
            <a href="/ui/dashboards">All dashboards</a>
          </p>
        ) : (
          <ErrorBox error={error} />
        )}
      </section>
    );
  if (!loaded) return <div class="note loading">Loading the dashboard…</div>;
  const globalWidgets = globals.flatMap((g) => g.layout ?? []);
  return (
    <section class="view dashboard" aria-label={`Dashboard ${loaded.name}`}>
      <div class="dash-head">
        <h2>{loaded.name}</h2>
        <span class={`badge ${props.published ? 'finished' : ''}`}>
          {props.published ? 'Published' : 'Draft'}
        </span>
        <a href={`/ui/dashboards/${props.id}${props.published ? '' : '/published'}`}>
          {props.published ? 'Open the draft' : 'Open the published view'}
        </a>
        <span class="meta">warehouse {loaded.warehouseId}</span>
        <span class="status" aria-live="polite">
          {running ? `Running ${running} statement${running === 1 ? '' : 's'}…` : ''}
        </span>
        <button type="button" onClick={() => setReload((n) => n + 1)} disabled={running > 0}>
          Refresh
        </button>
      </div>
      {pages.length > 1 && (
        <div class="tabs" role="tablist" aria-label="Pages">
          {pages.map((p) => (
            <div class={`tab${p === page ? ' active' : ''}`} role="presentation">
              <button
                type="button"
                role="tab"
                aria-selected={p === page}
                onClick={() => props.onPage(p.name)}
              >
                {p.displayName ?? p.name}
              </button>
            </div>
          ))}
        </div>
      )}
      {globalWidgets.length > 0 && (
        <div class="dash-filters" role="group" aria-label="Filters">
          {globalWidgets.map((i) => (
            <FilterWidget
              widget={i.widget}
              results={results[i.widget.name]}
              selections={selections}
              onSelect={setSelections}
            />
          ))}
        </div>
      )}
      <div class="dash-grid" style={{ gridAutoRows: `${ROW_PX}px` }}>
        {(page?.layout ?? []).map((item) => (
          <div
            class="dash-widget"
            data-widget={item.widget.name}
            data-type={
              item.widget.spec?.widgetType ?? (textOf(item.widget) !== undefined ? 'text' : 'unknown')
            }
            style={{
              gridColumn: `${item.position.x + 1} / span ${item.position.width}`,
              gridRow: `${item.position.y + 1} / span ${item.position.height}`,
            }}
          >
            <WidgetView
              widget={item.widget}
              results={results[item.widget.name]}
              selections={selections}
              onSelect={setSelections}
            />
          </div>
        ))}
      </div>
      {!page && <p class="note">This dashboard has no pages.</p>}
    </section>
  );
}

function Title(props: { widget: Widget }) {
  const f = props.widget.spec?.frame;
  if (!f?.showTitle && !f?.showDescription) return null;
  return (
    <div class="w-title">
      {f.showTitle && f.title && <h3>{f.title}</h3>}
      {f.showDescription && f.description && <p class="note">{f.description}</p>}
    </div>
  );
}

function WidgetView(props: {
  widget: Widget;
  results: WidgetResults | undefined;
  selections: Selections;
  onSelect: (s: Selections) => void;
}) {
  const w = props.widget;
  const text = textOf(w);
  if (text !== undefined) return <Markdown text={text} />;
  const type = w.spec?.widgetType ?? '';
  if (isFilter(w)) return <FilterWidget {...props} />;
  if (!DRAWN.has(type))
    return (
      <div class="w-placeholder" role="note">
        <Title widget={w} />
        Widget type “{type || 'none'}” is not drawn by MiniLake.
      </div>
    );
  const main = props.results ? Object.values(props.results)[0] : undefined;
  return (
    <>
      <Title widget={w} />
      {!main ? (
        <div class="note loading">…</div>
      ) : main.error ? (
        <ErrorBox error={main.error} />
      ) : type === 'counter' ? (
        <Counter widget={w} result={main} />
      ) : type === 'table' ? (
        <TableWidget widget={w} result={main} />
      ) : (
        <DashboardChart
          spec={{
            widgetType: type,
            encodings: (w.spec?.encodings ?? {}) as never,
            ...(Array.isArray((w.spec?.mark as { colors?: string[] } | undefined)?.colors)
              ? { colors: (w.spec!.mark as { colors: string[] }).colors }
              : {}),
          }}
          columns={main.columns}
          rows={main.rows}
          label={`${type} chart ${w.spec?.frame?.title ?? w.name}`}
        />
      )}
    </>
  );
}

function Counter(props: { widget: Widget; result: QueryResult }) {
  const field = enc(props.widget, 'value')?.fieldName;
  const i = Math.max(
    0,
    props.result.columns.findIndex((c) => c.name === field),
  );
  const v = props.result.rows[0]?.[i];
  return (
    <div class="counter" title={enc(props.widget, 'value')?.displayName}>
      <span class="counter-value">{v === undefined ? '—' : formatValue(v)}</span>
    </div>
  );
}

function TableWidget(props: { widget: Widget; result: QueryResult }) {
  const spec = (
    props.widget.spec?.encodings as
      { columns?: { fieldName: string; displayName?: string; visible?: boolean }[] } | undefined
  )?.columns;
  const { columns, rows } = props.result;
  const shown = spec?.length
    ? spec
        .filter((c) => c.visible !== false)
        .map((c) => ({ c, i: columns.findIndex((x) => x.name === c.fieldName) }))
    : columns.map((c, i) => ({ c: { fieldName: c.name, displayName: c.name }, i }));
  const idx = shown.filter((s) => s.i >= 0);
  const cols: Column[] = idx.map((s, p) => ({
    ...columns[s.i]!,
    name: s.c.displayName ?? s.c.fieldName,
    position: p,
  }));
  const projected = useMemo(() => rows.map((r) => idx.map((s) => r[s.i] ?? null)), [rows]);
  return (
    <div class="w-table">
      <Grid columns={cols} rows={projected} label={props.widget.spec?.frame?.title ?? 'Table'} />
    </div>
  );
}

/** Single and multi select, date range and date pickers: the values come from the filter's own queries. */
function FilterWidget(props: {
  widget: Widget;
  results: WidgetResults | undefined;
  selections: Selections;
  onSelect: (s: Selections) => void;
}) {
  const w = props.widget;
  const type = w.spec?.widgetType ?? '';
  const sel = props.selections[w.name];
  const title = w.spec?.frame?.title || enc(w, 'fields')?.displayName || w.name;
  // The distinct values over every dataset the filter reads (its first field), with the SQL type of the first.
  const all = Object.values(props.results ?? {});
  const values = [...new Set(all.flatMap((r) => r.rows.map((row) => row[0] ?? null)))];
  const sqlType = all.find((r) => r.columns[0])?.columns[0]?.type_text;
  const set = (s: Selections[string] | undefined) => {
    const next = { ...props.selections };
    if (s) next[w.name] = { ...s, ...(sqlType ? { type: sqlType } : {}) };
    else delete next[w.name];
    props.onSelect(next);
  };
  let body;
  if (type === 'filter-single-select') {
    body = (
      <select
        aria-label={title}
        value={sel?.values?.[0] ?? ''}
        onChange={(e) => set(e.currentTarget.value === '' ? undefined : { values: [e.currentTarget.value] })}
      >
        <option value="">All</option>
        {values.map((v) => (
          <option value={v ?? ''}>{v ?? 'null'}</option>
        ))}
      </select>
    );
  } else if (type === 'filter-multi-select') {
    const chosen = new Set(sel?.values ?? []);
    body = (
      <div class="multi" role="group" aria-label={title}>
        {values.map((v) => (
          <label>
            <input
              type="checkbox"
              checked={chosen.has(v)}
              onChange={(e) => {
                const n = new Set(chosen);
                if (e.currentTarget.checked) n.add(v);
                else n.delete(v);
                set(n.size ? { values: [...n] } : undefined);
              }}
            />
            {v ?? 'null'}
          </label>
        ))}
      </div>
    );
  } else if (type === 'filter-date-range-picker' || type === 'filter-date-picker') {
    const range = sel?.range ?? {};
    const day = (s?: string) => (s ? s.slice(0, 10) : '');
    const timestamp = /TIMESTAMP/i.test(sqlType ?? '');
    const update = (min: string, max: string) =>
      set(
        min || max
          ? {
              range: {
                ...(min ? { min } : {}),
                ...(max ? { max: timestamp ? `${max}T23:59:59.999` : max } : {}),
              },
            }
          : undefined,
      );
    body = (
      <span class="range">
        <input
          type="date"
          aria-label={`${title} from`}
          value={day(range.min)}
          onChange={(e) => update(e.currentTarget.value, day(range.max))}
        />
        {type === 'filter-date-range-picker' && (
          <>
            {' – '}
            <input
              type="date"
              aria-label={`${title} to`}
              value={day(range.max)}
              onChange={(e) => update(day(range.min), e.currentTarget.value)}
            />
          </>
        )}
      </span>
    );
  } else {
    body = <span class="note">Filter type “{type}” is not drawn by MiniLake.</span>;
  }
  return (
    <div class="w-filter" data-filter={w.name}>
      <label class="w-filter-title">{title}</label>
      {body}
    </div>
  );
}

// ---- the list of dashboards ---------------------------------------------------------------------------------

interface Listed {
  dashboard_id: string;
  display_name: string;
  lifecycle_state: string;
  create_time?: string;
  warehouse_id?: string;
}

export function DashboardsList() {
  const [items, setItems] = useState<Listed[] | null>(null);
  const [trashed, setTrashed] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const reload = async () => {
    try {
      const out: Listed[] = [];
      let token: string | undefined;
      do {
        const p = await api<{ dashboards?: Listed[]; next_page_token?: string }>(
          'GET',
          `/api/2.0/lakeview/dashboards?page_size=100&show_trashed=${trashed}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`,
        );
        out.push(...(p.dashboards ?? []));
        token = p.next_page_token;
      } while (token);
      setItems(out);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void reload(), [trashed]);
  const act = async (method: string, path: string) => {
    await api(method, path).catch(setError);
    void reload();
  };
  return (
    <section class="view" aria-label="Dashboards">
      <h2>Dashboards</h2>
      <div class="filters">
        <label>
          <input type="checkbox" checked={trashed} onChange={(e) => setTrashed(e.currentTarget.checked)} />{' '}
          Show the trash
        </label>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {items && items.length === 0 && (
        <p class="note">No dashboards yet: create one with the Lakeview API, a bundle or Terraform.</p>
      )}
      {items && items.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Created</th>
              <th>Warehouse</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.dashboard_id}>
                <td>
                  <a href={`/ui/dashboards/${d.dashboard_id}`}>{d.display_name}</a>
                </td>
                <td>
                  <span class="badge">{d.lifecycle_state}</span>
                </td>
                <td>{d.create_time ? new Date(d.create_time).toLocaleString() : ''}</td>
                <td>{d.warehouse_id}</td>
                <td>
                  {d.lifecycle_state === 'TRASHED' ? (
                    <button
                      type="button"
                      onClick={() =>
                        void act('POST', `/_minilake/lakeview/dashboards/${d.dashboard_id}/restore`)
                      }
                    >
                      Restore
                    </button>
                  ) : (
                    <>
                      <a href={`/ui/dashboards/${d.dashboard_id}/published`}>Published</a>{' '}
                      <button
                        type="button"
                        aria-label={`Move ${d.display_name} to the trash`}
                        onClick={() => void act('DELETE', `/api/2.0/lakeview/dashboards/${d.dashboard_id}`)}
                      >
                        Trash
                      </button>
                    </>
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
