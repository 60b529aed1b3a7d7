import { describe, expect, it } from 'vitest';
import { errorClass, errorPosition, offsetOf } from '../src/error-position';
import { toCsv, toJson } from '../src/export';
import { dottedPrefix, referencedTables } from '../src/sql-language';

const columns = [
  { name: 'id', type_name: 'LONG', position: 0 },
  { name: 'label', type_name: 'STRING', position: 1 },
  { name: 'ok', type_name: 'BOOLEAN', position: 2 },
];

describe('exports', () => {
  it('CSV tells NULL (empty field) from the empty string ("") and quotes what needs it', () => {
    const csv = toCsv(columns, [
      ['1', null, 'true'],
      ['2', '', 'false'],
      ['3', 'a,"b"\nc', null],
    ]);
    expect(csv).toBe('id,label,ok\r\n1,,true\r\n2,"",false\r\n3,"a,""b""\nc",\r\n');
  });

  it('JSON types values from the manifest and keeps NULL as null', () => {
    expect(JSON.parse(toJson(columns, [['9007199254740993', null, 'true']]))).toEqual([
      { id: '9007199254740993', label: null, ok: true },
    ]);
    expect(JSON.parse(toJson(columns, [['7', '', 'false']]))).toEqual([{ id: 7, label: '', ok: false }]);
  });
});

describe('completion context', () => {
  it('splits the dotted name before the cursor, backquotes included', () => {
    expect(dottedPrefix('SELECT * FROM ')).toEqual(['']);
    expect(dottedPrefix('SELECT * FROM main.')).toEqual(['main', '']);
    expect(dottedPrefix('SELECT * FROM main.def')).toEqual(['main', 'def']);
    expect(dottedPrefix('FROM `my cat`.`odd``name`.t')).toEqual(['my cat', 'odd`name', 't']);
  });

  it('finds the three-part tables a statement reads, for their columns', () => {
    expect(referencedTables('SELECT  FROM uic.default.t1 JOIN `a b`.s.t2 ON x')).toEqual([
      ['uic', 'default', 't1'],
      ['a b', 's', 't2'],
    ]);
  });
});

describe('error positions', () => {
  it('reads the position the way Databricks and MiniLake write it', () => {
    // A Databricks parse error: pos counts from 0.
    expect(
      errorPosition("[PARSE_SYNTAX_ERROR] Syntax error at or near 'FRM'. SQLSTATE: 42601 (line 1, pos 9)"),
    ).toEqual({ line: 1, column: 10 });
    // An analysis error: `; line L pos P`.
    expect(
      errorPosition(
        '[TABLE_OR_VIEW_NOT_FOUND] The table or view `nope` cannot be found. SQLSTATE: 42P01; line 2 pos 14',
      ),
    ).toEqual({ line: 2, column: 15 });
    // MiniLake's tokenizer: column counts from 1.
    expect(
      errorPosition(
        '[PARSE_SYNTAX_ERROR] Syntax error: Tokenization error at line 2, column 7: Unterminated string.',
      ),
    ).toEqual({ line: 2, column: 7 });
    expect(errorPosition('[DIVIDE_BY_ZERO] Division by zero.')).toBeNull();
  });

  it('maps a line/column onto the statement text, clamped to the line end', () => {
    const text = "SELECT 1 AS a,\n  'abc";
    expect(offsetOf(text, { line: 1, column: 1 })).toBe(0);
    expect(offsetOf(text, { line: 2, column: 3 })).toBe(17);
    expect(text[offsetOf(text, { line: 2, column: 3 })]).toBe("'");
    expect(offsetOf(text, { line: 2, column: 7 })).toBe(text.length);
    expect(offsetOf(text, { line: 1, column: 99 })).toBe(14);
    expect(offsetOf(text, { line: 9, column: 1 })).toBe(text.length);
  });

  it('takes the error class from the head of the message', () => {
    expect(errorClass('[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column …')).toBe(
      'UNRESOLVED_COLUMN.WITH_SUGGESTION',
    );
    expect(errorClass('no class here')).toBeUndefined();
  });
});
