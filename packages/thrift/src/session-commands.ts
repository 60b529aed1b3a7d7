/**
 * Recognises the statements whose effect outlives the statement in a Thrift session (`USE ...`, `SET k = v`,
 * `SET TIME ZONE ...`). The text still runs through the statement service unchanged (it validates USE and
 * answers SET); this only reads the words so the session can remember the namespace and its settings.
 */

interface Word {
  text: string;
  quoted: boolean;
}

/** The words of a statement after its leading comments: identifiers, `.`, `=` and quoted strings. */
function words(sql: string, max = 8): Word[] {
  const out: Word[] = [];
  let i = 0;
  while (i < sql.length && out.length < max) {
    const ch = sql[i]!;
    if (/\s/.test(ch) || ch === ';') i++;
    else if (sql.startsWith('--', i)) {
      const e = sql.indexOf('\n', i);
      i = e < 0 ? sql.length : e + 1;
    } else if (sql.startsWith('/*', i)) {
      const e = sql.indexOf('*/', i + 2);
      i = e < 0 ? sql.length : e + 2;
    } else if (ch === '`' || ch === "'" || ch === '"') {
      const e = sql.indexOf(ch, i + 1);
      out.push({ text: sql.slice(i + 1, e < 0 ? sql.length : e), quoted: true });
      i = e < 0 ? sql.length : e + 1;
    } else if (ch === '.' || ch === '=') {
      out.push({ text: ch, quoted: false });
      i++;
    } else {
      const s = i;
      while (i < sql.length && !/[\s.=;`'"]/.test(sql[i]!)) i++;
      out.push({ text: sql.slice(s, i), quoted: false });
    }
  }
  return out;
}

const kw = (w: Word | undefined, k: string) => !!w && !w.quoted && w.text.toUpperCase() === k;

export type SessionCommand =
  { kind: 'use'; catalog?: string; schema?: string } | { kind: 'set'; key: string; value: string };

export function sessionCommand(sql: string): SessionCommand | undefined {
  const w = words(sql, 12);
  if (kw(w[0], 'USE')) {
    let k = 1;
    let target: 'catalog' | 'schema' | undefined;
    if (kw(w[k], 'CATALOG')) {
      target = 'catalog';
      k++;
    } else if (kw(w[k], 'SCHEMA') || kw(w[k], 'DATABASE')) {
      target = 'schema';
      k++;
    }
    const parts: string[] = [];
    for (; k < w.length; k++) if (w[k]!.text !== '.') parts.push(w[k]!.text);
    if (parts.length === 0) return undefined;
    if (target === 'catalog') return { kind: 'use', catalog: parts[0]!, schema: 'default' };
    if (parts.length >= 2) return { kind: 'use', catalog: parts[0]!, schema: parts[1]! };
    return { kind: 'use', schema: parts[0]! };
  }
  if (kw(w[0], 'SET')) {
    if (kw(w[1], 'TIME') && kw(w[2], 'ZONE') && w[3])
      return {
        kind: 'set',
        key: 'spark.sql.session.timeZone',
        value: kw(w[3], 'LOCAL') ? 'Etc/UTC' : w[3].text,
      };
    const eq = w.findIndex((x) => x.text === '=' && !x.quoted);
    if (eq > 1) {
      const key = w
        .slice(1, eq)
        .map((x) => x.text)
        .join('');
      const value = w
        .slice(eq + 1)
        .map((x) => x.text)
        .join('');
      return { kind: 'set', key, value };
    }
  }
  return undefined;
}
