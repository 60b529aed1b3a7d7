/**
 * Name rules. Databricks stores catalog, schema and object names lowercased; MiniLake accepts the portable
 * subset (letters, digits, `_`, `-`, up to 255 characters), so a name can never carry a quote, a dot, a slash
 * or a control character into SQL or a file path.
 */
import { invalidParameter } from '@minilake/core';
import { invalidName } from './errors.js';

const NAME = /^[\p{L}\p{N}_-]{1,255}$/u;

/** Names Databricks itself refuses: empty, or with a space, a period, a slash or a control character. */
const DATABRICKS_INVALID = /^$|[\s./\\\p{Cc}]/u;

/**
 * A valid name, lowercased. `rpc` names the create call (`CreateCatalog`, `managedcatalog.CatalogInfo.name`):
 * a name Databricks itself refuses gets Databricks' own message for that call (the CLI's goldens record it);
 * one that only MiniLake refuses gets MiniLake's, which says what it accepts.
 */
export function checkName(what: string, name: string, rpc?: { call: string; field: string }): string {
  if (typeof name !== 'string' || !NAME.test(name) || name === '-' || /^-+$/.test(name)) {
    if (rpc && typeof name === 'string' && DATABRICKS_INVALID.test(name))
      throw invalidParameter(
        `Invalid input: RPC ${rpc.call} Field ${rpc.field}: name ${JSON.stringify(name)} is not a valid name. Valid names cannot contain spaces, periods, forward slashes, or control characters.`,
      );
    throw invalidName(what, String(name));
  }
  return name.toLowerCase();
}

/** Splits `a.b` / `a.b.c`; every part is validated. */
export function splitFullName(fullName: string, parts: 2 | 3, what: string): string[] {
  const segs = fullName.split('.');
  if (segs.length !== parts) throw invalidName(what, fullName);
  const labels = ['catalog', 'schema', what];
  return segs.map((s, i) => checkName(labels[i] ?? what, s));
}

/**
 * The query of a view, from the `CREATE VIEW <name> [(<columns>)] AS <query>;` text DuckDB stores for it:
 * everything after the first `AS` keyword outside quotes and parentheses. A tokenizing scan, so a view or
 * column named with a quoted `AS` inside it cannot cut the definition short.
 */
export function viewQuery(createViewSql: string): string | undefined {
  const s = createViewSql;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '"' || ch === "'") {
      // Quoted identifier or string literal; a doubled quote is an escaped quote.
      for (i++; i < s.length; i++) {
        if (s[i] === ch) {
          if (s[i + 1] === ch) i++;
          else break;
        }
      }
    } else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (
      depth === 0 &&
      (ch === 'A' || ch === 'a') &&
      /\s/.test(s[i - 1] ?? '') &&
      (s[i + 1] === 'S' || s[i + 1] === 's') &&
      /\s/.test(s[i + 2] ?? '')
    ) {
      let end = s.length;
      while (end > i && (s[end - 1] === ';' || /\s/.test(s[end - 1]!))) end--;
      return s.slice(i + 2, end).trim();
    }
  }
  return undefined;
}
