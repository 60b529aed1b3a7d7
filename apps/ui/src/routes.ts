/**
 * Every page of the UI and its address, in one table: a path under /ui/ is matched top to bottom, and the
 * first pattern that fits names the view and its parameters. Links are plain hrefs built by `href` (or
 * route.ts's `uiPath`); the address changes through route.ts's `navigate`, so a page can be opened, bookmarked
 * and reloaded at its address, and the server sends Databricks' page addresses here (apps/server welcome.ts).
 */
export type Route =
  | { view: 'editor' }
  | { view: 'queries'; id?: string }
  | { view: 'history' }
  /** The explorer; `name` is a table or a volume (then `path` is a folder in it). */
  | { view: 'catalog'; catalog?: string; schema?: string; name?: string; path?: string }
  | { view: 'workspace'; path: string }
  | { view: 'jobs' }
  | { view: 'job'; jobId: number }
  | { view: 'run'; jobId?: number; runId: number }
  | { view: 'pipelines' }
  | { view: 'pipeline'; id: string }
  | { view: 'alerts' }
  | { view: 'warehouses' }
  | { view: 'warehouse'; id: string }
  | { view: 'experiments' }
  | { view: 'dashboards' }
  | { view: 'dashboard'; id: string; published: boolean; page?: string };

const seg = '([^/]+)';
const dec = (p: string) => {
  try {
    return decodeURIComponent(p);
  } catch {
    return p; // a malformed escape names nothing: taken as written
  }
};
const segments = (rest: string | undefined) => (rest ?? '').split('/').filter(Boolean).map(dec);

const ROUTES: [RegExp, (m: string[], q: URLSearchParams) => Route][] = [
  [new RegExp(`^/ui/dashboards/${seg}/published/?$`), (m, q) => dashboard(m[1]!, true, q)],
  [new RegExp(`^/ui/dashboards/${seg}/?$`), (m, q) => dashboard(m[1]!, false, q)],
  [/^\/ui\/dashboards\/?$/, () => ({ view: 'dashboards' })],
  [
    /^\/ui\/catalog(\/.*)?$/,
    (m) => {
      const [catalog, schema, name, ...path] = segments(m[1]);
      return {
        view: 'catalog',
        ...(catalog ? { catalog } : {}),
        ...(schema ? { schema } : {}),
        ...(name ? { name } : {}),
        ...(path.length ? { path: path.join('/') } : {}),
      };
    },
  ],
  [/^\/ui\/workspace(\/.*)?$/, (m) => ({ view: 'workspace', path: `/${segments(m[1]).join('/')}` })],
  [/^\/ui\/jobs\/(\d+)\/runs\/(\d+)\/?$/, (m) => ({ view: 'run', jobId: Number(m[1]), runId: Number(m[2]) })],
  [/^\/ui\/jobs\/runs\/(\d+)\/?$/, (m) => ({ view: 'run', runId: Number(m[1]) })],
  [/^\/ui\/jobs\/(\d+)\/?$/, (m) => ({ view: 'job', jobId: Number(m[1]) })],
  [/^\/ui\/jobs\/?$/, () => ({ view: 'jobs' })],
  [/^\/ui\/pipelines\/?$/, () => ({ view: 'pipelines' })],
  [new RegExp(`^/ui/pipelines/${seg}/?$`), (m) => ({ view: 'pipeline', id: dec(m[1]!) })],
  [/^\/ui\/queries\/?$/, () => ({ view: 'queries' })],
  [new RegExp(`^/ui/queries/${seg}/?$`), (m) => ({ view: 'queries', id: dec(m[1]!) })],
  [/^\/ui\/history\/?$/, () => ({ view: 'history' })],
  [/^\/ui\/alerts\/?$/, () => ({ view: 'alerts' })],
  [/^\/ui\/warehouses\/?$/, () => ({ view: 'warehouses' })],
  [new RegExp(`^/ui/warehouses/${seg}/?$`), (m) => ({ view: 'warehouse', id: dec(m[1]!) })],
  [/^\/ui\/experiments\/?$/, () => ({ view: 'experiments' })],
];

function dashboard(id: string, published: boolean, q: URLSearchParams): Route {
  const page = q.get('page');
  return { view: 'dashboard', id: dec(id), published, ...(page ? { page } : {}) };
}

export function routeOf(pathname: string, search = ''): Route {
  const q = new URLSearchParams(search);
  for (const [re, make] of ROUTES) {
    const m = re.exec(pathname);
    if (m) return make([...m], q);
  }
  return { view: 'editor' };
}

const enc = (parts: string[]) => parts.map(encodeURIComponent).join('/');

export function href(r: Route): string {
  switch (r.view) {
    case 'editor':
      return '/ui/';
    case 'dashboard':
      return `/ui/dashboards/${encodeURIComponent(r.id)}${r.published ? '/published' : ''}${r.page ? `?page=${encodeURIComponent(r.page)}` : ''}`;
    case 'catalog': {
      const parts = [r.catalog, r.schema, r.name, ...(r.path ?? '').split('/')].filter(
        (x): x is string => !!x,
      );
      return parts.length ? `/ui/catalog/${enc(parts)}` : '/ui/catalog';
    }
    case 'queries':
      return r.id ? `/ui/queries/${encodeURIComponent(r.id)}` : '/ui/queries';
    case 'workspace': {
      const parts = r.path.split('/').filter(Boolean);
      return parts.length ? `/ui/workspace/${enc(parts)}` : '/ui/workspace';
    }
    case 'job':
      return `/ui/jobs/${r.jobId}`;
    case 'pipeline':
      return `/ui/pipelines/${encodeURIComponent(r.id)}`;
    case 'warehouse':
      return `/ui/warehouses/${encodeURIComponent(r.id)}`;
    case 'run':
      return r.jobId === undefined ? `/ui/jobs/runs/${r.runId}` : `/ui/jobs/${r.jobId}/runs/${r.runId}`;
    default:
      return `/ui/${r.view}`;
  }
}
