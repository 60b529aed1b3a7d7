/**
 * The workspace tree at /ui/workspace/<path>: folders, notebooks, files, dashboards and other services'
 * objects. A notebook opens read-only with its cells (the Workspace API's JUPYTER export: markdown drawn,
 * code shown with its language); a file shows its text; a dashboard opens its page.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, qs } from '../api';
import { Dashboard, Experiment, File, Folder, Notebook } from '../icons';
import { Markdown } from '../markdown';
import { ErrorBox } from '../results';
import { href } from '../routes';

interface ObjectInfo {
  object_type: string;
  path: string;
  object_id?: number;
  resource_id?: string;
  language?: string;
  size?: number;
  modified_at?: number;
}

const W = '/api/2.0/workspace';
const icon = (t: string) =>
  t === 'DIRECTORY' ? (
    <Folder />
  ) : t === 'NOTEBOOK' ? (
    <Notebook />
  ) : t === 'DASHBOARD' ? (
    <Dashboard />
  ) : t === 'MLFLOW_EXPERIMENT' ? (
    <Experiment />
  ) : (
    <File />
  );
const base = (p: string) => p.slice(p.lastIndexOf('/') + 1) || '/';
const decode = (b64: string) => new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));

/** Where a workspace object opens in the UI. */
export function objectHref(o: ObjectInfo): string {
  if (o.object_type === 'DASHBOARD' && o.resource_id)
    return href({ view: 'dashboard', id: o.resource_id, published: false });
  return href({ view: 'workspace', path: o.path });
}

export function WorkspaceBrowser(props: { path: string }) {
  const path = props.path || '/';
  const [info, setInfo] = useState<ObjectInfo | null>(null);
  const [children, setChildren] = useState<ObjectInfo[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setInfo(null);
    setChildren(null);
    setError(null);
    (async () => {
      const st = await api<ObjectInfo>('GET', `${W}/get-status?${qs({ path })}`);
      setInfo(st);
      if (st.object_type === 'DIRECTORY') {
        const l = await api<{ objects?: ObjectInfo[] }>('GET', `${W}/list?${qs({ path })}`);
        const order = (o: ObjectInfo) => (o.object_type === 'DIRECTORY' ? 0 : 1);
        setChildren((l.objects ?? []).sort((a, b) => order(a) - order(b) || a.path.localeCompare(b.path)));
      }
    })().catch(setError);
  }, [path]);
  const segs = path.split('/').filter(Boolean);
  return (
    <section class="view" aria-label="Workspace">
      <p class="crumbs">
        <a href={href({ view: 'workspace', path: '/' })}>Workspace</a>
        {segs.map((s, i) => (
          <>
            {' / '}
            <a href={href({ view: 'workspace', path: `/${segs.slice(0, i + 1).join('/')}` })}>{s}</a>
          </>
        ))}
      </p>
      {error ? <ErrorBox error={error} /> : null}
      {info?.object_type === 'DIRECTORY' && children && (
        <>
          <h2>{base(path)}</h2>
          {children.length === 0 && <p class="note">This folder is empty.</p>}
          {children.length > 0 && (
            <table class="list">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Type</th>
                  <th>Modified</th>
                </tr>
              </thead>
              <tbody>
                {children.map((o) => (
                  <tr key={o.path}>
                    <td>
                      <a href={objectHref(o)}>
                        {icon(o.object_type)} {base(o.path)}
                      </a>
                    </td>
                    <td>
                      {o.object_type.toLowerCase().replace('_', ' ')}
                      {o.language ? ` (${o.language.toLowerCase()})` : ''}
                    </td>
                    <td>{o.modified_at ? new Date(o.modified_at).toLocaleString() : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {info?.object_type === 'NOTEBOOK' && <NotebookView info={info} />}
      {info?.object_type === 'FILE' && <FileView info={info} />}
      {info?.object_type === 'DASHBOARD' && (
        <p>
          <Dashboard /> {base(path)}: <a href={objectHref(info)}>open the dashboard</a>
        </p>
      )}
    </section>
  );
}

interface Cell {
  cell_type: string;
  source: string | string[];
}

function NotebookView(props: { info: ObjectInfo }) {
  const [cells, setCells] = useState<Cell[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<{ content: string }>('GET', `${W}/export?${qs({ path: props.info.path, format: 'JUPYTER' })}`).then(
      (r) => setCells((JSON.parse(decode(r.content)) as { cells?: Cell[] }).cells ?? []),
      setError,
    );
  }, [props.info.path]);
  const lang = (props.info.language ?? 'python').toLowerCase();
  return (
    <div class="notebook" aria-label={`Notebook ${base(props.info.path)}`}>
      <div class="page-head">
        <h2>
          <Notebook /> {base(props.info.path)}
        </h2>
        <span class="type">{lang} notebook · read-only</span>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {cells?.map((c, i) => {
        const text = Array.isArray(c.source) ? c.source.join('') : c.source;
        return (
          <div class={`nb-cell ${c.cell_type}`} aria-label={`Cell ${i + 1}`}>
            <span class="nb-gutter">{c.cell_type === 'code' ? `[${i + 1}]` : ''}</span>
            {c.cell_type === 'markdown' ? <Markdown text={text} /> : <pre class="nb-code">{text}</pre>}
          </div>
        );
      })}
      {cells?.length === 0 && <p class="note">This notebook has no cells.</p>}
    </div>
  );
}

function FileView(props: { info: ObjectInfo }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if ((props.info.size ?? 0) > 1024 * 1024) return setText(null);
    api<{ content: string }>('GET', `${W}/export?${qs({ path: props.info.path, format: 'SOURCE' })}`).then(
      (r) => setText(decode(r.content)),
      setError,
    );
  }, [props.info.path]);
  return (
    <div>
      <div class="page-head">
        <h2>
          <File /> {base(props.info.path)}
        </h2>
        <span class="type">{props.info.size ?? 0} bytes</span>
      </div>
      {error instanceof ApiError ? <ErrorBox error={error} /> : null}
      {text !== null ? <pre class="output">{text}</pre> : <p class="note">Too large to show here.</p>}
    </div>
  );
}
