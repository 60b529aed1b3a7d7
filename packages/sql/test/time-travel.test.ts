/** Delta time travel and path references, read from the parsed query (no Spark, no engine). */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPolyglot } from '../src/dialect/index.js';
import { translate } from '../src/dialect/translate.js';
import { parseTravelKey } from '../src/dialect/translate/common.js';
import { parseTimestampText } from '../src/dialect/translate/rewriter.js';

const o = () => ({
  alias: (c: string) => c,
  currentCatalog: 'main',
  sessionCatalog: 'main',
  sessionSchema: 'default',
  paramTypes: new Map<string, string | undefined>(),
});
const refs = (sql: string) => translate(sql, o()).tables.map(parseTravelKey);

beforeAll(async () => {
  await loadPolyglot();
});

describe('time travel on the parsed query', () => {
  it('reads VERSION AS OF, TIMESTAMP AS OF, @v and @yyyyMMddHHmmssSSS', () => {
    expect(refs('SELECT * FROM t VERSION AS OF 3')).toEqual([
      { table: 'main.default.t', path: undefined, at: { version: 3 } },
    ]);
    expect(refs("SELECT * FROM c.s.t TIMESTAMP AS OF '2024-01-31 12:00:00'")[0]!.at).toEqual({
      timestamp: Date.UTC(2024, 0, 31, 12),
    });
    expect(refs('SELECT * FROM s.t@v7')[0]).toEqual({
      table: 'main.s.t',
      path: undefined,
      at: { version: 7 },
    });
    expect(refs('SELECT * FROM t@20240131120000123')[0]!.at).toEqual({
      timestamp: Date.UTC(2024, 0, 31, 12, 0, 0, 123),
    });
    // Two references to one table at two versions are two tables to read.
    expect(refs('SELECT * FROM t@v1 a JOIN t b ON a.id = b.id').map((r) => r.at)).toEqual([
      { version: 1 },
      undefined,
    ]);
  });

  it('keeps a TIMESTAMP AS OF expression (and a VERSION AS OF marker) for the engine to fold', () => {
    expect(refs('SELECT * FROM t TIMESTAMP AS OF current_timestamp() - INTERVAL 1 HOUR')[0]!.at).toEqual({
      expr: "CURRENT_TIMESTAMP() - INTERVAL '1' HOUR",
      kind: 'timestamp',
    });
    expect(refs('SELECT * FROM t TIMESTAMP AS OF date_sub(current_date(), 1)')[0]!.at).toEqual({
      expr: 'DATE_SUB(CURRENT_DATE(), 1)',
      kind: 'timestamp',
    });
    expect(refs('SELECT * FROM t VERSION AS OF :v')[0]!.at).toEqual({ expr: ':v', kind: 'version' });
    // A literal string (even under a cast) is still read without the engine.
    expect(refs("SELECT * FROM t TIMESTAMP AS OF CAST('2024-01-31' AS DATE)")[0]!.at).toEqual({
      timestamp: Date.UTC(2024, 0, 31),
    });
    expect(() => translate('SELECT * FROM t TIMESTAMP AS OF rand()', o())).toThrow(
      /INVALID_TIME_TRAVEL_TIMESTAMP_EXPR\.NON_DETERMINISTIC/,
    );
    expect(() => translate('SELECT * FROM t TIMESTAMP AS OF x + INTERVAL 1 DAY', o())).toThrow(
      /INVALID_TIME_TRAVEL_TIMESTAMP_EXPR\.UNEVALUABLE/,
    );
  });

  it('reads delta.`/path` references, keeping the path as written', () => {
    expect(refs('SELECT * FROM delta.`/Data/My Table` VERSION AS OF 2')).toEqual([
      { table: undefined, path: '/Data/My Table', at: { version: 2 } },
    ]);
    // A table named delta.x in the current catalog is still a table.
    expect(refs('SELECT * FROM delta.x')[0]!.table).toBe('main.delta.x');
  });

  it('refuses what Delta refuses', () => {
    expect(() => translate('SELECT * FROM t@v1 VERSION AS OF 1', o())).toThrow(
      /DELTA_UNSUPPORTED_TIME_TRAVEL_MULTIPLE_FORMATS/,
    );
    expect(() => translate("SELECT * FROM t TIMESTAMP AS OF 'soon'", o())).toThrow(
      /INVALID_TIME_TRAVEL_TIMESTAMP_EXPR/,
    );
    expect(() => translate('SELECT * FROM t@20241399000000000', o())).toThrow(
      /DELTA_INVALID_TIMESTAMP_FORMAT/,
    );
  });

  it('parses timestamp strings as Spark casts them (UTC session)', () => {
    expect(parseTimestampText('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseTimestampText('2024-02-29T10:11:12.5Z')).toBe(Date.UTC(2024, 1, 29, 10, 11, 12, 500));
    expect(parseTimestampText('2024-02-29 10:11:12+02:00')).toBe(Date.UTC(2024, 1, 29, 8, 11, 12));
    expect(parseTimestampText('2023-02-29')).toBeUndefined();
    expect(parseTimestampText('yesterday')).toBeUndefined();
  });
});
