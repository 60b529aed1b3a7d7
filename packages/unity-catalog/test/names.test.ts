import { describe, expect, it } from 'vitest';
import { viewQuery } from '../src/names.js';

describe('viewQuery', () => {
  it('returns the query of the CREATE VIEW text DuckDB stores', () => {
    expect(viewQuery('CREATE VIEW v AS SELECT 42 AS x;')).toBe('SELECT 42 AS x');
    expect(viewQuery('CREATE VIEW v (a, b) AS SELECT 1, 2;')).toBe('SELECT 1, 2');
    expect(viewQuery('CREATE VIEW main__ml."default".v AS\nSELECT *\nFROM t;\n')).toBe('SELECT *\nFROM t');
  });

  it('is not cut short by AS inside quoted names, strings or parentheses', () => {
    expect(viewQuery('CREATE VIEW "x AS y" ("c AS d") AS SELECT \'a AS b\' AS c;')).toBe(
      "SELECT 'a AS b' AS c",
    );
    expect(viewQuery('CREATE VIEW "q""" AS SELECT 1;')).toBe('SELECT 1');
    expect(viewQuery('CREATE VIEW v (a) AS (SELECT CAST(1 AS INT) AS a);')).toBe(
      '(SELECT CAST(1 AS INT) AS a)',
    );
  });

  it('answers undefined for text without a top-level AS', () => {
    expect(viewQuery('CREATE VIEW v')).toBeUndefined();
  });
});
