/**
 * The SQL editor page: tabs (kept in localStorage), the warehouse picker, run / run selection / cancel, saving
 * to the Queries API, and the result below.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, runStatement, warehouses, type RunHandle, type Warehouse } from './api';
import type * as Monaco from './monaco';
import { errorPosition, offsetOf } from './error-position';
import { ResultsPanel, type ErrorAt, type ResultState } from './results';
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

interface RunState {
  handle?: RunHandle;
  result: ResultState | null;
  error: unknown;
  /** Where the error points in the editor, when its message says (line/pos). */
  errorAt?: ErrorAt;
  running: boolean;
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
  const warehouseId = store.warehouse ?? whs.find((w) => w.id === 'dev')?.id ?? whs[0]?.id ?? 'dev';

  const setRun = (tabId: string, patch: Partial<RunState>) =>
    setRuns((r) => ({
      ...r,
      [tabId]: { result: null, error: null, running: false, ...r[tabId], ...patch },
    }));

  const execute = useCallback(() => {
    const ed = editorRef.current;
    const s = storeRef.current;
    const tabId = s.active;
    if (!ed) return;
    const sel = ed.getSelection();
    const model = ed.getModel()!;
    const selected = sel && !sel.isEmpty();
    const raw = selected ? model.getValueInRange(sel) : model.getValue();
    const text = raw.trim();
    if (!text) return;
    // Where the statement sent starts in the model, so an error's line/pos maps back onto the editor.
    const origin =
      (selected ? model.getOffsetAt(sel.getStartPosition()) : 0) + raw.length - raw.trimStart().length;
    const monaco = editorModule!.monaco;
    monaco.editor.setModelMarkers(model, MARKER_OWNER, []);
    const t0 = performance.now();
    const handle = runStatement(text, {
      warehouseId: s.warehouse ?? warehouseIdRef.current,
      onAccepted: () => setRun(tabId, {}),
      onRows: (columns, rows, totalRows) =>
        setRun(tabId, {
          result: { statementId: handle.id(), columns, rows, totalRows, truncated: false, loading: true },
        }),
    });
    setRun(tabId, { handle, running: true, error: null, errorAt: undefined, result: null });
    handle.done.then(
      (r) => {
        catalogCache.invalidate();
        setRun(tabId, {
          running: false,
          handle: undefined,
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
      },
      (e: unknown) => {
        catalogCache.invalidate();
        const pos = e instanceof ApiError ? errorPosition(e.message) : null;
        let errorAt: ErrorAt | undefined;
        if (pos && !model.isDisposed()) {
          const at = model.getPositionAt(origin + offsetOf(text, pos));
          errorAt = { ...pos, lineNumber: at.lineNumber, editorColumn: at.column };
          // A squiggle under the word at the position (or the character before it at a line's end).
          const word = model.getWordAtPosition(at);
          const lineEnd = model.getLineMaxColumn(at.lineNumber);
          const start = word
            ? word.startColumn
            : at.column < lineEnd
              ? at.column
              : Math.max(1, at.column - 1);
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
        }
        setRun(tabId, { running: false, handle: undefined, error: e, errorAt, result: null });
      },
    );
  }, []);
  const warehouseIdRef = useRef(warehouseId);
  warehouseIdRef.current = warehouseId;
  currentWarehouse = warehouseId;

  const cancel = useCallback(() => {
    const r = runsRef.current[storeRef.current.active];
    void r?.handle?.cancel();
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
              {runs[t.id]?.running ? ' ●' : ''}
            </button>
            <button
              type="button"
              class="close"
              aria-label={`Close ${t.title}`}
              onClick={() => closeTab(t.id)}
            >
              ×
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
          +
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
          ▶ Run
        </button>
        <button type="button" onClick={cancel} disabled={!run?.running} title="Shift+Escape">
          ■ Cancel
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
        <span class="status" aria-live="polite">
          {run?.running ? `Running${run.handle?.id() ? ` ${run.handle.id()}` : ''}…` : ''}
        </span>
      </div>
      {!editorReady && <div class="note loading">Loading the editor…</div>}
      <div class="editor" ref={host} hidden={!editorReady} />
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
      <div class="result-area">
        <ResultsPanel
          result={run?.result ?? null}
          error={run?.error}
          errorAt={run?.errorAt}
          onJump={(at) => {
            const ed = editorRef.current;
            if (!ed) return;
            const p = { lineNumber: at.lineNumber, column: at.editorColumn };
            ed.setPosition(p);
            ed.revealPositionInCenterIfOutsideViewport(p);
            ed.focus();
          }}
          running={run?.running ?? false}
        />
      </div>
    </section>
  );
}
