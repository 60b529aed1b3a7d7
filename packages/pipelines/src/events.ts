/**
 * The event log's read side: Databricks' `filter` (a small SQL-like language: `level='ERROR'`,
 * `level in ('ERROR', 'WARN')`, `id='...'`, `timestamp > '2021-07-22T06:37:33.083Z'`, `update_id = '...'`,
 * `event_type`, `origin.<field>`, combined with AND / OR / NOT and parentheses), `order_by`
 * (`timestamp asc|desc`, newest first by default) and paging with next and previous page tokens. A page
 * token carries the filter and the order it was made with (Databricks refuses other fields beside one).
 */
import { invalidParameter } from '@minilake/core';
import { badFilter } from './errors.js';
import { likeRegExp } from './like.js';
import type { EventRecord } from './store.js';

type Value = string | number;
type Node =
  | { op: 'and' | 'or'; a: Node; b: Node }
  | { op: 'not'; a: Node }
  | { op: 'cmp'; field: string; cmp: string; value: Value }
  | { op: 'in'; field: string; values: Value[] }
  | { op: 'like'; field: string; pattern: string; not: boolean };

const TOKEN =
  /\s*(?:(\()|(\))|(,)|('(?:[^']|'')*')|(-?\d+(?:\.\d+)?)|(<=|>=|!=|<>|=|<|>)|([A-Za-z_][\w.]*))/y;

function tokenize(text: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let i = 0;
  while (i < text.length) {
    if (/^\s*$/.test(text.slice(i))) break;
    TOKEN.lastIndex = i;
    const m = TOKEN.exec(text);
    if (!m) throw badFilter(text, `unexpected '${text.slice(i).trim().slice(0, 20)}'`);
    out.push(m.slice(1).find((x) => x !== undefined)!);
    i = TOKEN.lastIndex;
  }
  return out;
}

export function parseFilter(text: string): Node {
  const t = tokenize(text);
  let i = 0;
  const peek = () => t[i];
  const kw = (w: string) => peek()?.toLowerCase() === w;
  const next = () => {
    const x = t[i++];
    if (x === undefined) throw badFilter(text, 'it ends too early');
    return x;
  };
  const value = (): Value => {
    const x = next();
    if (x.startsWith("'")) return x.slice(1, -1).replace(/''/g, "'");
    if (/^-?\d/.test(x)) return Number(x);
    throw badFilter(text, `expected a quoted value, got ${x}`);
  };
  const expr = (): Node => {
    let a = term();
    while (kw('or')) {
      i++;
      a = { op: 'or', a, b: term() };
    }
    return a;
  };
  const term = (): Node => {
    let a = factor();
    while (kw('and')) {
      i++;
      a = { op: 'and', a, b: factor() };
    }
    return a;
  };
  const factor = (): Node => {
    if (peek() === '(') {
      i++;
      const e = expr();
      if (next() !== ')') throw badFilter(text, 'missing )');
      return e;
    }
    if (kw('not')) {
      i++;
      return { op: 'not', a: factor() };
    }
    const field = next();
    if (!/^[A-Za-z_][\w.]*$/.test(field)) throw badFilter(text, `expected a field, got ${field}`);
    const f = field.toLowerCase();
    if (kw('in')) {
      i++;
      if (next() !== '(') throw badFilter(text, 'IN needs a parenthesized list');
      const values = [value()];
      while (peek() === ',') {
        i++;
        values.push(value());
      }
      if (next() !== ')') throw badFilter(text, 'missing ) after the IN list');
      return { op: 'in', field: f, values };
    }
    let not = false;
    if (kw('not')) {
      i++;
      not = true;
      if (!kw('like')) throw badFilter(text, 'NOT goes with LIKE here');
    }
    if (kw('like')) {
      i++;
      const v = value();
      return { op: 'like', field: f, pattern: String(v), not };
    }
    const cmp = next();
    if (!/^(<=|>=|!=|<>|=|<|>)$/.test(cmp)) throw badFilter(text, `expected a comparison after ${field}`);
    return { op: 'cmp', field: f, cmp, value: value() };
  };
  const node = expr();
  if (i < t.length) throw badFilter(text, `unexpected '${t[i]}'`);
  return node;
}

function fieldOf(e: EventRecord, field: string): Value | undefined {
  const ev = e.event;
  if (field === 'timestamp') return e.ts;
  if (field === 'update_id')
    return e.update_id ?? (ev.origin as Record<string, string> | undefined)?.update_id;
  let cur: unknown = ev;
  for (const part of field.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return typeof cur === 'string' || typeof cur === 'number' ? cur : undefined;
}

function compareTo(field: string, actual: Value, expected: Value): number {
  if (field === 'timestamp') {
    const t = typeof expected === 'number' ? expected : Date.parse(expected);
    if (Number.isNaN(t)) throw invalidParameter(`Invalid timestamp in filter: ${expected}`);
    return (actual as number) - t;
  }
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  const a = String(actual);
  const b = String(expected);
  // levels and types compare without regard to case, as Databricks does
  const [x, y] = field === 'level' || field === 'event_type' ? [a.toUpperCase(), b.toUpperCase()] : [a, b];
  return x < y ? -1 : x > y ? 1 : 0;
}

export function matches(node: Node, e: EventRecord): boolean {
  switch (node.op) {
    case 'and':
      return matches(node.a, e) && matches(node.b, e);
    case 'or':
      return matches(node.a, e) || matches(node.b, e);
    case 'not':
      return !matches(node.a, e);
    case 'in': {
      const v = fieldOf(e, node.field);
      return v !== undefined && node.values.some((x) => compareTo(node.field, v, x) === 0);
    }
    case 'like': {
      const v = fieldOf(e, node.field);
      return v !== undefined && likeRegExp(node.pattern).test(String(v)) !== node.not;
    }
    case 'cmp': {
      const v = fieldOf(e, node.field);
      if (v === undefined) return false;
      const c = compareTo(node.field, v, node.value);
      switch (node.cmp) {
        case '=':
          return c === 0;
        case '!=':
        case '<>':
          return c !== 0;
        case '<':
          return c < 0;
        case '<=':
          return c <= 0;
        case '>':
          return c > 0;
        default:
          return c >= 0;
      }
    }
  }
}

interface Cursor {
  /** filter text */
  f?: string;
  /** ascending */
  a: boolean;
  /** the sequence number the page starts after (next) or ends before (prev) */
  s: number;
  /** direction: next or previous page */
  d: 'n' | 'p';
}

const encode = (c: Cursor) => Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
function decode(token: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Cursor;
    if (typeof c.s !== 'number' || typeof c.a !== 'boolean') throw new Error('shape');
    return c;
  } catch {
    throw invalidParameter(`Invalid page_token: ${token}`);
  }
}

export const EVENTS_DEFAULT_PAGE = 100;
export const EVENTS_MAX_PAGE = 250;

export function orderAscending(orderBy: string[]): boolean {
  if (orderBy.length === 0) return false;
  if (orderBy.length > 1)
    throw invalidParameter('order_by takes one field: timestamp asc or timestamp desc.');
  const m = /^\s*timestamp(?:\s+(asc|desc))?\s*$/i.exec(orderBy[0]!);
  if (!m) throw invalidParameter(`Invalid order_by '${orderBy[0]}': only timestamp asc|desc is supported.`);
  return (m[1] ?? 'asc').toLowerCase() === 'asc';
}

/** One page of a pipeline's events (`all` in sequence order). */
export function eventsPage(
  all: readonly EventRecord[],
  q: { filter?: string; orderBy: string[]; maxResults?: number; pageToken?: string },
): { events: Record<string, unknown>[]; next_page_token?: string; prev_page_token?: string } {
  if (q.maxResults !== undefined && q.maxResults < 0)
    throw invalidParameter('max_results must not be negative');
  const size = Math.min(q.maxResults || EVENTS_DEFAULT_PAGE, EVENTS_MAX_PAGE);
  let cur: Cursor | undefined;
  let filter = q.filter;
  let asc = orderAscending(q.orderBy);
  if (q.pageToken) {
    if (q.filter || q.orderBy.length)
      throw invalidParameter(
        'page_token cannot be combined with filter or order_by (they are in the token).',
      );
    cur = decode(q.pageToken);
    filter = cur.f;
    asc = cur.a;
  }
  const node = filter && filter.trim() ? parseFilter(filter) : undefined;
  const ordered = (asc ? [...all] : [...all].reverse()).filter((e) => !node || matches(node, e));
  const after = (e: EventRecord, s: number) => (asc ? e.seq > s : e.seq < s);
  let start: number;
  let end: number;
  if (!cur) {
    start = 0;
    end = Math.min(size, ordered.length);
  } else if (cur.d === 'n') {
    start = ordered.findIndex((e) => after(e, cur.s));
    if (start < 0) start = ordered.length;
    end = Math.min(start + size, ordered.length);
  } else {
    // the page that ends right before the event `s` (the first of the page the token came with)
    let k = ordered.findIndex((e) => e.seq === cur.s);
    if (k < 0) k = ordered.findIndex((e) => after(e, cur.s));
    end = k < 0 ? ordered.length : k;
    start = Math.max(0, end - size);
  }
  const items = ordered.slice(start, end);
  const out: { events: Record<string, unknown>[]; next_page_token?: string; prev_page_token?: string } = {
    events: items.map((e) => e.event),
  };
  const base = { ...(filter ? { f: filter } : {}), a: asc };
  if (end < ordered.length && items.length)
    out.next_page_token = encode({ ...base, s: items[items.length - 1]!.seq, d: 'n' });
  if (start > 0 && items.length) out.prev_page_token = encode({ ...base, s: items[0]!.seq, d: 'p' });
  return out;
}
