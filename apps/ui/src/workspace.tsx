/**
 * The SQL editor page: tabs (kept in localStorage), the warehouse picker, run / run selection / cancel, saving
 * to the Queries API; the schema browser beside the editor and the results below it, both behind draggable
 * dividers. A script runs statement by statement (stopping at the first failure), one result tab each.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, runStatement, warehouses, type RunHandle, type Warehouse } from './api';
import type * as Monaco from './monaco';
import { errorPosition, offsetOf } from './error-position';
import { Close, Dot, Play, Plus, Server, Stop } from './icons';
import { ResultsPanel, type ErrorAt, type ResultState } from './results';
import { href } from './routes';
import { SchemaTree } from './schema-tree';
import { splitStatements } from './split';
import { Splitter, useStoredSize } from './splitter';
import { catalogCache } from './sql-language';

// Monaco is most of the bundle: it loads in its own chunk after the page has painted.
type EditorModule = typeof import('./editor');
let editorModule: EditorModule | undefined;
const loadEditor = () => import('./editor').then((m) => (editorModule = m));

export interface Tab {
  id: string;
  title: string;
  sql: string;
  /** The saved query this tab edits (Queries API id), once saved. */
  queryId?: string;
  description?: string;
}
interface Stored {
  tabs: Tab[];
  active: string;
  warehouse?: string;
}

const STORE_KEY = 'minilake.ui.tabs.v1';
const newId = () => Math.random().toString(36).slice(2, 10);

function loadTabs(): Stored {
  try {
    const s = JSON.parse(localStorage.getItem(STORE_KEY) ?? '') as Stored;
    if (Array.isArray(s.tabs) && s.tabs.length) return s;
  } catch {
    // First visit or unreadable storage: start with one tab.
  }
  const id = newId();
  return { tabs: [{ id, title: 'Query 1', sql: 'SELECT 6 * 7 AS answer' }], active: id };
}

let currentWarehouse = 'dev';
/** The warehouse the editor runs on, for the other views' statements (table preview). */
export const activeWarehouse = () => currentWarehouse;

/** Lets other views (history, saved queries, explorer) open SQL in a new editor tab. */
type Opener = (tab: Omit<Tab, 'id'>) => void;
let opener: Opener | null = null;
const pending: Omit<Tab, 'id'>[] = [];
export function openInEditor(tab: Omit<Tab, 'id'>): void {
  window.dispatchEvent(new Event('minilake:open'));
  if (opener) opener(tab);
  else pending.push(tab);
}

/** One statement of a run: its text, where it starts in the editor's model, and its outcome. */
interface StatementRun {
  text: string;
  origin: number;
  result: ResultState | null;
  error: unknown;
  /** Where the error points in the editor, when its message says (line/pos). */
  errorAt?: ErrorAt;
  running: boolean;
}
interface RunState {
  handle?: RunHandle;
  statements: StatementRun[];
  /** The result tab shown. */
  shown: number;
  running: boolean;
  /** Set by cancel: the statements after the running one are not started. */
  stopped?: boolean;
}

const MARKER_OWNER = 'minilake-sql';

export function Workspace(props: { visible: boolean; onNotice: (msg: string) => void }) {
  const [store, setStore] = useState<Stored>(loadTabs);
  const [whs, setWhs] = useState<Warehouse[]>([]);
  const [runs, setRuns] = useState<Record<string, RunState>>({});
  const [editorReady, setEditorReady] = useState(false);
  const [saving, setSaving] = useState<{ tabId: string; name: string; description: string } | null>(null);
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<Monaco.editor.IStandaloneCodeEditor | null>(null);
  const models = useRef(new Map<string, Monaco.editor.ITextModel>());
  const storeRef = useRef(store);
  storeRef.current = store;

  const persist = useCallback((s: Stored) => {
    storeRef.current = s;
    setStore(s);
    localStorage.setItem(STORE_KEY, JSON.stringify(s));
  }, []);

  const modelFor = (tab: Tab) => {
    let m = models.current.get(tab.id);
    if (!m) {
      m = editorModule!.monaco.editor.createModel(tab.sql, editorModule!.LANGUAGE_ID);
      m.onDidChangeContent(() => {
        const s = storeRef.current;
        persist({ ...s, tabs: s.tabs.map((t) => (t.id === tab.id ? { ...t, sql: m!.getValue() } : t)) });
      });
      models.current.set(tab.id, m);
    }
    return m;
  };

  const activeTab = store.tabs.find((t) => t.id === store.active) ?? store.tabs[0]!;
  const run = runs[activeTab.id];
  const shown = run?.statements[run.shown];
  const mainRef = useRef<HTMLDivElement>(null);
  const [treeWidth, setTreeWidth] = useStoredSize('minilake.ui.tree', 240, 140, () => window.innerWidth / 2);
  const [editorHeight, setEditorHeight] = useStoredSize('minilake.ui.editor', 260, 80, () =>
    Math.max(120, (mainRef.current?.clientHeight ?? window.innerHeight) - 120),
  );
  /** Inserts a name from the schema browser at the cursor (replacing the selection). */
  const insert = (text: string) => {
    const ed = editorRef.current;
    if (!ed) return;
    const sel = ed.getSelection();
    if (sel) ed.executeEdits('schema-tree', [{ range: sel, text, forceMoveMarkers: true }]);
    ed.focus();
  };
  const warehouseId = store.warehouse ?? whs.find((w) => w.id === 'dev')?.id ?? whs[0]?.id ?? 'dev';

  const setRun = (tabId: string, patch: Partial<RunState>) =>
    setRuns((r) => ({
      ...r,
      [tabId]: { statements: [], shown: 0, running: false, ...r[tabId], ...patch },
    }));
  const setStatement = (tabId: string, i: number, patch: Partial<StatementRun>) =>
    setRuns((r) => {
      const cur = r[tabId];
      if (!cur) return r;
      const statements = cur.statements.map((x, k) => (k === i ? { ...x, ...patch } : x));
      return { ...r, [tabId]: { ...cur, statements } };
    });

  /** Marks an error's position in the model (a squiggle under the word there) and says where it is. */
  const markError = (model: Monaco.editor.ITextModel, text: string, origin: number, e: unknown) => {
    const pos = e instanceof ApiError ? errorPosition(e.message) : null;
    if (!pos || model.isDisposed()) return undefined;
    const monaco = editorModule!.monaco;
    const at = model.getPositionAt(origin + offsetOf(text, pos));
    const word = model.getWordAtPosition(at);
    const lineEnd = model.getLineMaxColumn(at.lineNumber);
    const start = word ? word.startColumn : at.column < lineEnd ? at.column : Math.max(1, at.column - 1);
    const end = word ? word.endColumn : Math.min(lineEnd, start + 1);
    monaco.editor.setModelMarkers(model, MARKER_OWNER, [
      {
        severity: monaco.MarkerSeverity.Error,
        message: (e as ApiError).message,
        source: (e as ApiError).sqlState ? `SQLSTATE ${(e as ApiError).sqlState}` : undefined,
        startLineNumber: at.lineNumber,
        startColumn: start,
        endLineNumber: at.lineNumber,
        endColumn: Math.max(end, start + 1),
      },
    ]);
    return { ...pos, lineNumber: at.lineNumber, editorColumn: at.column } satisfies ErrorAt;
  };

  const execute = useCallback(() => {
    const ed = editorRef.current;
    const s = storeRef.current;
    const tabId = s.active;
    if (!ed) return;
    const sel = ed.getSelection();
    const model = ed.getModel()!;
    const selected = sel && !sel.isEmpty();
    const raw = selected ? model.getValueInRange(sel) : model.getValue();
    const base = selected ? model.getOffsetAt(sel.getStartPosition()) : 0;
    const pieces = splitStatements(raw);
    if (!pieces.length) return;
    const monaco = editorModule!.monaco;
    monaco.editor.setModelMarkers(model, MARKER_OWNER, []);
    const statements: StatementRun[] = pieces.map((p) => ({
      text: p.text,
      origin: base + p.offset,
      result: null,
      error: null,
      running: false,
    }));
    setRun(tabId, { statements, shown: 0, running: true, stopped: false, handle: undefined });
    void (async () => {
      for (let i = 0; i < statements.length; i++) {
        if (runsRef.current[tabId]?.stopped) break;
        const { text, origin } = statements[i]!;
        const t0 = performance.now();
        const handle = runStatement(text, {
          warehouseId: storeRef.current.warehouse ?? warehouseIdRef.current,
          onAccepted: () => setRun(tabId, {}),
          onRows: (columns, rows, totalRows) =>
            setStatement(tabId, i, {
              result: { statementId: handle.id(), columns, rows, totalRows, truncated: false, loading: true },
            }),
        });
        setRun(tabId, { handle, shown: i });
        setStatement(tabId, i, { running: true });
        try {
          const r = await handle.done;
          catalogCache.invalidate();
          setStatement(tabId, i, {
            running: false,
            result: {
              statementId: r.statementId,
              columns: r.columns,
              rows: r.rows,
              totalRows: r.totalRows,
              truncated: r.truncated,
              loading: false,
              ms: performance.now() - t0,
              canceled: r.state === 'CANCELED',
            },
          });
          if (r.state === 'CANCELED') break;
        } catch (e) {
          catalogCache.invalidate();
          const errorAt = markError(model, text, origin, e);
          setStatement(tabId, i, { running: false, error: e, errorAt, result: null });
          break; // a script stops at its first failure
        }
      }
      setRun(tabId, { running: false, handle: undefined });
    })();
  }, []);
  const warehouseIdRef = useRef(warehouseId);
  warehouseIdRef.current = warehouseId;
  currentWarehouse = warehouseId;

  const cancel = useCallback(() => {
    const tabId = storeRef.current.active;
    const r = runsRef.current[tabId];
    if (!r?.running) return;
    setRun(tabId, { stopped: true });
    runsRef.current = { ...runsRef.current, [tabId]: { ...r, stopped: true } };
    void r.handle?.cancel();
  }, []);
  const runsRef = useRef(runs);
  runsRef.current = runs;

  const addTab = useCallback((init?: Omit<Tab, 'id'>) => {
    const s = storeRef.current;
    const id = newId();
    const tab: Tab = { title: `Query ${s.tabs.length + 1}`, sql: '', ...init, id };
    persist({ ...s, tabs: [...s.tabs, tab], active: id });
  }, []);
  const closeTab = (id: string) => {
    const s = storeRef.current;
    const tabs = s.tabs.filter((t) => t.id !== id);
    models.current.get(id)?.dispose();
    models.current.delete(id);
    if (!tabs.length) {
      const nid = newId();
      tabs.push({ id: nid, title: 'Query 1', sql: '' });
    }
    persist({
      ...s,
      tabs,
      active: s.active === id ? tabs[Math.max(0, s.tabs.findIndex((t) => t.id === id) - 1)]!.id : s.active,
    });
  };

  // Ctrl/Cmd+S and the Save button open the form; its submit stores the query.
  const save = () => {
    const s = storeRef.current;
    const tab = s.tabs.find((t) => t.id === s.active)!;
    setSaving({ tabId: tab.id, name: tab.title, description: tab.description ?? '' });
  };
  const store_ = async (tabId: string, name: string, description: string) => {
    const tab = storeRef.current.tabs.find((t) => t.id === tabId);
    if (!tab || !name.trim()) return;
    setSaving(null);
    const query_text = models.current.get(tab.id)?.getValue() ?? tab.sql;
    try {
      let id = tab.queryId;
      if (id) {
        await api('PATCH', `/api/2.0/sql/queries/${encodeURIComponent(id)}`, {
          update_mask: 'display_name,description,query_text,warehouse_id',
          query: { display_name: name, description, query_text, warehouse_id: warehouseIdRef.current },
        });
      } else {
        const q = await api<{ id: string }>('POST', '/api/2.0/sql/queries', {
          query: { display_name: name, description, query_text, warehouse_id: warehouseIdRef.current },
        });
        id = q.id;
      }
      const cur = storeRef.current;
      persist({
        ...cur,
        tabs: cur.tabs.map((t) => (t.id === tab.id ? { ...t, title: name, description, queryId: id } : t)),
      });
      props.onNotice(`Saved query “${name}”.`);
    } catch (e) {
      props.onNotice(
        e instanceof ApiError && e.status === 501
          ? 'Saving needs the Queries API (/api/2.0/sql/queries), which this server does not implement yet.'
          : `Saving failed: ${(e as Error).message}`,
      );
    }
  };

  // Mount Monaco once; tabs swap models.
  useEffect(() => {
    let disposed = false;
    opener = (t) => addTab(t);
    for (const t of pending.splice(0)) addTab(t);
    warehouses().then(setWhs, () => setWhs([]));
    void loadEditor().then(({ createEditor, monaco }) => {
      if (disposed) return;
      const ed = createEditor(host.current!);
      editorRef.current = ed;
      const s = storeRef.current;
      ed.setModel(modelFor(s.tabs.find((t) => t.id === s.active) ?? s.tabs[0]!));
      ed.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => execute());
      ed.addCommand(monaco.KeyMod.Shift | monaco.KeyCode.Escape, () => cancel());
      ed.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => save());
      ed.focus();
      setEditorReady(true);
    });
    return () => {
      disposed = true;
      opener = null;
      editorRef.current?.dispose();
    };
  }, []);
  useEffect(() => {
    const ed = editorRef.current;
    if (ed && ed.getModel() !== modelFor(activeTab)) ed.setModel(modelFor(activeTab));
  }, [activeTab.id, editorReady]);
  useEffect(() => {
    if (props.visible) editorRef.current?.layout();
  }, [props.visible]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!props.visible) return;
      if (e.altKey && e.key.toLowerCase() === 'n') {
        e.preventDefault();
        addTab();
      } else if (e.altKey && e.key.toLowerCase() === 'w') {
        e.preventDefault();
        closeTab(storeRef.current.active);
      } else if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !editorRef.current?.hasTextFocus()) {
        e.preventDefault();
        execute();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [props.visible]);

  return (
    <section class="workspace" hidden={!props.visible} aria-label="SQL editor">
      <div class="tabs" role="tablist" aria-label="Query tabs">
        {store.tabs.map((t) => (
          <div class={`tab${t.id === activeTab.id ? ' active' : ''}`} role="presentation">
            <button
              type="button"
              role="tab"
              aria-selected={t.id === activeTab.id}
              onClick={() => persist({ ...storeRef.current, active: t.id })}
              onDblClick={() => {
                const title = window.prompt('Tab name', t.title);
                if (title)
                  persist({
                    ...storeRef.current,
                    tabs: storeRef.current.tabs.map((x) => (x.id === t.id ? { ...x, title } : x)),
                  });
              }}
            >
              {t.title}
              {runs[t.id]?.running ? <Dot size={10} class="running" title="running" /> : ''}
            </button>
            <button
              type="button"
              class="close"
              aria-label={`Close ${t.title}`}
              onClick={() => closeTab(t.id)}
            >
              <Close size={12} />
            </button>
          </div>
        ))}
        <button
          type="button"
          class="add"
          aria-label="New tab (Alt+N)"
          title="New tab (Alt+N)"
          onClick={() => addTab()}
        >
          <Plus />
        </button>
      </div>
      <div class="toolbar" role="toolbar" aria-label="Editor actions">
        <button
          type="button"
          class="primary"
          onClick={execute}
          disabled={run?.running}
          title="Ctrl/Cmd+Enter"
        >
          <Play /> Run
        </button>
        <button type="button" onClick={cancel} disabled={!run?.running} title="Shift+Escape">
          <Stop /> Cancel
        </button>
        <button type="button" onClick={save} title="Ctrl/Cmd+S">
          Save
        </button>
        <label>
          Warehouse{' '}
          <select
            value={warehouseId}
            onChange={(e) => persist({ ...storeRef.current, warehouse: e.currentTarget.value })}
          >
            {(whs.length ? whs : [{ id: warehouseId, name: warehouseId }]).map((w) => (
              <option value={w.id}>
                {w.name} ({w.id})
              </option>
            ))}
          </select>
        </label>
        <a
          class="button"
          href={href({ view: 'warehouse', id: warehouseId })}
          aria-label={`Open warehouse ${warehouseId}`}
          title="The warehouse's page: state, start and stop, connection details"
        >
          <Server />
        </a>
        <span class="status" aria-live="polite">
          {run?.running ? `Running${run.handle?.id() ? ` ${run.handle.id()}` : ''}…` : ''}
        </span>
      </div>
      <div class="ws-body" style={{ gridTemplateColumns: `${treeWidth}px 6px minmax(0, 1fr)` }}>
        <SchemaTree onInsert={insert} />
        <Splitter
          orientation="vertical"
          size={treeWidth}
          onSize={setTreeWidth}
          label="Resize the schema browser"
        />
        <div class="ws-main" ref={mainRef}>
          {!editorReady && <div class="note loading">Loading the editor…</div>}
          <div class="editor" ref={host} hidden={!editorReady} style={{ height: `${editorHeight}px` }} />
          <Splitter
            orientation="horizontal"
            size={editorHeight}
            onSize={setEditorHeight}
            label="Resize the editor and the results"
          />
          <div class="result-area">
            {run && run.statements.length > 1 && (
              <div class="tabs result-tabs" role="tablist" aria-label="Statement results">
                {run.statements.map((st, i) => (
                  <div class={`tab${i === run.shown ? ' active' : ''}`} role="presentation">
                    <button
                      type="button"
                      role="tab"
                      aria-selected={i === run.shown}
                      title={st.text}
                      class={st.error ? 'failed' : ''}
                      onClick={() => setRun(activeTab.id, { shown: i })}
                    >
                      {st.running ? <Dot size={10} class="running" /> : null}
                      Statement {i + 1}
                    </button>
                  </div>
                ))}
              </div>
            )}
            <ResultsPanel
              result={shown?.result ?? null}
              error={shown?.error}
              errorAt={shown?.errorAt}
              onJump={(at) => {
                const ed = editorRef.current;
                if (!ed) return;
                const p = { lineNumber: at.lineNumber, column: at.editorColumn };
                ed.setPosition(p);
                ed.revealPositionInCenterIfOutsideViewport(p);
                ed.focus();
              }}
              running={shown?.running ?? false}
            />
          </div>
        </div>
      </div>
      {saving && (
        <div class="help" role="dialog" aria-modal="true" aria-label="Save query">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void store_(saving.tabId, saving.name, saving.description);
            }}
            onKeyDown={(e) => e.key === 'Escape' && setSaving(null)}
          >
            <h2>Save query</h2>
            <p class="note">
              Stored with the Queries API (/api/2.0/sql/queries), like a query saved in Databricks SQL.
            </p>
            <label class="field">
              Name
              <input
                required
                autoFocus
                value={saving.name}
                onInput={(e) => setSaving({ ...saving, name: e.currentTarget.value })}
              />
            </label>
            <label class="field">
              Description
              <textarea
                rows={3}
                value={saving.description}
                onInput={(e) => setSaving({ ...saving, description: e.currentTarget.value })}
              />
            </label>
            <div class="toolbar">
              <button type="submit" class="primary">
                Save query
              </button>
              <button type="button" onClick={() => setSaving(null)}>
                Cancel
              </button>
            </div>
          </form>
        </div>
      )}
    </section>
  );
}
