/** Small builders and readers for polyglot's AST nodes, shared by the rewriter and the naming pass. */
import type { Json, Node } from './common.js';

/** Spark's generated column names for nodes the rewrite replaced (current_database() ...). */
export const fixedNames = new WeakMap<object, string>();

export const named = (n: Node, name: string): Node => {
  fixedNames.set(n, name);
  return n;
};

export const str = (value: string): Node => ({ literal: { literal_type: 'string', value } });

export const ident = (name: string, quoted = true): Node => ({ name, quoted, trailing_comments: [] });

export const fn = (name: string, args: Json[]): Node => ({
  function: {
    name,
    args,
    distinct: false,
    trailing_comments: [],
    use_bracket_syntax: false,
    no_parens: false,
    quoted: false,
  },
});

export function kindOf(n: Json): [string, Node] | undefined {
  if (!n || typeof n !== 'object' || Array.isArray(n)) return undefined;
  const keys = Object.keys(n);
  if (keys.length !== 1) return undefined;
  const k = keys[0]!;
  const d = (n as Node)[k];
  return [k, (d && typeof d === 'object' ? d : {}) as Node];
}

export function isIdent(v: Json): v is { name: string; quoted: boolean } {
  return !!v && typeof v === 'object' && typeof (v as Node).name === 'string' && 'quoted' in (v as Node);
}

/** A table reference anywhere (FROM, INSERT, CREATE, DROP ...): {name, schema, catalog} identifiers. */
export function isTableRef(v: Node): boolean {
  return 'catalog' in v && 'schema' in v && isIdent(v.name);
}
