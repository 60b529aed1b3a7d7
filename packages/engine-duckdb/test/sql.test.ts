import { describe, expect, it } from 'vitest';
import { ident, literal, qualified, SqlTextError } from '../src/sql.js';

describe('SQL text building', () => {
  it('quotes identifiers and doubles embedded quotes', () => {
    expect(ident('default')).toBe('"default"');
    expect(ident('a"b')).toBe('"a""b"');
    expect(qualified('c', 's.x', 't')).toBe('"c"."s.x"."t"');
  });
  it('escapes string literals and renders other values', () => {
    expect(literal("it's")).toBe("'it''s'");
    expect(literal(null)).toBe('NULL');
    expect(literal(true)).toBe('TRUE');
    expect(literal(42)).toBe('42');
    expect(literal(10n ** 20n)).toBe('100000000000000000000');
  });
  it('refuses NUL bytes and non-finite numbers', () => {
    expect(() => ident('a\0b')).toThrow(SqlTextError);
    expect(() => literal('a\0b')).toThrow(SqlTextError);
    expect(() => literal(Number.NaN)).toThrow(SqlTextError);
  });
});
