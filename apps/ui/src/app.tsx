/** The shell: navigation between the views (path routing under /ui/), notices, the help panel. */
import { useEffect, useState } from 'preact/hooks';
import { CatalogView, HelpPanel, HistoryView, JobsView, QueriesView } from './panels';
import { navigate, useRoute } from './route';
import { activeWarehouse, Workspace } from './workspace';

const VIEWS = [
  ['editor', 'Editor'],
  ['queries', 'Queries'],
  ['history', 'History'],
  ['catalog', 'Catalog'],
  ['jobs', 'Jobs'],
] as const;
type View = (typeof VIEWS)[number][0];

const viewFromPath = (): View => {
  const seg = location.pathname.replace(/^\/ui\/?/, '').split('/')[0] ?? '';
  return (VIEWS.find(([v]) => v === seg)?.[0] ?? 'editor') as View;
};

export function App() {
  const route = useRoute();
  const view = viewFromPath();
  const [help, setHelp] = useState(false);
  const [notice, setNotice] = useState('');
  void route; // the view follows the address (useRoute re-renders on every change)
  const go = (v: View) => navigate(v === 'editor' ? '/ui/' : `/ui/${v}`);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = (e.target as HTMLElement)?.closest?.('input, textarea, select, .monaco-editor');
      if (e.key === '?' && !typing) {
        e.preventDefault();
        setHelp((h) => !h);
      } else if (e.key === 'Escape' && help) setHelp(false);
      else if (e.altKey && /^[1-5]$/.test(e.key)) {
        e.preventDefault();
        go(VIEWS[Number(e.key) - 1]![0]);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
    };
  }, [help]);
  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(''), 6000);
    return () => clearTimeout(t);
  }, [notice]);
  // Opening something in the editor from another view switches to it.
  useEffect(() => {
    const onOpen = () => go('editor');
    window.addEventListener('minilake:open', onOpen);
    return () => window.removeEventListener('minilake:open', onOpen);
  }, []);

  return (
    <div class="app">
      <header>
        <span class="brand">MiniLake SQL</span>
        <nav aria-label="Views">
          {VIEWS.map(([v, label], i) => (
            <a
              href={v === 'editor' ? '/ui/' : `/ui/${v}`}
              aria-current={view === v ? 'page' : undefined}
              title={`Alt+${i + 1}`}
              onClick={(e) => {
                e.preventDefault();
                go(v);
              }}
            >
              {label}
            </a>
          ))}
          <a href="/jupyter/" target="_blank" rel="noopener">
            Jupyter
          </a>
        </nav>
        <button
          type="button"
          class="help-btn"
          aria-label="Keyboard shortcuts (?)"
          onClick={() => setHelp(true)}
        >
          ?
        </button>
      </header>
      <main>
        <Workspace visible={view === 'editor'} onNotice={setNotice} />
        <QueriesView visible={view === 'queries'} />
        <HistoryView visible={view === 'history'} />
        <CatalogView visible={view === 'catalog'} warehouseId={activeWarehouse} />
        <JobsView visible={view === 'jobs'} />
      </main>
      {notice && (
        <div class="notice" role="status">
          {notice}
        </div>
      )}
      {help && <HelpPanel onClose={() => setHelp(false)} />}
    </div>
  );
}
