import { describe, expect, it } from 'vitest';
import { dashboardChartOption } from '../src/dash-chart';
import { sortRows } from '../src/grid';
import { layers, stateLabel } from '../src/pages/jobs';
import { datasetGraph, pipelineStateClass, type PipelineEvent } from '../src/pages/pipelines';
import { href, routeOf } from '../src/routes';
import { splitStatements } from '../src/split';

describe('a script split into statements', () => {
  it('splits at the semicolons that end statements, not those in strings, names or comments', () => {
    const script =
      'SELECT \'a;b\' AS x;\n-- a comment; still one\nSELECT `c;d`, "e;f" /* g; h */ FROM t;  ;\n  SELECT 3';
    const pieces = splitStatements(script);
    expect(pieces.map((p) => p.text)).toEqual([
      "SELECT 'a;b' AS x",
      '-- a comment; still one\nSELECT `c;d`, "e;f" /* g; h */ FROM t',
      'SELECT 3',
    ]);
    for (const p of pieces) expect(script.slice(p.offset, p.offset + p.text.length)).toBe(p.text);
  });

  it('keeps escaped quotes inside strings and drops statements that are only comments', () => {
    expect(splitStatements("SELECT 'it\\'s;' ; -- nothing\n; SELECT 'a''b;'").map((p) => p.text)).toEqual([
      "SELECT 'it\\'s;'",
      "SELECT 'a''b;'",
    ]);
  });
});

describe('sorting a result', () => {
  const cols = [
    { name: 'n', type_name: 'LONG', position: 0 },
    { name: 's', type_name: 'STRING', position: 1 },
  ];
  const rows = [
    ['10', 'b'],
    [null, 'a'],
    ['9', null],
    ['-1', 'c'],
  ];
  it('numbers as numbers, text by code point, NULLs last both ways, stable', () => {
    expect(sortRows(cols, rows, { c: 0, dir: 'asc' }).map((r) => r[0])).toEqual(['-1', '9', '10', null]);
    expect(sortRows(cols, rows, { c: 0, dir: 'desc' }).map((r) => r[0])).toEqual(['10', '9', '-1', null]);
    expect(sortRows(cols, rows, { c: 1, dir: 'asc' }).map((r) => r[1])).toEqual(['a', 'b', 'c', null]);
    expect(sortRows(cols, rows, null)).toBe(rows);
  });
});

describe('a run’s task graph', () => {
  it('puts each task one column after the deepest task it depends on, and survives a cycle', () => {
    const t = (task_key: string, deps: string[] = []) => ({
      run_id: 1,
      task_key,
      depends_on: deps.map((d) => ({ task_key: d })),
    });
    const l = layers([t('d', ['b', 'c']), t('a'), t('b', ['a']), t('c', ['a']), t('e', ['d', 'a'])]);
    expect(Object.fromEntries(l)).toEqual({ a: 0, b: 1, c: 1, d: 2, e: 3 });
    expect(layers([t('x', ['y']), t('y', ['x'])]).size).toBe(2);
  });
  it('reads the state a person wants: the result once finished', () => {
    expect(stateLabel({ state: { life_cycle_state: 'TERMINATED', result_state: 'SUCCESS' } })).toBe(
      'SUCCESS',
    );
    expect(stateLabel({ state: { life_cycle_state: 'RUNNING' } })).toBe('RUNNING');
  });
});

describe('addresses', () => {
  it('every page has one, and it round-trips', () => {
    const routes = [
      { view: 'editor' },
      { view: 'dashboard', id: 'abc', published: true, page: 'p1' },
      { view: 'catalog' },
      { view: 'catalog', catalog: 'c', schema: 's', name: 't x' },
      { view: 'catalog', catalog: 'c', schema: 's', name: 'v', path: 'raw/2024' },
      { view: 'queries', id: 'q1' },
      { view: 'workspace', path: '/Users/me@x.io/nb' },
      { view: 'job', jobId: 12 },
      { view: 'run', jobId: 12, runId: 34 },
      { view: 'run', runId: 35 },
      { view: 'pipelines' },
      { view: 'pipeline', id: '0f2e-4a1b' },
      { view: 'alerts' },
      { view: 'warehouses' },
      { view: 'warehouse', id: 'a1b2 c3' },
      { view: 'experiments' },
    ] as const;
    for (const r of routes) {
      const u = new URL(href(r), 'http://x');
      expect(routeOf(u.pathname, u.search)).toEqual(r);
    }
    expect(routeOf('/ui/nope')).toEqual({ view: 'editor' });
  });
});

describe("a pipeline's dataset graph", () => {
  let n = 0;
  const ev = (
    update: string,
    event_type: string,
    origin: PipelineEvent['origin'],
    details: PipelineEvent['details'],
  ): PipelineEvent => ({
    id: String(++n),
    timestamp: `2026-01-01T00:00:${String(n).padStart(2, '0')}Z`,
    event_type,
    origin: { update_id: update, ...origin },
    details,
  });
  it("draws the newest update's datasets with their flows' last status and the inputs flows name", () => {
    const events = [
      ev(
        'u1',
        'dataset_definition',
        { dataset_name: 'c.s.old' },
        { dataset_definition: { dataset_type: 'MATERIALIZED_VIEW' } },
      ),
      ev(
        'u2',
        'dataset_definition',
        { dataset_name: 'c.s.a' },
        { dataset_definition: { dataset_type: 'STREAMING_TABLE' } },
      ),
      ev(
        'u2',
        'dataset_definition',
        { dataset_name: 'c.s.b' },
        { dataset_definition: { dataset_type: 'MATERIALIZED_VIEW' } },
      ),
      ev(
        'u2',
        'flow_definition',
        { flow_name: 'c.s.a', dataset_name: 'c.s.a' },
        { flow_definition: { output_dataset: 'c.s.a' } },
      ),
      ev(
        'u2',
        'flow_definition',
        { flow_name: 'c.s.b', dataset_name: 'c.s.b' },
        { flow_definition: { output_dataset: 'c.s.b', input_datasets: [{ name: 'c.s.a' }, 'elsewhere.x'] } },
      ),
      ev(
        'u2',
        'flow_progress',
        { flow_name: 'c.s.a', dataset_name: 'c.s.a' },
        { flow_progress: { status: 'RUNNING' } },
      ),
      ev(
        'u2',
        'flow_progress',
        { flow_name: 'c.s.a', dataset_name: 'c.s.a' },
        { flow_progress: { status: 'COMPLETED' } },
      ),
      ev('u2', 'flow_progress', { flow_name: 'c.s.b' }, { flow_progress: { status: 'FAILED' } }),
      ev('u3', 'update_progress', {}, { update_progress: { state: 'RUNNING' } }),
    ];
    const g = datasetGraph(events.reverse());
    expect(g.updateId).toBe('u2');
    expect(g.nodes).toEqual([
      { name: 'c.s.a', type: 'STREAMING_TABLE', status: 'COMPLETED', inputs: [] },
      { name: 'c.s.b', type: 'MATERIALIZED_VIEW', status: 'FAILED', inputs: ['c.s.a'] },
    ]);
    expect(datasetGraph([]).nodes).toEqual([]);
  });
  it('colours states as the jobs pages do', () => {
    expect(
      ['COMPLETED', 'FAILED', 'CANCELED', 'RUNNING', 'IDLE', 'WAITING_FOR_RESOURCES'].map(pipelineStateClass),
    ).toEqual(['finished', 'failed', 'failed', 'running', '', 'running']);
  });
});

describe('dashboard charts', () => {
  const cols = [
    { name: 'day', type_name: 'DATE', position: 0 },
    { name: 'region', type_name: 'STRING', position: 1 },
    { name: 'amount', type_name: 'DOUBLE', position: 2 },
  ];
  const rows = [
    ['2024-01-01', 'n', '1'],
    ['2024-01-01', 's', '2'],
    ['2024-01-02', 'n', '3'],
  ];
  it('splits series by the color field, aligned on the x categories', () => {
    const o = dashboardChartOption(
      {
        widgetType: 'bar',
        encodings: { x: { fieldName: 'day' }, y: { fieldName: 'amount' }, color: { fieldName: 'region' } },
      },
      cols,
      rows,
    ) as { series: { name: string; data: unknown[] }[]; xAxis: { data: string[] } };
    expect(o.xAxis.data).toEqual(['2024-01-01', '2024-01-02']);
    expect(o.series.map((s) => [s.name, s.data])).toEqual([
      ['n', [1, 3]],
      ['s', [2, null]],
    ]);
  });
  it('draws a pie from angle and color', () => {
    const o = dashboardChartOption(
      { widgetType: 'pie', encodings: { angle: { fieldName: 'amount' }, color: { fieldName: 'region' } } },
      cols,
      rows,
    ) as { series: { data: { name: string; value: number }[] }[] };
    expect(o.series[0]!.data).toEqual([
      { name: 'n', value: 1 },
      { name: 's', value: 2 },
      { name: 'n', value: 3 },
    ]);
  });
});
