/**
 * Where in the statement a failed statement's error points, read from its message the way Databricks writes
 * it: `(line 1, pos 9)` after a parse error, `; line 1 pos 14` after an analysis error (pos counts from 0),
 * and MiniLake's tokenizer's `at line 2, column 7` (column counts from 1). Lines count from 1 everywhere.
 */
export interface ErrorPosition {
  /** 1-based line in the statement text. */
  line: number;
  /** 1-based column in that line. */
  column: number;
}

const FORMS: { re: RegExp; columnBase: 0 | 1 }[] = [
  { re: /\(line (\d+), pos (\d+)\)/, columnBase: 0 },
  { re: /\bline (\d+),? pos (\d+)\b/, columnBase: 0 },
  { re: /\bat line (\d+), column (\d+)\b/, columnBase: 1 },
];

export function errorPosition(message: string): ErrorPosition | null {
  for (const { re, columnBase } of FORMS) {
    const m = re.exec(message);
    if (!m) continue;
    const line = Number(m[1]);
    const column = Number(m[2]) + (columnBase === 0 ? 1 : 0);
    if (line >= 1 && column >= 1) return { line, column };
  }
  return null;
}

/**
 * The offset in `text` of a line/column position, clamped to the line's end and the text's end (a
 * tokenizer stuck at the end of input points one past the last character).
 */
export function offsetOf(text: string, pos: ErrorPosition): number {
  let offset = 0;
  for (let l = 1; l < pos.line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  const end = text.indexOf('\n', offset);
  const lineEnd = end < 0 ? text.length : end;
  return Math.min(offset + pos.column - 1, lineEnd);
}

/** `[TABLE_OR_VIEW_NOT_FOUND] The table…` -> `TABLE_OR_VIEW_NOT_FOUND` (Databricks leads with the error class). */
export function errorClass(message: string): string | undefined {
  return /^\[([A-Z0-9_]+(?:\.[A-Z0-9_]+)*)\]/.exec(message)?.[1];
}
