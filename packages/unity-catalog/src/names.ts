/**
 * Name rules. Databricks stores catalog, schema and object names lowercased; MiniLake accepts the portable
 * subset (letters, digits, `_`, `-`, up to 255 characters), so a name can never carry a quote, a dot, a slash
 * or a control character into SQL or a file path.
 */
import { invalidName } from './errors.js';

const NAME = /^[\p{L}\p{N}_-]{1,255}$/u;

export function checkName(what: string, name: string): string {
  if (typeof name !== 'string' || !NAME.test(name) || name === '-' || /^-+$/.test(name))
    throw invalidName(what, String(name));
  return name.toLowerCase();
}

/** Splits `a.b` / `a.b.c`; every part is validated. */
export function splitFullName(fullName: string, parts: 2 | 3, what: string): string[] {
  const segs = fullName.split('.');
  if (segs.length !== parts) throw invalidName(what, fullName);
  const labels = ['catalog', 'schema', what];
  return segs.map((s, i) => checkName(labels[i] ?? what, s));
}
