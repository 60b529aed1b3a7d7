/**
 * Catalog objects at their addresses: a table (/ui/catalog/<catalog>/<schema>/<table>) with its columns, a
 * sample of its rows, its Delta history (DESCRIBE HISTORY) and its details; a volume
 * (/ui/volumes/<catalog>/<schema>/<volume>/<path>) as a file browser over the Files API: folders, upload,
 * download, delete, new folder.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, quoteIdent, runStatement, uc, type Cell, type Column, type UcTable } from '../api';
import { Grid } from '../grid';
import { Download, File, Folder, Refresh, Trash, Upload } from '../icons';
import { ErrorBox } from '../results';
import { href } from '../routes';
import { activeWarehouse } from '../workspace';

interface Result {
  columns: Column[];
  rows: Cell[][];
}

export function TablePage(props: { catalog: string; schema: string; table: string }) {
  const full = `${props.catalog}.${props.schema}.${props.table}`;
  const quoted = [props.catalog, props.schema, props.table].map(quoteIdent).join('.');
  const [t, setT] = useState<UcTable & Record<string, unknown>>();
  const [tab, setTab] = useState<'columns' | 'sample' | 'history' | 'details'>('columns');
  const [data, setData] = useState<Result | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setT(undefined);
    setError(null);
    uc.table(full).then((x) => setT(x as UcTable & Record<string, unknown>), setError);
  }, [full]);
  const show = async (which: typeof tab) => {
    setTab(which);
    setData(null);
    setError(null);
    const sql =
      which === 'sample'
        ? `SELECT * FROM ${quoted} LIMIT 100`
        : which === 'history'
          ? `DESCRIBE HISTORY ${quoted}`
          : '';
    if (!sql) return;
    try {
      const r = await runStatement(sql, { warehouseId: activeWarehouse(), waitTimeout: '30s' }).done;
      setData({ columns: r.columns, rows: r.rows });
    } catch (e) {
      setError(e);
    }
  };
  const delta = (t?.data_source_format ?? '').toUpperCase() === 'DELTA';
  return (
    <section class="view" aria-label={`Table ${full}`}>
      <p class="crumbs">
        <a href="/ui/catalog">Catalog</a> / {props.catalog} / {props.schema} /
      </p>
      <div class="page-head">
        <h2>{props.table}</h2>
        <span class="type">
          {t?.table_type?.toLowerCase()} {t?.data_source_format?.toLowerCase()} table
        </span>
      </div>
      {t?.comment && <p class="note">{t.comment}</p>}
      <div class="seg" role="tablist" aria-label="Table views">
        {(['columns', 'sample', ...(delta ? ['history'] : []), 'details'] as (typeof tab)[]).map((x) => (
          <button type="button" role="tab" aria-selected={tab === x} onClick={() => void show(x)}>
            {x === 'columns'
              ? 'Columns'
              : x === 'sample'
                ? 'Sample data'
                : x === 'history'
                  ? 'History'
                  : 'Details'}
          </button>
        ))}
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {tab === 'columns' && t && (
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
            {(t.columns ?? []).map((c) => (
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
      )}
      {(tab === 'sample' || tab === 'history') && data && (
        <div class="page-grid">
          <Grid
            columns={data.columns}
            rows={data.rows}
            label={tab === 'history' ? `History of ${full}` : `Sample of ${full}`}
          />
        </div>
      )}
      {tab === 'details' && t && (
        <table class="list details">
          <tbody>
            {Object.entries(t)
              .filter(([k, v]) => k !== 'columns' && v !== null && typeof v !== 'object')
              .map(([k, v]) => (
                <tr>
                  <th>{k}</th>
                  <td>
                    <code>{String(v)}</code>
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

// ---- volumes ------------------------------------------------------------------------------------------------

interface Entry {
  path: string;
  name?: string;
  is_directory?: boolean;
  file_size?: number;
  last_modified?: number;
}

const FS = '/api/2.0/fs';
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');
const size = (n?: number) =>
  n === undefined
    ? ''
    : n < 1024
      ? `${n} B`
      : n < 1024 ** 2
        ? `${(n / 1024).toFixed(1)} KiB`
        : `${(n / 1024 ** 2).toFixed(1)} MiB`;

export function VolumePage(props: { catalog: string; schema: string; volume: string; path: string }) {
  const root = `/Volumes/${props.catalog}/${props.schema}/${props.volume}`;
  const dir = props.path ? `${root}/${props.path}` : root;
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState('');
  const load = async () => {
    try {
      const out: Entry[] = [];
      let token: string | undefined;
      do {
        const r = await api<{ contents?: Entry[]; next_page_token?: string }>(
          'GET',
          `${FS}/directories${enc(dir)}${token ? `?page_token=${encodeURIComponent(token)}` : ''}`,
        );
        out.push(...(r.contents ?? []));
        token = r.next_page_token;
      } while (token);
      out.sort((a, b) => Number(!!b.is_directory) - Number(!!a.is_directory) || a.path.localeCompare(b.path));
      setEntries(out);
      setError(null);
    } catch (e) {
      setError(e);
      setEntries([]);
    }
  };
  useEffect(() => void load(), [dir]);
  const upload = async (files: FileList | null) => {
    if (!files?.length) return;
    for (const f of Array.from(files)) {
      setBusy(`Uploading ${f.name}…`);
      const res = await fetch(`${FS}/files${enc(`${dir}/${f.name}`)}?overwrite=true`, {
        method: 'PUT',
        body: f,
      });
      if (!res.ok) setError(new Error(`Upload of ${f.name} failed: ${res.status} ${await res.text()}`));
    }
    setBusy('');
    void load();
  };
  const remove = async (e: Entry) => {
    const name = e.name ?? e.path.split('/').pop();
    if (!window.confirm(`Delete ${name}?`)) return;
    const res = await fetch(`${FS}/${e.is_directory ? 'directories' : 'files'}${enc(e.path)}`, {
      method: 'DELETE',
    });
    if (!res.ok) setError(new Error(`Delete of ${name} failed: ${res.status} ${await res.text()}`));
    void load();
  };
  const mkdir = async () => {
    const name = window.prompt('New folder name');
    if (!name) return;
    const res = await fetch(`${FS}/directories${enc(`${dir}/${name}`)}`, { method: 'PUT' });
    if (!res.ok) setError(new Error(`${res.status} ${await res.text()}`));
    void load();
  };
  const segs = props.path ? props.path.split('/') : [];
  const at = (n: number) =>
    href({
      view: 'volume',
      catalog: props.catalog,
      schema: props.schema,
      volume: props.volume,
      path: segs.slice(0, n).join('/'),
    });
  return (
    <section class="view" aria-label={`Volume ${props.catalog}.${props.schema}.${props.volume}`}>
      <p class="crumbs">
        <a href="/ui/catalog">Catalog</a> / {props.catalog} / {props.schema} /{' '}
        <a href={at(0)}>{props.volume}</a>
        {segs.map((s, i) => (
          <>
            {' / '}
            <a href={at(i + 1)}>{s}</a>
          </>
        ))}
      </p>
      <div class="page-head">
        <h2>{dir}</h2>
        <label class="button primary">
          <Upload /> Upload
          <input
            type="file"
            multiple
            aria-label="Upload files"
            onChange={(e) => {
              const input = e.currentTarget;
              // Cleared once read, so choosing the same file again (here or in another folder) uploads it again.
              void upload(input.files).finally(() => (input.value = ''));
            }}
          />
        </label>
        <button type="button" onClick={() => void mkdir()}>
          <Folder /> New folder
        </button>
        <button type="button" aria-label="Refresh" onClick={() => void load()}>
          <Refresh />
        </button>
        <span class="status" aria-live="polite">
          {busy}
        </span>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {entries?.length === 0 && !error && <p class="note">This folder is empty: upload a file.</p>}
      {entries && entries.length > 0 && (
        <table class="list files">
          <thead>
            <tr>
              <th>Name</th>
              <th>Size</th>
              <th>Modified</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => {
              const name = e.name ?? e.path.split('/').pop()!;
              const rel = e.path.slice(root.length + 1);
              return (
                <tr key={e.path}>
                  <td>
                    {e.is_directory ? (
                      <a
                        href={href({
                          view: 'volume',
                          catalog: props.catalog,
                          schema: props.schema,
                          volume: props.volume,
                          path: rel,
                        })}
                      >
                        <Folder /> {name}
                      </a>
                    ) : (
                      <span>
                        <File /> {name}
                      </span>
                    )}
                  </td>
                  <td>{e.is_directory ? '' : size(e.file_size)}</td>
                  <td>{e.last_modified ? new Date(e.last_modified).toLocaleString() : ''}</td>
                  <td class="actions">
                    {!e.is_directory && (
                      <a
                        class="button"
                        href={`${FS}/files${enc(e.path)}`}
                        download={name}
                        aria-label={`Download ${name}`}
                      >
                        <Download />
                      </a>
                    )}
                    <button type="button" aria-label={`Delete ${name}`} onClick={() => void remove(e)}>
                      <Trash />
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
