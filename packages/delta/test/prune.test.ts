/** File pruning from partition values and stats (no Spark, no DuckDB): conservative by construction. */
import { describe, expect, it } from 'vitest';
import { type AddAction, type PruneTerm, mayMatch, parseSchemaString } from '../src/index.js';

const schema = parseSchemaString(
  JSON.stringify({
    type: 'struct',
    fields: [
      { name: 'id', type: 'long', nullable: true, metadata: {} },
      { name: 'name', type: 'string', nullable: true, metadata: {} },
      { name: 'day', type: 'date', nullable: true, metadata: {} },
      { name: 'x', type: 'double', nullable: true, metadata: {} },
      { name: 'p', type: 'integer', nullable: true, metadata: {} },
    ],
  }),
);
const file = (stats: unknown, p: string | null = '1'): AddAction => ({
  path: 'f.parquet',
  partitionValues: { p },
  size: 1,
  modificationTime: 0,
  dataChange: true,
  stats: stats === undefined ? null : JSON.stringify(stats),
});
const f = file({
  numRecords: 10,
  minValues: { id: 10, name: 'b', day: '2024-01-10', x: 1 },
  maxValues: { id: 20, name: 'k', day: '2024-01-20', x: 2 },
  nullCount: { id: 0, name: 3, day: 0, x: 0 },
});
const may = (terms: PruneTerm[], a: AddAction = f) => mayMatch(a, terms, { schema, partitionColumns: ['p'] });

describe('mayMatch', () => {
  it('rules files out by min/max, null counts and partition values', () => {
    expect(may([{ column: 'id', op: '=', values: [15] }])).toBe(true);
    expect(may([{ column: 'ID', op: '=', values: [21] }])).toBe(false);
    expect(may([{ column: 'id', op: '<', values: [10] }])).toBe(false);
    expect(may([{ column: 'id', op: '<=', values: [10] }])).toBe(true);
    expect(may([{ column: 'id', op: '>', values: [20] }])).toBe(false);
    expect(may([{ column: 'id', op: 'in', values: [1, 2, 30] }])).toBe(false);
    expect(may([{ column: 'id', op: 'in', values: [1, 12] }])).toBe(true);
    expect(may([{ column: 'id', op: 'null', values: [] }])).toBe(false);
    expect(may([{ column: 'name', op: 'null', values: [] }])).toBe(true);
    expect(may([{ column: 'name', op: '>', values: ['z'] }])).toBe(false);
    expect(may([{ column: 'day', op: '>=', values: ['2024-02-01'] }])).toBe(false);
    expect(may([{ column: 'p', op: '=', values: [2] }])).toBe(false);
    expect(may([{ column: 'p', op: 'in', values: [1, 2] }])).toBe(true);
    expect(may([{ column: 'p', op: 'null', values: [] }], file({}, null))).toBe(true);
    expect(may([{ column: 'p', op: '=', values: [1] }], file({}, null))).toBe(false);
    // Every term must hold.
    expect(
      may([
        { column: 'id', op: '>=', values: [15] },
        { column: 'p', op: '=', values: [3] },
      ]),
    ).toBe(false);
  });

  it('keeps the file whenever it cannot judge', () => {
    expect(may([{ column: 'x', op: '>', values: [5] }])).toBe(true); // doubles: NaN is outside the bounds
    expect(may([{ column: 'id', op: '=', values: ['15'] }])).toBe(true); // a string against a long
    expect(may([{ column: 'name', op: '=', values: ['é'] }])).toBe(true); // byte order vs UTF-16 order
    expect(may([{ column: 'nope', op: '=', values: [1] }])).toBe(true);
    expect(may([{ column: 'id', op: '=', values: [99] }], file(undefined))).toBe(true); // no stats
    expect(may([{ column: 'id', op: '=', values: [2 ** 60] }])).toBe(true);
    const allNull = file({ numRecords: 4, nullCount: { id: 4 } });
    expect(may([{ column: 'id', op: '=', values: [1] }], allNull)).toBe(false);
    expect(may([{ column: 'id', op: 'notnull', values: [] }], allNull)).toBe(false);
  });
});
