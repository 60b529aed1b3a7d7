/**
 * Every page of the UI and its address, in one table: a path under /ui/ is matched top to bottom, and the
 * first pattern that fits names the view and its parameters. Links are plain hrefs built by `href`, so a
 * page can be opened, bookmarked and reloaded at its address.
 */
export type Route =
  | { view: 'editor' }
  | { view: 'queries' }
  | { view: 'history' }
  | { view: 'catalog' }
  | { view: 'table'; catalog: string; schema: string; table: string }
  | { view: 'volume'; catalog: string; schema: string; volume: string; path: string }
  | { view: 'workspace'; path: string }
  | { view: 'jobs' }
  | { view: 'job'; jobId: number }
  | { view: 'run'; jobId?: number; runId: number }
  | { view: 'alerts' }
  | { view: 'warehouses' }
  | { view: 'dashboards' }
  | { view: 'dashboard'; id: string; published: boolean; page?: string };

const seg = '([^/]+)';
const dec = decodeURIComponent;
const segments = (rest: string | undefined) => (rest ?? '').split('/').filter(Boolean).map(dec);

const ROUTES: [RegExp, (m: string[], q: URLSearchParams) => Route][] = [
  [new RegExp(`^/ui/dashboards/${seg}/published/?$`), (m, q) => dashboard(m[1]!, true, q)],
  [new RegExp(`^/ui/dashboards/${seg}/?$`), (m, q) => dashboard(m[1]!, false, q)],
  [/^\/ui\/dashboards\/?$/, () => ({ view: 'dashboards' })],
  [
    new RegExp(`^/ui/catalog/${seg}/${seg}/${seg}/?$`),
    (m) => ({ view: 'table', catalog: dec(m[1]!), schema: dec(m[2]!), table: dec(m[3]!) }),
  ],
  [/^\/ui\/catalog(\/.*)?$/, () => ({ view: 'catalog' })],
  [
    new RegExp(`^/ui/volumes/${seg}/${seg}/${seg}(/.*)?$`),
    (m) => ({
      view: 'volume',
      catalog: dec(m[1]!),
      schema: dec(m[2]!),
      volume: dec(m[3]!),
      path: segments(m[4]).join('/'),
    }),
  ],
  [/^\/ui\/workspace(\/.*)?$/, (m) => ({ view: 'workspace', path: `/${segments(m[1]).join('/')}` })],
  [/^\/ui\/jobs\/(\d+)\/runs\/(\d+)\/?$/, (m) => ({ view: 'run', jobId: Number(m[1]), runId: Number(m[2]) })],
  [/^\/ui\/jobs\/runs\/(\d+)\/?$/, (m) => ({ view: 'run', runId: Number(m[1]) })],
  [/^\/ui\/jobs\/(\d+)\/?$/, (m) => ({ view: 'job', jobId: Number(m[1]) })],
  [/^\/ui\/jobs\/?$/, () => ({ view: 'jobs' })],
  [/^\/ui\/queries\/?$/, () => ({ view: 'queries' })],
  [/^\/ui\/history\/?$/, () => ({ view: 'history' })],
  [/^\/ui\/alerts\/?$/, () => ({ view: 'alerts' })],
  [/^\/ui\/warehouses\/?$/, () => ({ view: 'warehouses' })],
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
    case 'table':
      return `/ui/catalog/${enc([r.catalog, r.schema, r.table])}`;
    case 'volume':
      return `/ui/volumes/${enc([r.catalog, r.schema, r.volume, ...r.path.split('/').filter(Boolean)])}`;
    case 'workspace': {
      const parts = r.path.split('/').filter(Boolean);
      return parts.length ? `/ui/workspace/${enc(parts)}` : '/ui/workspace';
    }
    case 'job':
      return `/ui/jobs/${r.jobId}`;
    case 'run':
      return r.jobId === undefined ? `/ui/jobs/runs/${r.runId}` : `/ui/jobs/${r.jobId}/runs/${r.runId}`;
    default:
      return `/ui/${r.view}`;
  }
}
