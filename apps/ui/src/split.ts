/**
 * A script split into its statements at the semicolons that end them, the way the Databricks SQL editor runs
 * a script: a semicolon inside a string ('…', "…"), a backquoted name or a comment (-- …, /* … *\/) does not
 * split. Each statement keeps its offset in the script, so an error position maps back onto the editor.
 * Statements that are only whitespace and comments are dropped.
 */
export interface Piece {
  text: string;
  /** Offset of the statement's first character in the script. */
  offset: number;
}

export function splitStatements(script: string): Piece[] {
  const out: Piece[] = [];
  let start = 0;
  let i = 0;
  const push = (end: number) => {
    const raw = script.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const text = raw.trim();
    if (text && stripComments(text).trim()) out.push({ text, offset: start + lead });
  };
  while (i < script.length) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === "'" || c === '"' || c === '`') {
      // Backslash escapes in strings (Databricks SQL), a doubled quote in any of the three.
      i++;
      while (i < script.length) {
        if (script[i] === '\\' && c !== '`') i += 2;
        else if (script[i] === c && script[i + 1] === c) i += 2;
        else if (script[i] === c) break;
        else i++;
      }
      i++;
    } else if (c === '-' && next === '-') {
      while (i < script.length && script[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = script.indexOf('*/', i + 2);
      i = end < 0 ? script.length : end + 2;
    } else if (c === ';') {
      push(i);
      start = ++i;
    } else i++;
  }
  push(script.length);
  return out;
}

function stripComments(s: string): string {
  return s.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}
