/**
 * Every page of the UI and its address, in one table: a path under /ui/ is matched top to bottom, and the
 * first pattern that fits names the view and its parameters. Links are plain hrefs built by `href`, so a
 * page can be opened, bookmarked and reloaded at its address.
 */
export type Route =
  | { view: 'editor' }
  | { view: 'queries' }
  | { view: 'history' }
  | { view: 'catalog'; catalog?: string; schema?: string; table?: string }
  | { view: 'jobs' }
  | { view: 'dashboards' }
  | { view: 'dashboard'; id: string; published: boolean; page?: string };

const seg = '([^/]+)';
const ROUTES: [RegExp, (m: string[], q: URLSearchParams) => Route][] = [
  [new RegExp(`^/ui/dashboards/${seg}/published/?$`), (m, q) => dashboard(m[1]!, true, q)],
  [new RegExp(`^/ui/dashboards/${seg}/?$`), (m, q) => dashboard(m[1]!, false, q)],
  [/^\/ui\/dashboards\/?$/, () => ({ view: 'dashboards' })],
  [
    new RegExp(`^/ui/catalog/${seg}/${seg}/${seg}/?$`),
    (m) => ({ view: 'catalog', catalog: m[1]!, schema: m[2]!, table: m[3]! }),
  ],
  [/^\/ui\/catalog(\/.*)?$/, () => ({ view: 'catalog' })],
  [/^\/ui\/queries\/?$/, () => ({ view: 'queries' })],
  [/^\/ui\/history\/?$/, () => ({ view: 'history' })],
  [/^\/ui\/jobs(\/.*)?$/, () => ({ view: 'jobs' })],
];

function dashboard(id: string, published: boolean, q: URLSearchParams): Route {
  const page = q.get('page');
  return { view: 'dashboard', id: decodeURIComponent(id), published, ...(page ? { page } : {}) };
}

export function routeOf(pathname: string, search = ''): Route {
  const q = new URLSearchParams(search);
  for (const [re, make] of ROUTES) {
    const m = re.exec(pathname);
    if (m) return make([...m], q);
  }
  return { view: 'editor' };
}

export function href(r: Route): string {
  switch (r.view) {
    case 'editor':
      return '/ui/';
    case 'dashboard':
      return `/ui/dashboards/${encodeURIComponent(r.id)}${r.published ? '/published' : ''}${r.page ? `?page=${encodeURIComponent(r.page)}` : ''}`;
    case 'catalog':
      return r.table
        ? `/ui/catalog/${[r.catalog!, r.schema!, r.table].map(encodeURIComponent).join('/')}`
        : '/ui/catalog';
    default:
      return `/ui/${r.view}`;
  }
}
