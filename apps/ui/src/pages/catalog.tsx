/**
 * What the catalog explorer shows of an object at its address: a table's History (Delta) and Details beside
 * its columns and preview (/ui/catalog/<catalog>/<schema>/<table>); a volume as a file browser over the
 * Files API (/ui/catalog/<catalog>/<schema>/<volume>/<folder...>): folders, upload, download, delete, new
 * folder.
 */
import { useState, useEffect } from 'preact/hooks';
import { api, quoteIdent, runStatement, type Cell, type Column, type UcTable } from '../api';
import { Download, File, Folder, Refresh, Trash, Upload } from '../icons';
import { ErrorBox } from '../results';
import { uiPath } from '../route';

interface Result {
  columns: Column[];
  rows: Cell[][];
}

/**
 * A table's History (Delta: DESCRIBE HISTORY, newest first) and Details (what Unity Catalog holds of it), for
 * the catalog explorer's table pane: each fills its result grid.
 */
export function TableExtras(props: {
  table: UcTable;
  warehouseId: () => string;
  onResult: (r: Result & { label: string }) => void;
  onError: (e: unknown) => void;
}) {
  const t = props.table;
  const delta = (t.data_source_format ?? '').toUpperCase() === 'DELTA';
  const history = async () => {
    const quoted = t.full_name.split('.').map(quoteIdent).join('.');
    try {
      const r = await runStatement(`DESCRIBE HISTORY ${quoted}`, {
        warehouseId: props.warehouseId(),
        waitTimeout: '30s',
      }).done;
      props.onResult({ columns: r.columns, rows: r.rows, label: 'History' });
    } catch (e) {
      props.onError(e);
    }
  };
  const details = () => {
    const col = (name: string, position: number): Column => ({
      name,
      type_name: 'STRING',
      type_text: 'STRING',
      position,
    });
    const rows = Object.entries(t as unknown as Record<string, unknown>)
      .filter(([k, v]) => k !== 'columns' && v !== null && v !== undefined)
      .map(([k, v]): Cell[] => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
    props.onResult({ columns: [col('property', 0), col('value', 1)], rows, label: 'Details' });
  };
  return (
    <>
      {delta && (
        <button type="button" onClick={() => void history()}>
          History
        </button>
      )}
      <button type="button" onClick={details}>
        Details
      </button>
    </>
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
  const at = (n: number) => uiPath('catalog', props.catalog, props.schema, props.volume, ...segs.slice(0, n));
  return (
    <section class="volume" aria-label={`Volume ${props.catalog}.${props.schema}.${props.volume}`}>
      <p class="crumbs">
        {props.catalog} / {props.schema} / <a href={at(0)}>{props.volume}</a>
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
              // A directory's path ends in '/' (as Databricks lists it): no empty last part in its address.
              const rel = e.path
                .slice(root.length + 1)
                .split('/')
                .filter(Boolean);
              return (
                <tr key={e.path}>
                  <td>
                    {e.is_directory ? (
                      <a href={uiPath('catalog', props.catalog, props.schema, props.volume, ...rel)}>
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
