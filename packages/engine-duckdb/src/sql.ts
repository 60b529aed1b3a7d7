/**
 * The one way MiniLake builds DuckDB SQL text from values it did not write itself: every identifier and every
 * string literal that reaches the engine goes through `ident` or `literal`, so quoting rules cannot drift
 * between packages. Both refuse NUL bytes: DuckDB would cut the text there and run something else.
 */

/** Raised for a name or value that cannot be embedded in SQL text at all. */
export class SqlTextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlTextError';
  }
}

/** An always-quoted identifier: `a"b` becomes `"a""b"`. */
export function ident(name: string): string {
  if (name.includes('\0')) throw new SqlTextError('Identifiers must not contain NUL bytes');
  return `"${name.replaceAll('"', '""')}"`;
}

/** A dotted name with every part quoted: `qualified('c', 's', 't')` is `"c"."s"."t"`. */
export function qualified(...parts: string[]): string {
  return parts.map(ident).join('.');
}

/** A SQL literal: strings single-quoted with `'` doubled, numbers and booleans as written, null as NULL. */
export function literal(value: string | number | bigint | boolean | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new SqlTextError(`Not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === 'bigint') return value.toString();
  if (value.includes('\0')) throw new SqlTextError('String literals must not contain NUL bytes');
  return `'${value.replaceAll("'", "''")}'`;
}
