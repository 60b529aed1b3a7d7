/**
 * The grid's rows as a fixed pool of recycled DOM rows, written directly rather than re-rendered by Preact:
 * a scroll frame only refills the two or three rows that enter view (their `top` and their cells' text), so
 * its work does not grow with the rows on screen. Slot `i % size` shows row `i`, so every row in the range
 * has its own slot and a row that stays in view is never touched; rows leave and enter by reusing slots.
 */
import type { Cell, Column } from './api';

const NUMERIC = /^(TINYINT|SHORT|SMALLINT|INT|LONG|BIGINT|FLOAT|DOUBLE|DECIMAL|BYTE)$/;

interface Slot {
  el: HTMLDivElement;
  head: HTMLDivElement;
  num: Text;
  cells: HTMLDivElement[];
  /** The row index shown, -1 when the slot is hidden. */
  index: number;
  /** The row array shown (a new result or a refetched row refills the slot). */
  row: Cell[] | undefined;
  /** The selected column drawn in this slot, -1 when none. */
  selected: number;
}

export interface PoolView {
  rows: Cell[][];
  /** First and last index (inclusive) of the rows to show; last < first when none. */
  first: number;
  last: number;
  rowHeight: number;
  selected: { r: number; c: number } | null;
}

export class RowPool {
  private slots: Slot[] = [];
  private readonly baseClass: string[];

  constructor(
    private readonly host: HTMLElement,
    private readonly columns: Column[],
    private readonly widths: number[],
  ) {
    // Cell classes per column, worked out once, not per cell per frame.
    this.baseClass = columns.map((c) => (NUMERIC.test(c.type_name) ? 'gcell num' : 'gcell'));
  }

  /** Shows rows first..last. Returns how many slots were refilled (the frame's DOM work). */
  update(v: PoolView): number {
    const count = v.last - v.first + 1;
    if (count > this.slots.length) this.grow(count);
    const size = this.slots.length;
    const filled: Slot[] = [];
    // Hide the slots whose row left the range, before refilling, so a slot is written once per frame.
    for (const s of this.slots) {
      if (s.index !== -1 && (s.index < v.first || s.index > v.last)) {
        s.index = -1;
        s.el.hidden = true;
      }
    }
    for (let i = v.first; i <= v.last; i++) {
      const s = this.slots[i % size]!;
      const row = v.rows[i];
      const sel = v.selected?.r === i ? v.selected.c : -1;
      if (s.index === i && s.row === row) {
        if (s.selected !== sel) this.drawSelection(s, sel);
        continue;
      }
      this.fill(s, i, row ?? [], v.rowHeight, sel);
      filled.push(s);
    }
    if (filled.length) this.clipOverflowing(filled);
    return filled.length;
  }

  /**
   * Clips (with an ellipsis) only the cells whose text is wider than the cell. A clip on every cell made
   * Chromium's per-frame layerization cost grow with the cells on screen (each clip is a paint chunk of the
   * scrolled layer), about half the frame; most values fit. All reads come first (one layout of the new rows,
   * each row laid out on its own under `contain`), then all writes, so nothing thrashes.
   */
  private clipOverflowing(slots: Slot[]): void {
    const over: HTMLDivElement[] = [];
    for (const s of slots) {
      if (s.head.scrollWidth > s.head.clientWidth) over.push(s.head);
      for (const cell of s.cells) if (cell.scrollWidth > cell.clientWidth) over.push(cell);
    }
    for (const cell of over) cell.classList.add('clip');
  }

  private grow(count: number): void {
    // A new size changes which slot shows which row: every slot is refilled on this update.
    const size = Math.max(count, Math.ceil(this.slots.length * 1.25));
    while (this.slots.length < size) {
      const el = document.createElement('div');
      el.className = 'grow';
      el.setAttribute('role', 'row');
      el.hidden = true;
      const head = document.createElement('div');
      head.className = 'gcell rownum';
      const num = document.createTextNode('');
      head.append(num);
      el.append(head);
      const cells = this.columns.map((_, c) => {
        const cell = document.createElement('div');
        cell.setAttribute('role', 'gridcell');
        cell.dataset.c = String(c);
        cell.style.width = `${this.widths[c]}px`;
        el.append(cell);
        return cell;
      });
      this.host.append(el);
      this.slots.push({ el, head, num, cells, index: -1, row: undefined, selected: -1 });
    }
    for (const s of this.slots) {
      s.index = -1;
      s.el.hidden = true;
    }
  }

  private fill(s: Slot, index: number, row: Cell[], rowHeight: number, sel: number): void {
    s.index = index;
    s.row = row;
    s.selected = sel;
    const el = s.el;
    el.style.top = `${index * rowHeight}px`;
    el.dataset.r = String(index);
    el.setAttribute('aria-rowindex', String(index + 2));
    s.num.data = String(index + 1);
    s.head.className = 'gcell rownum';
    for (let c = 0; c < s.cells.length; c++) {
      const cell = s.cells[c]!;
      const v = row[c] ?? null;
      // One text node per cell, replaced as a whole: cheaper than diffing and never a stray node.
      cell.textContent = v === null ? 'NULL' : v;
      let cls = this.baseClass[c]!;
      if (v === null) cls += ' null';
      if (c === sel) cls += ' sel';
      if (cell.className !== cls) cell.className = cls;
      if (v === null) cell.dataset.null = '1';
      else delete cell.dataset.null;
    }
    el.hidden = false;
  }

  private drawSelection(s: Slot, sel: number): void {
    const prev = s.cells[s.selected];
    if (prev) prev.classList.remove('sel');
    const next = s.cells[sel];
    if (next) next.classList.add('sel');
    s.selected = sel;
  }

  dispose(): void {
    for (const s of this.slots) s.el.remove();
    this.slots = [];
  }
}
