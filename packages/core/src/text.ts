/**
 * Small parsers that several API groups need and that had drifted apart when each wrote its own: base64
 * payloads, LIKE-style name patterns and nested query parameters (`filter_by.x`).
 */

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes a base64 payload (workspace import `content`, DBFS `data`, secrets `bytes_value`, init scripts), or
 * undefined when it is not base64. Whitespace (line-wrapped encoders) is ignored and padding is optional, as
 * the JVM decoder Databricks uses accepts it; a length that no encoder produces (4n+1) is refused. Each
 * caller turns undefined into its own error naming its field.
 */
export function parseBase64(text: string): Buffer | undefined {
  // Fast path for what encoders send (one line, standard alphabet): decode, and accept only when every
  // character counted (Node's decoder skips what is not base64, so anything else decodes short). The
  // anchored regex below costs ~100 ms on a 1 MiB DBFS block (1.4 MB of text), this ~5 ms; the answers
  // are the same (fuzzed against each other). Lengths 4n+1 of the body are left to the full check: one
  // skipped character there would not shorten the result.
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const body = text.length - pad;
  if (body % 4 !== 1 && text.length % 4 !== 1 && !text.includes('-') && !text.includes('_')) {
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length === Math.floor((body * 3) / 4)) return bytes;
  }
  const clean = text.replace(/\s+/g, '');
  if (!BASE64.test(clean) || clean.length % 4 === 1) return undefined;
  return Buffer.from(clean, 'base64');
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A case-insensitive whole-name matcher for the two pattern syntaxes Databricks uses for names:
 * - `sql`: SQL LIKE as the REST APIs take it (`schema_name_pattern`): `%` any run, `_` one character, and
 *   `*` also any run (clients send both);
 * - `show`: the pattern of `SHOW TABLES/SCHEMAS/... LIKE '...'`: `*` any run, `|` separates alternatives,
 *   each trimmed; everything else literal.
 */
export function namePattern(pattern: string, syntax: 'sql' | 'show'): RegExp {
  if (syntax === 'show') {
    const alts = pattern.split('|').map((a) => a.trim().split('*').map(escapeRegex).join('.*'));
    return new RegExp(`^(?:${alts.join('|')})$`, 'i');
  }
  const body = [...pattern]
    .map((ch) => (ch === '%' || ch === '*' ? '.*' : ch === '_' ? '.' : escapeRegex(ch)))
    .join('');
  return new RegExp(`^${body}$`, 'i');
}

/** The spellings clients use for a nested query parameter: `filter_by.states` and `filter_by[states]`. */
function spellings(name: string): string[] {
  const [head, ...rest] = name.split('.');
  return rest.length === 0 ? [name] : [name, `${head}${rest.map((r) => `[${r}]`).join('')}`];
}

/**
 * Every value of a nested query parameter as the SDKs flatten it (`filter_by.cluster_states=A&
 * filter_by.cluster_states=B`, `filter_by[statuses]=A,B`): repeated keys and comma-separated lists alike,
 * empty values dropped.
 */
export function nestedQueryValues(url: string | URL, name: string): string[] {
  const params = (typeof url === 'string' ? new URL(url) : url).searchParams;
  return spellings(name)
    .flatMap((k) => params.getAll(k))
    .flatMap((x) => x.split(','))
    .filter(Boolean);
}

/** The single value of a nested query parameter (the first given, as URLSearchParams.get), either spelling. */
export function nestedQueryValue(url: string | URL, name: string): string | undefined {
  const params = (typeof url === 'string' ? new URL(url) : url).searchParams;
  for (const k of spellings(name)) {
    const value = params.get(k);
    if (value !== null) return value;
  }
  return undefined;
}
