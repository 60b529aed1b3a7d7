/**
 * The shell: navigation between the views (addresses under /ui/, routes.ts), notices, the help panel. The
 * editor and the list views stay mounted while hidden (tabs, scroll and results survive a visit elsewhere);
 * a dashboard page is loaded with its chart code when one is opened.
 */
import { useEffect, useState } from 'preact/hooks';
import { ExperimentsView } from './experiments';
import { JobPage, JobsList, RunPage } from './pages/jobs';
import { PipelinePage, PipelinesList } from './pages/pipelines';
import { AlertsPage } from './pages/sql-objects';
import { WarehousePage, WarehousesPage } from './pages/warehouses';
import { WorkspaceBrowser } from './pages/workspace-browser';
import { CatalogView, HelpPanel, HistoryView, QueriesView } from './panels';
import { navigate, useRoute } from './route';
import { href, routeOf, type Route } from './routes';
import { activeWarehouse, Workspace } from './workspace';

const VIEWS = [
  ['editor', 'Editor'],
  ['workspace', 'Workspace'],
  ['queries', 'Queries'],
  ['dashboards', 'Dashboards'],
  ['alerts', 'Alerts'],
  ['jobs', 'Jobs'],
  ['pipelines', 'Pipelines'],
  ['catalog', 'Catalog'],
  ['warehouses', 'Warehouses'],
  ['history', 'History'],
  ['experiments', 'Experiments'],
] as const;
type View = (typeof VIEWS)[number][0];

const here = (): Route => routeOf(location.pathname, location.search);
/** The nav item a route belongs to. */
const NAV_OF: Partial<Record<Route['view'], View>> = {
  dashboard: 'dashboards',
  job: 'jobs',
  run: 'jobs',
  pipeline: 'pipelines',
  warehouse: 'warehouses',
};
const navOf = (r: Route): View => NAV_OF[r.view] ?? (r.view as View);
const navHref = (v: View) => href({ view: v, path: '/' } as Route);

type DashboardModule = typeof import('./dashboard');
let dashboardModule: DashboardModule | undefined;
function Dashboards(props: { route: Route; go: (r: Route) => void }) {
  const [mod, setMod] = useState(dashboardModule);
  useEffect(() => {
    if (!mod) void import('./dashboard').then((m) => setMod((dashboardModule = m)));
  }, []);
  if (!mod) return <div class="note loading">Loading…</div>;
  const r = props.route;
  if (r.view !== 'dashboard') return <mod.DashboardsList />;
  return (
    <mod.DashboardPage
      id={r.id}
      published={r.published}
      {...(r.page ? { page: r.page } : {})}
      onPage={(page) => props.go({ ...r, page })}
    />
  );
}

export function App() {
  useRoute(); // re-renders on every change of the address (route.ts's navigate, back and forward)
  const route = here();
  const view = navOf(route);
  const [help, setHelp] = useState(false);
  const [notice, setNotice] = useState('');
  // The editor (and Monaco, most of the bundle) mounts on its first visit, then stays: a deep link to a
  // dashboard or a run does not pay for it.
  const [editorUsed, setEditorUsed] = useState(view === 'editor');
  if (view === 'editor' && !editorUsed) setEditorUsed(true);
  const goRoute = (r: Route) => {
    if (href(r) !== location.pathname + location.search) navigate(href(r));
  };
  const go = (v: View) => goRoute(routeOf(navHref(v)));
  useEffect(() => {
    // Links inside the app (`<a href="/ui/...">`) change the page without a reload.
    const onClick = (e: MouseEvent) => {
      const a = (e.target as HTMLElement)?.closest?.('a');
      const target = a?.getAttribute('href');
      if (!a || !target?.startsWith('/ui/') || a.target || e.defaultPrevented) return;
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      const url = new URL(target, location.origin);
      if (url.pathname + url.search !== location.pathname + location.search)
        navigate(url.pathname + url.search);
    };
    document.addEventListener('click', onClick);
    return () => document.removeEventListener('click', onClick);
  }, []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = (e.target as HTMLElement)?.closest?.('input, textarea, select, .monaco-editor');
      if (e.key === '?' && !typing) {
        e.preventDefault();
        setHelp((h) => !h);
      } else if (e.key === 'Escape' && help) setHelp(false);
      else if (e.altKey && /^[0-9]$/.test(e.key)) {
        e.preventDefault();
        // Alt+1 is the first view, Alt+0 the tenth.
        go(VIEWS[(Number(e.key) + 9) % 10]![0]);
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
              href={navHref(v)}
              aria-current={view === v ? 'page' : undefined}
              title={i < 10 ? `Alt+${(i + 1) % 10}` : undefined}
              onClick={(e) => {
                e.preventDefault();
                go(v);
              }}
            >
              {label}
            </a>
          ))}
          <a href="/mlflow/" target="_blank" rel="noopener">
            MLflow
          </a>
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
        {editorUsed && <Workspace visible={view === 'editor'} onNotice={setNotice} />}
        <QueriesView visible={view === 'queries'} />
        <HistoryView visible={view === 'history'} />
        <CatalogView visible={route.view === 'catalog'} warehouseId={activeWarehouse} />
        {route.view === 'workspace' && <WorkspaceBrowser path={route.path} />}
        {route.view === 'jobs' && <JobsList />}
        {route.view === 'job' && (
          <JobPage
            jobId={route.jobId}
            go={(path) => goRoute(routeOf(new URL(path, location.origin).pathname))}
          />
        )}
        {route.view === 'run' && (
          <RunPage runId={route.runId} {...(route.jobId !== undefined ? { jobId: route.jobId } : {})} />
        )}
        {route.view === 'pipelines' && <PipelinesList />}
        {route.view === 'pipeline' && <PipelinePage id={route.id} />}
        {route.view === 'alerts' && <AlertsPage />}
        {route.view === 'warehouses' && <WarehousesPage />}
        {route.view === 'warehouse' && <WarehousePage id={route.id} />}
        {view === 'dashboards' && <Dashboards route={route} go={goRoute} />}
        <ExperimentsView visible={view === 'experiments'} />
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
