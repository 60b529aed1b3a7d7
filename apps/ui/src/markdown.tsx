/**
 * The Markdown of a dashboard's text widgets (headings, paragraphs, lists, emphasis, code, links), turned
 * into Preact elements rather than an HTML string: the text is a dashboard author's, and nothing of it can
 * become markup or script. Links keep only http(s) and mailto targets. A library would bring an HTML
 * sanitizer along for the same few constructs.
 */
import type { ComponentChildren } from 'preact';

const SAFE_URL = /^(https?:|mailto:)/i;

/** Inline spans: `code`, **bold**, *italic* / _italic_, [text](url). */
export function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*]+)\*|_([^_]+)_|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(<code>{m[1]}</code>);
    else if (m[2] !== undefined || m[3] !== undefined) out.push(<strong>{inline(m[2] ?? m[3]!)}</strong>);
    else if (m[4] !== undefined || m[5] !== undefined) out.push(<em>{inline(m[4] ?? m[5]!)}</em>);
    else if (m[6] !== undefined)
      out.push(
        SAFE_URL.test(m[7]!) ? (
          <a href={m[7]} target="_blank" rel="noopener noreferrer">
            {inline(m[6])}
          </a>
        ) : (
          m[6]
        ),
      );
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function Markdown(props: { text: string }) {
  const blocks: ComponentChildren[] = [];
  const lines = props.text.replace(/\r\n?/g, '\n').split('\n');
  let para: string[] = [];
  let list: { ordered: boolean; items: string[] } | null = null;
  const flush = () => {
    if (para.length) blocks.push(<p>{inline(para.join(' '))}</p>);
    para = [];
    if (list) {
      const items = list.items.map((i) => <li>{inline(i)}</li>);
      blocks.push(list.ordered ? <ol>{items}</ol> : <ul>{items}</ul>);
    }
    list = null;
  };
  for (const line of lines) {
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    const ul = /^\s*[-*+]\s+(.*)$/.exec(line);
    const ol = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    if (h) {
      flush();
      const level = Math.min(6, h[1]!.length);
      const H = `h${level}` as 'h1';
      blocks.push(<H>{inline(h[2]!)}</H>);
    } else if (ul || ol) {
      if (para.length) flush();
      const ordered = Boolean(ol);
      if (list && list.ordered !== ordered) flush();
      list ??= { ordered, items: [] };
      list.items.push((ul ?? ol)![1]!);
    } else if (line.trim() === '') flush();
    else {
      if (list) flush();
      para.push(line.trim());
    }
  }
  flush();
  return <div class="md">{blocks}</div>;
}
