import { describe, expect, it } from 'vitest';
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
