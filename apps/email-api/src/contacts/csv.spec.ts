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

  it('rejects an unterminated quote, naming the line', () => {
    expect(() => parseCsv('email\n"open')).toThrow(CsvError);
    expect(() => parseCsv('email\n"open')).toThrow(/line 2/);
  });

  it('counts a line break inside a quoted field once, whatever the file uses', () => {
    const records = [{ line: 1, fields: ['email', 'note'] }, { line: 2, fields: ['a@x.io', 'x\r\ny'] }, { line: 4, fields: ['b@x.io', 'c'] }];
    expect(parseCsv('email,note\r\na@x.io,"x\r\ny"\r\nb@x.io,c\r\n')).toEqual(records);
    expect(parseCsv('email,note\na@x.io,"x\ny"\n\nb@x.io,c')).toEqual([records[0], { line: 2, fields: ['a@x.io', 'x\ny'] }, { line: 5, fields: ['b@x.io', 'c'] }]);
  });

  it('ends records at CR alone too, and mixed line endings', () => {
    expect(parseCsv('email\ra@x.io\r\nb@x.io\nc@x.io\r')).toEqual([
      { line: 1, fields: ['email'] },
      { line: 2, fields: ['a@x.io'] },
      { line: 3, fields: ['b@x.io'] },
      { line: 4, fields: ['c@x.io'] },
    ]);
  });

  it('keeps a quote inside an unquoted field, and records of any length', () => {
    expect(parseCsv('email,name,city\na@x.io,5" tall\nb@x.io,B,Rome,extra')).toEqual([
      { line: 1, fields: ['email', 'name', 'city'] },
      { line: 2, fields: ['a@x.io', '5" tall'] },
      { line: 3, fields: ['b@x.io', 'B', 'Rome', 'extra'] },
    ]);
  });

  it('reads an empty file as no records', () => {
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv('\ufeff\r\n\n')).toEqual([]);
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
