/** Whole-result exports (every fetched row, not just the visible ones). */
import type { Cell, Column } from './api';

const INTEGER = /^(TINYINT|SHORT|SMALLINT|INT|LONG|BIGINT|BYTE)$/;
const FLOATING = /^(FLOAT|DOUBLE)$/;

/** RFC 4180: fields with a comma, quote or line break are quoted; NULL is an empty field, '' is `""`. */
export function toCsv(columns: Column[], rows: Cell[][]): string {
  const field = (v: Cell) =>
    v === null ? '' : v === '' || /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
  const lines = [columns.map((c) => field(c.name)).join(',')];
  for (const r of rows) lines.push(r.map(field).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** One object per row, values typed from the manifest (integers that fit, floats, booleans); NULL is null. */
export function toJson(columns: Column[], rows: Cell[][]): string {
  const convert = columns.map((c) => {
    if (INTEGER.test(c.type_name)) return (v: string) => (Number.isSafeInteger(Number(v)) ? Number(v) : v);
    if (FLOATING.test(c.type_name)) return (v: string) => (Number.isFinite(Number(v)) ? Number(v) : v);
    if (c.type_name === 'BOOLEAN') return (v: string) => v === 'true';
    return (v: string) => v;
  });
  const objs = rows.map((r) =>
    Object.fromEntries(columns.map((c, i) => [c.name, r[i] == null ? null : convert[i]!(r[i]!)])),
  );
  return JSON.stringify(objs, null, 1);
}

export function download(name: string, href: string) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
}

export function downloadBlob(name: string, type: string, content: string) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  download(name, url);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
