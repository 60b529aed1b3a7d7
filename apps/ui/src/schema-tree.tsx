/**
 * The schema browser beside the editor: catalogs, their schemas, tables and columns from Unity Catalog,
 * loaded as they are opened. A click on a table or a column inserts its name at the editor's cursor (a table
 * fully qualified, every part quoted when it must be); the full type of a column shows beside it.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { quoteIdent, uc, type UcColumn, type UcSchema, type UcTable } from './api';
import { Catalog, ChevronDown, ChevronRight, Column as ColumnIcon, Refresh, Schema, Table } from './icons';

export function SchemaTree(props: { onInsert: (text: string) => void }) {
  const [catalogs, setCatalogs] = useState<string[] | null>(null);
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const [schemas, setSchemas] = useState<Record<string, UcSchema[]>>({});
  const [tables, setTables] = useState<Record<string, UcTable[]>>({});
  const [columns, setColumns] = useState<Record<string, UcColumn[]>>({});
  const [filter, setFilter] = useState('');
  const load = () =>
    uc.catalogs().then(
      (cs) => setCatalogs(cs.map((c) => c.name)),
      () => setCatalogs([]),
    );
  useEffect(() => void load(), []);
  const toggle = async (key: string, fetch: () => Promise<void>) => {
    const was = open[key];
    setOpen((o) => ({ ...o, [key]: !was }));
    if (!was) await fetch().catch(() => undefined);
  };
  const needle = filter.trim().toLowerCase();
  const items = (tree: Element) => [...tree.querySelectorAll<HTMLButtonElement>('.st-row button')];
  /** Keeps exactly one item tabbable: the one focused last (or the first). */
  const rove = (e: FocusEvent) => {
    const tree = e.currentTarget as HTMLElement;
    for (const b of items(tree)) b.tabIndex = b === e.target ? 0 : -1;
  };
  const moveFocus = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const all = items(e.currentTarget as HTMLElement);
    const i = all.indexOf(document.activeElement as HTMLButtonElement);
    const next = all[Math.max(0, Math.min(all.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)))];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };
  const node = (
    key: string,
    depth: number,
    icon: JSX.Element,
    label: string,
    onToggle: () => void,
    extra?: string,
  ) => (
    <div class="st-row" style={{ paddingLeft: `${4 + depth * 14}px` }}>
      <button
        type="button"
        class="st-toggle"
        tabIndex={key === catalogs?.[0] ? 0 : -1}
        aria-expanded={!!open[key]}
        aria-label={`${open[key] ? 'Collapse' : 'Expand'} ${label}`}
        onClick={onToggle}
      >
        {open[key] ? <ChevronDown size={12} /> : <ChevronRight size={12} />}
      </button>
      {icon}
      <span class="st-name" title={extra}>
        {label}
      </span>
    </div>
  );
  return (
    <nav class="schema-tree" aria-label="Schema browser">
      <div class="st-head">
        <input
          type="search"
          placeholder="Filter tables"
          aria-label="Filter tables"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
        />
        <button
          type="button"
          aria-label="Refresh the schema browser"
          title="Refresh"
          onClick={() => void load()}
        >
          <Refresh />
        </button>
      </div>
      {catalogs === null && <div class="note">Loading…</div>}
      {catalogs?.length === 0 && <div class="note">No catalogs.</div>}
      {/* One tab stop for the whole tree (the ARIA tree pattern): arrows move between its items. */}
      <div role="tree" aria-label="Catalogs" onKeyDown={moveFocus} onFocusIn={rove}>
        {(catalogs ?? []).map((c) => (
          <div role="treeitem" aria-expanded={!!open[c]} aria-label={c}>
            {node(
              c,
              0,
              <Catalog />,
              c,
              () =>
                void toggle(c, async () => {
                  const list = await uc.schemas(c);
                  setSchemas((x) => ({ ...x, [c]: list }));
                }),
            )}
            {open[c] &&
              (schemas[c] ?? []).map((s) => {
                const sk = `${c}.${s.name}`;
                return (
                  <div role="treeitem" aria-expanded={!!open[sk]} aria-label={s.name}>
                    {node(
                      sk,
                      1,
                      <Schema />,
                      s.name,
                      () =>
                        void toggle(sk, async () => {
                          const list = await uc.tables(c, s.name);
                          setTables((x) => ({ ...x, [sk]: list }));
                        }),
                    )}
                    {open[sk] &&
                      (tables[sk] ?? [])
                        .filter((t) => !needle || t.name.toLowerCase().includes(needle))
                        .map((t) => {
                          const tk = `${sk}.${t.name}`;
                          return (
                            <div role="treeitem" aria-expanded={!!open[tk]} aria-label={t.name}>
                              <div class="st-row" style={{ paddingLeft: '32px' }}>
                                <button
                                  type="button"
                                  tabIndex={-1}
                                  class="st-toggle"
                                  aria-label={`${open[tk] ? 'Collapse' : 'Expand'} ${t.name}`}
                                  onClick={() =>
                                    void toggle(tk, async () => {
                                      const full = await uc.table(t.full_name);
                                      setColumns((x) => ({ ...x, [tk]: full.columns ?? [] }));
                                    })
                                  }
                                >
                                  {open[tk] ? <ChevronDown size={12} /> : <ChevronRight size={12} />}
                                </button>
                                <Table />
                                <button
                                  type="button"
                                  tabIndex={-1}
                                  class="st-insert"
                                  title={`Insert ${t.full_name}`}
                                  onClick={() =>
                                    props.onInsert(t.full_name.split('.').map(quoteIdent).join('.'))
                                  }
                                >
                                  {t.name}
                                </button>
                              </div>
                              {open[tk] &&
                                (columns[tk] ?? []).map((col) => (
                                  <div
                                    class="st-row st-col"
                                    role="treeitem"
                                    aria-label={col.name}
                                    style={{ paddingLeft: '60px' }}
                                  >
                                    <ColumnIcon size={12} />
                                    <button
                                      type="button"
                                      tabIndex={-1}
                                      class="st-insert"
                                      title={`Insert ${col.name}`}
                                      onClick={() => props.onInsert(quoteIdent(col.name))}
                                    >
                                      {col.name}
                                    </button>
                                    <span class="st-type" title={col.type_text}>
                                      {col.type_text?.toLowerCase()}
                                    </span>
                                  </div>
                                ))}
                            </div>
                          );
                        })}
                  </div>
                );
              })}
          </div>
        ))}
      </div>
    </nav>
  );
}
