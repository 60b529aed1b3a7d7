/**
 * The result grid: only the rows in view (plus a few) are in the DOM, placed by @tanstack/virtual-core, so
 * 100,000 rows scroll like 100. NULL is drawn as a dim NULL, an empty string as nothing; a click selects a
 * cell, Ctrl/Cmd+C (or the Copy button) copies it.
 */
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';
import { Component } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import type { Cell, Column } from './api';

export const ROW_HEIGHT = 24;
const NUMERIC = /^(TINYINT|SHORT|SMALLINT|INT|LONG|BIGINT|FLOAT|DOUBLE|DECIMAL|BYTE)$/;

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
  const { columns, rows } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const [sel, setSel] = useState<{ r: number; c: number } | null>(null);
  const widths = useMemo(
    () => columns.map((c, i) => widthFor(c, rows, i)),
    // Widths follow the first chunk; later chunks must not make columns jump while scrolling.
    [columns, rows.length > 0],
  );
  const total = widths.reduce((a, b) => a + b, 48);

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
        onChange: () => rerender(0),
      }),
    [],
  );
  virtualizer.setOptions({ ...virtualizer.options, count: rows.length });
  useEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => virtualizer._willUpdate());

  const cellText = (r: number, c: number) => rows[r]?.[c] ?? null;
  const onKey = (e: KeyboardEvent) => {
    if (!sel) return;
    if ((e.ctrlKey || e.metaKey) && e.key === 'c') {
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

  const items = virtualizer.getVirtualItems();
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
            <div class="gcell" role="columnheader" style={{ width: `${widths[i]}px` }} title={c.type_text}>
              <b>{c.name}</b> <span class="type">{(c.type_text ?? c.type_name).toLowerCase()}</span>
            </div>
          ))}
        </div>
        <div style={{ height: `${virtualizer.getTotalSize()}px`, width: `${total}px`, position: 'relative' }}>
          {items.map((it) => (
            <Row
              key={it.index}
              index={it.index}
              start={it.start}
              row={rows[it.index]!}
              columns={columns}
              widths={widths}
              selected={sel?.r === it.index ? sel.c : -1}
            />
          ))}
        </div>
      </div>
    </div>
  );
}

interface RowProps {
  index: number;
  start: number;
  row: Cell[];
  columns: Column[];
  widths: number[];
  /** The selected column in this row, -1 when none. */
  selected: number;
}

/** One row; re-rendered only when it moves or changes, so a scroll frame touches only the rows entering view. */
class Row extends Component<RowProps> {
  override shouldComponentUpdate(n: RowProps): boolean {
    const p = this.props;
    return (
      n.start !== p.start ||
      n.row !== p.row ||
      n.selected !== p.selected ||
      n.widths !== p.widths ||
      n.columns !== p.columns
    );
  }
  override render() {
    const { index, start, row, columns, widths, selected } = this.props;
    return (
      <div
        class="grow"
        role="row"
        aria-rowindex={index + 2}
        data-r={index}
        style={{ transform: `translateY(${start}px)`, height: `${ROW_HEIGHT}px` }}
      >
        <div class="gcell rownum">{index + 1}</div>
        {columns.map((col, c) => {
          const v = row[c] ?? null;
          return (
            <div
              role="gridcell"
              data-c={c}
              class={`gcell${v === null ? ' null' : ''}${NUMERIC.test(col.type_name) ? ' num' : ''}${selected === c ? ' sel' : ''}`}
              style={{ width: `${widths[c]}px` }}
              data-null={v === null ? '1' : undefined}
            >
              {v === null ? 'NULL' : v}
            </div>
          );
        })}
      </div>
    );
  }
}
