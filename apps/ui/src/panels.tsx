/** The other views: saved queries, query history, the catalog explorer, keyboard help. */
import { useEffect, useState } from 'preact/hooks';
import {
  api,
  ApiError,
  qs,
  quoteIdent,
  runStatement,
  uc,
  warehouses,
  type Cell,
  type Column,
  type UcCatalog,
  type UcSchema,
  type UcTable,
  type UcVolume,
} from './api';
import { Grid } from './grid';
import { ChevronDown, ChevronRight, Refresh, Table, Volume } from './icons';
import { TableExtras, VolumePage } from './pages/catalog';
import { ErrorBox } from './results';
import { navigate, uiPath, useRoute } from './route';
import { href } from './routes';
import { openInEditor } from './workspace';

const when = (ms?: number | string) => (ms ? new Date(Number(ms)).toLocaleString() : '');

// ---- saved queries (Queries API, databricks-sdk-go sql.Query) -------------------------------------------------

interface SavedQuery {
  id: string;
  display_name?: string;
  description?: string;
  query_text?: string;
  warehouse_id?: string;
  update_time?: string;
  owner_user_name?: string;
}

export function QueriesView(props: { visible: boolean }) {
  const [items, setItems] = useState<SavedQuery[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async () => {
    try {
      const out: SavedQuery[] = [];
      let token: string | undefined;
      do {
        const page = await api<{ results?: SavedQuery[]; next_page_token?: string }>(
          'GET',
          `/api/2.0/sql/queries?${qs({ page_size: 100, page_token: token })}`,
        );
        out.push(...(page.results ?? []));
        token = page.next_page_token;
      } while (token);
      setItems(out);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    if (props.visible) void load();
  }, [props.visible]);
  // A saved query's address, /ui/queries/<id> (where Databricks' /sql/editor/<id> leads), opens it in the editor.
  const route = useRoute();
  useEffect(() => {
    if (route[0] !== 'queries' || !route[1]) return;
    api<SavedQuery>('GET', `/api/2.0/sql/queries/${encodeURIComponent(route[1])}`).then(
      (q) =>
        openInEditor({
          title: q.display_name ?? q.id,
          sql: q.query_text ?? '',
          queryId: q.id,
          description: q.description,
        }),
      setError,
    );
  }, [route.join('/')]);
  const remove = async (q: SavedQuery) => {
    if (!window.confirm(`Move “${q.display_name}” to the trash?`)) return;
    await api('DELETE', `/api/2.0/sql/queries/${encodeURIComponent(q.id)}`).catch(setError);
    void load();
  };
  return (
    <section class="view" hidden={!props.visible} aria-label="Saved queries">
      <h2>Saved queries</h2>
      {error instanceof ApiError && error.status === 501 ? (
        <p class="note">
          This server does not implement the Queries API (<code>/api/2.0/sql/queries</code>) yet, so queries
          cannot be saved. Tabs are still kept in this browser.
        </p>
      ) : error ? (
        <ErrorBox error={error} />
      ) : null}
      {items && items.length === 0 && (
        <p class="note">No saved queries. Save one from the editor (Ctrl/Cmd+S).</p>
      )}
      {items && items.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Description</th>
              <th>Query</th>
              <th>Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((q) => (
              <tr>
                <td>
                  <button
                    type="button"
                    class="link"
                    onClick={() =>
                      openInEditor({
                        title: q.display_name ?? q.id,
                        sql: q.query_text ?? '',
                        queryId: q.id,
                        description: q.description,
                      })
                    }
                  >
                    {q.display_name ?? q.id}
                  </button>
                </td>
                <td>{q.description}</td>
                <td>
                  <code class="clip">{q.query_text}</code>
                </td>
                <td>{q.update_time ? new Date(q.update_time).toLocaleString() : ''}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => void remove(q)}
                    aria-label={`Delete ${q.display_name}`}
                  >
                    Delete
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

// ---- query history ------------------------------------------------------------------------------------------

interface QueryInfo {
  query_id: string;
  status: string;
  query_text?: string;
  error_message?: string;
  query_start_time_ms?: number;
  duration?: number;
  warehouse_id?: string;
  user_name?: string;
  rows_produced?: number;
  statement_type?: string;
}
const STATUSES = ['QUEUED', 'RUNNING', 'FINISHED', 'FAILED', 'CANCELED'];

export function HistoryView(props: { visible: boolean }) {
  const [items, setItems] = useState<QueryInfo[]>([]);
  const [status, setStatus] = useState('');
  const [text, setText] = useState('');
  const [warehouse, setWarehouse] = useState('');
  const [since, setSince] = useState('');
  const [whs, setWhs] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    if (props.visible) warehouses().then(setWhs, () => setWhs([]));
  }, [props.visible]);
  const [error, setError] = useState<unknown>(null);
  const load = async () => {
    try {
      const params: Record<string, string | number> = { max_results: 200 };
      if (status) params['filter_by.statuses'] = status;
      if (warehouse) params['filter_by.warehouse_ids'] = warehouse;
      if (since) params['filter_by.query_start_time_range.start_time_ms'] = Date.now() - Number(since);
      const r = await api<{ res?: QueryInfo[] }>('GET', `/api/2.0/sql/history/queries?${qs(params)}`);
      setItems(r.res ?? []);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    if (!props.visible) return;
    void load();
    const t = setInterval(() => void load(), 3000);
    return () => clearInterval(t);
  }, [props.visible, status, warehouse, since]);
  const needle = text.trim().toLowerCase();
  const shown = needle
    ? items.filter(
        (q) =>
          (q.query_text ?? '').toLowerCase().includes(needle) ||
          (q.error_message ?? '').toLowerCase().includes(needle),
      )
    : items;
  return (
    <section class="view" hidden={!props.visible} aria-label="Query history">
      <h2>Query history</h2>
      <div class="filters">
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">all</option>
            {STATUSES.map((s) => (
              <option value={s}>{s.toLowerCase()}</option>
            ))}
          </select>
        </label>
        <label>
          Warehouse{' '}
          <select value={warehouse} onChange={(e) => setWarehouse(e.currentTarget.value)}>
            <option value="">all</option>
            {whs.map((w) => (
              <option value={w.id}>{w.name}</option>
            ))}
          </select>
        </label>
        <label>
          Started{' '}
          <select value={since} onChange={(e) => setSince(e.currentTarget.value)}>
            <option value="">any time</option>
            <option value={String(15 * 60_000)}>in the last 15 minutes</option>
            <option value={String(3_600_000)}>in the last hour</option>
            <option value={String(86_400_000)}>in the last day</option>
          </select>
        </label>
        <label>
          Text <input type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      <table class="list history">
        <thead>
          <tr>
            <th>Status</th>
            <th>Query</th>
            <th>Started</th>
            <th>Duration</th>
            <th>Rows</th>
            <th>Warehouse</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {shown.map((q) => (
            <tr class={`st-${q.status.toLowerCase()}`}>
              <td>
                <span class={`badge ${q.status.toLowerCase()}`}>{q.status}</span>
              </td>
              <td>
                <code class="clip">{q.query_text}</code>
                {q.error_message && <div class="errmsg">{q.error_message}</div>}
              </td>
              <td>{when(q.query_start_time_ms)}</td>
              <td>{q.duration !== undefined ? `${q.duration} ms` : ''}</td>
              <td>{q.rows_produced ?? ''}</td>
              <td>
                {q.warehouse_id && (
                  <a href={href({ view: 'warehouse', id: q.warehouse_id })}>{q.warehouse_id}</a>
                )}
              </td>
              <td>
                <button
                  type="button"
                  onClick={() =>
                    openInEditor({ title: `History ${q.query_id.slice(0, 8)}`, sql: q.query_text ?? '' })
                  }
                >
                  Open
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length === 0 && <p class="note">No statements match.</p>}
    </section>
  );
}

// ---- catalog explorer ---------------------------------------------------------------------------------------

interface Preview {
  columns: Column[];
  rows: Cell[][];
  /** What the rows are (`History`, `Details`); a preview when absent. */
  label?: string;
}

export function CatalogView(props: { visible: boolean; warehouseId: () => string }) {
  const [catalogs, setCatalogs] = useState<UcCatalog[]>([]);
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const [schemas, setSchemas] = useState<Record<string, UcSchema[]>>({});
  const [tables, setTables] = useState<Record<string, { tables: UcTable[]; volumes: UcVolume[] }>>({});
  const [table, setTable] = useState<UcTable | null>(null);
  /** The volume shown instead of a table (`c.s.v`) and the folder inside it. */
  const [volume, setVolume] = useState<{ c: string; s: string; v: string; path: string } | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const route = useRoute();
  const load = () => uc.catalogs().then(setCatalogs, setError);
  useEffect(() => {
    if (props.visible) void load();
  }, [props.visible]);
  const openCatalog = async (c: string) => {
    setOpen((o) => ({ ...o, [c]: true }));
    const list = await uc.schemas(c).catch(() => []);
    setSchemas((x) => ({ ...x, [c]: list }));
  };
  const openSchema = async (c: string, s: string) => {
    setOpen((o) => ({ ...o, [`${c}.${s}`]: true }));
    const [t, v] = await Promise.all([uc.tables(c, s).catch(() => []), uc.volumes(c, s).catch(() => [])]);
    setTables((x) => ({ ...x, [`${c}.${s}`]: { tables: t, volumes: v } }));
    return { tables: t, volumes: v };
  };
  const toggleCatalog = async (c: string) => {
    if (open[c]) return setOpen((o) => ({ ...o, [c]: false }));
    navigate(uiPath('catalog', c));
  };
  const toggleSchema = async (c: string, s: string) => {
    if (open[`${c}.${s}`]) return setOpen((o) => ({ ...o, [`${c}.${s}`]: false }));
    navigate(uiPath('catalog', c, s));
  };
  // The address names what is open: /ui/catalog/<c>[/<s>[/<table or volume>]] (a link, a reload, back).
  useEffect(() => {
    if (!props.visible || route[0] !== 'catalog') return;
    const [, c, s, t, ...rest] = route;
    void (async () => {
      if (c && !schemas[c]) await openCatalog(c);
      else if (c) setOpen((o) => ({ ...o, [c]: true }));
      let listing = c && s ? tables[`${c}.${s}`] : undefined;
      if (c && s && !listing) listing = await openSchema(c, s);
      else if (c && s) setOpen((o) => ({ ...o, [`${c}.${s}`]: true }));
      // The third name is a volume's (its files, with the folder after it) or a table's.
      if (c && s && t && listing?.volumes.some((v) => v.name === t)) {
        setTable(null);
        setVolume({ c, s, v: t, path: rest.join('/') });
      } else {
        setVolume(null);
        if (c && s && t && table?.full_name !== `${c}.${s}.${t}`) await showTable(`${c}.${s}.${t}`);
      }
    })();
  }, [props.visible, route.join('/')]);
  const showTable = async (fullName: string) => {
    setPreview(null);
    setError(null);
    try {
      setTable(await uc.table(fullName));
    } catch (e) {
      setError(e);
    }
  };
  const runPreview = async (t: UcTable) => {
    setPreview(null);
    const name = t.full_name.split('.').map(quoteIdent).join('.');
    try {
      const r = await runStatement(`SELECT * FROM ${name} LIMIT 100`, { warehouseId: props.warehouseId() })
        .done;
      setPreview({ columns: r.columns, rows: r.rows });
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="view catalog" hidden={!props.visible} aria-label="Catalog explorer">
      <div class="tree" role="tree" aria-label="Catalogs">
        <h2>
          Catalog{' '}
          <button type="button" onClick={() => void load()} aria-label="Refresh catalogs">
            <Refresh />
          </button>
        </h2>
        {catalogs.map((c) => (
          <div role="treeitem" aria-expanded={!!open[c.name]}>
            <button type="button" class="node" onClick={() => void toggleCatalog(c.name)}>
              {open[c.name] ? <ChevronDown size={12} /> : <ChevronRight size={12} />} {c.name}
            </button>
            {open[c.name] &&
              (schemas[c.name] ?? []).map((s) => {
                const key = `${c.name}.${s.name}`;
                return (
                  <div role="treeitem" class="indent" aria-expanded={!!open[key]}>
                    <button type="button" class="node" onClick={() => void toggleSchema(c.name, s.name)}>
                      {open[key] ? <ChevronDown size={12} /> : <ChevronRight size={12} />} {s.name}
                    </button>
                    {open[key] && (
                      <div class="indent">
                        {(tables[key]?.tables ?? []).map((t) => (
                          <button
                            type="button"
                            class="node leaf"
                            role="treeitem"
                            aria-current={table?.full_name === t.full_name ? 'page' : undefined}
                            onClick={() => navigate(uiPath('catalog', ...t.full_name.split('.')))}
                          >
                            <Table /> {t.name}
                          </button>
                        ))}
                        {(tables[key]?.volumes ?? []).map((v) => (
                          <button
                            type="button"
                            class="node leaf volume"
                            role="treeitem"
                            aria-current={
                              volume &&
                              `${volume.c}.${volume.s}.${volume.v}` === `${c.name}.${s.name}.${v.name}`
                                ? 'page'
                                : undefined
                            }
                            onClick={() => navigate(uiPath('catalog', c.name, s.name, v.name))}
                          >
                            <Volume /> {v.name}{' '}
                            <span class="type">{v.volume_type?.toLowerCase()} volume</span>
                          </button>
                        ))}
                        {tables[key] && !tables[key].tables.length && !tables[key].volumes.length && (
                          <div class="note">empty</div>
                        )}
                      </div>
                    )}
                  </div>
                );
              })}
          </div>
        ))}
      </div>
      <div class="detail">
        {error ? <ErrorBox error={error} /> : null}
        {volume ? (
          <VolumePage catalog={volume.c} schema={volume.s} volume={volume.v} path={volume.path} />
        ) : table ? (
          <>
            <h2>{table.full_name}</h2>
            <p class="note">
              {table.table_type} {table.data_source_format} {table.comment}
            </p>
            <div class="toolbar">
              <button type="button" onClick={() => void runPreview(table)}>
                Preview 100 rows
              </button>
              <button
                type="button"
                onClick={() =>
                  openInEditor({
                    title: table.name,
                    sql: `SELECT * FROM ${table.full_name.split('.').map(quoteIdent).join('.')} LIMIT 100`,
                  })
                }
              >
                Open in editor
              </button>
              <TableExtras
                table={table}
                warehouseId={props.warehouseId}
                onResult={(r) => setPreview(r)}
                onError={setError}
              />
            </div>
            <table class="list">
              <thead>
                <tr>
                  <th>Column</th>
                  <th>Type</th>
                  <th>Nullable</th>
                  <th>Comment</th>
                </tr>
              </thead>
              <tbody>
                {(table.columns ?? []).map((c) => (
                  <tr>
                    <td>{c.name}</td>
                    <td>
                      <code>{c.type_text}</code>
                    </td>
                    <td>{c.nullable === false ? 'no' : 'yes'}</td>
                    <td>{c.comment}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {preview && (
              <div class="preview">
                <Grid
                  columns={preview.columns}
                  rows={preview.rows}
                  label={`${preview.label ?? 'Preview'} of ${table.full_name}`}
                />
              </div>
            )}
          </>
        ) : (
          <p class="note">Pick a table to see its columns and preview its rows.</p>
        )}
      </div>
    </section>
  );
}

// ---- keyboard help ------------------------------------------------------------------------------------------

export const SHORTCUTS: [string, string][] = [
  ['Ctrl/Cmd + Enter', 'Run the statement (or only the selected text)'],
  ['Shift + Escape', 'Cancel the running statement'],
  ['Ctrl/Cmd + S', 'Save the tab as a query'],
  ['Ctrl + Space', 'Complete catalogs, schemas, tables, columns, keywords, functions'],
  ['Alt + N / Alt + W', 'New tab / close tab'],
  [
    'Alt + 1…9, Alt + 0',
    'Editor, Workspace, Queries, Dashboards, Alerts, Jobs, Pipelines, Catalog, Warehouses, History',
  ],
  ['Arrows, Ctrl/Cmd + C in the grid', 'Move the selected cell, copy it'],
  ['F1 in the editor', 'All editor commands'],
  ['?', 'This help'],
];

export function HelpPanel(props: { onClose: () => void }) {
  // Focus goes back where it was (the editor, a button) when the panel closes.
  // (Read while rendering: the Close button's autoFocus has moved it by the time an effect runs.)
  const [before] = useState(() => document.activeElement as HTMLElement | null);
  useEffect(() => () => before?.focus?.(), []);
  return (
    <div class="help" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts">
      <h2>Keyboard shortcuts</h2>
      <table class="list">
        <tbody>
          {SHORTCUTS.map(([k, v]) => (
            <tr>
              <td>
                <kbd>{k}</kbd>
              </td>
              <td>{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={props.onClose} autoFocus>
        Close
      </button>
    </div>
  );
}
