import { CsvError, parseBooleanCell, parseCsv } from './csv';

describe('parseCsv', () => {
  it('reads RFC 4180 records with their line numbers', () => {
    const text = '\ufeffemail,name\r\na@x.io,"Smith, ""JJ"""\n\nb@x.io,"two\nlines"\nc@x.io,';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ['email', 'name'] },
      { line: 2, fields: ['a@x.io', 'Smith, "JJ"'] },
      { line: 4, fields: ['b@x.io', 'two\nlines'] },
      { line: 6, fields: ['c@x.io', ''] },
    ]);
  });

  it('keeps empty quoted fields and a last line without newline', () => {
    expect(parseCsv('a,""\n""')).toEqual([
      { line: 1, fields: ['a', ''] },
      { line: 2, fields: [''] },
    ]);
  });

  it('rejects an unterminated quote', () => {
    expect(() => parseCsv('email\n"open')).toThrow(CsvError);
  });
});

describe('parseBooleanCell', () => {
  it.each([
    ['true', true],
    ['YES', true],
    ['1', true],
    ['false', false],
    ['no', false],
    ['0', false],
    ['', undefined],
    ['  ', undefined],
    ['maybe', null],
  ])('%j → %j', (cell, expected) => {
    expect(parseBooleanCell(cell)).toBe(expected);
  });
});
