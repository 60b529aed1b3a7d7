/**
 * SCIM mechanics with no state: the filter language (RFC 7644 §3.4.2.2, the subset Databricks documents:
 * eq, ne, co, sw, ew, gt/ge/lt/le, pr, and/or/not, parentheses), attribute lookup, projection with
 * `attributes`/`excludedAttributes`, and sorting. Attribute names are case-insensitive, as SCIM says.
 *
 * The filter parser is our own, not an npm SCIM filter library: the well-used ones (scim2-parse-filter,
 * scim-query-filter-parser) follow the RFC grammar strictly and refuse two forms Databricks accepts and real
 * clients send, single-quoted strings (the Terraform provider's `displayName eq 'x'`) and unquoted values (the
 * Python SDK's `displayName eq any-abc123`); using one would mean re-tokenizing the filter before it anyway.
 */
import { scimInvalidFilter } from './errors.js';

export type Resource = Record<string, unknown>;

type Compare = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
type Literal = string | number | boolean | null;

export type Filter =
  | { kind: 'and' | 'or'; left: Filter; right: Filter }
  | { kind: 'not'; inner: Filter }
  | { kind: 'pr'; path: string }
  | { kind: 'cmp'; op: Compare; path: string; value: Literal };

const COMPARE = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);

interface Token {
  t: 'word' | 'str' | 'lp' | 'rp' | 'lb' | 'rb';
  v: string;
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')' || ch === '[' || ch === ']') {
      out.push({ t: ({ '(': 'lp', ')': 'rp', '[': 'lb', ']': 'rb' } as const)[ch], v: ch });
      i++;
    } else if (ch === '"' || ch === "'") {
      // Databricks also accepts single-quoted strings (the Terraform provider sends displayName eq 'x').
      let s = '';
      i++;
      while (i < text.length && text[i] !== ch) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        s += text[i];
        i++;
      }
      if (i >= text.length) throw scimInvalidFilter(text, 'unterminated string');
      i++;
      out.push({ t: 'str', v: s });
    } else {
      let s = '';
      while (i < text.length && !/[\s()[\]"']/.test(text[i]!)) s += text[i++];
      out.push({ t: 'word', v: s });
    }
  }
  return out;
}

/** Parses a SCIM filter; a malformed one is a 400 with scimType invalidFilter. */
export function parseFilter(text: string): Filter {
  const tokens = tokenize(text);
  let pos = 0;
  const peekWord = () => (tokens[pos]?.t === 'word' ? tokens[pos]!.v.toLowerCase() : undefined);
  const fail = (why: string): never => {
    throw scimInvalidFilter(text, why);
  };

  const parseOr = (): Filter => {
    let left = parseAnd();
    while (peekWord() === 'or') {
      pos++;
      left = { kind: 'or', left, right: parseAnd() };
    }
    return left;
  };
  const parseAnd = (): Filter => {
    let left = parseUnary();
    while (peekWord() === 'and') {
      pos++;
      left = { kind: 'and', left, right: parseUnary() };
    }
    return left;
  };
  const parseUnary = (): Filter => {
    const tok = tokens[pos];
    if (!tok) return fail('unexpected end of filter');
    if (tok.t === 'word' && tok.v.toLowerCase() === 'not' && tokens[pos + 1]?.t === 'lp') {
      pos++;
      return { kind: 'not', inner: parseUnary() };
    }
    if (tok.t === 'lp') {
      pos++;
      const inner = parseOr();
      if (tokens[pos]?.t !== 'rp') fail('missing closing parenthesis');
      pos++;
      return inner;
    }
    if (tok.t !== 'word') return fail(`unexpected '${tok.v}'`);
    pos++;
    let path = tok.v;
    // value filters on a multi-valued attribute, e.g. emails[type eq "work"] — reduced to the sub-attribute
    if (tokens[pos]?.t === 'lb') {
      pos++;
      const inner = parseOr();
      if (tokens[pos]?.t !== 'rb') fail('missing closing bracket');
      pos++;
      return { kind: 'and', left: prefix(inner, path), right: { kind: 'pr', path } };
    }
    const op = peekWord();
    if (!op) return fail(`missing operator after '${path}'`);
    pos++;
    if (op === 'pr') return { kind: 'pr', path };
    if (!COMPARE.has(op)) return fail(`unsupported operator '${op}'`);
    const vt = tokens[pos];
    if (!vt) return fail(`missing value after '${path} ${op}'`);
    pos++;
    let value: Literal;
    if (vt.t === 'str') value = vt.v;
    else if (vt.t === 'word') {
      const w = vt.v.toLowerCase();
      if (w === 'true' || w === 'false') value = w === 'true';
      else if (w === 'null') value = null;
      else if (/^-?\d+(\.\d+)?$/.test(w)) value = Number(w);
      // An unquoted word is a string: RFC 7644 wants quotes, Databricks does not (the Python SDK's own tests
      // send `displayName eq any-abc123`). It ends at whitespace or a bracket, as the tokenizer reads it.
      else value = vt.v;
    } else return fail(`invalid value '${vt.v}'`);
    path = path.trim();
    return { kind: 'cmp', op: op as Compare, path, value };
  };

  const result = parseOr();
  if (pos !== tokens.length) fail(`unexpected '${tokens[pos]!.v}'`);
  return result;
}

function prefix(f: Filter, parent: string): Filter {
  switch (f.kind) {
    case 'and':
    case 'or':
      return { kind: f.kind, left: prefix(f.left, parent), right: prefix(f.right, parent) };
    case 'not':
      return { kind: 'not', inner: prefix(f.inner, parent) };
    default:
      return { ...f, path: `${parent}.${f.path}` };
  }
}

/** Finds a property ignoring case. */
function prop(obj: unknown, name: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined;
  const rec = obj as Record<string, unknown>;
  if (name in rec) return rec[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(rec)) if (k.toLowerCase() === lower) return rec[k];
  return undefined;
}

/** All values at a dotted path; multi-valued attributes fan out, and `emails` alone means `emails.value`. */
export function valuesAt(resource: Resource, path: string): unknown[] {
  let current: unknown[] = [resource];
  for (const part of path.split('.')) {
    const next: unknown[] = [];
    for (const c of current) {
      const v = prop(c, part);
      if (Array.isArray(v)) next.push(...v);
      else if (v !== undefined) next.push(v);
    }
    current = next;
  }
  return current.map((v) =>
    v !== null && typeof v === 'object' && 'value' in v ? (v as Resource).value : v,
  );
}

function compare(op: Compare, actual: unknown, expected: Literal, caseExact: boolean): boolean {
  if (expected === null) return op === 'ne' ? actual !== null && actual !== undefined : actual == null;
  if (typeof expected === 'boolean' || typeof actual === 'boolean') {
    const eq = String(actual).toLowerCase() === String(expected).toLowerCase();
    return op === 'eq' ? eq : op === 'ne' ? !eq : false;
  }
  let a = String(actual);
  let e = String(expected);
  if (!caseExact) {
    a = a.toLowerCase();
    e = e.toLowerCase();
  }
  switch (op) {
    case 'eq':
      return a === e;
    case 'ne':
      return a !== e;
    case 'co':
      return a.includes(e);
    case 'sw':
      return a.startsWith(e);
    case 'ew':
      return a.endsWith(e);
    case 'gt':
      return a > e;
    case 'ge':
      return a >= e;
    case 'lt':
      return a < e;
    case 'le':
      return a <= e;
  }
}

/** `id` and `externalId` are case-exact in SCIM; names and e-mails are not. */
const CASE_EXACT = new Set(['id', 'externalid', 'value']);

export function matches(resource: Resource, f: Filter): boolean {
  switch (f.kind) {
    case 'and':
      return matches(resource, f.left) && matches(resource, f.right);
    case 'or':
      return matches(resource, f.left) || matches(resource, f.right);
    case 'not':
      return !matches(resource, f.inner);
    case 'pr':
      return valuesAt(resource, f.path).some((v) => v !== null && v !== '' && v !== undefined);
    case 'cmp': {
      const values = valuesAt(resource, f.path);
      const last = f.path.split('.').pop()!.toLowerCase();
      const exact = CASE_EXACT.has(last) && f.path.toLowerCase() !== 'emails.value';
      if (f.op === 'ne') return !values.some((v) => compare('eq', v, f.value, exact));
      return values.some((v) => compare(f.op, v, f.value, exact));
    }
  }
}

const splitList = (s: string | undefined) =>
  (s ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);

/**
 * Applies `attributes` (only these, plus id and schemas which SCIM always returns) or `excludedAttributes`.
 * Dotted names select or drop a sub-attribute (`name.givenName`). A schema URN prefix is ignored.
 */
export function project(resource: Resource, attributes?: string, excluded?: string): Resource {
  const strip = (a: string) => a.replace(/^urn:[^ ]*:/i, '');
  const include = splitList(attributes).map(strip);
  const exclude = splitList(excluded).map(strip);
  if (include.length === 0 && exclude.length === 0) return resource;
  const findKey = (obj: Resource, name: string) =>
    Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  let out: Resource;
  if (include.length > 0) {
    out = {};
    for (const always of ['schemas', 'id']) if (always in resource) out[always] = resource[always];
    for (const a of include) {
      const [top, sub] = a.split('.', 2) as [string, string | undefined];
      const key = findKey(resource, top);
      if (!key) continue;
      const value = resource[key];
      if (sub && value && typeof value === 'object' && !Array.isArray(value)) {
        const subKey = findKey(value as Resource, sub);
        if (!subKey) continue;
        const existing = (out[key] as Resource | undefined) ?? {};
        out[key] = { ...existing, [subKey]: (value as Resource)[subKey] };
      } else if (sub && Array.isArray(value)) {
        out[key] = value.map((item: Resource) => {
          const subKey = findKey(item, sub);
          return subKey ? { [subKey]: item[subKey] } : {};
        });
      } else out[key] = value;
    }
  } else out = { ...resource };
  for (const a of exclude) {
    const [top, sub] = a.split('.', 2) as [string, string | undefined];
    const key = findKey(out, top);
    if (!key || key === 'id' || key === 'schemas') continue;
    if (!sub) {
      delete out[key];
      continue;
    }
    const value = out[key];
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const copy = { ...(value as Resource) };
      const subKey = findKey(copy, sub);
      if (subKey) delete copy[subKey];
      out[key] = copy;
    }
  }
  return out;
}

/** Sorts by an attribute path (first value), ascending unless sortOrder is descending; missing values last. */
export function sortResources(
  items: Resource[],
  sortBy: string | undefined,
  sortOrder: string | undefined,
): Resource[] {
  if (!sortBy) return items;
  const dir = sortOrder?.toLowerCase() === 'descending' ? -1 : 1;
  const key = (r: Resource) => {
    const v = valuesAt(r, sortBy)[0];
    return v === undefined || v === null ? undefined : String(v).toLowerCase();
  };
  return [...items].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka === kb) return 0;
    if (ka === undefined) return 1;
    if (kb === undefined) return -1;
    return ka < kb ? -dir : dir;
  });
}
