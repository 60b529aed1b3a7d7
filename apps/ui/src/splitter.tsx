/**
 * A draggable divider between two panes (pointer or arrow keys), whose size is kept in localStorage under
 * `key`, so the layout a user chose survives a reload.
 */
import { useState } from 'preact/hooks';

export function useStoredSize(key: string, initial: number, min: number, max: () => number) {
  const [size, setSize] = useState(() => {
    const v = Number(localStorage.getItem(key));
    return Number.isFinite(v) && v > 0 ? v : initial;
  });
  const set = (v: number) => {
    const clamped = Math.round(Math.max(min, Math.min(max(), v)));
    setSize(clamped);
    localStorage.setItem(key, String(clamped));
  };
  return [size, set] as const;
}

export function Splitter(props: {
  /** `vertical`: a vertical bar between side-by-side panes (drags along x); `horizontal`: between stacked ones. */
  orientation: 'vertical' | 'horizontal';
  size: number;
  onSize: (size: number) => void;
  label: string;
}) {
  const x = props.orientation === 'vertical';
  const start = (e: PointerEvent) => {
    e.preventDefault();
    const from = x ? e.clientX : e.clientY;
    const size0 = props.size;
    const move = (m: PointerEvent) => props.onSize(size0 + (x ? m.clientX : m.clientY) - from);
    const up = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      document.body.classList.remove('dragging');
    };
    document.body.classList.add('dragging');
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };
  return (
    <div
      class={`splitter ${props.orientation}`}
      role="separator"
      tabIndex={0}
      aria-orientation={props.orientation}
      aria-label={props.label}
      aria-valuenow={props.size}
      onPointerDown={start}
      onKeyDown={(e) => {
        const step = e.shiftKey ? 64 : 16;
        const less = x ? 'ArrowLeft' : 'ArrowUp';
        const more = x ? 'ArrowRight' : 'ArrowDown';
        if (e.key === less || e.key === more) {
          e.preventDefault();
          props.onSize(props.size + (e.key === more ? step : -step));
        }
      }}
    />
  );
}
