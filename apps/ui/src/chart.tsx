/**
 * Charts from a result with ECharts' tree-shaken core (only bar/line/scatter/pie and two renderers are
 * bundled): drawn as SVG in the page, exported as that SVG or as a PNG drawn by a canvas twin.
 */
import { BarChart, LineChart, PieChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Cell, Column } from './api';
import { download, downloadBlob } from './export';

echarts.use([
  BarChart,
  LineChart,
  PieChart,
  ScatterChart,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  CanvasRenderer,
  SVGRenderer,
]);

export type ChartKind = 'bar' | 'line' | 'area' | 'scatter' | 'pie';
const NUMERIC = /^(TINYINT|SHORT|SMALLINT|INT|LONG|BIGINT|FLOAT|DOUBLE|DECIMAL|BYTE)$/;
/** Enough points for any chart a person reads; more only slows the SVG down. */
const MAX_POINTS = 5000;

export function chartOption(
  kind: ChartKind,
  columns: Column[],
  rows: Cell[][],
  x: number,
  ys: number[],
): echarts.EChartsCoreOption {
  const data = rows.slice(0, MAX_POINTS);
  const num = (v: Cell) => (v === null ? null : Number(v));
  if (kind === 'pie') {
    const y = ys[0] ?? 0;
    return {
      animation: false,
      tooltip: { trigger: 'item' },
      legend: { type: 'scroll', bottom: 0 },
      series: [
        {
          type: 'pie',
          radius: '65%',
          name: columns[y]?.name,
          data: data.map((r) => ({ name: r[x] ?? 'NULL', value: num(r[y] ?? null) })),
        },
      ],
    };
  }
  const xNumeric = kind === 'scatter' && NUMERIC.test(columns[x]?.type_name ?? '');
  return {
    animation: false,
    tooltip: { trigger: kind === 'scatter' ? 'item' : 'axis' },
    legend: { top: 0 },
    grid: { left: 56, right: 24, top: 36, bottom: 40 },
    xAxis: xNumeric
      ? { type: 'value', name: columns[x]?.name }
      : { type: 'category', name: columns[x]?.name, data: data.map((r) => r[x] ?? 'NULL') },
    yAxis: { type: 'value' },
    series: ys.map((y) => ({
      name: columns[y]?.name,
      type: kind === 'area' ? 'line' : kind,
      areaStyle: kind === 'area' ? {} : undefined,
      symbolSize: kind === 'scatter' ? 6 : undefined,
      data: xNumeric
        ? data.map((r) => [num(r[x] ?? null), num(r[y] ?? null)])
        : data.map((r) => num(r[y] ?? null)),
    })),
  };
}

export function ChartPanel(props: { columns: Column[]; rows: Cell[][] }) {
  const { columns, rows } = props;
  const numericCols = columns.map((c, i) => (NUMERIC.test(c.type_name) ? i : -1)).filter((i) => i >= 0);
  const [kind, setKind] = useState<ChartKind>('bar');
  const [x, setX] = useState(0);
  const [ys, setYs] = useState<number[]>(() => {
    const first = numericCols.find((i) => i !== 0) ?? numericCols[0];
    return first === undefined ? [] : [first];
  });
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  const option = chartOption(kind, columns, rows, x, ys);

  useEffect(() => {
    if (!el.current) return;
    const c = echarts.init(el.current, null, { renderer: 'svg' });
    chart.current = c;
    const ro = new ResizeObserver(() => c.resize());
    ro.observe(el.current);
    return () => {
      ro.disconnect();
      c.dispose();
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  });

  const exportSvg = () =>
    chart.current && downloadBlob('chart.svg', 'image/svg+xml', chart.current.renderToSVGString());
  const exportPng = () => {
    // A canvas twin of the same size draws the PNG; the SVG renderer's data URL would be SVG.
    const box = el.current!;
    const host = document.createElement('div');
    host.style.cssText = `position:fixed;left:-10000px;width:${box.clientWidth}px;height:${box.clientHeight}px`;
    document.body.append(host);
    const twin = echarts.init(host, null, { renderer: 'canvas' });
    twin.setOption(option);
    download('chart.png', twin.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: '#fff' }));
    twin.dispose();
    host.remove();
  };

  return (
    <div class="chart-panel">
      <div class="chart-controls">
        <label>
          Chart{' '}
          <select
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value as ChartKind)}
            aria-label="Chart type"
          >
            {(['bar', 'line', 'area', 'scatter', 'pie'] as const).map((k) => (
              <option value={k}>{k}</option>
            ))}
          </select>
        </label>
        <label>
          {kind === 'pie' ? 'Labels' : 'X axis'}{' '}
          <select value={x} onChange={(e) => setX(Number(e.currentTarget.value))} aria-label="X axis column">
            {columns.map((c, i) => (
              <option value={i}>{c.name}</option>
            ))}
          </select>
        </label>
        <fieldset class="series">
          <legend>{kind === 'pie' ? 'Value' : 'Series'}</legend>
          {columns.map((c, i) => (
            <label>
              <input
                type="checkbox"
                checked={ys.includes(i)}
                onChange={(e) =>
                  setYs(
                    e.currentTarget.checked
                      ? kind === 'pie'
                        ? [i]
                        : [...ys, i].sort((a, b) => a - b)
                      : ys.filter((v) => v !== i),
                  )
                }
              />
              {c.name}
            </label>
          ))}
        </fieldset>
        <button type="button" onClick={exportPng}>
          Export PNG
        </button>
        <button type="button" onClick={exportSvg}>
          Export SVG
        </button>
      </div>
      {rows.length > MAX_POINTS && <p class="note">Charting the first {MAX_POINTS.toLocaleString()} rows.</p>}
      <div class="chart" ref={el} role="img" aria-label={`${kind} chart of the result`} />
    </div>
  );
}
