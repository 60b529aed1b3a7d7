/**
 * The result grid: only the rows in view (plus a few) are in the DOM, placed by @tanstack/virtual-core, so
 * 100,000 rows scroll like 100. The rows are a pool of recycled DOM rows (row-pool.ts) redrawn straight from
 * the virtualizer's change callback, so a scroll frame costs no Preact render. NULL is drawn as a dim NULL,
 * an empty string as nothing; a click selects a cell, Ctrl/Cmd+C (or the Copy button) copies it. A click on a
 * header sorts by that column (ascending, descending, as fetched; numbers as numbers, NULLs last), its edge
 * drags to resize it, and hovering it shows the column's full type.
 */
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Cell, Column } from './api';
import { SortAsc, SortDesc } from './icons';
import { RowPool } from './row-pool';

const NUMERIC = /^(TINYINT|SHORT|SMALLINT|INT|LONG|BIGINT|FLOAT|DOUBLE|DECIMAL|BYTE)$/;

export interface SortBy {
  c: number;
  dir: 'asc' | 'desc';
}

/** The rows ordered by one column: numbers as numbers, text by code point, NULLs last either way. */
export function sortRows(columns: Column[], rows: Cell[][], sort: SortBy | null): Cell[][] {
  if (!sort) return rows;
  const numeric = NUMERIC.test(columns[sort.c]?.type_name ?? '');
  const sign = sort.dir === 'asc' ? 1 : -1;
  const idx = rows.map((_, i) => i);
  idx.sort((a, b) => {
    const x = rows[a]![sort.c] ?? null;
    const y = rows[b]![sort.c] ?? null;
    if (x === y) return a - b;
    if (x === null) return 1;
    if (y === null) return -1;
    const d = numeric ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
    return d === 0 ? a - b : d * sign;
  });
  return idx.map((i) => rows[i]!);
}

export const ROW_HEIGHT = 24;

export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Without clipboard permission (or a secure context) the old execCommand path still works.
    const ta = document.createElement('textarea');
    ta.value = text;
    document.body.append(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
  }
}

function widthFor(col: Column, rows: Cell[][], i: number): number {
  let max = col.name.length + (col.type_text ?? col.type_name ?? '').length * 0.8 + 1;
  for (let r = 0; r < Math.min(rows.length, 200); r++) max = Math.max(max, (rows[r]![i] ?? 'NULL').length);
  return Math.min(420, Math.max(72, Math.round(max * 7.6 + 24)));
}

export function Grid(props: { columns: Column[]; rows: Cell[][]; label?: string }) {
  const { columns } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  const [sel, setSel] = useState<{ r: number; c: number } | null>(null);
  const [sort, setSort] = useState<SortBy | null>(null);
  const [resized, setResized] = useState<Record<number, number>>({});
  // The hovered header's full type, drawn outside the scrolling (and clipping) grid.
  const [tip, setTip] = useState<{ text: string; left: number; top: number } | null>(null);
  useEffect(() => {
    setSort(null);
    setResized({});
  }, [columns]);
  const rows = useMemo(() => sortRows(columns, props.rows, sort), [props.rows, sort]);
  const natural = useMemo(
    () => columns.map((c, i) => widthFor(c, props.rows, i)),
    // Widths follow the first chunk; later chunks must not make columns jump while scrolling.
    [columns, props.rows.length > 0],
  );
  const widths = useMemo(() => natural.map((w, i) => resized[i] ?? w), [natural, resized]);
  const cycleSort = (c: number) =>
    setSort((s) => (s?.c !== c ? { c, dir: 'asc' } : s.dir === 'asc' ? { c, dir: 'desc' } : null));
  const startResize = (i: number, e: PointerEvent) => {
    e.preventDefault();
    e.stopPropagation();
    const x0 = e.clientX;
    const w0 = widths[i]!;
    const move = (m: PointerEvent) =>
      setResized((r) => ({ ...r, [i]: Math.max(48, Math.round(w0 + m.clientX - x0)) }));
    const up = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };
  // The row-number column fits the largest row number (8 px a digit plus padding).
  const numWidth = Math.max(48, String(rows.length).length * 8 + 20);
  const total = widths.reduce((a, b) => a + b, numWidth);

  // What the rows are drawn from, read by the scroll path without a Preact render.
  const view = useRef({ rows, sel });
  view.current = { rows, sel };
  const pool = useRef<RowPool | null>(null);
  const draw = () => {
    const items = virtualizer.getVirtualItems();
    pool.current?.update({
      rows: view.current.rows,
      first: items[0]?.index ?? 0,
      last: items.length ? items[items.length - 1]!.index : -1,
      rowHeight: ROW_HEIGHT,
      selected: view.current.sel,
    });
  };
  const virtualizer = useMemo(
    () =>
      new Virtualizer<HTMLDivElement, HTMLDivElement>({
        count: rows.length,
        getScrollElement: () => scrollRef.current,
        estimateSize: () => ROW_HEIGHT,
        overscan: 12,
        scrollToFn: elementScroll,
        observeElementRect,
        observeElementOffset,
        // Chromium and Firefox fire scrollend: no timer armed per scroll event to find the end of a scroll.
        useScrollendEvent: true,
        // A scroll frame redraws the pool directly; Preact renders only when the result or selection changes.
        onChange: () => draw(),
      }),
    [],
  );
  virtualizer.setOptions({ ...virtualizer.options, count: rows.length, onChange: () => draw() });
  useEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => virtualizer._willUpdate());
  // A new result (columns or widths) gets a new pool; new rows or a new selection only a redraw.
  useLayoutEffect(() => {
    pool.current = new RowPool(bodyRef.current!, columns, widths);
    return () => {
      pool.current?.dispose();
      pool.current = null;
    };
  }, [columns, widths]);
  useLayoutEffect(draw);

  const cellText = (r: number, c: number) => rows[r]?.[c] ?? null;
  const onKey = (e: KeyboardEvent) => {
    if (!sel) return;
    // 'C' too: with Caps Lock on (or Playwright's Control+C) the key reads upper case.
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'c') {
      e.preventDefault();
      void copyText(cellText(sel.r, sel.c) ?? 'NULL');
      return;
    }
    const moves: Record<string, [number, number]> = {
      ArrowUp: [-1, 0],
      ArrowDown: [1, 0],
      ArrowLeft: [0, -1],
      ArrowRight: [0, 1],
    };
    const m = moves[e.key];
    if (m) {
      e.preventDefault();
      const r = Math.max(0, Math.min(rows.length - 1, sel.r + m[0]));
      const c = Math.max(0, Math.min(columns.length - 1, sel.c + m[1]));
      setSel({ r, c });
      virtualizer.scrollToIndex(r);
    }
  };

  return (
    <div class="grid-wrap">
      <div class="grid-bar">
        <span>
          {rows.length.toLocaleString()} row{rows.length === 1 ? '' : 's'} loaded
        </span>
        {sel && (
          <button
            type="button"
            onClick={() => void copyText(cellText(sel.r, sel.c) ?? 'NULL')}
            title="Copy the selected cell (Ctrl/Cmd+C)"
          >
            Copy cell
          </button>
        )}
      </div>
      <div
        class="grid"
        ref={scrollRef}
        tabIndex={0}
        role="grid"
        aria-label={props.label ?? 'Result rows'}
        aria-rowcount={rows.length + 1}
        style={{ '--rownum-w': `${numWidth}px` }}
        onKeyDown={onKey}
        onClick={(e) => {
          const cell = (e.target as HTMLElement).closest<HTMLElement>('[data-c]');
          if (cell) setSel({ r: Number(cell.parentElement!.dataset.r), c: Number(cell.dataset.c) });
        }}
        onDblClick={(e) => {
          const cell = (e.target as HTMLElement).closest<HTMLElement>('[data-c]');
          if (cell)
            void copyText(cellText(Number(cell.parentElement!.dataset.r), Number(cell.dataset.c)) ?? 'NULL');
        }}
      >
        <div class="grid-head" style={{ width: `${total}px` }} role="row">
          <div class="gcell rownum" />
          {columns.map((c, i) => (
            <div
              class={`gcell${sort?.c === i ? ' sorted' : ''}`}
              role="columnheader"
              aria-sort={sort?.c === i ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
              style={{ width: `${widths[i]}px` }}
              onClick={() => cycleSort(i)}
              onMouseEnter={(e) => {
                const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
                setTip({ text: `${c.name} ${c.type_text ?? c.type_name}`, left: r.left, top: r.bottom + 2 });
              }}
              onMouseLeave={() => setTip(null)}
            >
              <b>{c.name}</b> <span class="type">{(c.type_text ?? c.type_name).toLowerCase()}</span>
              {sort?.c === i && (sort.dir === 'asc' ? <SortAsc size={12} /> : <SortDesc size={12} />)}
              <span
                class="resizer"
                role="separator"
                aria-orientation="vertical"
                aria-label={`Resize ${c.name}`}
                onPointerDown={(e) => startResize(i, e)}
                onClick={(e) => e.stopPropagation()}
              />
            </div>
          ))}
        </div>
        {/* The rows inside are RowPool's (row-pool.ts), not Preact's: it never renders children here. */}
        <div
          class="grid-body"
          ref={bodyRef}
          style={{ height: `${virtualizer.getTotalSize()}px`, width: `${total}px` }}
        />
      </div>
      {tip && (
        <div class="type-tip" role="tooltip" style={{ left: `${tip.left}px`, top: `${tip.top}px` }}>
          {tip.text}
        </div>
      )}
    </div>
  );
}
