/**
 * The UI's icons, drawn as inline SVG (16×16, `currentColor`): no icon font and no emoji, whose glyphs a
 * browser may lack (Debian's Chromium drew the volume's 🗀 as an empty box). Decorative: hidden from screen
 * readers, the button or link beside them carries the name.
 */
import type { JSX } from 'preact';

type Props = { size?: number; class?: string; title?: string };

function svg(paths: JSX.Element, p: Props, fill = false) {
  const s = p.size ?? 14;
  return (
    <svg
      class={`icon${p.class ? ` ${p.class}` : ''}`}
      width={s}
      height={s}
      viewBox="0 0 16 16"
      fill={fill ? 'currentColor' : 'none'}
      stroke={fill ? 'none' : 'currentColor'}
      stroke-width="1.5"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden={p.title ? undefined : 'true'}
      role={p.title ? 'img' : undefined}
    >
      {p.title && <title>{p.title}</title>}
      {paths}
    </svg>
  );
}

export const Play = (p: Props) => svg(<path d="M4 2.5v11l9-5.5z" />, p, true);
export const Stop = (p: Props) => svg(<rect x="3.5" y="3.5" width="9" height="9" rx="1" />, p, true);
export const Refresh = (p: Props) => svg(<path d="M13 8a5 5 0 1 1-1.5-3.6M13 2.5v3h-3" />, p);
export const ChevronRight = (p: Props) => svg(<path d="M6 3.5 10.5 8 6 12.5" />, p);
export const ChevronDown = (p: Props) => svg(<path d="M3.5 6 8 10.5 12.5 6" />, p);
export const Close = (p: Props) => svg(<path d="M4 4l8 8M12 4l-8 8" />, p);
export const Dot = (p: Props) => svg(<circle cx="8" cy="8" r="3.5" />, p, true);
export const Plus = (p: Props) => svg(<path d="M8 3v10M3 8h10" />, p);
export const Catalog = (p: Props) =>
  svg(
    <>
      <ellipse cx="8" cy="4" rx="5" ry="2" />
      <path d="M3 4v8c0 1.1 2.2 2 5 2s5-.9 5-2V4M3 8c0 1.1 2.2 2 5 2s5-.9 5-2" />
    </>,
    p,
  );
export const Schema = (p: Props) =>
  svg(
    <>
      <rect x="2" y="2.5" width="5" height="4" rx="1" />
      <rect x="9" y="9.5" width="5" height="4" rx="1" />
      <path d="M4.5 6.5v5H9" />
    </>,
    p,
  );
export const Table = (p: Props) =>
  svg(
    <>
      <rect x="2" y="2.5" width="12" height="11" rx="1" />
      <path d="M2 6h12M2 9.5h12M6.5 6v7.5" />
    </>,
    p,
  );
export const Column = (p: Props) => svg(<path d="M5 3h6M5 8h6M5 13h6M3 3h.01M3 8h.01M3 13h.01" />, p);
export const Folder = (p: Props) =>
  svg(<path d="M2 4.5a1 1 0 0 1 1-1h3.2l1.3 1.5H13a1 1 0 0 1 1 1v6.5a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1z" />, p);
export const Volume = (p: Props) =>
  svg(
    <>
      <rect x="2" y="3" width="12" height="10" rx="1.5" />
      <path d="M5 6.5h6M5 9.5h4" />
    </>,
    p,
  );
export const File = (p: Props) => svg(<path d="M4 2h5l3 3v9H4zM9 2v3h3" />, p);
export const Notebook = (p: Props) =>
  svg(
    <>
      <rect x="3" y="2" width="10" height="12" rx="1" />
      <path d="M6 2v12M8 5h3M8 8h3" />
    </>,
    p,
  );
export const Dashboard = (p: Props) =>
  svg(
    <>
      <rect x="2" y="2" width="5" height="7" rx="1" />
      <rect x="9" y="2" width="5" height="4" rx="1" />
      <rect x="9" y="8" width="5" height="6" rx="1" />
      <rect x="2" y="11" width="5" height="3" rx="1" />
    </>,
    p,
  );
export const Experiment = (p: Props) =>
  svg(<path d="M6 2h4M7 2v4L3.5 12.5A1 1 0 0 0 4.4 14h7.2a1 1 0 0 0 .9-1.5L9 6V2" />, p);
export const Upload = (p: Props) => svg(<path d="M8 11V3M4.5 6.5 8 3l3.5 3.5M3 13h10" />, p);
export const Download = (p: Props) => svg(<path d="M8 3v8M4.5 7.5 8 11l3.5-3.5M3 13h10" />, p);
export const Trash = (p: Props) => svg(<path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 9h5.8l.6-9" />, p);
export const SortAsc = (p: Props) => svg(<path d="M8 12.5v-9M4.5 7 8 3.5 11.5 7" />, p);
export const SortDesc = (p: Props) => svg(<path d="M8 3.5v9M4.5 9 8 12.5 11.5 9" />, p);
export const Bell = (p: Props) => svg(<path d="M4 11V7.5a4 4 0 0 1 8 0V11l1 1.5H3zM6.5 14h3" />, p);
export const Server = (p: Props) =>
  svg(
    <>
      <rect x="2.5" y="2.5" width="11" height="4.5" rx="1" />
      <rect x="2.5" y="9" width="11" height="4.5" rx="1" />
      <path d="M5 4.75h.01M5 11.25h.01" />
    </>,
    p,
  );
export const Help = (p: Props) =>
  svg(
    <>
      <circle cx="8" cy="8" r="6" />
      <path d="M6.3 6.2a1.8 1.8 0 0 1 3.4.8c0 1.2-1.7 1.5-1.7 2.6M8 11.5h.01" />
    </>,
    p,
  );
