/**
 * A dashboard chart widget (bar, line, area, scatter, pie) drawn with ECharts from the widget's encodings:
 * `x`, `y` (one field, or `y.fields` for several measures), `color` (a field that splits the rows into
 * series; for pie the slices' names, with `angle` their values), `mark.colors`, the axes' titles. Rows come
 * from the widget's statement; a temporal x is a time axis, a quantitative one a value axis.
 */
import { BarChart, LineChart, PieChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'preact/hooks';
import type { Cell, Column } from './api';

echarts.use([
  BarChart,
  LineChart,
  PieChart,
  ScatterChart,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  SVGRenderer,
]);

interface Enc {
  fieldName?: string;
  displayName?: string;
  scale?: { type?: string };
  axis?: { title?: string };
  fields?: { fieldName: string; displayName?: string }[];
}
export interface ChartSpec {
  widgetType: string;
  encodings: Record<string, Enc | undefined>;
  colors?: string[];
}

const num = (v: Cell) => (v === null ? null : Number(v));

/** The ECharts option for a widget's rows; exported for the unit tests. */
export function dashboardChartOption(
  spec: ChartSpec,
  columns: Column[],
  rows: Cell[][],
): echarts.EChartsCoreOption {
  const col = (name?: string) => (name === undefined ? -1 : columns.findIndex((c) => c.name === name));
  const e = spec.encodings;
  const base = { animation: false, ...(spec.colors?.length ? { color: spec.colors } : {}) };
  if (spec.widgetType === 'pie') {
    const value = col(e.angle?.fieldName ?? e.y?.fieldName ?? (e as Record<string, Enc>).value?.fieldName);
    const label = col(e.color?.fieldName ?? e.x?.fieldName ?? (e as Record<string, Enc>).label?.fieldName);
    return {
      ...base,
      tooltip: { trigger: 'item' },
      legend: { type: 'scroll', bottom: 0 },
      series: [
        {
          type: 'pie',
          radius: '62%',
          data: rows.map((r) => ({
            name: label >= 0 ? (r[label] ?? 'null') : '',
            value: num(r[value] ?? null),
          })),
          label: { formatter: '{b}: {c}' },
        },
      ],
    };
  }
  const x = col(e.x?.fieldName);
  const ys = e.y?.fields?.length ? e.y.fields : e.y?.fieldName ? [e.y] : [];
  const yIdx = ys.map((y) => col(y.fieldName)).filter((i) => i >= 0);
  const colorIdx = col(e.color?.fieldName);
  const xType = e.x?.scale?.type;
  const axisType =
    spec.widgetType === 'scatter' || xType === 'quantitative'
      ? 'value'
      : xType === 'temporal'
        ? 'time'
        : 'category';
  const kind = spec.widgetType === 'area' ? 'line' : spec.widgetType;
  const labels = Boolean((e as Record<string, { show?: boolean } | undefined>).label?.show);
  const seriesOf = (name: string, data: unknown[]) => ({
    name,
    type: kind,
    data,
    ...(labels && kind !== 'scatter' ? { label: { show: true, position: 'top' } } : {}),
    ...(spec.widgetType === 'area' ? { areaStyle: {}, stack: colorIdx >= 0 ? 'total' : undefined } : {}),
    ...(kind === 'bar' && colorIdx >= 0 ? { stack: 'total' } : {}),
    ...(kind === 'scatter' ? { symbolSize: 7 } : {}),
  });
  const point = (r: Cell[], yi: number) =>
    axisType === 'category'
      ? num(r[yi] ?? null)
      : [axisType === 'value' ? num(r[x] ?? null) : r[x], num(r[yi] ?? null)];
  const categories = axisType === 'category' ? [...new Set(rows.map((r) => r[x] ?? 'null'))] : undefined;
  let series;
  if (colorIdx >= 0 && yIdx.length) {
    // One series per value of the color field, aligned on the x categories.
    const groups = new Map<string, Cell[][]>();
    for (const r of rows) {
      const k = r[colorIdx] ?? 'null';
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k)!.push(r);
    }
    series = [...groups].map(([name, rs]) => {
      if (!categories)
        return seriesOf(
          name,
          rs.map((r) => point(r, yIdx[0]!)),
        );
      const byX = new Map(rs.map((r) => [r[x] ?? 'null', num(r[yIdx[0]!] ?? null)]));
      return seriesOf(
        name,
        categories.map((c) => byX.get(c) ?? null),
      );
    });
  } else {
    series = yIdx.map((yi, i) =>
      seriesOf(
        ys[i]?.displayName ?? columns[yi]!.name,
        rows.map((r) => point(r, yi)),
      ),
    );
  }
  return {
    ...base,
    tooltip: { trigger: kind === 'scatter' ? 'item' : 'axis' },
    legend: { show: series.length > 1, top: 0, type: 'scroll' },
    // Room above the plot for the legend and the y axis's name.
    grid: { left: 56, right: 16, top: series.length > 1 ? 36 : 28, bottom: 44, containLabel: false },
    xAxis: {
      type: axisType,
      name: e.x?.axis?.title ?? e.x?.displayName ?? columns[x]?.name,
      nameLocation: 'middle',
      nameGap: 28,
      ...(categories ? { data: categories } : {}),
    },
    yAxis: {
      type: 'value',
      nameTextStyle: { align: 'left' },
      name: ys.length === 1 ? (e.y?.axis?.title ?? ys[0]!.displayName) : e.y?.axis?.title,
    },
    series,
  };
}

export function DashboardChart(props: { spec: ChartSpec; columns: Column[]; rows: Cell[][]; label: string }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  useEffect(() => {
    const c = echarts.init(el.current!, null, { renderer: 'svg' });
    chart.current = c;
    const ro = new ResizeObserver(() => c.resize());
    ro.observe(el.current!);
    return () => {
      ro.disconnect();
      c.dispose();
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(dashboardChartOption(props.spec, props.columns, props.rows), { notMerge: true });
  }, [props.spec, props.columns, props.rows]);
  return <div class="dash-chart" ref={el} role="img" aria-label={props.label} />;
}
